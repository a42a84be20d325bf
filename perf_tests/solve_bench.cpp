// Paper Tables 5.5 / 5.6 analog: right-preconditioned BiCGSTAB (b = ones, x₀ = 0) on the suite
// with the vendor ILU0 and no DD (Kokkos-Kernels spiluk + sptrsv on A in its own ordering; BSR
// expanded to scalar CSR) against fgdd's DD ILDU0 applied by every apply kernel (the ordered
// edge-centric default and the atomic one among them), and block Jacobi for context. Per
// configuration: setup (pattern work, once), refactor (new values, same pattern), solve,
// iterations. Time to solution is
// setup + solve; a repeated solve (what users do thousands of times) is refactor + solve.
// Times are the best of the repeats after warm-up. One JSON line per matrix.
#include "bench_common.hpp"
#include "dd_solve_run.hpp"
#include "kk_ilu0_baseline.hpp"

#include "core/errors.hpp"
#include "partition/partition_matrix.hpp"
#include "precond/block_jacobi.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace {

using namespace fgdd;
using bench::ConfigResult;

struct Options {
  std::vector<std::string> problems = {"gen:lap7:160", "gen:bsr3:96", "gen:reservoir",
                                       "gen:convdiff:128", "gen:lap27:100"};
  Offset subdomain_rows = 0;
  SubdomainRowOrder row_order = bench::subdomain_row_order("auto");
  bench::SolveRunOptions run;
};

ConfigResult run_jacobi(const ExecSpace& space, const Options& options, const SparseMatrix& A) {
  ConfigResult out("block_jacobi");
  Kokkos::Timer timer;
  const BlockJacobi M(A);
  space.fence();
  out.setup_s = out.refactor_s = timer.seconds();
  Vector b("fgdd::bench::b", A.num_rows());
  Kokkos::deep_copy(b, 1.0);
  bench::time_solve(space, options.run, MatrixOperator(A), M, b, out);
  return out;
}

bench::JsonObject to_json(const ConfigResult& c) {
  bench::JsonObject json;
  if (!c.skipped.empty()) return json.add("skipped", c.skipped);
  using bench::fixed;
  json.add("setup_s", c.setup_s, fixed(6))
      .add("refactor_s", c.refactor_s, fixed(6))
      .add("apply_s", c.apply_s, bench::scientific(6))
      .add("solve_s", c.solve_s, fixed(6))
      .add("time_to_solution_s", c.setup_s + c.solve_s, fixed(6))
      .add("repeat_solve_s", c.refactor_s + c.solve_s, fixed(6))
      .add("iterations", c.iterations)
      .add("status", c.status)
      .add("relative_true_residual", c.relative_true_residual, bench::scientific(3));
  return json.append(c.extra);
}

int benchmark_main(int argc, char* argv[]) {
  Options options;
  bench::CommandLine("fgdd_solve_bench",
                     "BiCGSTAB with the vendor ILU0, fgdd's DD ILDU0 and block Jacobi "
                     "(Tables 5.5 / 5.6).")
      .repeated("--matrix", &options.problems, "gen:SPEC|FILE.mtx", "a problem")
      .option("--subdomain-rows", &options.subdomain_rows, "N",
              "scalar rows per subdomain at most; 0: the default")
      .custom("--subdomain-order", subdomain_row_order_names.joined(), "auto",
              bench::subdomain_order_help, bench::subdomain_order_parser(&options.row_order))
      .at_least("--repeats", &options.run.repeats, 1, "R", "timed runs, the best is reported")
      .at_least("--warmup", &options.run.warmup, 0, "W", "untimed runs before them")
      .option("--tol", &options.run.krylov.relative_tolerance, "T", "BiCGSTAB relative tolerance")
      .at_least("--max-iters", &options.run.krylov.max_iterations, 1, "N",
                "BiCGSTAB iterations at most")
      .parse(argc, argv);
  const ExecSpace space;
  for (const std::string& spec : options.problems) {
    std::fprintf(stderr, "%s ...\n", spec.c_str());
    const GeneratedProblem problem = bench::load_problem(spec);
    PartitionReport report;
    PartitionOptions partition_options;
    partition_options.subdomain_rows = options.subdomain_rows;
    partition_options.row_order = options.row_order;
    const auto run_dd = [&](ApplyKernel kernel, FactorPrecision precision) {
      return bench::run_dd(space, options.run, problem, partition_options, kernel, report,
                           precision);
    };
    Vector ones("fgdd::bench::b", problem.matrix.num_rows());
    Kokkos::deep_copy(ones, 1.0);
    const auto run_vendor = [&](bench::VendorTrsv trsv) {
      return bench::run_vendor_ilu0(space, options.run, problem.matrix, trsv, ones);
    };
    // Every apply kernel of the table (auto would repeat one); the edge-centric one, first in
    // the table, is the one the ratios below compare. Then the default kernel with float
    // factors (issue 35).
    std::vector<ConfigResult> configs = {run_vendor(bench::VendorTrsv::LevelSets)};
    for (const ApplyKernel kernel : apply_kernel_names.values())
      if (kernel != ApplyKernel::Auto) configs.push_back(run_dd(kernel, FactorPrecision::Double));
    configs.push_back(run_dd(ApplyKernel::Auto, FactorPrecision::Float));
    configs.push_back(run_jacobi(space, options, problem.matrix));
    configs.push_back(run_vendor(bench::VendorTrsv::CuSparse));
    bench::JsonObject json;
    bool verified = true;
    for (const ConfigResult& c : configs) {
      json.add(c.name, to_json(c));
      if (c.skipped.empty() && !bench::solution_verified(c, options.run.krylov.relative_tolerance))
        verified = false;
      std::fprintf(stderr, "  %-26s %s\n", c.name.c_str(),
                   c.skipped.empty() ? (std::to_string(c.iterations) + " it, solve " +
                                        std::to_string(c.solve_s) + " s")
                                           .c_str()
                                     : ("skipped: " + c.skipped).c_str());
    }
    const ConfigResult &vendor = configs[0], &ec = configs[1];
    const bool compared = vendor.skipped.empty() && vendor.converged() && ec.converged();
    const auto ratio = [&](double a, double b) { return compared && b > 0 ? a / b : -1.0; };
    bench::JsonObject line = bench::report_header("bicgstab_solve");
    line.add("matrix", spec)
        .add("rows", std::size_t(problem.matrix.num_rows()))
        .add("block_size", problem.matrix.block_size())
        .add("entries", std::size_t(problem.matrix.num_entries()))
        .add("subdomain_order", subdomain_row_order_names.name(partition_options.row_order))
        .add("subdomains", report.num_subdomains)
        .add("cap_rows", std::size_t(report.cap_rows))
        .add("subdomain_rows_max", std::size_t(report.max_rows))
        .add("dropped_percent", 100 * report.dropped_fraction, bench::fixed(2))
        .add("tol", options.run.krylov.relative_tolerance, bench::scientific(1))
        .add("configs", json)
        .add("speedup_tts_ec_vs_vendor",
             ratio(vendor.setup_s + vendor.solve_s, ec.setup_s + ec.solve_s), bench::fixed(3))
        .add("speedup_repeat_ec_vs_vendor",
             ratio(vendor.refactor_s + vendor.solve_s, ec.refactor_s + ec.solve_s), bench::fixed(3))
        .add("iteration_growth_dd_vs_vendor", ratio(ec.iterations, vendor.iterations),
             bench::fixed(3))
        .add("verified", verified);
    bench::print_line(line);
  }
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) { return fgdd::bench::run_benchmark(argc, argv, benchmark_main); }
