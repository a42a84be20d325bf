// Issue 36: the inverse-based multilevel ILU against the DD default and the exact global ILU(0)
// on hard systems, in the same run on the same matrix: setup (host and upload), levels, fill,
// the apply time against the global ILU(0) apply, and a Krylov solve with each preconditioner
// (iterations, seconds, true residual, status), and the setup again from the first one (what
// update_values does). One JSON line per problem.
#include "bench_common.hpp"

#include "multilevel/multilevel_ilu.hpp"
#include "precond/global_ilu_preconditioner.hpp"
#include "solver/solver.hpp"
#include "trsv/global_trsv.hpp"

#include <Kokkos_Core.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace {

using namespace fgdd;

struct SolveRun {
  SolveResult result;
  double setup_seconds = 0;
};

SolveRun solve_with(const ExecSpace& space, const SparseMatrix& A, const GridInfo& grid,
                    const std::string& method, const std::string& precond, double tol,
                    int max_iters, const MultilevelIluOptions& multilevel) {
  SolverOptions options;
  options.multilevel = multilevel;  // the options the apply and fill above were measured with
  options.set("method", method);
  options.set("preconditioner", precond);
  char text[32];
  std::snprintf(text, sizeof(text), "%.17g", tol);
  options.set("tol", text);
  options.set("max_iters", std::to_string(max_iters));
  Solver solver(options);
  Kokkos::Timer timer;
  solver.setup(space, A, grid);
  space.fence();
  SolveRun run;
  run.setup_seconds = timer.seconds();
  const Vector b = bench::pattern_vector(A.num_rows());
  Vector x("fgdd::bench::x", A.num_rows());
  run.result = solver.solve(space, b, x);
  return run;
}

