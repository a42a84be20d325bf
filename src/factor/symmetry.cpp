#include "factor/symmetry.hpp"

#include "core/find_in_row.hpp"
#include "core/first_row_where.hpp"
#include "core/huge_pages.hpp"

namespace fgdd::detail {

namespace {

// Room for A's mirror positions, in 4 bytes each unless storage or A's size asks for 8.
MirrorPositions allocate_mirror(const SparseMatrix& A, MirrorStorage storage) {
  const Offset blocks = A.num_block_entries();
  MirrorPositions mirror;
  // Positions run up to blocks (a missing mirror's row end).
  if (storage == MirrorStorage::Wide || blocks > Offset(std::numeric_limits<std::uint32_t>::max()))
    mirror.wide = uninitialized_view<Offset>("fgdd::factor::mirror", blocks);
  else
    mirror.narrow = uninitialized_view<std::uint32_t>("fgdd::factor::mirror", blocks);
  return mirror;
}

}  // namespace

MirrorPositions mirror_positions(const ExecSpace& space, const SparseMatrix& A,
                                 MirrorStorage storage) {
  const auto row_map = A.row_map();
  const auto col_ind = A.col_ind();
  const MirrorPositions mirror = allocate_mirror(A, storage);
  // Upper blocks start without a mirror (the end of their mirror row); then each lower block
  // searches row j for its mirror and writes both positions, one search a pair (a pair's upper
  // block is written by its lower block's row alone).
  const Kokkos::RangePolicy<ExecSpace> rows(space, 0, A.num_block_rows());
  Kokkos::parallel_for(
      "fgdd::factor::mirror_upper_unset", rows, KOKKOS_LAMBDA(const Ordinal i) {
        for (Offset k = row_map(i); k < row_map(i + 1); ++k)
          if (col_ind(k) > i) mirror.set(k, row_map(col_ind(k) + 1));
      });
  Kokkos::parallel_for(
      "fgdd::factor::mirror_positions", rows, KOKKOS_LAMBDA(const Ordinal i) {
        for (Offset k = row_map(i); k < row_map(i + 1) && col_ind(k) <= i; ++k) {
          const Ordinal j = col_ind(k);
          const Offset m = find_in_row(row_map, col_ind, j, i);
          mirror.set(k, m);
          if (m != row_map(j + 1)) mirror.set(m, k);
        }
      });
  return mirror;
}

namespace {

// mirror_positions by a merge, one diagonal block s per call: rows i ascending reach row j's
// upper blocks (j, i) in their column order, so each pair's upper block is the next one row j's
// cursor meets; blocks the cursor passes over have no lower mirror (they get the end of their
// mirror row, as the search gives them).
struct MirrorMerge {
  SparseMatrix::RowMap row_map;
  SparseMatrix::ColumnIndices col_ind;
  Kokkos::View<Offset*, DeviceType> diag;
  Kokkos::View<Ordinal*, DeviceType> offsets;
  MirrorPositions mirror;
  Kokkos::View<Offset*, DeviceType> cursor;  // row j's first upper block not paired or passed

