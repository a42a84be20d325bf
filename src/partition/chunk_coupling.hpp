// What chunks of a matrix's own row order would drop, and how far its rows reach: whether the
// caller's order can be kept as it is on a few CPU threads (partition_matrix.cpp).
#pragma once

#include "core/sparse_matrix.hpp"

namespace fgdd::detail {

struct NaturalChunks {
  // Σ|a| over the stored scalars of the blocks whose block row and block column lie in
  // different chunks of the natural order (row i in chunk i·parts/n, natural_labeling's rule),
  // divided by Σ|a| over every stored scalar; 0 for an all-zero matrix.
  double coupling = 0;
  // The mean over block rows of (last block column − first block column), divided by a chunk's
  // n / parts rows: near 0 for an order that keeps neighbours close, near 1 for a random one.
  double row_span = 0;
};

// Both for parts chunks (zeros for parts ≤ 1 or n = 0). One pass over A on space.
NaturalChunks natural_chunks(const ExecSpace& space, const SparseMatrix& A, Ordinal parts);

}  // namespace fgdd::detail
