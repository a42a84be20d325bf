// Multi-rank scaling (paper Fig. 5.8 analog, and the full solver it left out): for each problem
// the root generates A, DistributedSolver spreads whole subdomains over the ranks (or, with
// --input local_rows, each rank generates and passes only its own planes), and each
// rank's DD preconditioner apply, the distributed SpMV (halo exchange included) and a full
// BiCGSTAB solve are timed, and the SpMV's parts: the local product, one halo exchange alone,
// one global sum; the setup's steps are the slowest rank's each (the matrix's, the root's
// partition, the preconditioner, the operator's halo buffers). A time is the slowest rank's,
// best of the repeats. Run it with mpirun -np 1, 2, ... (one rank per GPU); the root prints one
// JSON line per problem.
#include "bench_common.hpp"

#include "core/errors.hpp"
#include "core/generators.hpp"
#include "core/matrix_market.hpp"
#include "core/spmv.hpp"
#include "mpi/distributed_solver.hpp"
#include "mpi/generate_local_rows.hpp"
#include "mpi/halo_exchange.hpp"
#include "mpi/local_rows.hpp"
#include "mpi/read_matrix_market_rows.hpp"

#include <mpi.h>
#include <Kokkos_Core.hpp>
#include <Kokkos_Random.hpp>

#include <algorithm>
#include <cstdio>
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

int benchmark_main(const Communicator& comm, int argc, char* argv[]) {
  Options options;
  bench::CommandLine("mpirun -np P fgdd_dist_bench",
                     "Multi-rank DD apply, distributed SpMV and BiCGSTAB (Fig. 5.8), the slowest "
                     "rank's times.")
      .repeated("--matrix", &options.problems, "gen:SPEC|FILE.mtx", "a problem")
      .option("--subdomain-rows", &options.subdomain_rows, "N",
              "scalar rows per subdomain at most; 0: the default")
      .option("--apply", &options.apply, "KERNEL", "the apply kernel")
      .choice("--input", &options.input, {"root", "local_rows"},
              "the root spreads A, or every rank makes its own rows")
      .choice("--apply-timing", &options.apply_timing, {"together", "in_turn"},
              "ranks time the apply at once, or one after another (ranks sharing one GPU)")
      .at_least("--repeats", &options.repeats, 1, "R", "timed runs, the best is reported")
      .parse(argc, argv);
  const ExecSpace space;
  for (const std::string& spec : options.problems) {
    GeneratedProblem problem;
    SolverOptions solver_options;
    solver_options.set_all({"subdomain_rows=" + options.subdomain_rows, "apply=" + options.apply});
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
      const LocalRows read_rows = local && file ? read_matrix_market_rows(comm, spec) : LocalRows{};
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
        bench::print_line(bench::JsonObject()
                              .add("benchmark", "dist_scaling")
                              .add("ranks", comm.size())
                              .add("matrix", spec)
                              .add("skipped", error.what()));
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
    // The SpMV's parts: the rank's own block, one forward halo exchange, one global sum.
    const double local_spmv_s = bench::slowest_rank_seconds(
        comm, space, 1, options.repeats, [&] { spmv(space, A.diagonal(), r, z); });
    HaloExchange halo(comm, A.halo(), A.block_size());
    Vector ghosts("fgdd::bench::ghosts", A.halo().num_ghosts() * A.block_size());
    const double halo_s = bench::slowest_rank_seconds(comm, space, 1, options.repeats, [&] {
      halo.start_forward(space, r);
      halo.finish_forward(ghosts);
    });
    const double sum_s = bench::slowest_rank_seconds(comm, space, 1, options.repeats, [&] {
      double pair[2] = {1.0, 2.0};
      comm.sum(pair, 2);
    });
    Kokkos::deep_copy(r, 1.0);  // b = ones, as fgdd-solve
    SolveResult result;
    const double solve_s = bench::slowest_rank_seconds(comm, space, 1, 1, [&] {
      Kokkos::deep_copy(space, x, 0.0);
      result = solver.solve_local(space, r, x);
    });
    double sizes[3] = {double(A.halo().num_ghosts()), double(A.partition().num_subdomains),
                       double(n)};
    double largest = comm.max(double(n));
    const DistributedSetupSteps& steps = A.setup_steps();
    const auto& solver_steps = solver.setup_steps();
    const double step_max[8] = {comm.max(steps.rows), comm.max(steps.partition),
                                comm.max(steps.renumber), comm.max(steps.split),
                                comm.max(steps.halo_plan), comm.max(solver_steps.root_partition),
                                comm.max(solver_steps.preconditioner),
                                comm.max(solver_steps.operator_setup)};
    comm.sum(sizes, 3);
    if (comm.is_root()) {
      using bench::fixed;
      using bench::scientific;
      bench::JsonObject line;
      line.add("benchmark", "dist_scaling")
          .add("commit", bench::commit())
          .add("backend", ExecSpace::name())
          .add("ranks", comm.size())
          .add("gpu_aware_mpi", comm.device_pointers_ok())
          .add("input", options.input)
          .add("apply_timing", options.apply_timing)
          .add("matrix", spec)
          .add("rows", sizes[2], fixed(0))
          .add("block_size", A.block_size())
          .add("subdomains", sizes[1], fixed(0))
          .add("largest_rank_rows", largest, fixed(0))
          .add("ghost_block_rows", sizes[0], fixed(0))
          .add("read_s", read_s, fixed(6))
          .add("setup_s", solver.setup_seconds(), fixed(6))
          .add("setup_rows_s", step_max[0], fixed(6))
          .add("setup_partition_s", step_max[1], fixed(6))
          .add("setup_renumber_s", step_max[2], fixed(6))
          .add("setup_split_s", step_max[3], fixed(6))
          .add("setup_halo_plan_s", step_max[4], fixed(6))
          .add("setup_root_partition_s", step_max[5], fixed(6))
          .add("setup_preconditioner_s", step_max[6], fixed(6))
          .add("setup_operator_s", step_max[7], fixed(6))
          .add("apply_s", apply_s, scientific(6))
          .add("spmv_s", spmv_s, scientific(6))
          .add("local_spmv_s", local_spmv_s, scientific(6))
          .add("halo_s", halo_s, scientific(6))
          .add("peer_halo", halo.peer_to_peer())
          .add("global_sum_s", sum_s, scientific(6))
          .add("solve_s", solve_s, fixed(6))
          .add("iterations", result.iterations)
          .add("status", to_string(result.status))
          .add("relative_true_residual", result.relative_true_residual, scientific(3))
          .add("repeats", options.repeats);
      bench::print_line(line);
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) {
  return fgdd::bench::run_mpi_benchmark(argc, argv, benchmark_main);
}
