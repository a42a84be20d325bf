#include "trsv/split_triangles.hpp"

#include "core/exclusive_scan.hpp"
#include "core/huge_pages.hpp"
#include "core/kokkos_compat.hpp"

#include <cfloat>
#include <type_traits>

namespace fgdd {

namespace {

using Policy = Kokkos::RangePolicy<ExecSpace>;

// Where row i's lower and upper blocks begin in split, and how many it has of each.
struct RowSpans {
  SparseMatrix::RowMap row_map;
  Kokkos::View<Offset*, DeviceType> diag;
  Kokkos::View<Offset*, DeviceType> lower_ptr;
  Kokkos::View<Offset*, DeviceType> upper_ptr;
  Ordinal n;
  KOKKOS_INLINE_FUNCTION Offset lower_count(Ordinal i) const { return diag(i) - row_map(i); }
  KOKKOS_INLINE_FUNCTION Offset upper_count(Ordinal i) const {
    return row_map(i + 1) - diag(i) - 1;
  }
  KOKKOS_INLINE_FUNCTION Offset upper_begin(Ordinal i) const { return upper_ptr(n - 1 - i); }
  // f(k, at, lower) for row i's strictly triangular blocks: k in the factors, at in split's
  // lower (lower = true) or upper arrays.
  template <class F>
  KOKKOS_INLINE_FUNCTION void for_each_block(Ordinal i, const F& f) const {
    const Offset first = row_map(i), lower_at = lower_ptr(i);
    for (Offset k = 0; k < lower_count(i); ++k) f(first + k, lower_at + k, true);
    const Offset after = diag(i) + 1, upper_at = upper_begin(i);
    for (Offset k = 0; k < upper_count(i); ++k) f(after + k, upper_at + k, false);
  }
};

// Copies row i's lower and upper blocks into lower / upper (double or float); false when V is
// float and a value is beyond float's range (check_factors_fit_float's test).
template <class V>
struct RowCopy {
  SparseMatrix::Values values;
  RowSpans spans;
  Kokkos::View<V*, DeviceType> lower;
  Kokkos::View<V*, DeviceType> upper;
  Offset bb;

