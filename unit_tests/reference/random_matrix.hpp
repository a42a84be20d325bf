// Random test matrices: sparse patterns with a diagonal, CSR or BSR, optionally diagonally
// dominant so solvers and pivots behave.
#pragma once

#include "core/matrix_build.hpp"

#include <set>
#include <vector>

namespace fgdd::reference {

// num_block_rows × num_block_rows blocks of size block_size, about entries_per_row off-diagonal
// blocks per block row at random columns, values in [-1, 1). With dominant, each scalar
// diagonal gets the row's absolute sum + 1, so the matrix is strictly diagonally dominant.
HostMatrixArrays random_matrix(Ordinal num_block_rows, int block_size, int entries_per_row,
                               unsigned seed, bool dominant = true);

// Tridiagonal with row and column `arrow` full (an arrow), scalar, strictly diagonally dominant:
// one row as long as the matrix, for kernels that stage rows in chunks.
HostMatrixArrays arrow_matrix(Ordinal n, Ordinal arrow);

// Row i: every column j with (i, j) or (j, i) stored, ascending; the diagonal where stored.
std::vector<std::set<Ordinal>> union_with_transpose(const HostMatrixArrays& a);

// The square matrix whose block row i holds the columns rows[i], every value 1.
HostMatrixArrays from_rows(const std::vector<std::set<Ordinal>>& rows, int block_size);

}  // namespace fgdd::reference
