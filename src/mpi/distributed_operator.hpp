// y = A_p x over MPI ranks, every rank holding its own rows of x and y: the halo exchange of x
// overlaps the SpMV of the rank's diagonal block, then the off-rank block adds the ghosts'
// contributions. The Krylov solvers run on it unchanged; their dot products are summed over
// the ranks through sum_over_ranks.
#pragma once

#include "mpi/distributed_matrix.hpp"
#include "mpi/halo_exchange.hpp"
#include "krylov/operator.hpp"

namespace fgdd {

class DistributedOperator final : public Operator {
 public:
  // Keeps a reference to A: it must outlive the operator.
  explicit DistributedOperator(const DistributedMatrix& A);

  Offset num_rows() const override { return A_.num_rows(); }
  // Collective: every rank calls it with its own rows.
  void apply(const ExecSpace& space, ConstVector x, Vector y) const override;
  bool has_transpose() const noexcept override { return true; }
  // y = A_pᵀ x: the off-rank block's transposed products travel back to their owners.
  void apply_transpose(const ExecSpace& space, ConstVector x, Vector y) const override;
  std::string name() const override { return "distributed matrix"; }
  void sum_over_ranks(double* values, int count) const override;
  double max_over_ranks(double value) const override;

 private:
  const DistributedMatrix& A_;
  mutable HaloExchange halo_;  // buffers reused by every apply
  Vector ghosts_;              // x's ghost entries, or the transpose's contributions to them
};

}  // namespace fgdd
