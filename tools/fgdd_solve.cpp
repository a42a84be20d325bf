// fgdd-solve, the main job: read or generate A, set up the preconditioner, solve, report.
#include "fgdd.hpp"
#include "solve_options.hpp"
#include "solve_report.hpp"

#include <cstdio>
#include <iostream>
#include <memory>

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

std::unique_ptr<Preconditioner> make_preconditioner(const ExecSpace& space,
                                                    const cli::SolveCommand& command,
                                                    const PartitionedMatrix& partitioned) {
  if (command.precond == "jacobi") return std::make_unique<BlockJacobi>(partitioned.system.permuted);
  if (command.precond == "none") return std::make_unique<IdentityPreconditioner>();
  if (command.precond == "ilu0" || command.precond == "ildu0") {
    GlobalIluOptions options;
    options.factor = command.dd.factor;
    options.factor.form = command.precond == "ilu0" ? IluForm::Ilu0 : IluForm::Ildu0;
    return std::make_unique<GlobalIluPreconditioner>(space, partitioned.system.permuted, options);
  }
  return std::make_unique<DdIluPreconditioner>(space, partitioned.system.dropped,
                                               partitioned.partition, command.dd);
}

int run(const cli::SolveCommand& command) {
  const ExecSpace space;
  cli::SolveReport report;
  report.backend = ExecSpace::name();
  report.solver = command.solver;
  report.precond = command.precond;

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

  // The solver runs in the partitioned ordering: b is permuted once, x unpermuted once.
  std::cout << "setup: partitioning ..." << std::flush;
  const PartitionedMatrix partitioned =
      partition_matrix(space, A, problem.grid, command.partition);
  std::cout << " done\n";
  report.partition = partitioned.report;
  const SparseMatrix& A_p = partitioned.system.permuted;
  const int block_size = A.block_size();
  Vector b_p(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::solve::b_p"), A.num_rows());
  permute_vector(space, partitioned.partition, block_size, b, b_p);

  timer.reset();
  std::unique_ptr<Preconditioner> M;
  try {
    M = make_preconditioner(space, command, partitioned);
  } catch (const ZeroPivot& pivot) {
    report.result.status = SolveStatus::PreconditionerFailed;
    report.result.reason = pivot.what();
    cli::print_summary(std::cout, report);
    if (!command.json.empty()) cli::write_json(command.json, report);
    return 1;
  }
  space.fence();
  report.setup_seconds = timer.seconds();
  report.precond = M->name();

  KrylovOptions options = command.krylov;
  if (command.monitor) {
    options.monitor = [](int iteration, double residual) {
      std::printf("  iteration %5d  residual %.6e\n", iteration, residual);
    };
  }
  Vector x_p("fgdd::solve::x_p", A.num_rows());
  const auto solve = command.solver == "gmres" ? gmres
                     : command.solver == "cg"  ? cg
                     : command.solver == "bicg" ? bicg
                                                : bicgstab;
  report.result = solve(space, A_p, *M, b_p, x_p, options);
  Vector x(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::solve::x"), A.num_rows());
  unpermute_vector(space, partitioned.partition, block_size, x_p, x);

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
