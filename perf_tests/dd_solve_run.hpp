// The timed BiCGSTAB runs the solve benchmarks share (solve_bench, subdomain_sweep_bench,
// setup_bench): one configuration's setup, refactor, preconditioner apply and solve times (and,
// given a tracker, their peak memory), fgdd's DD ILDU0 run end to end (partition, reorder and
// drop, factor, levels) in the partitioned ordering, and the vendor ILU0 without DD.
#pragma once

#include "bench_json.hpp"
#include "kk_ilu0_baseline.hpp"
#include "memory_tracker.hpp"

#include "core/generators.hpp"
#include "krylov/krylov_options.hpp"
#include "krylov/operator.hpp"
#include "krylov/preconditioner.hpp"
#include "partition/partition_matrix.hpp"
#include "trsv/trsv_options.hpp"

#include <string>

namespace fgdd::bench {

struct SolveRunOptions {
  int repeats = 3;  // times are the best of these, after warmup untimed runs
  int warmup = 1;
  // Vendor setups timed, the best reported; no warmup, so 1 gives the first, what a user pays.
  int setup_repeats = 1;
  KrylovOptions krylov;
  // When set, the peak live bytes of the setup and of the solve phase (apply timing included).
  PeakMemoryTracker* memory = nullptr;
};

struct ConfigResult {
  explicit ConfigResult(std::string config_name);
  std::string name;
  std::string skipped;  // empty when it ran
  double setup_s = 0, refactor_s = 0, apply_s = 0, solve_s = 0;
  int iterations = 0;
  std::string status;
  double relative_true_residual = 0;
  JsonObject extra;                      // more report fields, after the common ones
  int scratch_level = -1;                // team scratch level of the DD apply (-1: not a DD run)
  PhasePeak setup_memory, solve_memory;  // with SolveRunOptions::memory
  bool converged() const { return skipped.empty() && status == "converged"; }
};

// Converged and the true residual within 10× the tolerance: the recurrence stops at
// ‖b − A x‖ ≤ tol ‖b‖, and the true residual may exceed it by the rounding it accumulates.
bool solution_verified(const ConfigResult& result, double relative_tolerance);

// The best preconditioner apply time (at least 5 repeats) and solve time over the repeats
// (x reset to 0 for each solve), and the last solve's result, into out.
void time_solve(const ExecSpace& space, const SolveRunOptions& options, const Operator& A,
                const Preconditioner& M, ConstVector b, ConfigResult& out);

// The vendor ILU0 without DD (kk_ilu0_baseline.hpp) on A in its own ordering, BSR expanded to
// scalar CSR before the timing: setup (spiluk symbolic + numeric, and the triangular solves'
// analysis; best of options.setup_repeats), refactor, apply and the solve of b, all through
// time_solve. Named vendor_ilu0 (Kokkos-Kernels level sets) or vendor_ilu0_cusparse; skipped,
// with the reason, when cuSPARSE is not built in or Kokkos-Kernels throws (e.g. its level
// analysis does not fit).
ConfigResult run_vendor_ilu0(const ExecSpace& space, const SolveRunOptions& options,
                             const SparseMatrix& A, VendorTrsv trsv, ConstVector b);

// The same for cuSPARSE's own ILU(0) (cusparse_ilu0_baseline.hpp: csrilu02 + SpSV), named
// "cusparse_csrilu02"; skipped without the Cuda backend and the cuSPARSE TPL.
ConfigResult run_cusparse_ilu0(const ExecSpace& space, const SolveRunOptions& options,
                               const SparseMatrix& A, ConstVector b);

// The same for rocSPARSE's own ILU(0) (rocsparse_ilu0_baseline.hpp: csrilu0 + csrsv), named
// "rocsparse_csrilu0"; skipped without the HIP backend and rocSPARSE.
ConfigResult run_rocsparse_ilu0(const ExecSpace& space, const SolveRunOptions& options,
                                const SparseMatrix& A, ConstVector b);

// fgdd's DD ILDU0 BiCGSTAB on problem with b = 1, x0 = 0: setup (partition + reorder + factor +
// levels, once), refactor (update_values), apply and solve. kernel goes through resolve_auto;
// the result is named "fgdd_<kernel that ran>" ("fgdd_float_<kernel>" with float factors,
// DdIluOptions::factor_precision) and its extra fields hold the setup breakdown
// (partition_s, reorder_s, factor_s, levels_s). The partition's report goes into report.
// Throws what partition_matrix and DdIluPreconditioner throw (InvalidInput for a subdomain size
// outside [block size, max_subdomain_rows], ZeroPivot); a solve that fails is a status.
ConfigResult run_dd(const ExecSpace& space, const SolveRunOptions& options,
                    const GeneratedProblem& problem, const PartitionOptions& partition_options,
                    ApplyKernel kernel, PartitionReport& report,
                    FactorPrecision precision = FactorPrecision::Double);

}  // namespace fgdd::bench
