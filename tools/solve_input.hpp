// fgdd-solve's inputs: the matrix (a Matrix Market file or a generator spec) and b.
#pragma once

#include "fgdd.hpp"
#include "solve_options.hpp"

namespace fgdd::cli {

// command.matrix: a file (read with command.read_block_size(); a problem without grid
// metadata) or gen:SPEC. Throws FileError / InvalidInput.
GeneratedProblem load_matrix(const SolveCommand& command);

// b from --rhs, or ones. Throws FileError, DimensionMismatch.
Vector load_rhs(const SolveCommand& command, const SparseMatrix& A);

// The points from --coordinates (one per block row of A), or none. Throws FileError naming the
// file and line.
Coordinates load_coordinates(const SolveCommand& command, const SparseMatrix& A);

}  // namespace fgdd::cli
