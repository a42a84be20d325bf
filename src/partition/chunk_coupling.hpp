// How much of a matrix chunks of its own row order would drop: whether the caller's order can
// be kept as it is on a few CPU threads (partition_matrix.cpp).
#pragma once

#include "core/sparse_matrix.hpp"

namespace fgdd::detail {

// Σ|a| over the stored scalars of the blocks whose block row and block column lie in different
// chunks of the natural order (row i in chunk i·parts/n, natural_labeling's rule), divided by
// Σ|a| over every stored scalar. 0 for parts ≤ 1, n = 0 or an all-zero matrix. One pass over A
// on space.
double natural_chunk_coupling(const ExecSpace& space, const SparseMatrix& A, Ordinal parts);

}  // namespace fgdd::detail
