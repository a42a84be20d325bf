// Point Jacobi (b = 1) and block Jacobi (b > 1): z = D⁻¹ r with D the diagonal blocks of A.
#pragma once

#include "core/sparse_matrix.hpp"
#include "krylov/preconditioner.hpp"

namespace fgdd {

class BlockJacobi final : public Preconditioner {
 public:
  // Inverts every diagonal block on the device (Gauss-Jordan with partial pivoting).
  // Throws ZeroPivot naming the first row whose block is singular (pivot ≤ 1e-14 × block max).
  explicit BlockJacobi(const SparseMatrix& A);
  void apply(const ExecSpace& space, ConstVector r, Vector z) const override;
  bool has_transpose() const noexcept override { return true; }
  void apply_transpose(const ExecSpace& space, ConstVector r, Vector z) const override;
  std::string name() const override { return "jacobi"; }
  // New values: the blocks are inverted again (there is nothing symbolic to keep).
  void update_values(const ExecSpace& space, const SparseMatrix& permuted,
                     const SparseMatrix& dropped) override;

 private:
  int block_size_ = 1;
  Kokkos::View<Scalar*, DeviceType> inverse_blocks_;  // row-major b×b per block row
};

}  // namespace fgdd
