// The subdomain-size trade-off (issue #7): smaller subdomains drop more couplings and cost
// BiCGSTAB iterations; larger ones have deeper level sets and a slower apply. For each matrix
// and subdomain size (1K rows up to the team-scratch maximum, max_subdomain_rows): dropped
// fraction, iterations, apply, setup, refactor and solve times and time to solution (setup +
// solve) of fgdd's DD ILDU0 BiCGSTAB (b = 1, x0 = 0), with the apply kernel Auto resolves to
// (dag_ec_ordered_ILDU0_fused on GPUs, row_order_ILDU0_fused on CPU backends). Times are the
// best of the repeats after warm-up. One JSON line per (matrix, size).
#include "bench_common.hpp"
#include "dd_solve_run.hpp"

#include "core/errors.hpp"
#include "precond/dd_ilu_preconditioner.hpp"
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
      throw bench::UsageError("--sizes takes scalar row counts or 'max', got '" + part + "'");
    sizes.push_back(Offset(rows));
  }
  if (sizes.empty()) throw bench::UsageError("--sizes is empty");
  return sizes;
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

int benchmark_main(int argc, char* argv[]) {
  Options options;
  bench::CommandLine("fgdd_subdomain_sweep_bench",
                     "DD ILDU0 BiCGSTAB per subdomain size: dropped couplings, iterations, apply "
                     "and solve times.")
      .repeated("--matrix", &options.problems, "gen:SPEC|FILE.mtx", "a problem")
      .custom("--sizes", "N,N,...,max", "1000,1500,2000,4000 below the maximum, then max",
              "scalar rows per subdomain at most; max: the team-scratch maximum",
              [&](const std::string& text) { options.sizes = parse_sizes(text); })
      .custom("--kernel", apply_kernel_names.joined(), to_string(options.kernel),
              "the apply kernel",
              [&](const std::string& name) { options.kernel = parse_apply_kernel(name); })
      .at_least("--repeats", &options.run.repeats, 1, "R", "timed runs, the best is reported")
      .at_least("--warmup", &options.run.warmup, 0, "W", "untimed runs before them")
      .option("--tol", &options.run.krylov.relative_tolerance, "T", "BiCGSTAB relative tolerance")
      .at_least("--max-iters", &options.run.krylov.max_iterations, 1, "N",
                "BiCGSTAB iterations at most")
      .at_least("--copy-mb", &options.copy_mb, 1.0, "MB", "size of the copy-bandwidth reference")
      .parse(argc, argv);
  const ExecSpace space;
  const std::string device = bench::device_name();
  const double copy_gbs =
      bench::copy_bandwidth(space, options.copy_mb, options.run.warmup, options.run.repeats);
  const std::string kernel = to_string(resolve_auto(options.kernel));
  std::fprintf(stderr, "copy bandwidth %.0f GB/s on %s; apply kernel %s\n", copy_gbs,
               device.c_str(), kernel.c_str());
  bench::JsonObject context = bench::report_header("subdomain_sweep");
  context.add("copy_gb_per_s", copy_gbs, bench::fixed(1))
      .add("repeats", options.run.repeats)
      .add("warmup", options.run.warmup)
      .add("tol", options.run.krylov.relative_tolerance, bench::scientific(1))
      .add("max_iters", options.run.krylov.max_iterations)
      .add("kernel", kernel);
  for (const std::string& spec : options.problems) {
    std::fprintf(stderr, "%s ...\n", spec.c_str());
    const GeneratedProblem problem = bench::load_problem(spec);
    const int b = problem.matrix.block_size();
    bench::JsonObject matrix = context;
    matrix.add("matrix", spec)
        .add("rows", std::size_t(problem.matrix.num_rows()))
        .add("block_size", b)
        .add("entries", std::size_t(problem.matrix.num_entries()))
        .add("scratch_max_rows", std::size_t(max_subdomain_rows(b)));
    const std::vector<Offset> sizes = sizes_for(options, b);
    if (options.run.warmup > 0) warm_up_setup(space, problem, sizes.front());
    for (const Offset rows : sizes) {
      PartitionOptions partition_options;
      partition_options.subdomain_rows = rows;
      PartitionReport report;
      bench::JsonObject line = matrix;
      try {
        const bench::ConfigResult c =
            bench::run_dd(space, options.run, problem, partition_options, options.kernel, report);
        const bool verified = bench::solution_verified(c, options.run.krylov.relative_tolerance);
        using bench::fixed;
        line.add("subdomain_rows_requested", std::size_t(rows))
            .add("cap_rows", std::size_t(report.cap_rows))
            .add("partitioner", to_string(report.partitioner))
            .add("subdomains", int(report.num_subdomains))
            .add("subdomain_rows_min", std::size_t(report.min_rows))
            .add("subdomain_rows_avg", report.average_rows, fixed(1))
            .add("subdomain_rows_max", std::size_t(report.max_rows))
            .add("dropped_percent", 100 * report.dropped_fraction, fixed(2))
            .add("scratch_level", c.scratch_level)
            .add("iterations", c.iterations)
            .add("setup_s", c.setup_s, fixed(6))
            .add("refactor_s", c.refactor_s, fixed(6))
            .add("apply_s", c.apply_s, bench::scientific(6))
            .add("solve_s", c.solve_s, fixed(6))
            .add("time_to_solution_s", c.setup_s + c.solve_s, fixed(6))
            .add("repeat_solve_s", c.refactor_s + c.solve_s, fixed(6))
            .add("status", c.status)
            .add("relative_true_residual", c.relative_true_residual, bench::scientific(3))
            .append(c.extra)
            .add("verified", verified);
        std::fprintf(stderr,
                     "  cap %6zu: %6d subdomains, %5.2f%% dropped, %4d it, apply %.3f ms, "
                     "TTS %.1f ms%s\n",
                     std::size_t(report.cap_rows), int(report.num_subdomains),
                     100 * report.dropped_fraction, c.iterations, 1e3 * c.apply_s,
                     1e3 * (c.setup_s + c.solve_s), verified ? "" : " NOT VERIFIED");
      } catch (const Error& error) {  // a size outside [b, scratch maximum], a zero pivot
        line.add("subdomain_rows_requested", rows)
            .add("status", "skipped")
            .add("skipped", error.what());
        std::fprintf(stderr, "  size %zu skipped: %s\n", std::size_t(rows), error.what());
      }
      bench::print_line(line);
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) { return fgdd::bench::run_benchmark(argc, argv, benchmark_main); }
