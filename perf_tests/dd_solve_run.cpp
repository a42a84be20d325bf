#include "dd_solve_run.hpp"

#include "bench_common.hpp"
#include "cusparse_ilu0_baseline.hpp"
#include "rocsparse_ilu0_baseline.hpp"

#include "krylov/bicgstab.hpp"
#include "partition/reorder.hpp"
#include "precond/dd_ilu_preconditioner.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>

namespace fgdd::bench {

ConfigResult::ConfigResult(std::string config_name) : name(std::move(config_name)) {}

bool solution_verified(const ConfigResult& result, double relative_tolerance) {
  return result.converged() && result.relative_true_residual <= 10 * relative_tolerance;
}

void time_solve(const ExecSpace& space, const SolveRunOptions& options, const Operator& A,
                const Preconditioner& M, ConstVector b, ConfigResult& out) {
  if (options.memory) options.memory->start_phase();
  Vector x("fgdd::bench::x", b.extent(0));
  out.apply_s = time_it(space, options.warmup, std::max(options.repeats, 5), [&] {
                  M.apply(space, b, x);
                }).min;
  SolveResult result;
  const auto solve = [&] {
    Kokkos::deep_copy(space, x, 0.0);
    result = bicgstab(space, A, M, b, x, options.krylov);
  };
  out.solve_s = time_it(space, options.warmup, options.repeats, solve).min;
  out.iterations = result.iterations;
  out.status = to_string(result.status);
  out.relative_true_residual = result.relative_true_residual;
  if (options.memory) out.solve_memory = options.memory->phase_peak();
}

namespace {

// Setup (best of options.setup_repeats, one set of factors alive at a time, as a user would
// have), refactor, apply and solve of the preconditioner that make builds from scalar CSR.
template <class Make>
void run_vendor(const ExecSpace& space, const SolveRunOptions& options, const SparseMatrix& A,
                ConstVector b, const Make& make, ConfigResult& out) {
  try {
    const SparseMatrix csr = point_csr(A);
    std::unique_ptr<VendorIlu0> M;
    if (options.memory) options.memory->start_phase();
    for (int repeat = 0; repeat < std::max(options.setup_repeats, 1); ++repeat) {
      M.reset();
      Kokkos::Timer timer;
      M = make(csr);
      space.fence();
      out.setup_s = repeat == 0 ? timer.seconds() : std::min(out.setup_s, timer.seconds());
    }
    if (options.memory) out.setup_memory = options.memory->phase_peak();
    out.refactor_s = time_it(space, options.warmup, options.repeats, [&] { M->numeric(); }).min;
    time_solve(space, options, MatrixOperator(csr), *M, b, out);
  } catch (const std::exception& error) {  // e.g. its level analysis does not fit the device
    out.skipped = error.what();
  }
}

}  // namespace

ConfigResult run_vendor_ilu0(const ExecSpace& space, const SolveRunOptions& options,
                             const SparseMatrix& A, VendorTrsv trsv, ConstVector b) {
  ConfigResult out(trsv == VendorTrsv::CuSparse ? "vendor_ilu0_cusparse" : "vendor_ilu0");
  if (trsv == VendorTrsv::CuSparse && !kk_cusparse_available) {
    out.skipped = "Kokkos-Kernels was built without the cuSPARSE TPL";
    return out;
  }
  run_vendor(
      space, options, A, b,
      [&](const SparseMatrix& csr) { return std::make_unique<KkIlu0Preconditioner>(csr, trsv); },
      out);
  return out;
}

namespace {

// A vendor library's own ILU(0) under `name`, or skipped with `missing` when not built in.
template <class Make>
ConfigResult run_vendor_library(const ExecSpace& space, const SolveRunOptions& options,
                                const SparseMatrix& A, ConstVector b, const char* name,
                                bool available, const char* missing, Make make) {
  ConfigResult out(name);
  if (!available) {
    out.skipped = missing;
    return out;
  }
  run_vendor(space, options, A, b, make, out);
  return out;
}

}  // namespace

ConfigResult run_cusparse_ilu0(const ExecSpace& space, const SolveRunOptions& options,
                               const SparseMatrix& A, ConstVector b) {
  return run_vendor_library(space, options, A, b, "cusparse_csrilu02", kk_cusparse_available,
                            "cuSPARSE is not built in (Kokkos-Kernels' cuSPARSE TPL, Cuda)",
                            make_cusparse_ilu0);
}

ConfigResult run_rocsparse_ilu0(const ExecSpace& space, const SolveRunOptions& options,
                                const SparseMatrix& A, ConstVector b) {
  return run_vendor_library(space, options, A, b, "rocsparse_csrilu0", rocsparse_available,
                            "rocSPARSE is not built in (the HIP backend with rocSPARSE)",
                            make_rocsparse_ilu0);
}

ConfigResult run_dd(const ExecSpace& space, const SolveRunOptions& options,
                    const GeneratedProblem& problem, const PartitionOptions& partition_options,
                    ApplyKernel kernel, PartitionReport& report, FactorPrecision precision) {
  kernel = resolve_auto(kernel);
  const bool single = precision == FactorPrecision::Float;
  ConfigResult out(std::string(single ? "fgdd_float_" : "fgdd_") + to_string(kernel));
  Kokkos::Timer timer;
  const PartitionedMatrix dd =
      partition_matrix(space, problem.matrix, problem.grid, partition_options);
  DdIluOptions dd_options;
  dd_options.apply = kernel;
  dd_options.factor_precision = precision;
  DdIluPreconditioner M(space, dd.system.dropped, dd.partition, dd_options);
  space.fence();
  out.setup_s = timer.seconds();
  report = dd.report;
  out.scratch_level = M.trsv().scratch_level();
  out.refactor_s = time_it(space, options.warmup, options.repeats, [&] {
                     M.update_values(space, dd.system.dropped);
                   }).min;
  const SubdomainIlu0& factors = M.factorization();
  out.extra.add("partition_s", dd.report.partition_seconds, fixed(6))
      .add("reorder_s", dd.report.reorder_seconds, fixed(6))
      .add("factor_s", factors.report().symbolic_seconds + factors.report().numeric_seconds,
           fixed(6))
      .add("levels_s", M.trsv().level_seconds(), fixed(6));
  Vector b("fgdd::bench::b", problem.matrix.num_rows()), b_p("fgdd::bench::b_p", b.extent(0));
  Kokkos::deep_copy(b, 1.0);
  permute_vector(space, dd.partition, problem.matrix.block_size(), b, b_p);
  time_solve(space, options, MatrixOperator(dd.system.permuted), M, b_p, out);
  return out;
}

}  // namespace fgdd::bench
