// fgdd-solve, the main job: read or generate A, set up the preconditioner, solve, report.
#include "fgdd.hpp"
#include "solve_options.hpp"
#include "solve_report.hpp"

#include <cstdio>
#include <iostream>

namespace {

using namespace fgdd;

// A file is a problem without grid metadata.
GeneratedProblem load_matrix(const std::string& source) {
  if (is_generator_spec(source)) return generate_problem(source);
  return {read_matrix_market(source), GridInfo{}, source};
}

Vector load_rhs(const cli::SolveCommand& command, const SparseMatrix& A) {
  Vector b(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::solve::b"), A.num_rows());
  if (command.rhs.empty()) {
    Kokkos::deep_copy(b, 1.0);
    return b;
  }
  const std::vector<Scalar> host = read_matrix_market_vector(command.rhs);
  check_vector_size(A, host.size(), "b from " + command.rhs);
  Kokkos::deep_copy(b, Kokkos::View<const Scalar*, Kokkos::HostSpace,
                                    Kokkos::MemoryTraits<Kokkos::Unmanaged>>(host.data(),
                                                                             host.size()));
  return b;
}

int run(const cli::SolveCommand& command) {
  const ExecSpace space;
  cli::SolveReport report;
  report.backend = ExecSpace::name();
  report.solver = to_string(command.options.method);
  report.precond = to_string(command.options.preconditioner);

  Kokkos::Timer timer;
  std::cout << "setup: loading " << command.matrix << " ..." << std::flush;
  const GeneratedProblem problem = load_matrix(command.matrix);
  space.fence();
  report.load_seconds = timer.seconds();
  std::cout << " done in " << report.load_seconds << " s\n";
  const SparseMatrix& A = problem.matrix;
  report.matrix = problem.description;
  report.rows = A.num_rows();
  report.entries = A.num_entries();
  report.block_size = A.block_size();
  const Vector b = load_rhs(command, A);

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

int main(int argc, char* argv[]) {
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
    return run(command);
  } catch (const cli::UsageError& error) {
    std::cerr << "fgdd-solve: " << error.what() << "\n" << cli::solve_usage();
    return 2;
  } catch (const fgdd::Error& error) {
    std::cerr << "\nfgdd-solve: " << error.what() << "\n";
    return 2;
  }
}
