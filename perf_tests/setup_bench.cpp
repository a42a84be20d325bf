// Issue 33's setup benchmark: matrices read from Matrix Market files (no grid metadata, the way
// most users arrive), solved by fgdd::Solver (DD ILDU0 BiCGSTAB, the default) with every
// partitioner of partitioner_names, next to the vendor ILU0 without DD in the same run. Per
// (matrix, partitioner): the setup split (partition, reorder + drop, factorization + level
// sets), subdomains, dropped fraction, iterations, solve time, time to solution, and the peak
// live bytes of the setup and of the solve per stored entry of A, with the labels that hold them.
// A partitioner that cannot apply (geometric without a grid, METIS not built) gets a line that
// says why. Times are the best of the repeats; b = 1 unless --rhs gives it.
#include "bench_common.hpp"
#include "dd_solve_run.hpp"
#include "kk_ilu0_baseline.hpp"
#include "memory_tracker.hpp"

#include "core/errors.hpp"
#include "core/matrix_market.hpp"
#include "solver/solver.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace {

using namespace fgdd;
using bench::ConfigResult;

struct Options {
  std::vector<std::string> matrices;
  std::vector<std::string> rhs;           // empty, or one per matrix
  std::vector<std::string> partitioners;  // empty: every one of partitioner_names
  Offset subdomain_rows = 0;
  std::vector<std::string> solver_options;  // key=value items for fgdd's Solver
  std::string vendor = "auto";
  int labels = 6;  // labels listed per memory peak
  bool memory = true;
  bench::SolveRunOptions run;
};

// Kokkos-Kernels' ILU0 with the vendor's triangular solves: cuSPARSE's when Kokkos-Kernels has
// it, else its level sets; none for "none", "csrilu02" (cuSPARSE's own ILU0) and "rocsparse"
// (rocSPARSE's own).
std::optional<bench::VendorTrsv> vendor_trsv(const std::string& choice) {
  if (choice == "none" || choice == "csrilu02" || choice == "rocsparse") return std::nullopt;
  if (choice == "levels") return bench::VendorTrsv::LevelSets;
  if (choice == "cusparse") return bench::VendorTrsv::CuSparse;
  return bench::kk_cusparse_available ? bench::VendorTrsv::CuSparse : bench::VendorTrsv::LevelSets;
}

std::vector<Partitioner> chosen_partitioners(const Options& options) {
  std::vector<Partitioner> chosen;
  if (options.partitioners.empty()) {
    for (const Partitioner p : partitioner_names.values()) chosen.push_back(p);
  } else {
    for (const std::string& name : options.partitioners) chosen.push_back(parse_partitioner(name));
  }
  return chosen;
}

Vector right_hand_side(const Options& options, std::size_t matrix_index, Offset rows) {
  Vector b(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::bench::b"), rows);
  if (options.rhs.empty()) {
    Kokkos::deep_copy(b, 1.0);
    return b;
  }
  const std::vector<Scalar> host =
      read_matrix_market_vector(options.rhs[matrix_index], std::int64_t(rows));
  Kokkos::deep_copy(
      b, Kokkos::View<const Scalar*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
             host.data(), rows));
  return b;
}

