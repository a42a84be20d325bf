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

// The part [first, last) of [begin, end) whose columns lie in [low, high) (cols ascending there).
// Most rows of a partition that keeps neighbours together lie inside whole: their two end
// columns say so, and only the others are searched (a binary search is a chain of dependent
// loads; two a row set the pace of the passes that drop couplings).
template <class Cols>
KOKKOS_INLINE_FUNCTION void run_within(const Cols& cols, Offset begin, Offset end, Ordinal low,
                                       Ordinal high, Offset& first, Offset& last) {
  if (begin == end) {
    first = last = begin;
    return;
  }
  first = cols(begin) >= low ? begin : first_not_below(cols, begin, end, low);
  last = cols(end - 1) < high ? end : first_not_below(cols, first, end, high);
}

// The k in [begin, end) with cols(k) == value (cols ascending there), else end.
template <class Cols>
KOKKOS_INLINE_FUNCTION Offset find_sorted(const Cols& cols, Offset begin, Offset end,
                                          Ordinal value) {
  const Offset at = first_not_below(cols, begin, end, value);
  return at < end && cols(at) == value ? at : end;
}

// f(q, p) for every q in [q_begin, q_end) whose column another range [p_begin, p_end) of the same
// cols also holds at p, in ascending q (both ranges ascending). Each column is found by binary
// search in what is left of the second range: a linear merge would walk a long row once per
// call, quadratic in a dense row (an arrow matrix's last row).
template <class Cols, class F>
KOKKOS_INLINE_FUNCTION void for_each_common_column(const Cols& cols, Offset q_begin, Offset q_end,
                                                   Offset p_begin, Offset p_end, F&& f) {
  Offset p = p_begin;
  for (Offset q = q_begin; q < q_end && p < p_end; ++q) {
    p = first_not_below(cols, p, p_end, cols(q));
    if (p < p_end && cols(p) == cols(q)) f(q, p);
  }
}

// Position of block (row, col), or row_map(row + 1) when it is not stored.
KOKKOS_INLINE_FUNCTION Offset find_in_row(const SparseMatrix::RowMap& row_map,
                                          const SparseMatrix::ColumnIndices& col_ind, Ordinal row,
                                          Ordinal col) {
  return find_sorted(col_ind, row_map(row), row_map(row + 1), col);
}

}  // namespace fgdd::detail
