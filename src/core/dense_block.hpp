// Small dense b×b row-major block kernels used inside device code (BSR factorization, block
// Jacobi). b is a runtime value up to max_block_size.
#pragma once

#include "core/kokkos_compat.hpp"
#include "core/types.hpp"

namespace fgdd::detail {

constexpr int max_block_size = 16;

// What to do with a tiny pivot p (|p| <= tiny, zero, or not finite).
struct PivotRule {
  Scalar tiny = 0;
  bool shift = false;
  Scalar absolute_shift = 0;
  Scalar relative_shift = 1;
};

// inv = a⁻¹ by Gauss-Jordan with partial pivoting; a is overwritten. Returns the number of
// pivots shifted, or -1 when a pivot was tiny and rule.shift is off (inv is then zero, so
// nothing downstream turns into NaN). smallest_pivot receives the smallest |pivot| met.
KOKKOS_INLINE_FUNCTION int invert_block(Scalar* a, Scalar* inv, int b, const PivotRule& rule,
                                        Scalar& smallest_pivot) {
  if (b == 1) {  // the loops below for one entry, without them (a call per CSR row otherwise)
    Scalar p = a[0];
    smallest_pivot = fabs(p);
    int shifted_one = 0;
    if (!(smallest_pivot > rule.tiny) || !isfinite(p)) {
      if (!rule.shift || !isfinite(p)) {
        inv[0] = 0;
        return -1;
      }
      p = (p < 0 ? -rule.absolute_shift : rule.absolute_shift) + rule.relative_shift * p;
      shifted_one = 1;
    }
    const Scalar d = 1 / p;
    a[0] = p * d;
    inv[0] = d;
    return shifted_one;
  }
  int shifted = 0;
  for (int e = 0; e < b * b; ++e) inv[e] = (e / b == e % b) ? 1 : 0;
  smallest_pivot = 0;
  for (int c = 0; c < b; ++c) {
    int pivot_row = c;
    for (int r = c + 1; r < b; ++r)
      if (fabs(a[r * b + c]) > fabs(a[pivot_row * b + c])) pivot_row = r;
    for (int j = 0; j < b; ++j) {
      const Scalar ta = a[c * b + j], ti = inv[c * b + j];
      a[c * b + j] = a[pivot_row * b + j];
      inv[c * b + j] = inv[pivot_row * b + j];
      a[pivot_row * b + j] = ta;
      inv[pivot_row * b + j] = ti;
    }
    Scalar p = a[c * b + c];
    const Scalar magnitude = fabs(p);
    if (c == 0 || magnitude < smallest_pivot) smallest_pivot = magnitude;
    if (!(magnitude > rule.tiny) || !isfinite(p)) {
      if (!rule.shift || !isfinite(p)) {
        for (int e = 0; e < b * b; ++e) inv[e] = 0;
        return -1;
      }
      p = (p < 0 ? -rule.absolute_shift : rule.absolute_shift) + rule.relative_shift * p;
      a[c * b + c] = p;
      ++shifted;
    }
    const Scalar d = 1 / p;
    for (int j = 0; j < b; ++j) {
      a[c * b + j] *= d;
      inv[c * b + j] *= d;
    }
    for (int r = 0; r < b; ++r) {
      if (r == c) continue;
      const Scalar f = a[r * b + c];
      for (int j = 0; j < b; ++j) {
        a[r * b + j] -= f * a[c * b + j];
        inv[r * b + j] -= f * inv[c * b + j];
      }
    }
  }
  return shifted;
}

// c = a · b for b×b blocks (c must not alias a or b).
KOKKOS_INLINE_FUNCTION void multiply_blocks(const Scalar* a, const Scalar* b_block, Scalar* c,
                                            int b) {
  for (int r = 0; r < b; ++r)
    for (int j = 0; j < b; ++j) {
      Scalar sum = 0;
      for (int k = 0; k < b; ++k) sum += a[r * b + k] * b_block[k * b + j];
      c[r * b + j] = sum;
    }
}

// c = a · bᵀ for b×b blocks (c must not alias a or b).
KOKKOS_INLINE_FUNCTION void multiply_blocks_transposed(const Scalar* a, const Scalar* b_block,
                                                       Scalar* c, int b) {
  for (int r = 0; r < b; ++r)
    for (int j = 0; j < b; ++j) {
      Scalar sum = 0;
      for (int k = 0; k < b; ++k) sum += a[r * b + k] * b_block[j * b + k];
      c[r * b + j] = sum;
    }
}

// acc -= a · x (or aᵀ · x) for a b×b block a and b-vectors acc and x (acc must not alias x).
// a may be stored in float (T); the products and sums are in Scalar.
template <class T>
KOKKOS_INLINE_FUNCTION void subtract_block_product(Scalar* acc, const T* a, const Scalar* x,
                                                   int b, bool transposed) {
  for (int c = 0; c < b; ++c) {
    Scalar sum = 0;
    for (int e = 0; e < b; ++e)
      sum += Scalar(transposed ? a[e * b + c] : a[c * b + e]) * x[e];
    acc[c] -= sum;
  }
}

// x ← a · x (or aᵀ · x) in place; Capacity bounds b at compile time; a may be float (T).
template <int Capacity, class T>
KOKKOS_INLINE_FUNCTION void multiply_block_in_place(const T* a, Scalar* x, int b,
                                                    bool transposed) {
  Scalar copy[Capacity];
  for (int c = 0; c < b; ++c) copy[c] = x[c];
  for (int c = 0; c < b; ++c) {
    Scalar sum = 0;
    for (int e = 0; e < b; ++e)
      sum += Scalar(transposed ? a[e * b + c] : a[c * b + e]) * copy[e];
    x[c] = sum;
  }
}

}  // namespace fgdd::detail
