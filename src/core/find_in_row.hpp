// Where a column sits among sorted columns (a row of a SparseMatrix, as make_matrix leaves them,
// or any ascending range), on the device.
#pragma once

#include "core/sparse_matrix.hpp"

namespace fgdd::detail {

// The first k in [begin, end) with cols(k) >= value (cols ascending there), else end.
template <class Cols>
KOKKOS_INLINE_FUNCTION Offset first_not_below(const Cols& cols, Offset begin, Offset end,
                                              Ordinal value) {
  while (begin < end) {
    const Offset middle = begin + (end - begin) / 2;
    if (cols(middle) < value)
      begin = middle + 1;
    else
      end = middle;
  }
  return begin;
}

// The k in [begin, end) with cols(k) == value (cols ascending there), else end.
template <class Cols>
KOKKOS_INLINE_FUNCTION Offset find_sorted(const Cols& cols, Offset begin, Offset end,
                                          Ordinal value) {
  const Offset at = first_not_below(cols, begin, end, value);
  return at < end && cols(at) == value ? at : end;
}

// Position of block (row, col), or row_map(row + 1) when it is not stored.
KOKKOS_INLINE_FUNCTION Offset find_in_row(const SparseMatrix::RowMap& row_map,
                                          const SparseMatrix::ColumnIndices& col_ind, Ordinal row,
                                          Ordinal col) {
  return find_sorted(col_ind, row_map(row), row_map(row + 1), col);
}

}  // namespace fgdd::detail