  // Float: the largest magnitude, compared once per triangle of a row, keeps the loop free of
  // branches.
  KOKKOS_INLINE_FUNCTION bool copy(Offset from, V* to, Offset count) const {
    const Scalar* in = values.data() + from;
    if constexpr (!std::is_same_v<V, float>) {
      for (Offset e = 0; e < count; ++e) to[e] = in[e];
      return true;
    } else {
      Scalar largest = 0;
      for (Offset e = 0; e < count; ++e) {
        const Scalar magnitude = detail::fabs(in[e]);
        largest = magnitude > largest ? magnitude : largest;
        to[e] = float(in[e]);
      }
      return largest <= Scalar(FLT_MAX);
    }
  }
  KOKKOS_INLINE_FUNCTION bool operator()(Ordinal i) const {
    const bool lower_fits = copy(spans.row_map(i) * bb, lower.data() + spans.lower_ptr(i) * bb,
                                 spans.lower_count(i) * bb);
    const bool upper_fits = copy((spans.diag(i) + 1) * bb, upper.data() + spans.upper_begin(i) * bb,
                                 spans.upper_count(i) * bb);
    return lower_fits && upper_fits;
  }
};

// Copies each row's blocks (RowCopy). Returns the smallest block row with a value beyond
// float's range (the test made here, as the values are rounded, rather than in a pass of its
// own), or n: always n for double, which needs no reduction (and on a GPU no fence).
template <class V>
Ordinal gather_values(const ExecSpace& space, const SparseMatrix& factors, const RowSpans& spans,
                      const Kokkos::View<V*, DeviceType>& lower,
                      const Kokkos::View<V*, DeviceType>& upper) {
  const Offset bb = Offset(factors.block_size()) * factors.block_size();
  const RowCopy<V> copy_row{factors.values(), spans, lower, upper, bb};
  if constexpr (!std::is_same_v<V, float>) {
    Kokkos::parallel_for(
        "fgdd::trsv::split_values", Policy(space, 0, spans.n),
        KOKKOS_LAMBDA(const Ordinal i) { copy_row(i); });
    return spans.n;
  } else {
    Ordinal first = spans.n;
    Kokkos::parallel_reduce(
        "fgdd::trsv::split_values", Policy(space, 0, spans.n),
        KOKKOS_LAMBDA(const Ordinal i, Ordinal& beyond) {
          if (!copy_row(i) && i < beyond) beyond = i;
        },
        Kokkos::Min<Ordinal>(first));
    return first < spans.n ? first : spans.n;  // Min starts at the largest Ordinal
  }
}

// Writes each row's columns j as j − i in 16 bits (wrapped where they do not fit) and
// returns the largest |j − i|: the caller keeps them when that fits, else copies the columns.
Ordinal copy_distances(const ExecSpace& space, const SparseMatrix::ColumnIndices& col_ind,
                       const RowSpans& spans, const SplitTriangles& out) {
  Ordinal farthest = 0;
  Kokkos::parallel_reduce(
      "fgdd::trsv::split_distances", Policy(space, 0, spans.n),
      KOKKOS_LAMBDA(const Ordinal i, Ordinal& far) {
        std::int16_t *const lo = out.lower_distances.data(), *const up = out.upper_distances.data();
        spans.for_each_block(i, [&](Offset k, Offset at, bool lower) {
          const Ordinal d = col_ind(k) - i;
          const Ordinal magnitude = lower ? -d : d;
          far = magnitude > far ? magnitude : far;
          (lower ? lo : up)[at] = std::int16_t(d);
        });
      },
      Kokkos::Max<Ordinal>(farthest));
  return farthest;
}

void copy_columns(const ExecSpace& space, const SparseMatrix::ColumnIndices& col_ind,
                  const RowSpans& spans, const SplitTriangles& out) {
  Kokkos::parallel_for(
      "fgdd::trsv::split_columns", Policy(space, 0, spans.n), KOKKOS_LAMBDA(const Ordinal i) {
        Ordinal *const lo = out.lower_cols.data(), *const up = out.upper_cols.data();
        spans.for_each_block(
            i, [&](Offset k, Offset at, bool lower) { (lower ? lo : up)[at] = col_ind(k); });
      });
}

}  // namespace

SplitTriangles split_triangles(const ExecSpace& space, const SparseMatrix& factors,
                               const Kokkos::View<Offset*, DeviceType>& diag_position,
                               FactorPrecision precision) {
  const Ordinal n = factors.num_block_rows();
  SplitTriangles split;
  split.lower_ptr = Kokkos::View<Offset*, DeviceType>("fgdd::trsv::lower_ptr", n + 1);
  split.upper_ptr = Kokkos::View<Offset*, DeviceType>("fgdd::trsv::upper_ptr", n + 1);
  const RowSpans spans{factors.row_map(), diag_position, split.lower_ptr, split.upper_ptr, n};
  Kokkos::parallel_for(
      "fgdd::trsv::count_triangles", Policy(space, 0, n), KOKKOS_LAMBDA(const Ordinal i) {
        spans.lower_ptr(i) = spans.lower_count(i);
        spans.upper_ptr(n - 1 - i) = spans.upper_count(i);
      });
  const Offset lower = detail::exclusive_scan_in_place(space, "fgdd::trsv::lower_ptr_scan",
                                                       split.lower_ptr);
  const Offset upper = detail::exclusive_scan_in_place(space, "fgdd::trsv::upper_ptr_scan",
                                                       split.upper_ptr);
  const Offset bb = Offset(factors.block_size()) * factors.block_size();
  if (precision == FactorPrecision::Float) {
    split.lower_values_single =
        detail::uninitialized_view<float>("fgdd::trsv::lower_values_single", lower * bb);
    split.upper_values_single =
        detail::uninitialized_view<float>("fgdd::trsv::upper_values_single", upper * bb);
  } else {
    split.lower_values = detail::uninitialized_view<Scalar>("fgdd::trsv::lower_values", lower * bb);
    split.upper_values = detail::uninitialized_view<Scalar>("fgdd::trsv::upper_values", upper * bb);
  }
  // Scalar rows only: with b × b blocks the column is a small part of what a sweep reads, and
  // the 3×3 elasticity sweeps ran 1.5-4 % slower with distances (docs/PERFORMANCE.md).
  if (factors.block_size() == 1) {
    split.lower_distances =
        detail::uninitialized_view<std::int16_t>("fgdd::trsv::lower_distances", lower);
    split.upper_distances =
        detail::uninitialized_view<std::int16_t>("fgdd::trsv::upper_distances", upper);
    if (copy_distances(space, factors.col_ind(), spans, split) <= max_short_distance) {
      split.short_distances = true;
      return split;
    }
    split.lower_distances = {};
    split.upper_distances = {};
  }
  split.lower_cols = detail::uninitialized_view<Ordinal>("fgdd::trsv::lower_cols", lower);
  split.upper_cols = detail::uninitialized_view<Ordinal>("fgdd::trsv::upper_cols", upper);
  copy_columns(space, factors.col_ind(), spans, split);
  return split;
}

Ordinal gather_split_values(const ExecSpace& space, const SparseMatrix& factors,
                            const Kokkos::View<Offset*, DeviceType>& diag_position,
                            const SplitTriangles& split) {
  const RowSpans spans{factors.row_map(), diag_position, split.lower_ptr, split.upper_ptr,
                       factors.num_block_rows()};
  if (split.lower_values_single.is_allocated())
    return gather_values(space, factors, spans, split.lower_values_single,
                         split.upper_values_single);
  return gather_values(space, factors, spans, split.lower_values, split.upper_values);
}

Ordinal refresh_split(const ExecSpace& space, const SparseMatrix& factors,
                      const Kokkos::View<Offset*, DeviceType>& diag_position,
                      FactorPrecision precision, std::uint64_t numeric_count, SplitTriangles& split,
                      std::uint64_t& gathered_count) {
  const Ordinal n = factors.num_block_rows();
  const bool fresh = !split.lower_ptr.is_allocated();
  if (fresh) split = split_triangles(space, factors, diag_position, precision);
  if (!fresh && gathered_count == numeric_count) return n;
  const Ordinal beyond = gather_split_values(space, factors, diag_position, split);
  if (beyond == n) gathered_count = numeric_count;  // else gathered again next time, and refused
  return beyond;
}

}  // namespace fgdd
