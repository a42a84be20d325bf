// (A ⊗ M + τ B ⊗ L) over MPI ranks on merged vectors (kron/merged_layout.hpp; each rank holds the
// s·b values of each of its block rows of A_p). M and L are cut by one partition, so a rank owns
// the same block rows of both, and share one halo plan: a single packed message per neighbour
// carries all s columns of every ghost block row either matrix needs (kronecker-gmres-multi-
// gpu.txt, "Parallel buffering" and "Pre-mapping" become one gather with block width b·s).
// The message overlaps the rank's diagonal-block product.
//
//   fgdd::DistributedKroneckerMatrices matrices(space, comm, root ? &M : nullptr,
//                                               root ? &L : nullptr, grid, partition_options);
//   fgdd::DistributedKroneckerOperator K(matrices, coefficients, tau);
//   fgdd::KroneckerStagePreconditioner P(space, matrices.M().dropped(), matrices.L().dropped(),
//                                        matrices.M().partition(), coefficients, tau, dd);
//   fgdd::gmres(space, K, P, f_local, u_local, options);   // collective
#pragma once

#include "mpi/distributed_matrix.hpp"
#include "mpi/halo_exchange.hpp"
#include "kron/stage_coefficients.hpp"
#include "krylov/operator.hpp"

#include <memory>

namespace fgdd {

class DistributedKroneckerMatrices {
 public:
  // Collective. The root passes M and L (same size and block size; patterns may differ) and
  // the grid of their block rows (may be empty), the other ranks nullptr. The root partitions
  // the union pattern of M and L with options, reorders both by that partition and sends each
  // rank its rows of both. Errors are thrown on every rank alike.
  DistributedKroneckerMatrices(const ExecSpace& space, const Communicator& comm,
                               const SparseMatrix* M_on_root, const SparseMatrix* L_on_root,
                               const GridInfo& grid, const PartitionOptions& options);
  // Operators and halo exchanges keep references into this object.
  DistributedKroneckerMatrices(const DistributedKroneckerMatrices&) = delete;
  DistributedKroneckerMatrices& operator=(const DistributedKroneckerMatrices&) = delete;

  const Communicator& comm() const noexcept { return M_->comm(); }
  int block_size() const noexcept { return M_->block_size(); }
  Offset num_rows() const noexcept { return M_->num_rows(); }  // this rank's spatial rows
  Ordinal first_block_row() const noexcept { return M_->first_block_row(); }
  Ordinal global_num_block_rows() const noexcept { return M_->global_num_block_rows(); }

  // Each matrix's rows on this rank (its diagonal(), dropped() and partition() as usual).
  const DistributedMatrix& M() const noexcept { return *M_; }
  const DistributedMatrix& L() const noexcept { return *L_; }
  // The diagonal blocks; L's shares M's pattern arrays when the patterns are equal, so the
  // product reads the column indices once.
  const SparseMatrix& M_diagonal() const noexcept { return M_->diagonal(); }
  const SparseMatrix& L_diagonal() const noexcept { return L_diagonal_; }
  // The off-rank blocks with ghost columns numbered as halo()'s ghosts (shared arrays likewise).
  const OffRankBlock& M_off_rank() const noexcept { return M_off_rank_; }
  const OffRankBlock& L_off_rank() const noexcept { return L_off_rank_; }
  // The ghost block rows M or L needs (sorted union), at most one message per neighbour.
  const HaloPlan& halo() const noexcept { return halo_; }

  // Collective. The root passes vec(X) stacked in the caller's ordering (s·N entries, see
  // kron/merged_layout.hpp), the other ranks an empty view; each rank receives its merged rows
  // in A_p's ordering (s · num_rows() entries), ready for DistributedKroneckerOperator.
  // Throws DimensionMismatch (on every rank) when the root's vector has the wrong length.
  Vector scatter_stacked(const ExecSpace& space, int stages, ConstVector stacked_on_root) const;
  // Collective, the inverse: the root receives vec(X) stacked in the caller's ordering.
  void gather_stacked(const ExecSpace& space, int stages, ConstVector local,
                      Vector stacked_on_root) const;

  // The root's partition of the caller's block rows; empty on other ranks. Likewise the report.
  const Partition& root_partition() const noexcept { return root_partition_; }
  const PartitionReport& partition_report() const noexcept { return report_; }

 private:
  std::unique_ptr<DistributedMatrix> M_, L_;
  SparseMatrix L_diagonal_;
  OffRankBlock M_off_rank_, L_off_rank_;
  HaloPlan halo_;
  Partition root_partition_;
  PartitionReport report_;
};

class DistributedKroneckerOperator final : public Operator {
 public:
  // Keeps a reference to matrices: it must outlive the operator. Throws InvalidInput for bad
  // coefficients or a non-finite tau.
  DistributedKroneckerOperator(const DistributedKroneckerMatrices& matrices,
                               const StageCoefficients& coefficients, double tau);

  // s × this rank's spatial rows.
  Offset num_rows() const override { return Offset(stages()) * matrices_.num_rows(); }
  // Collective: every rank calls it with its own rows of merged x and y.
  void apply(const ExecSpace& space, ConstVector x, Vector y) const override;
  std::string name() const override;
  void sum_over_ranks(double* values, int count) const override;
  double max_over_ranks(double value) const override;

  int stages() const noexcept { return coefficients_.stages; }
  // MPI sends (and likewise receives) one apply posts on this rank: one per neighbour that
  // needs ghosts of this rank, independent of s.
  int messages_per_apply() const noexcept;

 private:
  const DistributedKroneckerMatrices& matrices_;
  StageCoefficients coefficients_;
  Kokkos::View<Scalar*, DeviceType> device_coefficients_;  // with tau folded in
  mutable HaloExchange halo_;  // block width b·s: one block row of a merged vector
  Vector ghosts_;              // the ghosts' s·b values each, in halo order
};

}  // namespace fgdd
