// The subdomain factors split into their two strict triangles, each stored in the order a
// row-order sweep reads it: the lower entries row by row ascending, the upper entries with the
// rows descending, so both sweeps stream forward through memory and neither reads the other
// triangle's entries (in the factors' rows the two interleave, and a sweep over one would pull
// the whole matrix, both triangles, through the caches).
#pragma once

#include "core/sparse_matrix.hpp"
#include "trsv/trsv_options.hpp"

#include <cstdint>

namespace fgdd {

struct SplitTriangles {
  // Row i's strictly lower blocks: lower_cols / lower_values at lower_ptr(i) .. lower_ptr(i+1).
  Kokkos::View<Offset*, DeviceType> lower_ptr;
  Kokkos::View<Ordinal*, DeviceType> lower_cols;
  Kokkos::View<Scalar*, DeviceType> lower_values;
  // Row i's strictly upper blocks at upper_ptr(n-1-i) .. upper_ptr(n-i): the last row first.
  Kokkos::View<Offset*, DeviceType> upper_ptr;
  Kokkos::View<Ordinal*, DeviceType> upper_cols;
  Kokkos::View<Scalar*, DeviceType> upper_values;
  // FactorPrecision::Float keeps the values here instead (and the two above stay empty).
  Kokkos::View<float*, DeviceType> lower_values_single;
  Kokkos::View<float*, DeviceType> upper_values_single;
  // Scalar factors whose every column j of row i lies within max_short_distance of i (any
  // ordering that keeps neighbours near) keep j − i in 16 bits instead of lower_cols /
  // upper_cols, which stay empty: a sweep then reads 6 bytes a float entry instead of 8.
  Kokkos::View<std::int16_t*, DeviceType> lower_distances;
  Kokkos::View<std::int16_t*, DeviceType> upper_distances;
  bool short_distances = false;
};

// The largest |j − i| that lower_distances / upper_distances hold.
inline constexpr Ordinal max_short_distance = 32767;

// The pattern (pointers and columns or distances) of factors with diagonal blocks at diag_position;
// the values arrays of the given precision are allocated, not filled.
SplitTriangles split_triangles(const ExecSpace& space, const SparseMatrix& factors,
                               const Kokkos::View<Offset*, DeviceType>& diag_position,
                               FactorPrecision precision = FactorPrecision::Double);

// Copies the factor blocks into split's values (after every numeric factorization), rounded to
// float where split keeps float values. Returns the smallest block row with a strictly
// triangular value beyond float's range (|v| > 3.4e38) in that case, else num_block_rows.
Ordinal gather_split_values(const ExecSpace& space, const SparseMatrix& factors,
                            const Kokkos::View<Offset*, DeviceType>& diag_position,
                            const SplitTriangles& split);

// The row-order solves' cache: builds split on its first use and gathers the values again
// whenever numeric_count (the factorization's count of numeric phases) differs from
// gathered_count, which it then updates unless a value did not fit float. Returns what
// gather_split_values did (num_block_rows when nothing was gathered).
Ordinal refresh_split(const ExecSpace& space, const SparseMatrix& factors,
                      const Kokkos::View<Offset*, DeviceType>& diag_position,
                      FactorPrecision precision, std::uint64_t numeric_count, SplitTriangles& split,
                      std::uint64_t& gathered_count);

}  // namespace fgdd