  KOKKOS_INLINE_FUNCTION void operator()(const Ordinal s) const {
    const Ordinal first = offsets(s), last = offsets(s + 1);
    for (Ordinal j = first; j < last; ++j) cursor(j) = diag(j) + 1;
    for (Ordinal i = first; i < last; ++i) {
      mirror.set(diag(i), diag(i));
      for (Offset k = row_map(i); k < diag(i); ++k) {
        const Ordinal j = col_ind(k);
        const Offset end = row_map(j + 1);
        Offset c = cursor(j);
        for (; c < end && col_ind(c) < i; ++c) mirror.set(c, row_map(col_ind(c) + 1));
        if (c < end && col_ind(c) == i) {
          mirror.set(k, c);
          mirror.set(c++, k);
        } else {
          mirror.set(k, end);
        }
        cursor(j) = c;
      }
    }
    for (Ordinal j = first; j < last; ++j)
      for (Offset c = cursor(j); c < row_map(j + 1); ++c)
        mirror.set(c, row_map(col_ind(c) + 1));
  }
};

}  // namespace

MirrorPositions mirror_positions(const ExecSpace& space, const SparseMatrix& A,
                                 const Kokkos::View<Offset*, DeviceType>& diag,
                                 const Kokkos::View<Ordinal*, DeviceType>& offsets,
                                 Ordinal num_blocks, MirrorStorage storage) {
  // A GPU thread would walk a whole block serially: the search, one thread a row, stays there.
  if constexpr (!host_memory) return mirror_positions(space, A, storage);
  const MirrorPositions mirror = allocate_mirror(A, storage);
  const auto cursor = uninitialized_view<Offset>("fgdd::factor::mirror_cursor",
                                                 std::size_t(A.num_block_rows()));
  Kokkos::parallel_for("fgdd::factor::mirror_merge",
                       Kokkos::RangePolicy<ExecSpace>(space, 0, num_blocks),
                       MirrorMerge{A.row_map(), A.col_ind(), diag, offsets, mirror, cursor});
  return mirror;
}

namespace {

// An entry (row, column) of an n-row matrix as a number that orders entries by row, then column;
// the low bit tells whether the entry has no mirror.
using AsymmetryKey = unsigned long long;
KOKKOS_INLINE_FUNCTION AsymmetryKey asymmetry_key(Ordinal row, Ordinal column, Ordinal n,
                                                  bool missing) {
  return 2 * (AsymmetryKey(row) * AsymmetryKey(n) + AsymmetryKey(column)) + (missing ? 1 : 0);
}

// ‖row i‖∞ per block row: the scale asymmetry is judged against.
Kokkos::View<Scalar*, DeviceType> row_maxima(const ExecSpace& space, const SparseMatrix& A) {
  const auto row_map = A.row_map();
  const auto values = A.values();
  const int bb = A.block_size() * A.block_size();
  Kokkos::View<Scalar*, DeviceType> row_max("fgdd::factor::symmetry_row_max", A.num_block_rows());
  Kokkos::parallel_for(
      "fgdd::factor::symmetry_row_max",
      Kokkos::RangePolicy<ExecSpace>(space, 0, A.num_block_rows()),
      KOKKOS_LAMBDA(const Ordinal i) {
        Scalar m = 0;
        for (Offset e = row_map(i) * bb; e < row_map(i + 1) * bb; ++e)
          if (fabs(values(e)) > m) m = fabs(values(e));
        row_max(i) = m;
      });
  return row_max;
}

}  // namespace

SymmetryCheck check_symmetry(const ExecSpace& space, const SparseMatrix& A) {
  return check_symmetry(space, A, mirror_positions(space, A));
}

SymmetryCheck check_symmetry(const ExecSpace& space, const SparseMatrix& A,
                             const MirrorPositions& mirror) {
  const auto row_map = A.row_map();
  const auto col_ind = A.col_ind();
  const auto values = A.values();
  const int b = A.block_size(), bb = b * b;
  const Ordinal n = A.num_block_rows();
  SymmetryCheck check;
  check.first_row = n;
  if (n == 0) return check;
  const Kokkos::View<Scalar*, DeviceType> row_max = row_maxima(space, A);
  // Per block row, its worst entry's asymmetry relative to the two rows' scale (inf: no mirror).
  Kokkos::View<Scalar*, DeviceType> row_asymmetry("fgdd::factor::row_asymmetry", n);
  const Scalar infinity = std::numeric_limits<Scalar>::infinity();
  Kokkos::parallel_for(
      "fgdd::factor::row_asymmetry", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const Ordinal i) {
        Scalar worst = 0;
        for (Offset k = row_map(i); k < row_map(i + 1); ++k) {
          const Ordinal j = col_ind(k);
          const Offset m = mirror(k);
          if (m == row_map(j + 1)) {
            worst = infinity;
            break;
          }
          const Scalar scale = row_max(i) > row_max(j) ? row_max(i) : row_max(j);
          if (scale == 0) continue;
          for (int r = 0; r < b; ++r)
            for (int c = 0; c < b; ++c) {
              const Scalar d =
                  fabs(values(k * bb + r * b + c) - values(m * bb + c * b + r)) / scale;
              if (!(d <= worst)) worst = d;  // a NaN entry counts as asymmetric
            }
        }
        row_asymmetry(i) = worst;
      });
  Scalar worst = 0;
  Kokkos::parallel_reduce(
      "fgdd::factor::asymmetry", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const Ordinal i, Scalar& m) {
        if (!(row_asymmetry(i) <= m)) m = row_asymmetry(i);
      },
      Kokkos::Max<Scalar>(worst));
  check.asymmetry = worst;
  const Scalar tolerance = symmetry_tolerance;
  check.first_row = first_row_where(
      space, n, "fgdd::factor::first_asymmetric_row",
      KOKKOS_LAMBDA(const Ordinal i) { return !(row_asymmetry(i) <= tolerance); });
  if (check.first_row == n) return check;
  // The offending entry of that row, for the message (one row: a single-iteration launch).
  const Ordinal i = check.first_row;
  Kokkos::View<Ordinal, DeviceType> column("fgdd::factor::asymmetric_column");
  Kokkos::View<int, DeviceType> missing("fgdd::factor::missing_mirror");
  Kokkos::parallel_for(
      "fgdd::factor::asymmetric_entry", Kokkos::RangePolicy<ExecSpace>(space, 0, 1),
      KOKKOS_LAMBDA(const int) {
        for (Offset k = row_map(i); k < row_map(i + 1); ++k) {
          const Ordinal j = col_ind(k);
          const Offset m = mirror(k);
          if (m == row_map(j + 1)) {
            column() = j;
            missing() = 1;
            return;
          }
          const Scalar scale = row_max(i) > row_max(j) ? row_max(i) : row_max(j);
          if (scale == 0) continue;
          for (int r = 0; r < b; ++r)
            for (int c = 0; c < b; ++c) {
              const Scalar d =
                  fabs(values(k * bb + r * b + c) - values(m * bb + c * b + r)) / scale;
              if (!(d <= tolerance)) {
                column() = j;
                return;
              }
            }
        }
      });
  const auto host_column = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), column);
  const auto host_missing = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), missing);
  check.column = host_column();
  check.missing_mirror = host_missing() != 0;
  return check;
}

