// Multi-rank scaling (paper Fig. 5.8 analog, and the full solver it left out): for each problem
// the root generates A, DistributedSolver spreads whole subdomains over the ranks (or, with
// --input local_rows, each rank generates and passes only its own planes), and each
// rank's DD preconditioner apply, the distributed SpMV (halo exchange included) and a full
// BiCGSTAB solve are timed. A time is the slowest rank's, best of the repeats. Run it with
// mpirun -np 1, 2, ... (one rank per GPU); the root prints one JSON line per problem.
#include "bench_common.hpp"

#include "core/errors.hpp"
#include "core/generators.hpp"
#include "core/matrix_market.hpp"
#include "dist/distributed_solver.hpp"
#include "dist/generate_local_rows.hpp"
#include "dist/local_rows.hpp"
#include "dist/read_matrix_market_rows.hpp"

#include <mpi.h>
#include <Kokkos_Core.hpp>
#include <Kokkos_Random.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using namespace fgdd;

struct Options {
  std::vector<std::string> problems = {"gen:lap7:200", "gen:bsr3:160"};
  std::string subdomain_rows = "0";
  std::string apply = "auto";
  int repeats = 10;
  // root: the root generates (or reads) A and DistributedSolver spreads it; local_rows: every
  // rank generates A (not timed) and passes its z planes (LocalRows with its local grid), or
  // reads its rows of the file (read_matrix_market_rows). read_s: reading a file, either way.
  std::string input = "root";
  // together: every rank applies at once (one GPU per rank); in_turn: the ranks time the apply
  // one after another, an estimate of one GPU per rank when they share one GPU (the apply has no
  // communication; the SpMV and solve times then share the GPU).
  std::string apply_timing = "together";
};

Options parse_options(int argc, char* argv[], const Communicator& comm) {
  Options options;
  bool replaced = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--matrix" && has_value) {
      if (!replaced) options.problems.clear(), replaced = true;
      options.problems.push_back(argv[++i]);
    } else if (arg == "--subdomain-rows" && has_value) {
      options.subdomain_rows = argv[++i];
    } else if (arg == "--apply" && has_value) {
      options.apply = argv[++i];
    } else if (arg == "--input" && has_value &&
               (std::string(argv[i + 1]) == "root" || std::string(argv[i + 1]) == "local_rows")) {
      options.input = argv[++i];
    } else if (arg == "--apply-timing" && has_value &&
               (std::string(argv[i + 1]) == "together" || std::string(argv[i + 1]) == "in_turn")) {
      options.apply_timing = argv[++i];
    } else if (arg == "--repeats" && has_value) {
      options.repeats = std::max(1, std::atoi(argv[++i]));
    } else {
      if (comm.is_root())
        std::fprintf(stderr,
                     "usage: mpirun -np P fgdd_dist_bench [--matrix gen:SPEC|FILE.mtx]... "
                     "[--subdomain-rows N] [--apply KERNEL] [--input root|local_rows] "
                     "[--apply-timing together|in_turn] [--repeats R]\n");
      MPI_Abort(comm.get(), 2);
    }
  }
  return options;
}

}  // namespace