// fgdd::Solver with partitioner on problem: setup best of the repeats (one solver alive at a
// time), then the solves. Skipped when the partition stage refuses the matrix (InvalidInput or
// NotCompiled before anything was partitioned: geometric without a grid, METIS not built); any
// other setup failure is status "setup_failed" with the error.
ConfigResult run_solver(const ExecSpace& space, const Options& options,
                        const GeneratedProblem& problem, ConstVector b, Partitioner partitioner,
                        PartitionReport& report) {
  ConfigResult out("fgdd");
  SolverOptions solver_options;
  solver_options.partition.partitioner = partitioner;
  solver_options.partition.subdomain_rows = options.subdomain_rows;
  solver_options.krylov = options.run.krylov;
  solver_options.set_all(options.solver_options);
  bench::PeakMemoryTracker* memory = options.run.memory;
  std::optional<Solver> solver;
  if (memory) memory->start_phase();
  double partition_s = 0, reorder_s = 0;
  for (int repeat = 0; repeat < options.run.repeats; ++repeat) {
    solver.reset();  // one setup alive at a time, as a user would have
    solver.emplace(solver_options);
    Kokkos::Timer timer;
    try {
      solver->setup(space, problem.matrix, problem.grid);
    } catch (const Error& error) {
      bool partitioned = true;
      try {
        report = solver->partition_report();
      } catch (const InvalidInput&) {
        partitioned = false;
      }
      // The partition stage refusing the matrix or the build: this partitioner cannot apply.
      const bool refused =
          dynamic_cast<const InvalidInput*>(&error) || dynamic_cast<const NotCompiled*>(&error);
      if (!partitioned && refused) {
        out.skipped = error.what();
        return out;
      }
      out.status = "setup_failed";  // a zero pivot, memory: the method's failure, reported
      out.extra.add("error", error.what());
      return out;
    }
    space.fence();
    const double seconds = timer.seconds();
    if (repeat == 0 || seconds < out.setup_s) {
      out.setup_s = seconds;
      report = solver->partition_report();
      partition_s = report.partition_seconds;
      reorder_s = report.reorder_seconds;
    }
  }
  if (memory) out.setup_memory = memory->phase_peak();
  out.extra.add("partition_s", partition_s, bench::fixed(6))
      .add("reorder_s", reorder_s, bench::fixed(6))
      .add("factor_levels_s", out.setup_s - partition_s - reorder_s, bench::fixed(6))
      .add("preconditioner", solver->preconditioner().name());
  if (!report.steps.empty()) out.extra.add("partition_steps", report.steps);

  if (memory) memory->start_phase();
  Vector x("fgdd::bench::x", b.extent(0));
  SolveResult result;
  out.solve_s = bench::time_it(space, options.run.warmup, options.run.repeats, [&] {
                  Kokkos::deep_copy(space, x, 0.0);
                  result = solver->solve(space, b, x);
                }).min;
  if (memory) out.solve_memory = memory->phase_peak();
  out.iterations = result.iterations;
  out.status = to_string(result.status);
  out.relative_true_residual = result.relative_true_residual;
  return out;
}

// {"label": bytes per entry, ...} for the largest labels of a peak, the rest as "(other)".
bench::JsonObject labels_json(const bench::PhasePeak& peak, double entries, int shown) {
  bench::JsonObject json;
  double other = 0;
  for (std::size_t k = 0; k < peak.labels.size(); ++k) {
    if (int(k) < shown)
      json.add(peak.labels[k].label, double(peak.labels[k].bytes) / entries, bench::fixed(2));
    else
      other += double(peak.labels[k].bytes);
  }
  if (other > 0) json.add("(other)", other / entries, bench::fixed(2));
  return json;
}

bench::JsonObject vendor_json(const ConfigResult& c, double entries, int shown, bool memory) {
  bench::JsonObject json;
  json.add("name", c.name);
  if (!c.skipped.empty()) return json.add("skipped", c.skipped);
  using bench::fixed;
  json.add("setup_s", c.setup_s, fixed(6))
      .add("iterations", c.iterations)
      .add("solve_s", c.solve_s, fixed(6))
      .add("time_to_solution_s", c.setup_s + c.solve_s, fixed(6))
      .add("status", c.status)
      .add("relative_true_residual", c.relative_true_residual, bench::scientific(3));
  if (!memory) return json;
  return json.add("setup_peak_bytes_per_entry", double(c.setup_memory.bytes) / entries, fixed(2))
      .add("solve_peak_bytes_per_entry", double(c.solve_memory.bytes) / entries, fixed(2))
      .add("setup_peak_labels", labels_json(c.setup_memory, entries, shown))
      .add("solve_peak_labels", labels_json(c.solve_memory, entries, shown));
}