void symmetric_part(const ExecSpace& space, const SparseMatrix& A, const MirrorPositions& mirror,
                    const SparseMatrix::Values& in, const SparseMatrix::Values& out) {
  const auto row_map = A.row_map();
  const int b = A.block_size();
  Kokkos::parallel_for(
      "fgdd::factor::symmetric_part", Kokkos::RangePolicy<ExecSpace>(space, 0, A.num_block_rows()),
      KOKKOS_LAMBDA(const Ordinal i) {
        for (Offset k = row_map(i); k < row_map(i + 1); ++k)
          symmetric_block(in, out, k, mirror(k), b);
      });
}

SymmetryCheck checked_symmetric_part(const ExecSpace& space, const SparseMatrix& A,
                                     const MirrorPositions& mirror,
                                     const SparseMatrix::Values& out) {
  const auto row_map = A.row_map();
  const auto col_ind = A.col_ind();
  const auto in = A.values();
  const int b = A.block_size(), bb = b * b;
  const Ordinal n = A.num_block_rows();
  SymmetryCheck check;
  check.first_row = n;
  if (n == 0) return check;
  const Kokkos::View<Scalar*, DeviceType> row_max = row_maxima(space, A);
  const Scalar infinity = std::numeric_limits<Scalar>::infinity();
  const Scalar tolerance = symmetry_tolerance;
  // The first offending entry in check_symmetry's order (rows, then columns), as
  // 2·(row·n + column) + (1 if it has no mirror): an offending pair {i, j} is first met at
  // (min, max). Kept here because out may be A's own values, which the pass overwrites.
  using Key = AsymmetryKey;
  const Key none = ~Key(0);
  const Kokkos::View<Key, DeviceType> first_offending(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::factor::first_asymmetric_entry"));
  Kokkos::deep_copy(first_offending, none);
  // Block (i, j) with j ≤ i and its mirror (j, i): both get ½ of their sum, and the pair's
  // asymmetry is measured once. An upper block only needs its mirror to exist. The sum is the
  // one symmetric_part forms for either block (addition commutes), so the bits are its bits.
  // Each pair is read in full before either block is written, so out may alias A's values; in
  // a diagonal block (k = m) the second visit of an entry reads the average the first wrote.
  Scalar worst = 0;
  Kokkos::parallel_reduce(
      "fgdd::factor::checked_symmetric_part", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const Ordinal i, Scalar& worst_so_far) {
        for (Offset k = row_map(i); k < row_map(i + 1); ++k) {
          const Ordinal j = col_ind(k);
          const Offset m = mirror(k);
          if (m == row_map(j + 1)) {
            worst_so_far = infinity;
            Kokkos::atomic_fetch_min(&first_offending(), asymmetry_key(i, j, n, true));
            continue;
          }
          if (j > i) continue;
          const Scalar scale = row_max(i) > row_max(j) ? row_max(i) : row_max(j);
          for (int r = 0; r < b; ++r)
            for (int c = 0; c < b; ++c) {
              const Scalar a = in(k * bb + r * b + c), mirrored = in(m * bb + c * b + r);
              out(k * bb + r * b + c) = out(m * bb + c * b + r) = Scalar(0.5) * (a + mirrored);
              if (scale == 0) continue;
              const Scalar d = fabs(a - mirrored) / scale;
              if (!(d <= worst_so_far)) worst_so_far = d == d ? d : infinity;  // NaN: asymmetric
              if (!(d <= tolerance))
                Kokkos::atomic_fetch_min(&first_offending(), asymmetry_key(j, i, n, false));
            }
        }
      },
      Kokkos::Max<Scalar>(worst));
  check.asymmetry = worst;
  if (worst <= tolerance) return check;
  Key found = none;
  Kokkos::deep_copy(found, first_offending);
  check.missing_mirror = (found & 1) != 0;
  check.first_row = Ordinal((found / 2) / Key(n));
  check.column = Ordinal((found / 2) % Key(n));
  return check;
}

}  // namespace fgdd::detail
