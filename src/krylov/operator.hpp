// The Operator interface Krylov solvers multiply with: y = A x on the device. A sparse matrix
// is one (MatrixOperator); a matrix-free operator (a Kronecker product, a stencil applied on
// the fly) is another.
#pragma once

#include "core/sparse_matrix.hpp"

#include <array>
#include <string>

namespace fgdd {

class Operator {
 public:
  virtual ~Operator() = default;
  virtual Offset num_rows() const = 0;
  // y = A x. x and y have num_rows() entries and do not alias.
  virtual void apply(const ExecSpace& space, ConstVector x, Vector y) const = 0;
  // y = A x, returning this process's {<w, y>, <y, y>} (callers pass them through global_sum).
  // The default applies and then reads both vectors once more; an operator may fuse the sums
  // into its product.
  virtual std::array<double, 2> apply_dots(const ExecSpace& space, ConstVector x, Vector y,
                                           ConstVector w) const;
  // y = Aᵀ x, for solvers that need it (BiCG). The default throws InvalidInput.
  virtual bool has_transpose() const noexcept { return false; }
  virtual void apply_transpose(const ExecSpace& space, ConstVector x, Vector y) const;
  virtual std::string name() const = 0;

  // Sums values[0..count) over every process that shares the vectors (MPI ranks of a
  // distributed operator, whose vectors hold each rank's own rows). Krylov methods pass every
  // local dot product through it, so one code serves one device and many. Default: one process.
  virtual void sum_over_ranks(double* values, int count) const {
    (void)values;
    (void)count;
  }
  // The largest of value over the same processes (the scaled norms' first pass).
  virtual double max_over_ranks(double value) const { return value; }
  double global_sum(double local) const {
    sum_over_ranks(&local, 1);
    return local;
  }
  template <std::size_t Count>
  std::array<double, Count> global_sum(std::array<double, Count> local) const {
    sum_over_ranks(local.data(), int(Count));
    return local;
  }
};

// A SparseMatrix (CSR or BSR) as an Operator: spmv and spmv_transpose. Keeps its own handle on
// the matrix's arrays, so a temporary SparseMatrix may be passed.
class MatrixOperator final : public Operator {
 public:
  explicit MatrixOperator(const SparseMatrix& A) : A_(A) {}
  Offset num_rows() const override { return A_.num_rows(); }
  void apply(const ExecSpace& space, ConstVector x, Vector y) const override;
  // CPU backends: the sums inside the product's pass (host_spmv_dots).
  std::array<double, 2> apply_dots(const ExecSpace& space, ConstVector x, Vector y,
                                   ConstVector w) const override;
  bool has_transpose() const noexcept override { return true; }
  void apply_transpose(const ExecSpace& space, ConstVector x, Vector y) const override;
  std::string name() const override { return "matrix"; }
  const SparseMatrix& matrix() const noexcept { return A_; }

 private:
  SparseMatrix A_;
};

// Throws DimensionMismatch unless length equals A.num_rows(); name says which vector.
void check_vector_size(const Operator& A, Offset length, const std::string& name);

}  // namespace fgdd
