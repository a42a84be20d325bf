// fgdd-solve, the main job: read or generate A, set up the preconditioner, solve, report.
#include "fgdd.hpp"
#include "solve_input.hpp"
#include "solve_options.hpp"
#include "solve_report.hpp"
#ifdef FGDD_HAVE_MPI
#include "solve_distributed.hpp"
#endif

#include <cstdio>
#include <iostream>

namespace {

using namespace fgdd;

int run(const cli::SolveCommand& command) {
  const ExecSpace space;
  cli::SolveReport report;
  report.backend = ExecSpace::name();
  report.solver = to_string(command.options.method);
  report.precond = to_string(command.options.preconditioner);

  Kokkos::Timer timer;
  std::cout << "setup: loading " << command.matrix << " ..." << std::flush;
  const GeneratedProblem problem = cli::load_matrix(command.matrix);
  space.fence();
  report.load_seconds = timer.seconds();
  std::cout << " done in " << report.load_seconds << " s\n";
  const SparseMatrix& A = problem.matrix;
  report.matrix = problem.description;
  report.rows = A.num_rows();
  report.entries = A.num_entries();
  report.block_size = A.block_size();
  const Vector b = cli::load_rhs(command, A);

  // The Solver partitions, factors and solves in the partitioned ordering; b and x stay in ours.
  SolverOptions options = command.options;
  if (command.monitor) {
    options.krylov.monitor = [](int iteration, double residual) {
      std::printf("  iteration %5d  residual %.6e\n", iteration, residual);
    };
  }
  Solver solver(options);
  std::cout << "setup: partitioning and factoring ..." << std::flush;
  try {
    solver.setup(space, A, problem.grid);
  } catch (const ZeroPivot& pivot) {
    std::cout << "\n";
    report.partition = solver.partition_report();
    report.result.status = SolveStatus::PreconditionerFailed;
    report.result.reason = pivot.what();
    cli::print_summary(std::cout, report);
    if (!command.json.empty()) cli::write_json(command.json, report);
    return 1;
  }
  std::cout << " done\n";
  report.partition = solver.partition_report();
  report.setup_seconds = solver.setup_seconds();
  report.precond = solver.preconditioner().name();

  Vector x("fgdd::solve::x", A.num_rows());
  report.result = solver.solve(space, b, x);

  if (!command.write_solution.empty()) write_matrix_market_vector(command.write_solution, x);
  cli::print_summary(std::cout, report);
  if (!command.json.empty()) cli::write_json(command.json, report);
  return report.result.converged() ? 0 : 1;
}

}  // namespace

#ifdef FGDD_HAVE_MPI
// MPI lives longer than Kokkos: initialized before it, finalized after it.
struct MpiSession {
  MpiSession(int& argc, char**& argv) { MPI_Init(&argc, &argv); }
  ~MpiSession() { MPI_Finalize(); }
  static int size() {
    int ranks = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    return ranks;
  }
};
#endif

int main(int argc, char* argv[]) {
#ifdef FGDD_HAVE_MPI
  MpiSession mpi(argc, argv);
#endif
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    const cli::SolveCommand command =
        cli::parse_solve_command(std::vector<std::string>(argv + 1, argv + argc));
    if (command.help) {
      std::cout << cli::solve_usage();
      return 0;
    }
    if (command.version) {
      std::cout << "fgdd-solve " << FGDD_VERSION << " (Kokkos " << KOKKOS_VERSION << ", "
                << ExecSpace::name() << ")\n";
      return 0;
    }
#ifdef FGDD_HAVE_MPI
    if (MpiSession::size() > 1) return cli::solve_distributed(command);
#endif
    return run(command);
  } catch (const cli::UsageError& error) {
    std::cerr << "fgdd-solve: " << error.what() << "\n" << cli::solve_usage();
    return 2;
  } catch (const fgdd::Error& error) {
    std::cerr << "\nfgdd-solve: " << error.what() << "\n";
    return 2;
  }
}
