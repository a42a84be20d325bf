// Paper figures of domain-overlap-iterative-sptrsv.txt (§5, Figs. 8–9) as tables: the relative
// residual of the lower and upper triangular systems of the global ILU0 factors against global
// Jacobi iterations, and the time per iteration, for directed overlap 0–50 % (asynchronous
// schedule); then outer BiCGSTAB with Jacobi triangular solves (a few sweep / iteration /
// overlap settings) against exact level-set solves and the DD apply. The matrix is taken in RCM
// ordering (the paper's; block overlap needs a small bandwidth). One JSON line per
// (matrix, overlap), then one per matrix for the solver comparison.
#include "bench_common.hpp"

#include "factor/global_ilu0.hpp"
#include "krylov/bicgstab.hpp"
#include "precond/dd_ilu_preconditioner.hpp"
#include "precond/global_ilu_preconditioner.hpp"
#include "precond/jacobi_ilu_preconditioner.hpp"
#include "partition/partition_matrix.hpp"
#include "trsv/jacobi_trsv.hpp"

#include <Kokkos_Core.hpp>
#include <Kokkos_Random.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace {

using namespace fgdd;

// A in RCM ordering. The RCM partitioner cuts the RCM order into contiguous chunks, so the
// permuted matrix is A in RCM order whatever the chunk size (the default cap; a cap of the whole
// matrix would exceed team scratch and throw). Nothing of `permuted` is dropped.
SparseMatrix rcm_ordered(const ExecSpace& space, const GeneratedProblem& problem) {
  PartitionOptions options;
  options.partitioner = Partitioner::Rcm;
  return partition_matrix(space, problem.matrix, GridInfo{}, options).system.permuted;
}

// ‖r − T x_k‖ / ‖r‖ after k = 1..iterations asynchronous global iterations from x_0 = 0 (the
// iterations are run one by one, as solve() runs them).
std::vector<double> residual_history(const ExecSpace& space, const JacobiTrsv& trsv,
                                     Triangle triangle, ConstVector r, Vector x, int iterations) {
  Kokkos::deep_copy(space, x, 0.0);
  const double r_norm = trsv.residual_norm(space, triangle, r, x);
  std::vector<double> history;
  for (int k = 1; k <= iterations; ++k) {
    trsv.global_iteration(space, triangle, r, x, x);
    history.push_back(trsv.residual_norm(space, triangle, r, x) / r_norm);
  }
  return history;
}

bench::JsonObject solve_json(const ExecSpace& space, const SparseMatrix& A, const Preconditioner& M,
                             int repeats) {
  Vector b("b", A.num_rows()), x("x", A.num_rows());
  Kokkos::deep_copy(b, 1.0);
  SolveResult result;
  const double seconds = bench::time_it(space, 1, repeats, [&] {
                           Kokkos::deep_copy(space, x, 0.0);
                           result = bicgstab(space, A, M, b, x, KrylovOptions{});
                         }).min;
  bench::JsonObject json;
  json.add("iterations", result.iterations)
      .add("solve_s", seconds, bench::fixed(6))
      .add("status", to_string(result.status));
  return json;
}

// The outer-solver settings: sweeps, global iterations, overlap.
struct JacobiSetting {
  int sweeps, iterations;
  double overlap;
};