int benchmark_main(int argc, char* argv[]) {
  std::vector<std::string> problems = {"gen:reservoir:60:60:20", "gen:convdiff:48"};
  std::string method = "gmres";
  double tol = 1e-8;
  int max_iters = 3000, repeats = 10, warmup = 2;
  MultilevelIluOptions options;
  bench::CommandLine("fgdd_multilevel_bench",
                     "The multilevel ILU against the DD default and the global ILU(0).")
      .repeated("--matrix", &problems, "gen:SPEC|FILE.mtx", "a problem (repeatable)")
      .choice("--solver", &method, {"gmres", "bicgstab"}, "Krylov method of the solves")
      .option("--tol", &tol, "T", "relative tolerance of the solves")
      .at_least("--max-iters", &max_iters, 1, "N", "iteration limit of the solves")
      .at_least("--repeats", &repeats, 1, "R", "timed applies (the median is reported)")
      .at_least("--warmup", &warmup, 0, "W", "untimed applies first")
      .option("--ml-drop-tol", &options.drop_tolerance, "T", "multilevel drop tolerance")
      .option("--ml-inverse-bound", &options.inverse_bound, "K", "multilevel inverse bound")
      .custom("--ml-couplings", multilevel_couplings_names.joined(),
              multilevel_couplings_names.name(options.couplings),
              "what the multilevel apply multiplies with between levels",
              [&](const std::string& name) {
                options.couplings = multilevel_couplings_names.parse(name);
              })
      .parse(argc, argv);
  const ExecSpace space;
  for (const std::string& source : problems) {
    const GeneratedProblem problem = bench::load_problem(source);
    const SparseMatrix& A = problem.matrix;
    Kokkos::Timer timer;
    const MultilevelIlu multilevel(space, A, options);
    const double multilevel_setup = timer.seconds();
    timer.reset();
    const MultilevelIlu again(space, A, multilevel);  // new values, here the same ones
    const double multilevel_resetup = timer.seconds();
    GlobalIluOptions global_options;
    timer.reset();
    const GlobalIluPreconditioner global(space, A, global_options);
    space.fence();
    const double global_setup = timer.seconds();
    const Vector r = bench::pattern_vector(A.num_rows());
    Vector z("fgdd::bench::z", A.num_rows());
    const bench::Timing ml_apply =
        bench::time_it(space, warmup, repeats, [&] { multilevel.apply(space, r, z); });
    const bench::Timing global_apply =
        bench::time_it(space, warmup, repeats, [&] { global.apply(space, r, z); });
    // Both again with the merged runs of small levels unpipelined (global_pipelined_kernel.hpp).
    detail::merged_pipelining = false;
    const bench::Timing ml_apply_unpipelined =
        bench::time_it(space, warmup, repeats, [&] { multilevel.apply(space, r, z); });
    const bench::Timing global_apply_unpipelined =
        bench::time_it(space, warmup, repeats, [&] { global.apply(space, r, z); });
    detail::merged_pipelining = true;

    const MultilevelReport& report = multilevel.report();
    std::vector<double> level_rows, level_seconds, level_factor_entries, level_coupling_entries;
    for (const MultilevelLevelReport& level : report.levels) {
      level_rows.push_back(level.rows);
      level_seconds.push_back(level.seconds);
      level_factor_entries.push_back(double(level.factor_entries));
      level_coupling_entries.push_back(double(level.coupling_entries));
    }
    using bench::fixed;
    bench::JsonObject line;
    line.add("benchmark", "multilevel_ilu")
        .add("commit", bench::commit())
        .add("backend", ExecSpace::name())
        .add("device", bench::device_name())
        .add("matrix", source)
        .add("rows", A.num_rows())
        .add("entries", A.num_entries())
        .add("drop_tolerance", options.drop_tolerance)
        .add("inverse_bound", options.inverse_bound)
        .add("couplings", multilevel_couplings_names.name(options.couplings))
        .add("levels", int(report.levels.size()))
        .add("level_rows", level_rows)
        .add("level_factor_entries", level_factor_entries)
        .add("level_coupling_entries", level_coupling_entries)
        .add("level_seconds", level_seconds)
        .add("dense_rows", report.dense_rows)
        .add("fill_ratio", report.fill_ratio, fixed(3))
        .add("multilevel_host_seconds", report.host_seconds, fixed(4))
        .add("multilevel_upload_seconds", report.upload_seconds, fixed(4))
        .add("multilevel_setup_seconds", multilevel_setup, fixed(4))
        .add("multilevel_resetup_seconds", multilevel_resetup, fixed(4))
        .add("multilevel_resetup_pivots_held", again.report().pivots_held)
        .add("global_ilu0_setup_seconds", global_setup, fixed(4))
        .add("multilevel_apply_ms", ml_apply.median * 1e3, fixed(4))
        .add("global_ilu0_apply_ms", global_apply.median * 1e3, fixed(4))
        .add("apply_ratio", ml_apply.median / global_apply.median, fixed(3))
        .add("multilevel_apply_ms_unpipelined", ml_apply_unpipelined.median * 1e3, fixed(4))
        .add("global_ilu0_apply_ms_unpipelined", global_apply_unpipelined.median * 1e3, fixed(4));
    for (const char* precond : {"ildu0-dd", "ilu0", "multilevel-ilu"}) {
      const SolveRun run =
          solve_with(space, A, problem.grid, method, precond, tol, max_iters, options);
      const std::string key = std::string(precond) == "multilevel-ilu" ? "multilevel"
                              : std::string(precond) == "ilu0"          ? "global_ilu0"
                                                                        : "dd";
      line.add(key + "_iterations", run.result.iterations)
          .add(key + "_status", to_string(run.result.status))
          .add(key + "_solver_setup_seconds", run.setup_seconds, fixed(4))
          .add(key + "_solve_seconds", run.result.solve_seconds, fixed(4))
          .add(key + "_relative_true_residual", run.result.relative_true_residual);
    }
    line.add("solver", method).add("tol", tol);
    bench::print_line(line);
  }
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) { return fgdd::bench::run_benchmark(argc, argv, benchmark_main); }