int benchmark_main(int argc, char* argv[]) {
  Options options;
  bench::CommandLine("fgdd_setup_bench",
                     "Setup, iterations and time to solution per partitioner on matrices from "
                     "files, next to the vendor ILU0, with peak memory per entry (issue 33).")
      .repeated("--matrix", &options.matrices, "FILE.mtx|gen:SPEC",
                "a matrix; a generator spec keeps its grid")
      .repeated("--rhs", &options.rhs, "FILE.mtx",
                "b of the matrix given in the same place; default b = 1")
      .list("--partitioners", &options.partitioners, "P,P,...",
            "among " + partitioner_names.joined() + "; default: all")
      .option("--subdomain-rows", &options.subdomain_rows, "N",
              "scalar rows per subdomain at most; 0: the default")
      .repeated("--option", &options.solver_options, "KEY=VALUE",
                "a Solver option for every fgdd setup (e.g. apply=dag_ec_ordered_ILDU0_fused, "
                "to measure the GPU path's memory on a CPU backend)")
      .choice("--vendor", &options.vendor,
              {"auto", "levels", "cusparse", "csrilu02", "rocsparse", "none"},
              "the vendor ILU0: Kokkos-Kernels' spiluk with cuSPARSE's (auto when built in) or "
              "its own level-set triangular solves, cuSPARSE's csrilu02 + SpSV, or rocSPARSE's "
              "csrilu0 + "
              "csrsv")
      .at_least("--repeats", &options.run.repeats, 1, "R",
                "setups and solves timed, the best is reported")
      .at_least("--warmup", &options.run.warmup, 0, "W", "untimed solves before them")
      .option("--tol", &options.run.krylov.relative_tolerance, "T", "BiCGSTAB relative tolerance")
      .at_least("--max-iters", &options.run.krylov.max_iterations, 1, "N",
                "BiCGSTAB iterations at most")
      .at_least("--labels", &options.labels, 0, "N", "allocation labels listed per memory peak")
      .toggle("--no-memory", &options.memory, false,
              "no allocation callbacks, no memory fields (to check they do not change the times)")
      .parse(argc, argv);
  if (options.matrices.empty()) throw bench::UsageError("give at least one --matrix");
  if (!options.rhs.empty() && options.rhs.size() != options.matrices.size())
    throw bench::UsageError("--rhs given " + std::to_string(options.rhs.size()) + " times for " +
                            std::to_string(options.matrices.size()) + " --matrix");
  const std::vector<Partitioner> partitioners = chosen_partitioners(options);
  const std::optional<bench::VendorTrsv> vendor = vendor_trsv(options.vendor);
  options.run.setup_repeats = options.run.repeats;
  // Before the matrices are read, so that they count.
  std::optional<bench::PeakMemoryTracker> memory;
  if (options.memory) memory.emplace();
  options.run.memory = memory ? &*memory : nullptr;
  const ExecSpace space;

  for (std::size_t m = 0; m < options.matrices.size(); ++m) {
    const std::string& source = options.matrices[m];
    std::fprintf(stderr, "%s ...\n", source.c_str());
    Kokkos::Timer read_timer;
    const GeneratedProblem problem = bench::load_problem(source);
    const double read_s = read_timer.seconds();
    const Vector b = right_hand_side(options, m, problem.matrix.num_rows());
    const double entries = double(problem.matrix.num_entries());
    const double csr_bytes_per_entry =
        double(sizeof(Scalar) + sizeof(Ordinal)) +
        double(sizeof(Offset)) * double(problem.matrix.num_rows() + 1) / entries;
    const double input_bytes_per_entry = memory ? double(memory->live_bytes()) / entries : 0.0;

    ConfigResult vendor_result("vendor_ilu0");
    const bool vendor_wanted = options.vendor != "none";
    if (vendor_wanted) {
      vendor_result = vendor
                          ? bench::run_vendor_ilu0(space, options.run, problem.matrix, *vendor, b)
                      : options.vendor == "rocsparse"
                          ? bench::run_rocsparse_ilu0(space, options.run, problem.matrix, b)
                          : bench::run_cusparse_ilu0(space, options.run, problem.matrix, b);
      std::fprintf(stderr, "  %-12s %s\n", vendor_result.name.c_str(),
                   vendor_result.skipped.empty()
                       ? (std::to_string(vendor_result.iterations) + " it, setup " +
                          std::to_string(vendor_result.setup_s) + " s")
                             .c_str()
                       : ("skipped: " + vendor_result.skipped).c_str());
    }
    const bool vendor_ran =
        vendor_wanted && vendor_result.skipped.empty() && vendor_result.converged();

    for (const Partitioner partitioner : partitioners) {
      PartitionReport report;
      const ConfigResult c = run_solver(space, options, problem, b, partitioner, report);
      bench::JsonObject line = bench::report_header("setup_from_file");
      line.add("matrix", source)
          .add("rhs", options.rhs.empty() ? std::string("ones") : options.rhs[m])
          .add("rows", std::size_t(problem.matrix.num_rows()))
          .add("block_size", problem.matrix.block_size())
          .add("entries", std::size_t(problem.matrix.num_entries()))
          .add("read_s", read_s, bench::fixed(6))
          .add("partitioner", to_string(partitioner));
      if (!c.skipped.empty()) {
        line.add("skipped", c.skipped);
        bench::print_line(line);
        std::fprintf(stderr, "  %-12s skipped: %s\n", to_string(partitioner), c.skipped.c_str());
        continue;
      }
      using bench::fixed;
      const bool solved = c.status != "setup_failed";
      line.add("partitioner_used", to_string(report.partitioner))
          .add("subdomains", report.num_subdomains)
          .add("cap_rows", std::size_t(report.cap_rows))
          .add("subdomain_rows_max", std::size_t(report.max_rows))
          .add("dropped_percent", 100 * report.dropped_fraction, fixed(2))
          .add("setup_s", c.setup_s, fixed(6))
          .append(c.extra);
      if (solved) {
        line.add("iterations", c.iterations)
            .add("solve_s", c.solve_s, fixed(6))
            .add("time_to_solution_s", c.setup_s + c.solve_s, fixed(6));
      }
      line.add("status", c.status);
      if (solved)
        line.add("relative_true_residual", c.relative_true_residual, bench::scientific(3));
      if (solved && memory) {
        line.add("input_bytes_per_entry", input_bytes_per_entry, fixed(2))
            .add("setup_peak_bytes_per_entry", double(c.setup_memory.bytes) / entries, fixed(2))
            .add("solve_peak_bytes_per_entry", double(c.solve_memory.bytes) / entries, fixed(2))
            .add("csr_bytes_per_entry", csr_bytes_per_entry, fixed(2))
            .add("setup_peak_labels", labels_json(c.setup_memory, entries, options.labels))
            .add("solve_peak_labels", labels_json(c.solve_memory, entries, options.labels));
      }
      if (vendor_wanted)
        line.add("vendor", vendor_json(vendor_result, entries, options.labels, options.memory));
      const bool compared = vendor_ran && c.converged();
      line.add("setup_ratio_vs_vendor", compared ? c.setup_s / vendor_result.setup_s : -1.0,
               fixed(3))
          .add("speedup_tts_vs_vendor",
               compared ? (vendor_result.setup_s + vendor_result.solve_s) / (c.setup_s + c.solve_s)
                        : -1.0,
               fixed(3))
          .add("tol", options.run.krylov.relative_tolerance, bench::scientific(1))
          .add("repeats", options.run.repeats)
          .add("verified", bench::solution_verified(c, options.run.krylov.relative_tolerance));
      bench::print_line(line);
      std::fprintf(stderr, "  %-12s %s, setup %.4f s, %d it, solve %.4f s\n",
                   to_string(partitioner), c.status.c_str(), c.setup_s, c.iterations, c.solve_s);
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) { return fgdd::bench::run_benchmark(argc, argv, benchmark_main); }
