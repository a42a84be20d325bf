// Pivot shifts as PETSc names them (MatFactorShiftType): none, nonzero (replace a tiny pivot)
// and positive_definite (Manteuffel's shifted incomplete factorization: refactor A + α·S, α
// doubling until every pivot is positive). The device pieces the subdomain, global and
// structured factorizations share: one pivot step, and the shift's per-row scale.
#pragma once

#include "core/dense_block.hpp"
#include "core/enum_names.hpp"
#include "core/sparse_matrix.hpp"

#include <string>

namespace fgdd {

enum class PivotShift {
  None,              // a tiny pivot throws ZeroPivot naming the row
  Nonzero,           // a tiny pivot p becomes absolute_shift·sign(p) + relative_shift·p (counted)
  PositiveDefinite,  // a pivot that is tiny or has the wrong sign refactors A + α·S (below)
};

inline const auto pivot_shift_names =
    make_enum_names<PivotShift>("shift", {{PivotShift::None, "none"},
                                          {PivotShift::Nonzero, "nonzero"},
                                          {PivotShift::PositiveDefinite, "positive-definite"}});

const char* to_string(PivotShift shift) noexcept;  // "none", "nonzero", "positive-definite"
// Accepts pivot_shift_names (and positive_definite); throws InvalidInput listing them.
PivotShift parse_pivot_shift(const std::string& name);

namespace detail {

// What one factorization attempt does with its pivots, on the device. S = diag(s_r) with s_r =
// sign_r·‖row r of A‖₁ per scalar row (shift_scale): sign_r is +1 for IC0 (its pivots must be
// positive) and the sign of a_rr for ILU0 / ILDU0 (a pivot must keep its diagonal's sign, so a
// matrix with a negative diagonal is shifted like −A, not towards zero; a_rr = 0 counts as +).
// Past α = 1, A + α·S is strictly diagonally dominant by rows with pivots of the diagonal's sign,
// and incomplete factorizations of such matrices (H-matrices) exist with pivots of that sign
// (Manteuffel 1980), so the doubling stops at the first α ≥ 2.
struct PivotTreatment {
  PivotRule rule;  // rule.tiny is relative (multiplied by the row's largest |entry|); nonzero
  bool positive_definite = false;
  Scalar alpha = 0;                                     // this attempt's α (0: unshifted)
  Kokkos::View<const Scalar*, DeviceType> shift_scale;  // s_r, positive_definite only
};

// Whether every pivot of the unpivoted elimination of block a (b×b, overwritten) is finite and
// has the sign of its row's s_r with magnitude above tiny.
template <int Capacity>
KOKKOS_INLINE_FUNCTION bool sign_consistent_pivots(Scalar* a, int b, Offset row0, Scalar tiny,
                                                   const PivotTreatment& t) {
  for (int c = 0; c < b; ++c) {
    const Scalar p = a[c * b + c];
    const Scalar sign = t.shift_scale(row0 + c) < 0 ? -1 : 1;
    if (!isfinite(p) || !(p * sign > tiny)) return false;
    for (int r = c + 1; r < b; ++r) {
      const Scalar f = a[r * b + c] / p;
      for (int j = c + 1; j < b; ++j) a[r * b + j] -= f * a[c * b + j];
    }
  }
  return true;
}

// One pivot step, the same in every factorization. d: the pivot block (b×b row-major) of the
// block row whose first scalar row is row0, after elimination; row_max: the row's largest
// |entry| before elimination. On return inv = d⁻¹ and d is the pivot actually used (shifted by
// α·s_r, or by the nonzero rule); changed says whether d must be written back. Returns -1 when
// the pivot fails (inv is then zero, so nothing downstream turns into NaN), else the number of
// pivots the nonzero rule shifted. reported: the pivot to report (b = 1: the pivot; b > 1: the
// smallest |pivot|; either way a non-finite entry of d when there is one, so an overflow or a
// NaN is reported as such).
template <int Capacity>
KOKKOS_INLINE_FUNCTION int treat_pivot(Scalar* d, Scalar* inv, int b, Offset row0, Scalar row_max,
                                       const PivotTreatment& t, bool& changed, Scalar& reported) {
  const int bb = b * b;
  changed = false;
  if (t.positive_definite && t.alpha > 0) {
    for (int r = 0; r < b; ++r) d[r * b + r] += t.alpha * t.shift_scale(row0 + r);
    changed = true;
  }
  PivotRule rule = t.rule;
  rule.tiny = t.rule.tiny * row_max;
  Scalar work[Capacity];
  Scalar smallest = 0;
  int result = 0;
  for (int e = 0; e < bb; ++e) work[e] = d[e];
  if (t.positive_definite && !sign_consistent_pivots<Capacity>(work, b, row0, rule.tiny, t)) {
    for (int e = 0; e < bb; ++e) inv[e] = 0;
    result = -1;
    smallest = fabs(d[0]);
    for (int r = 1; r < b; ++r)
      if (fabs(d[r * b + r]) < smallest) smallest = fabs(d[r * b + r]);
  } else {
    for (int e = 0; e < bb; ++e) work[e] = d[e];
    result = invert_block(work, inv, b, rule, smallest);
  }
  reported = b == 1 ? d[0] : smallest;
  if (result < 0)
    for (int e = 0; e < bb; ++e)
      if (!isfinite(d[e])) reported = d[e];
  if (result > 0) {
    // Keep D consistent with the D⁻¹ actually used: D = (D⁻¹)⁻¹.
    Scalar copy[Capacity], unused;
    for (int e = 0; e < bb; ++e) copy[e] = inv[e];
    invert_block(copy, d, b, PivotRule{}, unused);
    changed = true;
  }
  return result;
}

// s_r = sign_r·‖row r‖₁ for every scalar row of A (block rows with their diagonal block at
// diag(i)), on space; positive: every sign_r = +1 (IC0). values: A's values in A's pattern.
void compute_shift_scale(const ExecSpace& space, const SparseMatrix::RowMap& row_map,
                         const SparseMatrix::Values& values,
                         const Kokkos::View<Offset*, DeviceType>& diag, int b, bool positive,
                         const Kokkos::View<Scalar*, DeviceType>& shift_scale);

}  // namespace detail

}  // namespace fgdd
