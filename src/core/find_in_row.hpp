// Where a block column sits in a row of a SparseMatrix (columns sorted, as make_matrix leaves
// them), on the device.
#pragma once

#include "core/sparse_matrix.hpp"

namespace fgdd::detail {

// Position of block (row, col), or row_map(row + 1) when it is not stored.
KOKKOS_INLINE_FUNCTION Offset find_in_row(const SparseMatrix::RowMap& row_map,
                                          const SparseMatrix::ColumnIndices& col_ind, Ordinal row,
                                          Ordinal col) {
  Offset lo = row_map(row), hi = row_map(row + 1);
  while (lo < hi) {
    const Offset mid = lo + (hi - lo) / 2;
    if (col_ind(mid) < col)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < row_map(row + 1) && col_ind(lo) == col ? lo : row_map(row + 1);
}

}  // namespace fgdd::detail
