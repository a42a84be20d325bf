// Approximate triangular solves by block-asynchronous Jacobi with directed block overlap
// (domain-overlap-iterative-sptrsv.txt): no level analysis at all. The iteration vector is cut
// into blocks of block_rows block rows, one Kokkos team per block; each global iteration runs
// `sweeps` local Jacobi sweeps in team scratch, reading entries outside the team's block from
// global memory (the newest values, asynchronously; or the previous iterate, synchronously).
// Overlap extends a block against the dependency direction (bottom-up for lower, top-down for
// upper); overlap rows are iterated locally but never written back (restricted write-back).
// Blocks are numbered in dependency order, so teams launched first feed the later ones.
#pragma once

#include "core/sparse_matrix.hpp"
#include "factor/factor_options.hpp"
#include "trsv/subdomain_levels.hpp"

namespace fgdd {

class SubdomainIlu0;
class GlobalIlu0;

enum class JacobiSchedule {
  Asynchronous,  // blocks read the newest values of other blocks (the paper's method)
  Synchronous,   // blocks read the previous global iterate: deterministic, for checks
};

struct JacobiTrsvOptions {
  Ordinal block_rows = 256;  // block rows per team, owned plus overlap (the paper's 256 threads)
  int sweeps = 2;            // local Jacobi sweeps per global iteration
  int iterations = 4;        // global iterations per solve (the most, with a tolerance)
  double overlap = 0;        // fraction of block_rows that is directed overlap, in [0, 1)
  double tolerance = 0;      // > 0: stop once ‖r − T x‖₂ ≤ tolerance · ‖r‖₂
  JacobiSchedule schedule = JacobiSchedule::Asynchronous;
  // Throws InvalidInput naming the first field out of range.
  void validate() const;
};

// The factors every ILU factorization of fgdd exposes: the combined matrix (strict lower = L,
// unit lower; diagonal = D; strict upper = U, unit for Ildu0/Ildlt, with D for Ilu0), D⁻¹ and
// the diagonal positions.
struct FactorArrays {
  SparseMatrix factors;
  Kokkos::View<Scalar*, DeviceType> inv_diag;
  Kokkos::View<Offset*, DeviceType> diag_position;
  IluForm form = IluForm::Ildu0;
};
FactorArrays factor_arrays(const SubdomainIlu0& factorization);
FactorArrays factor_arrays(const GlobalIlu0& factorization);

class JacobiTrsv {
 public:
  // Keeps handles on the factor arrays: a refactor that writes new values in place is seen.
  JacobiTrsv(const FactorArrays& factors, const JacobiTrsvOptions& options);

  // x ≈ T⁻¹ r, T = L (unit lower) or U (unit upper; with the pivots D for Ilu0), from x = 0.
  // Returns the global iterations run.
  int solve(const ExecSpace& space, Triangle triangle, ConstVector r, Vector x) const;
  // z ≈ M⁻¹ r: the lower solve, D⁻¹ (Ildu0, Ildlt), the upper solve.
  void apply(const ExecSpace& space, ConstVector r, Vector z) const;
  // ‖r − T x‖₂.
  double residual_norm(const ExecSpace& space, Triangle triangle, ConstVector r,
                       ConstVector x) const;

  const JacobiTrsvOptions& options() const noexcept { return options_; }
  Ordinal num_teams() const noexcept { return num_teams_; }
  Ordinal owned_rows() const noexcept { return owned_; }  // block rows each team writes

  // One global iteration from x = from into to (the same vector: asynchronous). Public only
  // because CUDA device lambdas may not live in private member functions.
  void global_iteration(const ExecSpace& space, Triangle triangle, ConstVector r, ConstVector from,
                        Vector to) const;

 private:

  FactorArrays f_;
  JacobiTrsvOptions options_;
  Ordinal overlap_rows_ = 0, owned_ = 1, num_teams_ = 0;
  Vector previous_, work_;  // the synchronous schedule's old iterate; apply's intermediate
};

}  // namespace fgdd
