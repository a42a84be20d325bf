// Σ_k values[k] · x[cols[k]] over one sparse row, the inner loop of the CPU SpMV and of the
// row-order triangular sweeps (internal, device code).
#pragma once

#include "core/types.hpp"

namespace fgdd::detail {

// Four partial sums, added in a fixed order (deterministic): one running sum would chain every
// add of the row behind the previous one, and a triangular sweep's next row waits for this one.
// values may be stored in float (T); the products and sums are in Scalar. cols (of type I) are
// positions in x: columns, or 16-bit distances from the row when x points at the row's own entry.
template <class T, class I = Ordinal>
KOKKOS_INLINE_FUNCTION Scalar sparse_dot(const T* values, const I* cols, const Scalar* x,
                                         Offset begin, Offset end) {
  Scalar s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  Offset k = begin;
  for (; k + 4 <= end; k += 4) {
    s0 += Scalar(values[k]) * x[cols[k]];
    s1 += Scalar(values[k + 1]) * x[cols[k + 1]];
    s2 += Scalar(values[k + 2]) * x[cols[k + 2]];
    s3 += Scalar(values[k + 3]) * x[cols[k + 3]];
  }
  for (; k < end; ++k) s0 += Scalar(values[k]) * x[cols[k]];
  return (s0 + s1) + (s2 + s3);
}

// rhs − Σ_k values[k] · x[cols[k]] over a row of a triangular sweep, with the entry of the row
// solved just before (the lower triangle's last entry, the upper's first, in a sweep ascending
// resp. descending) subtracted last, after the partial sums are combined: that entry is the one
// whose x the sweep has just written, so the chain from one row to the next is one multiply and
// one subtraction instead of also the three adds that combine the partial sums.
template <class T, class I = Ordinal>
KOKKOS_INLINE_FUNCTION Scalar subtract_sweep_row(Scalar rhs, const T* values, const I* cols,
                                                 const Scalar* x, Offset begin, Offset end,
                                                 bool lower) {
  if (begin == end) return rhs;
  const Offset latest = lower ? end - 1 : begin;
  const Scalar rest = lower ? sparse_dot(values, cols, x, begin, end - 1)
                            : sparse_dot(values, cols, x, begin + 1, end);
  return (rhs - rest) - Scalar(values[latest]) * x[cols[latest]];
}

}  // namespace fgdd::detail
