// A preconditioner for (A ⊗ M + τ B ⊗ L) that is block diagonal in the stage index: stage k
// applies an fgdd ILU of K_k = a_kk M + τ b_kk L (on the union pattern of M and L) to its
// column of the merged vector, z(:, k) = K_k⁻¹ r(:, k). The s stage solves are independent.
//
// It drops the stage couplings a_kl M + τ b_kl L (k ≠ l), so it is only an approximation when
// they are not small against the diagonal stages: Radau IIA and Gauss tableaus are not
// diagonally dominant (Radau IIA s = 2: |a_21| = 3/4 > a_22 = 1/4), and GMRES iterations then
// grow with τ·‖L‖/‖M‖. It is exact for diagonal A and B (decoupled stages, up to the ILU).
#pragma once

#include "core/sparse_matrix.hpp"
#include "kron/stage_coefficients.hpp"
#include "precond/dd_ilu_preconditioner.hpp"
#include "precond/global_ilu_preconditioner.hpp"
#include "krylov/preconditioner.hpp"
#include "partition/partition.hpp"
#include "partition/partition_options.hpp"
#include "partition/reorder.hpp"

#include <memory>
#include <vector>

namespace fgdd {

enum class StageSolver {
  DdIlu,      // fgdd's DD ILU0/ILDU0 (partition once, factor each K_k's subdomain blocks)
  GlobalIlu,  // the exact global ILU0/ILDU0 of each K_k, level-scheduled
};

const char* to_string(StageSolver solver) noexcept;

struct StagePreconditionerOptions {
  StageSolver solver = StageSolver::DdIlu;
  PartitionOptions partition;  // DdIlu: the subdomains, cut once from the union pattern
  DdIluOptions dd;
  GlobalIluOptions global;
};

class KroneckerStagePreconditioner final : public Preconditioner {
 public:
  // M and L in the operator's ordering (a KroneckerOperator's); grid may be empty. DdIlu
  // partitions the union pattern once and gathers the stage columns through its permutation.
  // Throws InvalidInput when a stage has a_kk = b_kk = 0 or for bad options, DimensionMismatch
  // when M and L differ in size, ZeroPivot naming the stage matrix's row.
  KroneckerStagePreconditioner(const ExecSpace& space, const SparseMatrix& M, const SparseMatrix& L,
                               const StageCoefficients& coefficients, double tau,
                               const GridInfo& grid, const StagePreconditionerOptions& options);

  // Rows already in the order of partition's subdomains (one MPI rank's rows of a distributed
  // system): M_dropped and L_dropped are the subdomain blocks (DistributedMatrix::dropped()),
  // their patterns may differ. No communication; throws as the other constructor.
  KroneckerStagePreconditioner(const ExecSpace& space, const SparseMatrix& M_dropped,
                               const SparseMatrix& L_dropped, const Partition& partition,
                               const StageCoefficients& coefficients, double tau,
                               const DdIluOptions& options);

  // New values of M and L (the patterns given at construction: M and L, or M_dropped and
  // L_dropped) or a new tau, e.g. the next time step: each K_k is refactored on the device; the
  // partition, reordering and level sets are reused. Throws InvalidInput when a pattern differs,
  // ZeroPivot as the constructors.
  void update_values(const ExecSpace& space, const SparseMatrix& M, const SparseMatrix& L,
                     double tau);
  // The interface's (permuted, dropped) form stays visible; it throws: a stage preconditioner
  // takes M, L and tau.
  using Preconditioner::update_values;

  // z = blockdiag_k(K_k⁻¹) r on merged vectors of s·N entries.
  void apply(const ExecSpace& space, ConstVector r, Vector z) const override;
  std::string name() const override;

  int stages() const noexcept { return coefficients_.stages; }
  const Preconditioner& stage(int k) const;

 private:
  void allocate(Offset spatial_rows, int block_size);

  StageCoefficients coefficients_;
  // One of the two is filled, one preconditioner per stage.
  std::vector<std::unique_ptr<DdIluPreconditioner>> dd_;
  std::vector<std::unique_ptr<GlobalIluPreconditioner>> global_;
  // DdIlu from the caller's ordering: each stage's reordered system, refilled by update_values.
  std::vector<ReorderedSystem> systems_;
  // DdIlu on given subdomain blocks: the union pattern the stage matrices were built on.
  SparseMatrix local_pattern_;
  int block_size_ = 1;
  Offset spatial_rows_ = 0;
  // Block row of the operator's ordering held at each block row of the stage solves' ordering;
  // empty when they are the same.
  Kokkos::View<Ordinal*, DeviceType> source_block_row_;
  mutable Vector split_r_, split_z_;  // stage k's column at [k·N, (k+1)·N)
};

}  // namespace fgdd
