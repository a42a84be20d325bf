// Approximate triangular solves by block-asynchronous Jacobi with directed block overlap
// (domain-overlap-iterative-sptrsv.txt §2.2, §3.2, §4): no level analysis at all. The iteration
// vector is cut into blocks of block_rows block rows, one Kokkos team per block. In each global
// iteration a team reads x outside its block once (the newest values, asynchronously; or the
// previous iterate, synchronously) into a local right-hand side, then runs `sweeps` Jacobi
// sweeps on its block in team scratch. Overlap extends a block against the dependency direction
// (bottom-up for lower, top-down for upper); overlap rows are iterated locally but never
// written back (restricted write-back). Blocks are numbered in dependency order, so teams
// launched first (usually, never relied on) feed the later ones.
#pragma once

#include "core/sparse_matrix.hpp"
#include "factor/factor_options.hpp"
#include "schedule/subdomain_levels.hpp"

namespace fgdd {

class SubdomainIlu0;
class GlobalIlu0;

enum class JacobiSchedule {
  Asynchronous,  // blocks read the newest values of other blocks (the paper's method)
  Synchronous,   // blocks read the previous global iterate: deterministic, for checks
};

struct JacobiTrsvOptions {
  // Block rows per team, owned plus overlap. 256 is the paper's thread block (= subdomain) size;
  // a team's scratch is then 3 · 256 · b doubles (6 KB at b = 1, 18 KB at b = 3), far below
  // scratch_size_max(0), so several teams share an SM, and gen:lap27:64 still gives ~1,000
  // teams, several for every SM of a large GPU. Larger blocks converge faster per iteration but
  // leave fewer teams; smaller ones propagate information more slowly between blocks.
  Ordinal block_rows = 256;
  int sweeps = 2;        // local Jacobi sweeps per global iteration
  int iterations = 4;    // global iterations per solve (the most, with a tolerance)
  double overlap = 0;    // fraction of block_rows that is directed overlap, in [0, 1): the team
                         // owns block_rows − ⌊overlap · block_rows⌋ rows (at least one)
  double tolerance = 0;  // > 0: stop once ‖r − T x‖₂ ≤ tolerance · ‖r‖₂
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

  // x ≈ T⁻¹ r, T = L (unit lower) or U (unit upper; with the pivots D for Ilu0), from x = 0
  // (whatever x holds). Runs options().iterations global iterations, fewer when a tolerance is
  // met (checked after each, one reduction each). r and x must not alias. Returns the global
  // iterations run. Throws DimensionMismatch unless r and x have the factors' row count.
  int solve(const ExecSpace& space, Triangle triangle, ConstVector r, Vector x) const;
  // z ≈ M⁻¹ r: the lower solve, D⁻¹ (Ildu0, Ildlt), the upper solve (Ilu0: the upper solve
  // with the pivots), as GlobalTrsv::apply and SubdomainTrsv::apply compose them. r and z must
  // not alias. Not safe to call concurrently on one object (one work vector).
  void apply(const ExecSpace& space, ConstVector r, Vector z) const;
  // ‖r − T x‖₂.
  double residual_norm(const ExecSpace& space, Triangle triangle, ConstVector r,
                       ConstVector x) const;

  const JacobiTrsvOptions& options() const noexcept { return options_; }
  Ordinal num_teams() const noexcept { return num_teams_; }
  Ordinal owned_rows() const noexcept { return owned_; }  // block rows each team writes

  // One global iteration from x = from into to: the same vector for the asynchronous schedule,
  // two vectors for the synchronous one (to's overlap-free rows are all written). Public
  // because CUDA device lambdas may not live in private member functions; benchmarks use it to
  // record the residual after each iteration.
  void global_iteration(const ExecSpace& space, Triangle triangle, ConstVector r, ConstVector from,
                        Vector to) const;

 private:
  FactorArrays f_;
  JacobiTrsvOptions options_;
  Ordinal overlap_rows_ = 0, owned_ = 1, num_teams_ = 0;
  Vector previous_, work_;  // the synchronous schedule's old iterate; apply's intermediate
};

}  // namespace fgdd
