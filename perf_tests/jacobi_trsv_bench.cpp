// Paper figures of domain-overlap-iterative-sptrsv.txt as tables: the residual of the lower
// triangular system of the global ILU0 factors against global Jacobi iterations, and the time
// per iteration, for directed overlap 0–50 % (asynchronous schedule, 2 sweeps); then outer
// BiCGSTAB with Jacobi triangular solves against exact level-set solves and the DD apply.
// The matrix is taken in RCM ordering (the paper's; block overlap needs a small bandwidth).
// One JSON line per (matrix, overlap), then one per matrix for the solver comparison.
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

// A in RCM ordering: one "subdomain" as large as the matrix, so nothing is dropped.
SparseMatrix rcm_ordered(const ExecSpace& space, const GeneratedProblem& problem) {
  PartitionOptions options;
  options.partitioner = Partitioner::Rcm;
  options.subdomain_rows = problem.matrix.num_rows();
  return partition_matrix(space, problem.matrix, GridInfo{}, options).system.permuted;
}

std::string solve_json(const char* name, const ExecSpace& space, const SparseMatrix& A,
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
                name, result.iterations, seconds, to_string(result.status));
  return line;
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  std::vector<std::string> problems = {"gen:lap27:64", "gen:lap7:100", "gen:convdiff:64"};
  int repeats = 5, max_iterations = 10;
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
    } else {
      std::fprintf(stderr,
                   "usage: fgdd_jacobi_trsv_bench [--matrix SPEC]... [--repeats R] "
                   "[--iterations N]\n");
      return 2;
    }
  }
  const ExecSpace space;
  const std::string device = bench::device_name();
  for (const std::string& spec : problems) {
    const GeneratedProblem problem = bench::load_problem(spec);
    const SparseMatrix A = rcm_ordered(space, problem);
    const GlobalIlu0 ilu(space, A, FactorOptions{});
    Vector r("r", A.num_rows()), x("x", A.num_rows());
    Kokkos::Random_XorShift64_Pool<ExecSpace> pool(7);
    Kokkos::fill_random(r, pool, -1.0, 1.0);
    double r_norm = 0;
    const auto host_r = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), r);
    for (std::size_t i = 0; i < host_r.extent(0); ++i) r_norm += host_r(i) * host_r(i);
    r_norm = std::sqrt(r_norm);
    for (const double overlap : {0.0, 0.03, 0.13, 0.25, 0.5}) {
      JacobiTrsvOptions options;
      options.overlap = overlap;
      // Relative residual ‖r − L x_k‖ / ‖r‖ after k global iterations (x_0 = 0).
      std::string residuals;
      for (int k = 1; k <= max_iterations; ++k) {
        options.iterations = k;
        const JacobiTrsv trsv(factor_arrays(ilu), options);
        trsv.solve(space, Triangle::Lower, r, x);
        char item[32];
        std::snprintf(item, sizeof item, "%s%.3e", k > 1 ? "," : "",
                      trsv.residual_norm(space, Triangle::Lower, r, x) / r_norm);
        residuals += item;
      }
      options.iterations = max_iterations;
      const JacobiTrsv trsv(factor_arrays(ilu), options);
      const double seconds =
          bench::time_it(space, 1, repeats, [&] { trsv.solve(space, Triangle::Lower, r, x); }).min;
      std::printf(
          "{\"benchmark\":\"jacobi_trsv\",\"commit\":\"%s\",\"backend\":\"%s\",\"device\":\"%s\","
          "\"matrix\":\"%s\",\"rows\":%zu,\"overlap\":%.2f,\"block_rows\":%d,\"sweeps\":%d,"
          "\"teams\":%d,\"lower_residual_by_iteration\":[%s],\"seconds_per_iteration\":%.6e}\n",
          FGDD_GIT_COMMIT, ExecSpace::name(), device.c_str(), spec.c_str(),
          std::size_t(A.num_rows()), overlap, options.block_rows, options.sweeps, trsv.num_teams(),
          residuals.c_str(), seconds / max_iterations);
      std::fflush(stdout);
    }
    // The outer solver: exact level-set ILU0, Jacobi-trsv ILU0 (2 and 4 iterations, overlap 0
    // and 13 %), and the DD ILDU0 of the same ordering for reference.
    const GlobalIluPreconditioner exact(space, A, GlobalIluOptions{});
    std::string solves = solve_json("ilu0_exact_levels", space, A, exact, repeats);
    for (const int iterations : {2, 4})
      for (const double overlap : {0.0, 0.13}) {
        JacobiTrsvOptions options;
        options.iterations = iterations;
        options.overlap = overlap;
        const JacobiIluPreconditioner M(space, A, FactorOptions{}, options);
        const std::string name = "ilu0_jacobi_it" + std::to_string(iterations) + "_ov" +
                                 std::to_string(int(100 * overlap));
        solves += "," + solve_json(name.c_str(), space, A, M, repeats);
      }
    const PartitionedMatrix dd =
        partition_matrix(space, problem.matrix, problem.grid, PartitionOptions{});
    const DdIluPreconditioner dd_M(space, dd.system.dropped, dd.partition, DdIluOptions{});
    solves += "," + solve_json("ildu0_dd", space, dd.system.permuted, dd_M, repeats);
    std::printf(
        "{\"benchmark\":\"jacobi_trsv_bicgstab\",\"commit\":\"%s\",\"backend\":\"%s\","
        "\"device\":\"%s\",\"matrix\":\"%s\",\"rows\":%zu,\"solvers\":{%s}}\n",
        FGDD_GIT_COMMIT, ExecSpace::name(), device.c_str(), spec.c_str(), std::size_t(A.num_rows()),
        solves.c_str());
    std::fflush(stdout);
  }
}
