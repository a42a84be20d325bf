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
#include "krylov/dd_ilu_preconditioner.hpp"
#include "krylov/global_ilu_preconditioner.hpp"
#include "krylov/jacobi_ilu_preconditioner.hpp"
#include "partition/partition_matrix.hpp"
#include "trsv/jacobi_trsv.hpp"

#include <Kokkos_Core.hpp>
#include <Kokkos_Random.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
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

// ‖r − T x_k‖ / ‖r‖ after k = 1..iterations asynchronous global iterations from x_0 = 0, as a
// JSON list (the iterations are run one by one, as solve() runs them).
std::string residual_history(const ExecSpace& space, const JacobiTrsv& trsv, Triangle triangle,
                             ConstVector r, Vector x, int iterations) {
  Kokkos::deep_copy(space, x, 0.0);
  const double r_norm = trsv.residual_norm(space, triangle, r, x);
  std::string list;
  for (int k = 1; k <= iterations; ++k) {
    trsv.global_iteration(space, triangle, r, x, x);
    char item[32];
    std::snprintf(item, sizeof item, "%s%.3e", k > 1 ? "," : "",
                  trsv.residual_norm(space, triangle, r, x) / r_norm);
    list += item;
  }
  return list;
}

std::string solve_json(const std::string& name, const ExecSpace& space, const SparseMatrix& A,
                       const Preconditioner& M, int repeats) {
  Vector b("b", A.num_rows()), x("x", A.num_rows());
  Kokkos::deep_copy(b, 1.0);
  SolveResult result;
  const double seconds = bench::time_it(space, 1, repeats, [&] {
                           Kokkos::deep_copy(space, x, 0.0);
                           result = bicgstab(space, A, M, b, x, KrylovOptions{});
                         }).min;
  char line[256];
  std::snprintf(line, sizeof line, "\"%s\":{\"iterations\":%d,\"solve_s\":%.6f,\"status\":\"%s\"}",
                name.c_str(), result.iterations, seconds, to_string(result.status));
  return line;
}

// The outer-solver settings: sweeps, global iterations, overlap.
struct JacobiSetting {
  int sweeps, iterations;
  double overlap;
};

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  // The paper's LAP (27-point, 64³) and suite problems of fgdd, CSR and BSR.
  std::vector<std::string> problems = {"gen:lap27:64", "gen:lap7:100", "gen:convdiff:64",
                                       "gen:bsr3:48"};
  int repeats = 5, max_iterations = 10;
  JacobiTrsvOptions base;  // block_rows and sweeps of the residual / timing lines
  bool replaced = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--matrix" && i + 1 < argc) {
      if (!replaced) problems.clear(), replaced = true;
      problems.push_back(argv[++i]);
    } else if (arg == "--repeats" && i + 1 < argc) {
      repeats = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--iterations" && i + 1 < argc) {
      max_iterations = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--block-rows" && i + 1 < argc) {
      base.block_rows = std::atoi(argv[++i]);
    } else if (arg == "--sweeps" && i + 1 < argc) {
      base.sweeps = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr,
                   "usage: fgdd_jacobi_trsv_bench [--matrix gen:SPEC|FILE.mtx]... [--repeats R] "
                   "[--iterations N] [--block-rows B] [--sweeps S]\n");
      return 2;
    }
  }
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
      const std::string lower =
          residual_history(space, trsv, Triangle::Lower, r, x, max_iterations);
      const std::string upper =
          residual_history(space, trsv, Triangle::Upper, r, x, max_iterations);
      // solve() = zeroing x + max_iterations global iterations (no tolerance: no reductions).
      const auto per_iteration = [&](Triangle triangle) {
        return bench::time_it(space, 1, repeats, [&] { trsv.solve(space, triangle, r, x); }).min /
               max_iterations;
      };
      const double lower_seconds = per_iteration(Triangle::Lower);
      const double upper_seconds = per_iteration(Triangle::Upper);
      std::printf(
          "{\"benchmark\":\"jacobi_trsv\",\"commit\":\"%s\",\"backend\":\"%s\",\"device\":\"%s\","
          "\"matrix\":\"%s\",\"rows\":%zu,\"block_size\":%d,\"ordering\":\"rcm\","
          "\"schedule\":\"asynchronous\",\"overlap\":%.2f,\"block_rows\":%d,\"owned_rows\":%d,"
          "\"sweeps\":%d,\"teams\":%d,\"lower_residual_by_iteration\":[%s],"
          "\"upper_residual_by_iteration\":[%s],\"seconds_per_iteration\":%.6e,"
          "\"upper_seconds_per_iteration\":%.6e}\n",
          FGDD_GIT_COMMIT, ExecSpace::name(), device.c_str(), spec.c_str(),
          std::size_t(A.num_rows()), A.block_size(), overlap, options.block_rows, trsv.owned_rows(),
          options.sweeps, trsv.num_teams(), lower.c_str(), upper.c_str(), lower_seconds,
          upper_seconds);
      std::fflush(stdout);
    }
    // The outer solver: exact level-set ILU0, Jacobi-trsv ILU0 with a few settings, and the DD
    // ILDU0 (in its own partitioned ordering) for reference.
    const GlobalIluPreconditioner exact(space, A, GlobalIluOptions{});
    std::string solves = solve_json("ilu0_exact_levels", space, A, exact, repeats);
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
      solves += "," + solve_json(name, space, A, M, repeats);
    }
    const PartitionedMatrix dd =
        partition_matrix(space, problem.matrix, problem.grid, PartitionOptions{});
    const DdIluPreconditioner dd_M(space, dd.system.dropped, dd.partition, DdIluOptions{});
    solves += "," + solve_json("ildu0_dd", space, dd.system.permuted, dd_M, repeats);
    std::printf(
        "{\"benchmark\":\"jacobi_trsv_bicgstab\",\"commit\":\"%s\",\"backend\":\"%s\","
        "\"device\":\"%s\",\"matrix\":\"%s\",\"rows\":%zu,\"block_rows\":%d,\"solvers\":{%s}}\n",
        FGDD_GIT_COMMIT, ExecSpace::name(), device.c_str(), spec.c_str(), std::size_t(A.num_rows()),
        base.block_rows, solves.c_str());
    std::fflush(stdout);
  }
}
