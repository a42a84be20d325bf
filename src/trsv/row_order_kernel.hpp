// The row-order subdomain solves (internal): one thread per subdomain sweeps its rows in order,
// reading the factors' two triangles split apart (split_triangles.hpp), so no level sets or edge
// arrays exist. It is the CPU default: a CPU thread owns its subdomain, so level sets would only
// order rows that it runs one after another anyway, and building them costs more than the
// factorization. It runs on GPUs too (one thread a subdomain), as a reference only.
#pragma once

#include "core/dense_block.hpp"
#include "core/sparse_dot.hpp"
#include "trsv/split_triangles.hpp"
#include "trsv/subdomain_solve_kernel.hpp"

#include <cstddef>
#include <type_traits>

namespace fgdd::detail {

// B: the block size when known at compile time (1..4), or 0 for any b ≤ max_block_size. V: the
// type the triangles' values and D⁻¹ are stored in (FactorPrecision). I: how the triangles'
// block columns are stored, Ordinal (split's lower_cols) or std::int16_t (lower_distances, j − i).
// The steps are those of SubdomainSolveKernel and mean the same; r and z do not alias.
template <int B, class V = Scalar, class I = Ordinal>
struct RowOrderSolveKernel {
  SplitTriangles split;  // the row pointers; values and columns are the four views below
  Kokkos::View<const V*, DeviceType> lower_values;
  Kokkos::View<const V*, DeviceType> upper_values;
  Kokkos::View<const I*, DeviceType> lower_cols;
  Kokkos::View<const I*, DeviceType> upper_cols;
  Kokkos::View<const V*, DeviceType> inv_diag;
  Kokkos::View<Ordinal*, DeviceType> offsets;
  ConstVector r;
  Vector z;
  StepList steps;
  int runtime_b;
  Ordinal n;  // block rows of the factors

  static constexpr int capacity = B > 0 ? B : max_block_size;
  KOKKOS_INLINE_FUNCTION int b() const { return B > 0 ? B : runtime_b; }
  KOKKOS_INLINE_FUNCTION Scalar* x(Ordinal i) const { return &z(Offset(i) * b()); }
  // What row i's stored columns index: z itself, or row i's own entry for distances j − i.
  KOKKOS_INLINE_FUNCTION Scalar* columns_base(Ordinal i) const {
    if constexpr (std::is_same_v<I, Ordinal>) return z.data();
    return x(i);
  }

  KOKKOS_INLINE_FUNCTION void scale(Ordinal i, bool transposed) const {
    multiply_block_in_place<capacity>(&inv_diag(Offset(i) * b() * b()), x(i), b(), transposed);
  }

  // Row i's entries of one triangle: [begin, end) in cols and values.
  struct Span {
    const I* cols;
    const V* values;
    Offset begin, end;
  };
  KOKKOS_INLINE_FUNCTION Span row(bool lower, Ordinal i) const {
    if (lower)
      return {lower_cols.data(), lower_values.data(), split.lower_ptr(i), split.lower_ptr(i + 1)};
    return {upper_cols.data(), upper_values.data(), split.upper_ptr(n - 1 - i),
            split.upper_ptr(n - i)};
  }

  // x_i ← x_i − Σ_j T_ij x_j over the row's strictly triangular entries, then D_i⁻¹ (pivots).
  KOKKOS_INLINE_FUNCTION void solve_row(Ordinal i, const Span& t, bool lower, bool pivots) const {
    if constexpr (B == 1) {
      z(i) = subtract_sweep_row(z(i), t.values, t.cols, columns_base(i), t.begin, t.end, lower);
      if (pivots) z(i) *= Scalar(inv_diag(i));
      return;
    }
    const int n_b = b();
    const Scalar* base = columns_base(i);
    Scalar acc[capacity];
    for (int c = 0; c < n_b; ++c) acc[c] = x(i)[c];
    for (Offset k = t.begin; k < t.end; ++k)
      subtract_block_product(acc, &t.values[k * n_b * n_b], base + std::ptrdiff_t(t.cols[k]) * n_b,
                             n_b, false);
    for (int c = 0; c < n_b; ++c) x(i)[c] = acc[c];
    if (pivots) scale(i, false);
  }

  // Row i of Tᵀ's solve is final (after D_i⁻ᵀ when pivots): scatter it into the rows of Tᵀ that
  // read it, x_j ← x_j − T_ijᵀ x_i.
  KOKKOS_INLINE_FUNCTION void scatter_row(Ordinal i, const Span& t, bool pivots) const {
    if (pivots) scale(i, true);
    const int n_b = b();
    Scalar* base = columns_base(i);
    for (Offset k = t.begin; k < t.end; ++k)
      subtract_block_product(base + std::ptrdiff_t(t.cols[k]) * n_b, &t.values[k * n_b * n_b], x(i),
                             n_b, true);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Ordinal s) const {
    const Ordinal first = offsets(s), last = offsets(s + 1);
    for (Offset t = Offset(first) * b(); t < Offset(last) * b(); ++t) z(t) = r(t);
    for (int q = 0; q < steps.count; ++q) {
      const Step& step = steps.step[q];
      const bool lower = step.lower;
      switch (step.kind) {
        case StepKind::Solve:  // L: rows ascending; U: descending
          if (lower)
            for (Ordinal i = first; i < last; ++i) solve_row(i, row(true, i), true, step.pivots);
          else
            for (Ordinal i = last - 1; i >= first; --i)
              solve_row(i, row(false, i), false, step.pivots);
          break;
        case StepKind::SolveTransposed:  // Lᵀ is upper triangular (rows descending), Uᵀ lower
          if (lower)
            for (Ordinal i = last - 1; i >= first; --i) scatter_row(i, row(true, i), step.pivots);
          else
            for (Ordinal i = first; i < last; ++i) scatter_row(i, row(false, i), step.pivots);
          break;
        case StepKind::Scale:
        case StepKind::ScaleTransposed:
          for (Ordinal i = first; i < last; ++i) scale(i, step.kind == StepKind::ScaleTransposed);
          break;
      }
    }
  }
};

// Calls go(lower_cols, upper_cols) with split's 16-bit distances where it keeps them (scalar
// factors only, so the kernel is instantiated with them for B = 1 alone), else its columns.
template <int B, class Go>
void with_split_columns(const SplitTriangles& split, Go&& go) {
  if constexpr (B == 1)
    if (split.short_distances) return go(split.lower_distances, split.upper_distances);
  go(split.lower_cols, split.upper_cols);
}

}  // namespace fgdd::detail
