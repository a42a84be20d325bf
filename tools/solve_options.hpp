// The command line of fgdd-solve, parsed into one options struct (STYLE.md: the CLI fills the
// same struct users fill in code).
#pragma once

#include "solver/solver_options.hpp"

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace fgdd::cli {

struct SolveCommand {
  // The block size the matrix is read with: --block-size, else 1 (a generated problem has its
  // own, which parse_solve_command made sure --block-size equals).
  int read_block_size() const noexcept { return block_size.value_or(1); }

  std::string matrix;              // a Matrix Market path or gen:SPEC
  std::string rhs;                 // empty: all ones
  std::optional<int> block_size;   // --block-size: a file read as BSR; unset: 1 for a file, the
                                   // generator's own for gen: (which refuses any other)
  std::string coordinates;         // empty: none; else a Matrix Market array, a point per row
  SolverOptions options;           // every solver option, filled through SolverOptions::set
  std::string write_solution;      // empty: do not write; otherwise only a converged x, unless
  bool write_unconverged = false;  // the last iterate too, its header saying it did not converge
  std::string json;                // empty: no JSON report
  bool monitor = false;
  // --refactor-solves N: after the solve, N more, each after Solver::update_values with A's
  // values (what a time step with a new matrix of the same pattern costs); one process only.
  int refactor_solves = 0;
  bool read_per_rank = false;  // under mpirun: every rank reads its rows of the file
  bool help = false;
  bool version = false;
};

// Invalid usage; fgdd-solve prints the message and exits with code 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses argv (without the program name). Throws UsageError naming the bad argument.
SolveCommand parse_solve_command(const std::vector<std::string>& args);

// The command as "key=value" items (SolverOptions::key_values and the command's own settings),
// equal for equal commands however their arguments were ordered: what MPI ranks compare.
std::vector<std::string> canonical_items(const SolveCommand& command);

const char* solve_usage();

}  // namespace fgdd::cli
