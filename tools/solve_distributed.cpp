#include "solve_distributed.hpp"

#include "solve_input.hpp"
#include "solve_report.hpp"

#include <cstdio>
#include <iostream>

namespace fgdd::cli {
namespace {

int solve(const Communicator& comm, const SolveCommand& command) {
  const ExecSpace space;
  const bool root = comm.is_root();
  SolveReport report;
  report.backend = ExecSpace::name();
  report.ranks = comm.size();
  report.solver = to_string(command.options.method);
  report.precond = to_string(command.options.preconditioner);

  Kokkos::Timer timer;
  if (root) std::cout << "setup: loading " << command.matrix << " ..." << std::flush;
  GeneratedProblem problem;
  Vector b;
  comm.run_collectively([&] {
    if (!root) return;
    problem = load_matrix(command.matrix);
    b = load_rhs(command, problem.matrix);
  });
  report.load_seconds = timer.seconds();
  if (root) {
    std::cout << " done in " << report.load_seconds << " s\n";
    report.matrix = problem.description;
    report.rows = problem.matrix.num_rows();
    report.entries = problem.matrix.num_entries();
    report.block_size = problem.matrix.block_size();
  }

  SolverOptions options = command.options;
  if (command.monitor && root) {
    options.krylov.monitor = [](int iteration, double residual) {
      std::printf("  iteration %5d  residual %.6e\n", iteration, residual);
    };
  }
  DistributedSolver solver(comm, options);
  if (root) std::cout << "setup: partitioning, distributing and factoring ..." << std::flush;
  try {
    solver.setup(space, root ? &problem.matrix : nullptr, problem.grid);
  } catch (const ZeroPivot& pivot) {  // every rank has it; the root reports
    if (!root) return 1;
    std::cout << "\n";
    report.partition = solver.partition_report();
    report.result.status = SolveStatus::PreconditionerFailed;
    report.result.reason = pivot.what();
    print_summary(std::cout, report);
    if (!command.json.empty()) write_json(command.json, report);
    return 1;
  }
  if (root) std::cout << " done\n";
  report.partition = solver.partition_report();
  report.setup_seconds = solver.setup_seconds();
  report.precond = solver.preconditioner().name();

  Vector x("fgdd::solve::x", root ? report.rows : 0);
  report.result = solver.solve(space, b, x);
  comm.run_collectively([&] {
    if (!root) return;
    if (!command.write_solution.empty()) write_matrix_market_vector(command.write_solution, x);
    print_summary(std::cout, report);
    if (!command.json.empty()) write_json(command.json, report);
  });
  return report.result.converged() ? 0 : 1;
}

}  // namespace

int solve_distributed(const SolveCommand& command) {
  const Communicator comm;
  try {
    return solve(comm, command);
  } catch (const Error& error) {  // thrown on every rank alike (Communicator::run_collectively)
    if (comm.is_root()) std::cerr << "\nfgdd-solve: " << error.what() << "\n";
    return 2;
  } catch (const std::exception& error) {  // one rank only: end them all rather than hang
    abort_all_ranks(comm, error);
  }
}

}  // namespace fgdd::cli
