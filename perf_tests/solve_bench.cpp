// Paper Tables 5.5 / 5.6 analog: right-preconditioned BiCGSTAB (b = ones, x₀ = 0) on the suite
// with the vendor ILU0 and no DD (Kokkos-Kernels spiluk + sptrsv on A in its own ordering; BSR
// expanded to scalar CSR) against fgdd's DD ILDU0 applied by dag_ec_ILDU0_fused and by
// dag_vc_ILDU0_fused, and block Jacobi for context. Per configuration: setup (pattern work,
// once), refactor (new values, same pattern), solve, iterations. Time to solution is
// setup + solve; a repeated solve (what users do thousands of times) is refactor + solve.
// Times are the best of the repeats after warm-up. One JSON line per matrix.
#include "bench_common.hpp"
#include "dd_solve_run.hpp"
#include "kk_ilu0_baseline.hpp"

#include "core/errors.hpp"
#include "krylov/block_jacobi.hpp"
#include "partition/partition_matrix.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using namespace fgdd;
using bench::ConfigResult;

struct Options {
  std::vector<std::string> problems = {"gen:lap7:160", "gen:bsr3:96", "gen:reservoir",
                                       "gen:convdiff:128", "gen:lap27:100"};
  Offset subdomain_rows = 0;
  bench::SolveRunOptions run;
};

Options parse_options(int argc, char* argv[]) {
  Options options;
  bool replaced = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--matrix" && has_value) {
      if (!replaced) options.problems.clear(), replaced = true;
      options.problems.push_back(argv[++i]);
    } else if (arg == "--subdomain-rows" && has_value) {
      options.subdomain_rows = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--repeats" && has_value) {
      options.run.repeats = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--warmup" && has_value) {
      options.run.warmup = std::max(0, std::atoi(argv[++i]));
    } else if (arg == "--tol" && has_value) {
      options.run.krylov.relative_tolerance = std::atof(argv[++i]);
    } else if (arg == "--max-iters" && has_value) {
      options.run.krylov.max_iterations = std::max(1, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr,
                   "usage: fgdd_solve_bench [--matrix gen:SPEC|FILE.mtx]... [--subdomain-rows N] "
                   "[--repeats R] [--warmup W] [--tol T] [--max-iters N]\n");
      std::exit(2);
    }
  }
  return options;
}

ConfigResult run_vendor(const ExecSpace& space, const Options& options, const SparseMatrix& A,
                        bench::VendorTrsv trsv) {
  ConfigResult out(trsv == bench::VendorTrsv::CuSparse ? "vendor_ilu0_cusparse" : "vendor_ilu0");
  if (trsv == bench::VendorTrsv::CuSparse && !bench::kk_cusparse_available) {
    out.skipped = "Kokkos-Kernels was built without the cuSPARSE TPL";
    return out;
  }
  try {
    const SparseMatrix csr = bench::point_csr(A);
    Kokkos::Timer timer;
    bench::KkIlu0Preconditioner M(csr, trsv);
    space.fence();
    out.setup_s = timer.seconds();
    out.refactor_s =
        bench::time_it(space, options.run.warmup, options.run.repeats, [&] { M.numeric(); }).min;
    Vector b("fgdd::bench::b", csr.num_rows());
    Kokkos::deep_copy(b, 1.0);
    bench::time_solve(space, options.run, MatrixOperator(csr), M, b, out);
  } catch (const std::exception& error) {  // e.g. its level analysis does not fit the device
    out.skipped = error.what();
  }
  return out;
}

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

std::string to_json(const ConfigResult& c) {
  char line[1024];
  if (!c.skipped.empty()) {
    std::string reason = c.skipped;
    std::replace(reason.begin(), reason.end(), '"', '\'');
    std::snprintf(line, sizeof line, "\"%s\":{\"skipped\":\"%s\"}", c.name.c_str(), reason.c_str());
    return line;
  }
  std::snprintf(line, sizeof line,
                "\"%s\":{\"setup_s\":%.6f,\"refactor_s\":%.6f,\"apply_s\":%.6e,\"solve_s\":%.6f,"
                "\"time_to_solution_s\":%.6f,\"repeat_solve_s\":%.6f,\"iterations\":%d,"
                "\"status\":\"%s\",\"relative_true_residual\":%.3e%s}",
                c.name.c_str(), c.setup_s, c.refactor_s, c.apply_s, c.solve_s,
                c.setup_s + c.solve_s, c.refactor_s + c.solve_s, c.iterations, c.status.c_str(),
                c.relative_true_residual, c.extra.c_str());
  return line;
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const Options options = parse_options(argc, argv);
  const ExecSpace space;
  const std::string device = bench::device_name();
  for (const std::string& spec : options.problems) {
    std::fprintf(stderr, "%s ...\n", spec.c_str());
    const GeneratedProblem problem = bench::load_problem(spec);
    PartitionReport report;
    PartitionOptions partition_options;
    partition_options.subdomain_rows = options.subdomain_rows;
    const auto run_dd = [&](ApplyKernel kernel) {
      return bench::run_dd(space, options.run, problem, partition_options, kernel, report);
    };
    const std::vector<ConfigResult> configs = {
        run_vendor(space, options, problem.matrix, bench::VendorTrsv::LevelSets),
        run_dd(ApplyKernel::DagEcIlduFused),
        run_dd(ApplyKernel::DagVcIlduFused),
        run_jacobi(space, options, problem.matrix),
        run_dd(ApplyKernel::DagLanesIlduFused),
        run_vendor(space, options, problem.matrix, bench::VendorTrsv::CuSparse)};
    std::string json;
    bool verified = true;
    for (const ConfigResult& c : configs) {
      json += (json.empty() ? "" : ",") + to_json(c);
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
    std::printf(
        "{\"benchmark\":\"bicgstab_solve\",\"commit\":\"%s\",\"kokkos_version\":%d,"
        "\"backend\":\"%s\",\"device\":\"%s\",\"matrix\":\"%s\",\"rows\":%zu,\"block_size\":%d,"
        "\"entries\":%zu,\"subdomains\":%d,\"cap_rows\":%zu,\"subdomain_rows_max\":%zu,"
        "\"dropped_percent\":%.2f,"
        "\"tol\":%.1e,\"configs\":{%s},\"speedup_tts_ec_vs_vendor\":%.3f,"
        "\"speedup_repeat_ec_vs_vendor\":%.3f,\"iteration_growth_dd_vs_vendor\":%.3f,"
        "\"verified\":%s}\n",
        FGDD_GIT_COMMIT, KOKKOS_VERSION, ExecSpace::name(), device.c_str(), spec.c_str(),
        std::size_t(problem.matrix.num_rows()), problem.matrix.block_size(),
        std::size_t(problem.matrix.num_entries()), report.num_subdomains,
        std::size_t(report.cap_rows), std::size_t(report.max_rows), 100 * report.dropped_fraction,
        options.run.krylov.relative_tolerance, json.c_str(),
        ratio(vendor.setup_s + vendor.solve_s, ec.setup_s + ec.solve_s),
        ratio(vendor.refactor_s + vendor.solve_s, ec.refactor_s + ec.solve_s),
        ratio(ec.iterations, vendor.iterations), verified ? "true" : "false");
    std::fflush(stdout);
  }
}