int benchmark_main(int argc, char* argv[]) {
  // The paper's LAP (27-point, 64³) and suite problems of fgdd, CSR and BSR.
  std::vector<std::string> problems = {"gen:lap27:64", "gen:lap7:100", "gen:convdiff:64",
                                       "gen:bsr3:48"};
  int repeats = 5, max_iterations = 10;
  JacobiTrsvOptions base;  // block_rows and sweeps of the residual / timing lines
  bench::CommandLine("fgdd_jacobi_trsv_bench",
                     "Jacobi triangular solves with directed overlap (domain-overlap §5) and "
                     "BiCGSTAB with them.")
      .repeated("--matrix", &problems, "gen:SPEC|FILE.mtx", "a problem")
      .at_least("--repeats", &repeats, 1, "R", "timed runs, the best is reported")
      .at_least("--iterations", &max_iterations, 1, "N", "global Jacobi iterations")
      .option("--block-rows", &base.block_rows, "B", "rows of a Jacobi block")
      .option("--sweeps", &base.sweeps, "S", "sweeps per block and iteration")
      .parse(argc, argv);
  base.validate();
  const ExecSpace space;
  const std::string device = bench::device_name();
  for (const std::string& spec : problems) {
    const GeneratedProblem problem = bench::load_problem(spec);
    const SparseMatrix A = rcm_ordered(space, problem);
    const GlobalIlu0 ilu(space, A, FactorOptions{});
    Vector r("r", A.num_rows()), x("x", A.num_rows());
    Kokkos::Random_XorShift64_Pool<ExecSpace> pool(7);
    Kokkos::fill_random(r, pool, -1.0, 1.0);
    for (const double overlap : {0.0, 0.03, 0.13, 0.25, 0.5}) {
      JacobiTrsvOptions options = base;
      options.overlap = overlap;
      options.iterations = max_iterations;
      const JacobiTrsv trsv(factor_arrays(ilu), options);
      const std::vector<double> lower =
          residual_history(space, trsv, Triangle::Lower, r, x, max_iterations);
      const std::vector<double> upper =
          residual_history(space, trsv, Triangle::Upper, r, x, max_iterations);
      // solve() = zeroing x + max_iterations global iterations (no tolerance: no reductions).
      const auto per_iteration = [&](Triangle triangle) {
        return bench::time_it(space, 1, repeats, [&] { trsv.solve(space, triangle, r, x); }).min /
               max_iterations;
      };
      const double lower_seconds = per_iteration(Triangle::Lower);
      const double upper_seconds = per_iteration(Triangle::Upper);
      bench::JsonObject line;
      line.add("benchmark", "jacobi_trsv")
          .add("commit", bench::commit())
          .add("backend", ExecSpace::name())
          .add("device", device)
          .add("matrix", spec)
          .add("rows", std::size_t(A.num_rows()))
          .add("block_size", A.block_size())
          .add("ordering", "rcm")
          .add("schedule", "asynchronous")
          .add("overlap", overlap, bench::fixed(2))
          .add("block_rows", options.block_rows)
          .add("owned_rows", trsv.owned_rows())
          .add("sweeps", options.sweeps)
          .add("teams", trsv.num_teams())
          .add("lower_residual_by_iteration", lower, bench::scientific(3))
          .add("upper_residual_by_iteration", upper, bench::scientific(3))
          .add("seconds_per_iteration", lower_seconds, bench::scientific(6))
          .add("upper_seconds_per_iteration", upper_seconds, bench::scientific(6));
      bench::print_line(line);
    }
    // The outer solver: exact level-set ILU0, Jacobi-trsv ILU0 with a few settings, and the DD
    // ILDU0 (in its own partitioned ordering) for reference.
    const GlobalIluPreconditioner exact(space, A, GlobalIluOptions{});
    bench::JsonObject solves;
    solves.add("ilu0_exact_levels", solve_json(space, A, exact, repeats));
    for (const JacobiSetting& setting : std::vector<JacobiSetting>{
             {1, 2, 0.0}, {2, 2, 0.0}, {2, 4, 0.0}, {2, 4, 0.03}, {2, 4, 0.13}, {4, 4, 0.13}}) {
      JacobiTrsvOptions options = base;
      options.sweeps = setting.sweeps;
      options.iterations = setting.iterations;
      options.overlap = setting.overlap;
      const JacobiIluPreconditioner M(space, A, FactorOptions{}, options);
      const std::string name = "ilu0_jacobi_sw" + std::to_string(setting.sweeps) + "_it" +
                               std::to_string(setting.iterations) + "_ov" +
                               std::to_string(int(std::lround(100 * setting.overlap)));
      solves.add(name, solve_json(space, A, M, repeats));
    }
    const PartitionedMatrix dd =
        partition_matrix(space, problem.matrix, problem.grid, PartitionOptions{});
    const DdIluPreconditioner dd_M(space, dd.system.dropped, dd.partition, DdIluOptions{});
    solves.add("ildu0_dd", solve_json(space, dd.system.permuted, dd_M, repeats));
    bench::JsonObject line;
    line.add("benchmark", "jacobi_trsv_bicgstab")
        .add("commit", bench::commit())
        .add("backend", ExecSpace::name())
        .add("device", device)
        .add("matrix", spec)
        .add("rows", std::size_t(A.num_rows()))
        .add("block_rows", base.block_rows)
        .add("solvers", solves);
    bench::print_line(line);
  }
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) { return fgdd::bench::run_benchmark(argc, argv, benchmark_main); }
