// fgdd-solve, the main job: read or generate A, set up the preconditioner, solve, report.
#include "fgdd.hpp"
#include "solve_input.hpp"
#include "solve_options.hpp"
#include "solve_output.hpp"
#include "solve_report.hpp"
#ifdef FGDD_HAVE_MPI
#include "solve_distributed.hpp"
#endif

#include <algorithm>
#include <cstdio>
#include <functional>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <iostream>
#include <limits>
#include <string>
#include <vector>

namespace {

using namespace fgdd;

// --refactor-solves: each round refreshes the preconditioner with A's values and solves from
// x = 0 into a vector of its own, so x keeps the first solve's answer.
void solve_after_refactors(const ExecSpace& space, int rounds, const SparseMatrix& A,
                           const Vector& b, Solver& solver, cli::SolveReport& report) {
  if (rounds == 0) return;
  Vector x_again("fgdd::solve::x_again", A.num_rows());
  report.refactor_solves = rounds;
  for (int round = 0; round < rounds; ++round) {
    solver.update_values(space, A);
    Kokkos::deep_copy(space, x_again, 0.0);
    const SolveResult again = solver.solve(space, b, x_again);
    const bool first = round == 0;
    report.refactor_seconds =
        first ? solver.update_seconds() : std::min(report.refactor_seconds, solver.update_seconds());
    report.resolve_seconds =
        first ? again.solve_seconds : std::min(report.resolve_seconds, again.solve_seconds);
    report.resolve_iterations_min =
        first ? again.iterations : std::min(report.resolve_iterations_min, again.iterations);
    report.resolve_iterations_max = std::max(report.resolve_iterations_max, again.iterations);
    report.resolves_converged += again.converged() ? 1 : 0;
  }
}

int run(const cli::SolveCommand& command) {
  const ExecSpace space;
  cli::SolveReport report = cli::start_report(command.options);

  Kokkos::Timer timer;
  std::cout << "setup: loading " << command.matrix << " ..." << std::flush;
  const GeneratedProblem problem = cli::load_matrix(command);
  space.fence();
  report.load_seconds = timer.seconds();
  std::cout << " done in " << report.load_seconds << " s\n";
  const SparseMatrix& A = problem.matrix;
  report.matrix = problem.description;
  report.rows = A.num_rows();
  report.entries = A.num_entries();
  report.block_size = A.block_size();
  const Vector b = cli::load_rhs(command, A);
  const Coordinates coordinates = cli::load_coordinates(command, A);

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
    solver.setup(space, A, problem.grid, coordinates);
  } catch (const ZeroPivot& pivot) {
    std::cout << "\n";
    report.partition = solver.partition_report();
    report.result.status = SolveStatus::PreconditionerFailed;
    report.result.reason = pivot.what();
    cli::print_summary(std::cout, report);
    cli::write_outputs(command, report, {}, std::cerr);
    return 1;
  }
  std::cout << " done\n";
  report.partition = solver.partition_report();
  report.setup_seconds = solver.setup_seconds();
  cli::describe_preconditioner(report, solver.preconditioner());

  Vector x("fgdd::solve::x", A.num_rows());
  report.result = solver.solve(space, b, x);
  solve_after_refactors(space, command.refactor_solves, A, b, solver, report);

  // The summary first: a file that cannot be written must not cost the result.
  cli::print_summary(std::cout, report);
  std::cout << std::flush;
  cli::write_outputs(
      command, report,
      [&](const std::string& path, const std::string& comment) {
        write_matrix_market_vector(path, x, comment);
      },
      std::cerr);
  const bool all_converged =
      report.result.converged() && report.resolves_converged == report.refactor_solves;
  return all_converged ? 0 : 1;
}

// Exit code 2 and one line for every error: main never lets an exception end the process
// (which would abort it, and 134 reads as neither converged nor not).
int guarded(const std::function<int()>& body) {
  try {
    return body();
  } catch (const cli::UsageError& error) {
    std::cerr << ("fgdd-solve: " + std::string(error.what()) + "\n" + cli::solve_usage());
  } catch (const OutOfMemory& error) {
    cli::print_error_line("out of memory: " + std::string(error.what()));
  } catch (const fgdd::Error& error) {
    cli::print_error_line(error.what());
  } catch (const std::exception& error) {
    cli::print_error_line((is_allocation_failure(error) ? "out of memory: " : "error: ") +
                          std::string(error.what()));
  } catch (...) {
    cli::print_error_line("error: unknown exception");
  }
  return 2;
}

int run_single(const std::vector<std::string>& args) {
  const cli::SolveCommand command = cli::parse_solve_command(args);
  if (command.help) {
    std::cout << cli::solve_usage();
    return 0;
  }
  if (command.version) {
    std::cout << "fgdd-solve " << FGDD_VERSION << " (Kokkos " << KOKKOS_VERSION << ", "
              << ExecSpace::name() << ")\n";
    return 0;
  }
  return run(command);
}

// Setup allocates new arrays while loading has just freed as many. glibc returns large blocks
// to the OS on free and maps fresh zeroed pages for the next ones, and every first touch of such
// a page faults, which took most of a one-thread setup's time (measured:
// docs/PERFORMANCE_HISTORY.md, "Measurements behind code choices"). So the CLI takes all memory
// from the heap and keeps freed blocks there for the next allocation. (A library leaves that to
// its app.)
void keep_freed_memory() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_MAX, 0);  // glibc still maps memory when the heap cannot grow
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
#endif
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
  keep_freed_memory();
#ifdef FGDD_HAVE_MPI
  MpiSession mpi(argc, argv);
#endif
  Kokkos::ScopeGuard kokkos(argc, argv);
  const std::vector<std::string> args(argv + 1, argv + argc);
#ifdef FGDD_HAVE_MPI
  if (MpiSession::size() > 1) return cli::solve_distributed(args);
#endif
  return guarded([&] { return run_single(args); });
}
