#include "solve_distributed.hpp"

#include "mpi/generate_local_rows.hpp"
#include "mpi/mpi_transfer.hpp"
#include "solve_input.hpp"
#include "solve_output.hpp"
#include "solve_report.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <new>
#include <thread>

namespace fgdd::cli {
namespace {

// Each rank's scalar rows [starts[r], ends[r]) of the matrix as its LocalRows cut it.
void row_ranges(const Communicator& comm, const DistributedSolver& solver,
                std::vector<Offset>& starts, std::vector<Offset>& ends) {
  const auto& offsets = solver.matrix().distribution().block_row_offsets;
  const Offset b = solver.matrix().block_size();
  for (int r = 0; r < comm.size(); ++r) {
    starts.push_back(b * offsets[r]);
    ends.push_back(b * offsets[r + 1]);
  }
}

// Sets the solver up and returns the solve, which gathers x on the root when it is to be
// written (the same decision on every rank: every rank has the same result).
using SolveStep = std::function<SolveResult(std::vector<Scalar>& x_on_root)>;

bool writes_solution(const SolveCommand& command, const SolveResult& result) {
  return !command.write_solution.empty() && (result.converged() || command.write_unconverged);
}

// The problem on the root, b on the root, the solve from the root's whole vectors.
SolveStep setup_from_root(const Communicator& comm, const SolveCommand& command,
                          DistributedSolver& solver, SolveReport& report) {
  const ExecSpace space;
  const bool root = comm.is_root();
  GeneratedProblem problem;
  Vector b;
  Kokkos::Timer timer;
  comm.run_collectively([&] {
    if (!root) return;
    problem = load_matrix(command);
    b = load_rhs(command, problem.matrix);
  });
  report.load_seconds = timer.seconds();
  if (root) {
    report.matrix = problem.description;
    report.rows = problem.matrix.num_rows();
    report.entries = problem.matrix.num_entries();
    report.block_size = problem.matrix.block_size();
  }
  solver.setup(space, root ? &problem.matrix : nullptr, problem.grid);
  report.partition = solver.partition_report();
  return [&comm, &command, &solver, b,
          x = Vector("fgdd::solve::x", root ? report.rows : 0)](std::vector<Scalar>& x_on_root) {
    const SolveResult result = solver.solve(ExecSpace(), b, x);
    if (comm.is_root() && writes_solution(command, result)) x_on_root = to_host_vector(x);
    return result;
  };
}

// --read-per-rank: every rank reads its rows of the file (or generates its z planes of a gen:
// problem and partitions them on their own grid); the root reads b and scatters it.
SolveStep setup_from_rows(const Communicator& comm, const SolveCommand& command,
                          DistributedSolver& solver, SolveReport& report) {
  const ExecSpace space;
  const bool root = comm.is_root();
  const bool generated = is_generator_spec(command.matrix);
  Kokkos::Timer timer;
  GeneratedLocalRows mine;
  if (generated)
    mine = generate_local_rows(comm, command.matrix);
  else
    mine.rows = read_matrix_market_rows(comm, command.matrix, command.read_block_size());
  report.load_seconds = comm.max(timer.seconds());
  const int block_size = mine.rows.block_size;
  double sizes[2] = {double(mine.rows.num_block_rows()) * block_size,
                     double(mine.rows.col_ind.size()) * block_size * block_size};
  comm.sum(sizes, 2);
  report.matrix = generated
                      ? command.matrix + " (each of " + std::to_string(comm.size()) +
                            " ranks generating its z planes)"
                      : command.matrix + " (read by " + std::to_string(comm.size()) + " ranks)";
  report.rows = std::size_t(sizes[0]);
  report.entries = std::size_t(sizes[1]);
  report.block_size = block_size;
  solver.setup(space, mine.rows, mine.local_grid);  // a file's rows have no grid: {}
  report.partition = solver.partition_report();
  std::vector<Offset> starts, ends;
  row_ranges(comm, solver, starts, ends);
  const Offset n = solver.matrix().num_rows();
  std::vector<Scalar> whole_b;
  comm.run_collectively([&] {
    if (!root || command.rhs.empty()) return;
    whole_b = read_matrix_market_vector(command.rhs, std::int64_t(report.rows));
    if (whole_b.size() != report.rows)
      throw DimensionMismatch("--rhs " + command.rhs + " has " + std::to_string(whole_b.size()) +
                              " entries, the matrix " + std::to_string(report.rows) + " rows");
  });
  Vector b("fgdd::solve::b", n), x("fgdd::solve::x", n);
  if (command.rhs.empty())
    Kokkos::deep_copy(b, 1.0);
  else
    b = to_device(scatter_ranges<Scalar>(comm, root ? whole_b.data() : nullptr, starts, ends, n),
                  "fgdd::solve::b");
  return [&comm, &command, &solver, b, x, starts, ends,
          rows = report.rows](std::vector<Scalar>& x_on_root) {
    const SolveResult result = solver.solve_rows(ExecSpace(), b, x);
    if (writes_solution(command, result)) {
      const bool root = comm.is_root();
      x_on_root.resize(root ? rows : 0);
      gather_ranges<Scalar>(comm, to_host_vector(x), root ? x_on_root.data() : nullptr, starts,
                            ends);
    }
    return result;
  };
}

int solve(const Communicator& comm, const SolveCommand& command) {
  const bool root = comm.is_root();
  SolveReport report = start_report(command.options);
  report.ranks = comm.size();

  SolverOptions options = command.options;
  if (command.monitor && root) {
    options.krylov.monitor = [](int iteration, double residual) {
      std::printf("  iteration %5d  residual %.6e\n", iteration, residual);
    };
  }
  DistributedSolver solver(comm, options);
  if (root)
    std::cout << "setup: "
              << (!command.read_per_rank              ? "loading "
                  : is_generator_spec(command.matrix) ? "every rank generating its planes of "
                                                      : "every rank reading its rows of ")
              << command.matrix << ", partitioning, distributing and factoring ..." << std::flush;
  SolveStep solve_step;
  try {
    solve_step = command.read_per_rank ? setup_from_rows(comm, command, solver, report)
                                       : setup_from_root(comm, command, solver, report);
  } catch (const ZeroPivot& pivot) {  // every rank has it; the root reports
    report.partition = solver.partition_report();
    report.result.status = SolveStatus::PreconditionerFailed;
    report.result.reason = pivot.what();
    comm.run_collectively([&] {
      if (!root) return;
      std::cout << "\n";
      print_summary(std::cout, report);
      std::cout << std::flush;
      write_outputs(command, report, {}, std::cerr);
    });
    return 1;
  }
  if (root) std::cout << " done (reading " << report.load_seconds << " s)\n";
  report.setup_seconds = solver.setup_seconds();
  describe_preconditioner(report, solver.preconditioner());
  std::vector<Scalar> x_on_root;
  report.result = solve_step(x_on_root);
  // The summary first, then the files (a file that cannot be written must not cost the result);
  // a file error reaches every rank, so all exit 2 together.
  comm.run_collectively([&] {
    if (!root) return;
    print_summary(std::cout, report);
    std::cout << std::flush;
    write_outputs(
        command, report,
        [&](const std::string& path, const std::string& comment) {
          write_matrix_market_vector(path, x_on_root, comment);
        },
        std::cerr);
  });
  return report.result.converged() ? 0 : 1;
}

// An error every rank threw: the root reports it, and the ranks return (exit 2) only after the
// report is written, since mpirun tears the job down at the first rank's nonzero exit and could
// drop a report written later (a missing message in 1 of 4 ctest runs). The barrier is polled
// for at most two seconds: a rank that got here alone must still exit, never hang.
int report_on_root(const Communicator& comm, const std::string& message) {
  if (comm.is_root()) {
    print_error_line(message);
  }
  MPI_Request request;
  MPI_Ibarrier(comm.get(), &request);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  int done = 0;
  while (!done && std::chrono::steady_clock::now() < deadline) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (!done) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return 2;
}

// For an error on one rank outside any collective step: the others may wait in a reduction
// forever, so mpirun must end them all; it then exits with this code, 2.
[[noreturn]] void end_every_rank(const Communicator& comm, const std::string& message) {
  std::fprintf(stderr, "\nfgdd-solve: rank %d: %s\n", comm.rank(), message.c_str());
  std::fflush(stderr);
  MPI_Abort(comm.get(), 2);
  std::abort();  // MPI_Abort does not return
}

}  // namespace

int solve_distributed(const std::vector<std::string>& args) {
  const Communicator comm;
  try {
    SolveCommand command;
    comm.run_collectively([&] {
      try {
        command = parse_solve_command(args);
      } catch (const UsageError& error) {
        throw InvalidInput(std::string(error.what()) + " (rank " + std::to_string(comm.rank()) +
                           "; see --help)");
      }
    });
    // Ranks that disagree would take different paths and wait on each other forever.
    comm.require_same_on_all_ranks(canonical_items(command), "fgdd-solve options");
    if (command.help || command.version) {
      if (comm.is_root() && command.help) std::cout << solve_usage();
      if (comm.is_root() && command.version)
        std::cout << "fgdd-solve " << FGDD_VERSION << " (Kokkos " << KOKKOS_VERSION << ", "
                  << ExecSpace::name() << ", " << comm.size() << " MPI ranks)\n";
      return 0;
    }
    // Every rank has the same command, so every rank throws (and the root reports).
    if (!command.coordinates.empty())
      throw InvalidInput(
          "--coordinates is not supported under mpirun: the distributed solver partitions "
          "without them; run fgdd-solve on one process, or leave --coordinates out");
    if (command.refactor_solves > 0)
      throw InvalidInput(
          "--refactor-solves is not supported under mpirun; run fgdd-solve on one process");
    return solve(comm, command);
  } catch (const OutOfMemory& error) {  // thrown on every rank alike
    return report_on_root(comm, "out of memory: " + std::string(error.what()));
  } catch (const Error& error) {  // thrown on every rank alike (Communicator::run_collectively)
    return report_on_root(comm, error.what());
  } catch (const std::exception& error) {  // one rank only
    end_every_rank(comm, (is_allocation_failure(error) ? "out of memory: " : "error: ") +
                             std::string(error.what()));
  } catch (...) {
    end_every_rank(comm, "error: unknown exception");
  }
}

}  // namespace fgdd::cli
