#include "kron/stage_preconditioner.hpp"

#include "core/errors.hpp"
#include "kron/union_pattern.hpp"
#include "partition/partition_matrix.hpp"
#include "partition/reorder.hpp"

#include <string>
#include <utility>

namespace fgdd {

const char* to_string(StageSolver solver) noexcept {
  switch (solver) {
    case StageSolver::DdIlu:
      return "dd-ilu";
    case StageSolver::GlobalIlu:
      return "global-ilu";
  }
  return "unknown";
}

namespace {

// K_k = a_kk M + τ b_kk L on the pattern M and L share.
SparseMatrix stage_matrix(const ExecSpace& space, const SharedPatternPair& pair,
                          const StageCoefficients& c, double tau, int k) {
  const double a = c.a(k, k), b = tau * c.b(k, k);
  if (a == 0 && b == 0)
    throw InvalidInput("stage preconditioner: stage " + std::to_string(k) +
                       " has a_kk = b_kk = 0, so its diagonal block a_kk M + tau b_kk L is zero");
  return combine_shared(space, a, pair.M, b, pair.L);
}

}  // namespace

KroneckerStagePreconditioner::KroneckerStagePreconditioner(
    const ExecSpace& space, const SparseMatrix& M, const SparseMatrix& L,
    const StageCoefficients& coefficients, double tau, const GridInfo& grid,
    const StagePreconditionerOptions& options)
    : coefficients_(coefficients) {
  coefficients_.validate();
  const SharedPatternPair pair = on_union_pattern(space, M, L);
  const int s = coefficients_.stages;
  if (options.solver == StageSolver::GlobalIlu) {
    for (int k = 0; k < s; ++k)
      global_.push_back(std::make_unique<GlobalIluPreconditioner>(
          space, stage_matrix(space, pair, coefficients_, tau, k), options.global));
  } else {
    // The pattern, and so the partition, is the same for every stage.
    const PartitionedMatrix first = partition_matrix(
        space, stage_matrix(space, pair, coefficients_, tau, 0), grid, options.partition);
    for (int k = 0; k < s; ++k) {
      systems_.push_back(k == 0 ? first.system
                                : reorder_and_drop(space,
                                                   stage_matrix(space, pair, coefficients_, tau, k),
                                                   first.partition));
      dd_.push_back(std::make_unique<DdIluPreconditioner>(space, systems_.back().dropped,
                                                          first.partition, options.dd));
    }
    source_block_row_ = first.partition.iperm;
  }
  allocate(M.num_rows(), M.block_size());
}

KroneckerStagePreconditioner::KroneckerStagePreconditioner(const ExecSpace& space,
                                                           const SparseMatrix& M_dropped,
                                                           const SparseMatrix& L_dropped,
                                                           const Partition& partition,
                                                           const StageCoefficients& coefficients,
                                                           double tau, const DdIluOptions& options)
    : coefficients_(coefficients) {
  coefficients_.validate();
  const SharedPatternPair pair = on_union_pattern(space, M_dropped, L_dropped);
  local_pattern_ = pair.M;
  for (int k = 0; k < coefficients_.stages; ++k)
    dd_.push_back(std::make_unique<DdIluPreconditioner>(
        space, stage_matrix(space, pair, coefficients_, tau, k), partition, options));
  allocate(M_dropped.num_rows(), M_dropped.block_size());
}

void KroneckerStagePreconditioner::update_values(const ExecSpace& space, const SparseMatrix& M,
                                                 const SparseMatrix& L, double tau) {
  if (M.num_rows() != spatial_rows_ || M.block_size() != block_size_)
    throw InvalidInput("stage preconditioner update: M has " + std::to_string(M.num_rows()) +
                       " rows of block size " + std::to_string(M.block_size()) + ", setup saw " +
                       std::to_string(spatial_rows_) + " and " + std::to_string(block_size_));
  const SharedPatternPair pair = on_union_pattern(space, M, L);
  for (int k = 0; k < stages(); ++k) {
    const SparseMatrix K_k = stage_matrix(space, pair, coefficients_, tau, k);
    if (!global_.empty()) {
      global_[k]->update_values(space, K_k);
    } else if (!systems_.empty()) {
      fgdd::update_values(space, K_k, systems_[k]);  // throws for another pattern
      dd_[k]->update_values(space, systems_[k].dropped);
    } else {
      // The factorization accepts only the arrays it was set up with: new values on them.
      if (!equal_patterns(space, K_k, local_pattern_))
        throw InvalidInput(
            "stage preconditioner update: the pattern of M and L differs from "
            "the one setup saw");
      dd_[k]->update_values(
          space, SparseMatrix(SparseMatrix::ValidatedTag{}, K_k.num_block_rows(), K_k.block_size(),
                              local_pattern_.row_map(), local_pattern_.col_ind(), K_k.values()));
    }
  }
}

const Preconditioner& KroneckerStagePreconditioner::stage(int k) const {
  if (k < 0 || k >= stages())
    throw InvalidInput("stage " + std::to_string(k) + " of " + std::to_string(stages()));
  if (!global_.empty()) return *global_[k];
  return *dd_[k];
}

void KroneckerStagePreconditioner::allocate(Offset spatial_rows, int block_size) {
  spatial_rows_ = spatial_rows;
  block_size_ = block_size;
  const Offset length = spatial_rows * Offset(stages());
  split_r_ = Vector(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::kron::split_r"), length);
  split_z_ = Vector(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::kron::split_z"), length);
}

void KroneckerStagePreconditioner::apply(const ExecSpace& space, ConstVector r, Vector z) const {
  const Offset n = spatial_rows_, s = Offset(stages()), b = Offset(block_size_);
  if (r.extent(0) != n * s || z.extent(0) != n * s)
    throw DimensionMismatch("stage preconditioner: r and z have " + std::to_string(r.extent(0)) +
                            " and " + std::to_string(z.extent(0)) + " entries, expected " +
                            std::to_string(n * s));
  const auto source = source_block_row_;
  const bool permuted = source.extent(0) > 0;
  const auto split_r = split_r_;
  const auto split_z = split_z_;
  using Policy = Kokkos::RangePolicy<ExecSpace>;
  // Split entry k·N + i·b + c (stage k, block row i of the stage ordering, row c in the block)
  // is merged entry (source(i)·b + c)·s + k; the permutation rides along with the split.
  Kokkos::parallel_for(
      "fgdd::kron::split_stages", Policy(space, 0, n * s), KOKKOS_LAMBDA(const Offset e) {
        const Offset k = e / n, row = e % n;
        const Offset block_row = permuted ? Offset(source(row / b)) : row / b;
        split_r(e) = r((block_row * b + row % b) * s + k);
      });
  for (Offset k = 0; k < s; ++k) {
    const auto range = std::make_pair(k * n, (k + 1) * n);
    stage(int(k)).apply(space, Kokkos::subview(split_r_, range), Kokkos::subview(split_z_, range));
  }
  Kokkos::parallel_for(
      "fgdd::kron::merge_stages", Policy(space, 0, n * s), KOKKOS_LAMBDA(const Offset e) {
        const Offset k = e / n, row = e % n;
        const Offset block_row = permuted ? Offset(source(row / b)) : row / b;
        z((block_row * b + row % b) * s + k) = split_z(e);
      });
}

std::string KroneckerStagePreconditioner::name() const {
  return "stage-block-jacobi (" + std::to_string(stages()) + " x " + stage(0).name() + ")";
}

}  // namespace fgdd
