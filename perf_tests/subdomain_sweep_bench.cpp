// The subdomain-size trade-off (issue #7): smaller subdomains drop more couplings and cost
// BiCGSTAB iterations; larger ones have deeper level sets and a slower apply. For each matrix
// and subdomain size (1K rows up to the team-scratch maximum, max_subdomain_rows): dropped
// fraction, iterations, apply, setup, refactor and solve times and time to solution (setup +
// solve) of fgdd's DD ILDU0 BiCGSTAB (b = 1, x0 = 0), with the apply kernel Auto resolves to
// (dag_ec_ILDU0_fused on GPUs, dag_vc_ILDU0_fused on CPU backends). Times are the best of the
// repeats after warm-up. One JSON line per (matrix, size).
#include "bench_common.hpp"
#include "dd_solve_run.hpp"

#include "core/errors.hpp"
#include "krylov/dd_ilu_preconditioner.hpp"
#include "partition/partition_matrix.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace fgdd;

struct Options {
  std::vector<std::string> problems = {"gen:lap7:160", "gen:bsr3:96", "gen:reservoir",
                                       "gen:lap27:100"};
  // Scalar rows per subdomain at most; 0 = the scratch maximum (max_subdomain_rows).
  // Empty: 1000, 1500, 2000, 4000 (those below the maximum) and the maximum.
  std::vector<Offset> sizes;
  ApplyKernel kernel = ApplyKernel::Auto;
  double copy_mb = 512;
  bench::SolveRunOptions run;
};

[[noreturn]] void usage() {
  std::fprintf(stderr,
               "usage: fgdd_subdomain_sweep_bench [--matrix gen:SPEC|FILE.mtx]... "
               "[--sizes 1000,2000,4000,max] [--kernel auto|dag_ec_ILDU0_fused|...] "
               "[--repeats R] [--warmup W] [--tol T] [--max-iters N] [--copy-mb MB]\n");
  std::exit(2);
}

std::vector<Offset> parse_sizes(const std::string& text) {
  std::vector<Offset> sizes;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');) {
    if (part.empty()) continue;
    if (part == "max") {
      sizes.push_back(0);
      continue;
    }
    char* end = nullptr;
    const unsigned long long rows = std::strtoull(part.c_str(), &end, 10);
    if (end == part.c_str() || *end != '\0')
      throw InvalidInput("--sizes takes scalar row counts or 'max', got '" + part + "'");
    sizes.push_back(Offset(rows));
  }
  if (sizes.empty()) throw InvalidInput("--sizes is empty");
  return sizes;
}

Options parse_options(int argc, char* argv[]) {
  Options options;
  bool replaced = false;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      const bool has_value = i + 1 < argc;
      if (arg == "--matrix" && has_value) {
        if (!replaced) options.problems.clear(), replaced = true;
        options.problems.push_back(argv[++i]);
      } else if (arg == "--sizes" && has_value) {
        options.sizes = parse_sizes(argv[++i]);
      } else if (arg == "--kernel" && has_value) {
        options.kernel = parse_apply_kernel(argv[++i]);
      } else if (arg == "--repeats" && has_value) {
        options.run.repeats = std::max(1, std::atoi(argv[++i]));
      } else if (arg == "--warmup" && has_value) {
        options.run.warmup = std::max(0, std::atoi(argv[++i]));
      } else if (arg == "--tol" && has_value) {
        options.run.krylov.relative_tolerance = std::atof(argv[++i]);
      } else if (arg == "--max-iters" && has_value) {
        options.run.krylov.max_iterations = std::max(1, std::atoi(argv[++i]));
      } else if (arg == "--copy-mb" && has_value) {
        options.copy_mb = std::max(1.0, std::atof(argv[++i]));
      } else {
        usage();
      }
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s\n", error.what());
    usage();
  }
  return options;
}

// The caps to run at block size b: the requested ones, or the default list cut at the maximum;
// 'max' (0) becomes the scratch maximum, which is not what subdomain_rows = 0 gives on a GPU.
std::vector<Offset> sizes_for(const Options& options, int block_size) {
  const Offset largest = max_subdomain_rows(block_size);
  std::vector<Offset> sizes;
  if (options.sizes.empty()) {
    for (const Offset rows : {Offset(1000), Offset(1500), Offset(2000), Offset(4000)})
      if (rows < largest) sizes.push_back(rows);
    sizes.push_back(largest);
  } else {
    for (const Offset rows : options.sizes) sizes.push_back(rows == 0 ? largest : rows);
  }
  return sizes;
}

