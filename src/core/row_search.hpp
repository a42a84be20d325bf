// Binary search inside one row of a pattern whose columns are sorted (every validated matrix).
#pragma once

#include "core/sparse_matrix.hpp"

namespace fgdd::detail {

// The first entry k of row `row` with col_ind(k) >= column; row_map(row + 1) when there is none.
KOKKOS_INLINE_FUNCTION Offset first_column_at_least(const SparseMatrix::RowMap& row_map,
                                                    const SparseMatrix::ColumnIndices& col_ind,
                                                    Ordinal row, Ordinal column) {
  Offset lo = row_map(row), hi = row_map(row + 1);
  while (lo < hi) {
    const Offset mid = lo + (hi - lo) / 2;
    if (col_ind(mid) < column)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

}  // namespace fgdd::detail