int main(int argc, char* argv[]) {
  MPI_Init(&argc, &argv);
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    const Communicator comm;
    const Options options = parse_options(argc, argv, comm);
    const ExecSpace space;
    for (const std::string& spec : options.problems) {
      GeneratedProblem problem;
      SolverOptions solver_options;
      solver_options.set_all(
          {"subdomain_rows=" + options.subdomain_rows, "apply=" + options.apply});
      DistributedSolver solver(comm, solver_options);
      double read_s = -1;  // not a file
      try {                // every rank throws the same error, so all skip the problem together
        const bool local = options.input == "local_rows";
        const bool file = !is_generator_spec(spec);
        Kokkos::Timer timer;
        comm.run_collectively([&] {
          if (file && comm.is_root() && !local) problem.matrix = read_matrix_market(spec);
          if (!file && comm.is_root() && !local) problem = generate_problem(spec);
        });
        const LocalRows read_rows =
            local && file ? read_matrix_market_rows(comm, spec) : LocalRows{};
        read_s = file ? comm.max(timer.seconds()) : -1;
        if (local && file) {
          solver.setup(space, read_rows);
        } else if (local) {
          // Every rank generates only its planes (generate_local_rows; not timed).
          const GeneratedLocalRows mine = generate_local_rows(comm, spec);
          solver.setup(space, mine.rows, mine.local_grid);
        } else {
          solver.setup(space, comm.is_root() ? &problem.matrix : nullptr, problem.grid);
        }
      } catch (const Error& error) {
        if (comm.is_root())
          std::printf(
              "{\"benchmark\":\"dist_scaling\",\"ranks\":%d,\"matrix\":\"%s\","
              "\"skipped\":\"%s\"}\n",
              comm.size(), spec.c_str(), error.what());
        continue;
      }
      problem = GeneratedProblem{};  // the whole matrix is no longer needed

      const DistributedMatrix& A = solver.matrix();
      const Offset n = A.num_rows();
      Vector r("fgdd::bench::r", n), z("fgdd::bench::z", n), x("fgdd::bench::x", n);
      Kokkos::Random_XorShift64_Pool<ExecSpace> pool(2026 + comm.rank());
      Kokkos::fill_random(r, pool, -1.0, 1.0);
      const Preconditioner& M = solver.preconditioner();
      const DistributedOperator op(A);
      const auto apply = [&] { M.apply(space, r, z); };
      const double apply_s =
          options.apply_timing == "in_turn"
              ? bench::slowest_rank_seconds_in_turn(comm, space, 1, options.repeats, apply)
              : bench::slowest_rank_seconds(comm, space, 1, options.repeats, apply);
      const double spmv_s = bench::slowest_rank_seconds(comm, space, 1, options.repeats,
                                                        [&] { op.apply(space, r, z); });
      Kokkos::deep_copy(r, 1.0);  // b = ones, as fgdd-solve
      SolveResult result;
      const double solve_s = bench::slowest_rank_seconds(comm, space, 1, 1, [&] {
        Kokkos::deep_copy(space, x, 0.0);
        result = solver.solve_local(space, r, x);
      });
      double sizes[3] = {double(A.halo().num_ghosts()), double(A.partition().num_subdomains),
                         double(n)};
      double largest = comm.max(double(n));
      comm.sum(sizes, 3);
      if (comm.is_root())
        std::printf(
            "{\"benchmark\":\"dist_scaling\",\"commit\":\"%s\",\"backend\":\"%s\",\"ranks\":%d,"
            "\"gpu_aware_mpi\":%s,\"input\":\"%s\",\"apply_timing\":\"%s\",\"matrix\":\"%s\","
            "\"rows\":%.0f,\"block_size\":%d,\"subdomains\":%.0f,\"largest_rank_rows\":%.0f,"
            "\"ghost_block_rows\":%.0f,"
            "\"read_s\":%.6f,\"setup_s\":%.6f,\"apply_s\":%.6e,\"spmv_s\":%.6e,\"solve_s\":%.6f,"
            "\"iterations\":%d,\"status\":\"%s\",\"relative_true_residual\":%.3e,"
            "\"repeats\":%d}\n",
            FGDD_GIT_COMMIT, ExecSpace::name(), comm.size(),
            comm.device_pointers_ok() ? "true" : "false", options.input.c_str(),
            options.apply_timing.c_str(), spec.c_str(), sizes[2], A.block_size(), sizes[1], largest,
            sizes[0], read_s, solver.setup_seconds(), apply_s, spmv_s, solve_s, result.iterations,
            to_string(result.status), result.relative_true_residual, options.repeats);
      std::fflush(stdout);
    }
  }
  MPI_Finalize();
}
