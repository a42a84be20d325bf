// The row work of the global triangular sweeps (internal, device code): what a sweep reads and
// writes, and one row of it, shared by the level kernels of global_trsv.cpp and
// global_pipelined_kernel.hpp.
#pragma once

#include "core/dense_block.hpp"
#include "core/sparse_dot.hpp"
#include "core/sparse_matrix.hpp"

namespace fgdd::detail {

// What one triangular sweep reads and writes. Row i of the sweep computes
//   x_i = S (R r_i − Σ_j T_ij x_j)
// over its strictly triangular blocks T_ij, with R = D_i⁻¹ when scale_rhs (the Ildu0 upper
// sweep of an apply, which folds the diagonal scaling in) and S = D_i⁻¹ when scale_result (a
// triangle with its pivots), else the identity.
struct GlobalSolveData {
  SparseMatrix::RowMap row_map;
  SparseMatrix::ColumnIndices col_ind;
  SparseMatrix::Values values;
  Kokkos::View<Offset*, DeviceType> diag;
  Kokkos::View<Scalar*, DeviceType> inv_diag;
  Kokkos::View<Ordinal*, DeviceType> level_rows;
  ConstVector r;
  Vector x;
  bool lower = true;
  bool scale_rhs = false;
  bool scale_result = false;
  int runtime_b = 1;
};

// The row work of a sweep: B is the block size when known at compile time (1..4), or 0 for any
// b ≤ 16.
template <int B>
struct GlobalSolveRow {
  static constexpr int width = B > 0 ? B : max_block_size;

  GlobalSolveData data;

  KOKKOS_INLINE_FUNCTION int b() const { return B > 0 ? B : data.runtime_b; }
  KOKKOS_INLINE_FUNCTION Offset deps_begin(Ordinal i) const {
    return data.lower ? data.row_map(i) : data.diag(i) + 1;
  }
  KOKKOS_INLINE_FUNCTION Offset deps_end(Ordinal i) const {
    return data.lower ? data.diag(i) : data.row_map(i + 1);
  }

  // v ← D_i⁻¹ v
  KOKKOS_INLINE_FUNCTION void scale(Scalar* v, Ordinal i) const {
    const int n = b();
    const Scalar* d = &data.inv_diag(Offset(i) * n * n);
    Scalar copy[width];
    for (int c = 0; c < n; ++c) copy[c] = v[c];
    for (int c = 0; c < n; ++c) {
      Scalar sum = 0;
      for (int e = 0; e < n; ++e) sum += d[c * n + e] * copy[e];
      v[c] = sum;
    }
  }

  KOKKOS_INLINE_FUNCTION void load_rhs(Scalar* acc, Ordinal i) const {
    const int n = b();
    for (int c = 0; c < n; ++c) acc[c] = data.r(Offset(i) * n + c);
    if (data.scale_rhs) scale(acc, i);
  }

  KOKKOS_INLINE_FUNCTION void store(Scalar* acc, Ordinal i) const {
    const int n = b();
    if (data.scale_result) scale(acc, i);
    for (int c = 0; c < n; ++c) data.x(Offset(i) * n + c) = acc[c];
  }

  // Row i of the sweep, once every row it reads is final.
  KOKKOS_INLINE_FUNCTION void solve(Ordinal i) const {
    const int n = b();
    Scalar acc[width];
    load_rhs(acc, i);
    if constexpr (B == 1) {
      acc[0] -= sparse_dot(data.values.data(), data.col_ind.data(), data.x.data(), deps_begin(i),
                           deps_end(i));
      return store(acc, i);
    }
    for (Offset k = deps_begin(i); k < deps_end(i); ++k) {
      const Scalar* a = &data.values(k * n * n);
      const Offset j = Offset(data.col_ind(k)) * n;
      for (int c = 0; c < n; ++c) {
        Scalar sum = 0;
        for (int e = 0; e < n; ++e) sum += a[c * n + e] * data.x(j + e);
        acc[c] -= sum;
      }
    }
    store(acc, i);
  }

  // Scalar rows shared by `lanes` threads: lane `lane`'s share of Σ_j T_ij x_j, every lanes-th
  // entry from its own (consecutive lanes read consecutive entries).
  KOKKOS_INLINE_FUNCTION Scalar strided_dot(Ordinal i, int lane, int lanes) const {
    Scalar sum = 0;
    for (Offset k = deps_begin(i) + lane; k < deps_end(i); k += lanes)
      sum += data.values(k) * data.x(data.col_ind(k));
    return sum;
  }

  // x_i from the lanes' shares of scalar row i, added in lane order.
  KOKKOS_INLINE_FUNCTION void finish(Ordinal i, const Scalar* shares, int lanes) const {
    Scalar sum = 0;
    for (int lane = 0; lane < lanes; ++lane) sum += shares[lane];
    Scalar acc[width];
    load_rhs(acc, i);
    acc[0] -= sum;
    store(acc, i);
  }
};

}  // namespace fgdd::detail