// One untimed DD setup, so that the first size's setup time does not carry first-touch costs
// (allocations, page faults) the later ones do not pay.
void warm_up_setup(const ExecSpace& space, const GeneratedProblem& problem, Offset rows) {
  PartitionOptions partition_options;
  partition_options.subdomain_rows = rows;
  try {
    const PartitionedMatrix dd =
        partition_matrix(space, problem.matrix, problem.grid, partition_options);
    const DdIluPreconditioner M(space, dd.system.dropped, dd.partition, DdIluOptions{});
    space.fence();
  } catch (const Error&) {  // the timed run reports it
  }
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const Options options = parse_options(argc, argv);
  const ExecSpace space;
  const std::string device = bench::device_name();
  const double copy_gbs =
      bench::copy_bandwidth(space, options.copy_mb, options.run.warmup, options.run.repeats);
  const std::string kernel = to_string(resolve_auto(options.kernel));
  std::fprintf(stderr, "copy bandwidth %.0f GB/s on %s; apply kernel %s\n", copy_gbs,
               device.c_str(), kernel.c_str());
  char context[512];
  std::snprintf(context, sizeof context,
                "{\"benchmark\":\"subdomain_sweep\",\"commit\":\"%s\",\"kokkos_version\":%d,"
                "\"backend\":\"%s\",\"device\":\"%s\",\"copy_gb_per_s\":%.1f,\"repeats\":%d,"
                "\"warmup\":%d,\"tol\":%.1e,\"max_iters\":%d,\"kernel\":\"%s\"",
                FGDD_GIT_COMMIT, KOKKOS_VERSION, ExecSpace::name(), device.c_str(), copy_gbs,
                options.run.repeats, options.run.warmup, options.run.krylov.relative_tolerance,
                options.run.krylov.max_iterations, kernel.c_str());
  for (const std::string& spec : options.problems) {
    std::fprintf(stderr, "%s ...\n", spec.c_str());
    const GeneratedProblem problem = bench::load_problem(spec);
    const int b = problem.matrix.block_size();
    char shape[256];
    std::snprintf(shape, sizeof shape,
                  ",\"rows\":%zu,\"block_size\":%d,\"entries\":%zu,\"scratch_max_rows\":%zu",
                  std::size_t(problem.matrix.num_rows()), b,
                  std::size_t(problem.matrix.num_entries()), std::size_t(max_subdomain_rows(b)));
    const std::string matrix = ",\"matrix\":\"" + bench::json_string(spec) + "\"" + shape;
    const std::vector<Offset> sizes = sizes_for(options, b);
    if (options.run.warmup > 0) warm_up_setup(space, problem, sizes.front());
    for (const Offset rows : sizes) {
      PartitionOptions partition_options;
      partition_options.subdomain_rows = rows;
      PartitionReport report;
      std::string line;
      try {
        const bench::ConfigResult c =
            bench::run_dd(space, options.run, problem, partition_options, options.kernel, report);
        const bool verified = bench::solution_verified(c, options.run.krylov.relative_tolerance);
        char fields[1024];
        std::snprintf(fields, sizeof fields,
                      ",\"subdomain_rows_requested\":%zu,\"cap_rows\":%zu,\"partitioner\":\"%s\","
                      "\"subdomains\":%d,\"subdomain_rows_min\":%zu,\"subdomain_rows_avg\":%.1f,"
                      "\"subdomain_rows_max\":%zu,\"dropped_percent\":%.2f,\"scratch_level\":%d,"
                      "\"iterations\":%d,\"setup_s\":%.6f,\"refactor_s\":%.6f,\"apply_s\":%.6e,"
                      "\"solve_s\":%.6f,\"time_to_solution_s\":%.6f,\"repeat_solve_s\":%.6f,"
                      "\"status\":\"%s\",\"relative_true_residual\":%.3e%s,\"verified\":%s}",
                      std::size_t(rows), std::size_t(report.cap_rows),
                      to_string(report.partitioner), int(report.num_subdomains),
                      std::size_t(report.min_rows), report.average_rows,
                      std::size_t(report.max_rows), 100 * report.dropped_fraction, c.scratch_level,
                      c.iterations, c.setup_s, c.refactor_s, c.apply_s, c.solve_s,
                      c.setup_s + c.solve_s, c.refactor_s + c.solve_s, c.status.c_str(),
                      c.relative_true_residual, c.extra.c_str(), verified ? "true" : "false");
        line = fields;
        std::fprintf(stderr,
                     "  cap %6zu: %6d subdomains, %5.2f%% dropped, %4d it, apply %.3f ms, "
                     "TTS %.1f ms%s\n",
                     std::size_t(report.cap_rows), int(report.num_subdomains),
                     100 * report.dropped_fraction, c.iterations, 1e3 * c.apply_s,
                     1e3 * (c.setup_s + c.solve_s), verified ? "" : " NOT VERIFIED");
      } catch (const Error& error) {  // a size outside [b, scratch maximum], a zero pivot
        line = ",\"subdomain_rows_requested\":" + std::to_string(rows) +
               ",\"status\":\"skipped\",\"skipped\":\"" + bench::json_string(error.what()) + "\"}";
        std::fprintf(stderr, "  size %zu skipped: %s\n", std::size_t(rows), error.what());
      }
      std::printf("%s%s%s\n", context, matrix.c_str(), line.c_str());
      std::fflush(stdout);
    }
  }
}
