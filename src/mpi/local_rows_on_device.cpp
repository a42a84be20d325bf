#include "mpi/local_rows_on_device.hpp"

#include "core/errors.hpp"
#include "core/exclusive_scan.hpp"
#include "core/find_in_row.hpp"
#include "core/first_row_where.hpp"
#include "core/host_copy.hpp"
#include "core/huge_pages.hpp"
#include "core/kokkos_compat.hpp"

#include <algorithm>
#include <string>

namespace fgdd::detail {

namespace {

using RowPolicy = Kokkos::RangePolicy<ExecSpace>;

// The first local row whose values hold NaN or Inf (rows when none).
Ordinal first_non_finite_row(const ExecSpace& space, const OffsetView& row_map,
                             const Kokkos::View<Scalar*, DeviceType>& values, int block_size) {
  const Ordinal n = Ordinal(row_map.extent(0)) - 1;
  const Offset b2 = Offset(block_size) * Offset(block_size);
  return first_row_where(space, n, "fgdd::mpi::check_values", KOKKOS_LAMBDA(const Ordinal i) {
    for (Offset k = row_map(i) * b2; k < row_map(i + 1) * b2; ++k)
      if (!detail::isfinite(values(k))) return true;
    return false;
  });
}

}  // namespace

SortedLocalRows sort_local_rows(const ExecSpace& space, const LocalRows& mine,
                                Ordinal global_rows) {
  check_local_shape(mine);
  const Ordinal n = mine.num_block_rows(), first = mine.first_block_row;
  SortedLocalRows rows;
  rows.row_map = to_device(mine.row_map, "fgdd::mpi::local_row_map");
  const auto row_map = rows.row_map;
  const Ordinal decreasing = first_row_where(
      space, n, "fgdd::mpi::check_row_map",
      KOKKOS_LAMBDA(const Ordinal i) { return row_map(i + 1) < row_map(i); });
  if (decreasing < n)
    throw InvalidMatrix("the row map decreases at block row " + std::to_string(first + decreasing),
                        first + decreasing);
  if (mine.row_map.back() != Offset(mine.col_ind.size()))
    throw InvalidMatrix("the row map ends at " + std::to_string(mine.row_map.back()) + " but " +
                        std::to_string(mine.col_ind.size()) + " block columns are given");

  rows.caller_cols = to_device(mine.col_ind, "fgdd::mpi::local_cols");
  rows.cols = uninitialized_view<Ordinal>("fgdd::mpi::sorted_cols", mine.col_ind.size());
  Kokkos::deep_copy(space, rows.cols, rows.caller_cols);
  rows.values = to_device(mine.values, "fgdd::mpi::local_values");
  rows.position = uninitialized_view<Offset>("fgdd::mpi::local_position", mine.col_ind.size());
  const auto position = rows.position;
  Kokkos::parallel_for(
      "fgdd::mpi::positions", RowPolicy(space, 0, position.extent(0)),
      KOKKOS_LAMBDA(const Offset k) { position(k) = k; });
  space.fence();
  sort_crs_rows<ExecSpace>(rows.row_map, rows.cols, rows.position);

  const auto cols = rows.cols;
  const auto values = rows.values;
  const Offset b2 = Offset(mine.block_size) * Offset(mine.block_size);
  const Ordinal bad = first_row_where(
      space, n, "fgdd::mpi::check_local_rows", KOKKOS_LAMBDA(const Ordinal i) {
        const Offset begin = row_map(i), end = row_map(i + 1);
        for (Offset k = begin; k < end; ++k) {
          if (cols(k) < 0 || cols(k) >= global_rows) return true;
          if (k > begin && cols(k) == cols(k - 1)) return true;
        }
        if (find_sorted(cols, begin, end, first + i) == end) return true;
        for (Offset k = begin * b2; k < end * b2; ++k)
          if (!detail::isfinite(values(k))) return true;
        return false;
      });
  if (bad < n) {
    check_local_row(mine, bad, global_rows);  // throws the row's error
    throw Error("internal: block row " + std::to_string(first + bad) +
                " failed the device check but not the host one");
  }
  return rows;
}

Ordinal first_changed_row(const ExecSpace& space, const OffsetView& row_map,
                          const OrdinalView& cols, const LocalRows& mine) {
  const Ordinal rows = Ordinal(row_map.extent(0)) - 1;
  const Ordinal new_rows = mine.num_block_rows();
  const Ordinal common = std::min(rows, new_rows);
  const OffsetView new_row_map = to_device(mine.row_map, "fgdd::mpi::new_row_map");
  const OrdinalView new_cols = to_device(mine.col_ind, "fgdd::mpi::new_cols");
  const Offset new_entries = new_cols.extent(0);
  const Ordinal changed = first_row_where(
      space, common, "fgdd::mpi::compare_patterns", KOKKOS_LAMBDA(const Ordinal i) {
        if (new_row_map(i) != row_map(i) || new_row_map(i + 1) != row_map(i + 1) ||
            new_row_map(i + 1) > new_entries)
          return true;
        for (Offset k = row_map(i); k < row_map(i + 1); ++k)
          if (new_cols(k) != cols(k)) return true;
        return false;
      });
  return std::min(changed, common);
}

Kokkos::View<Scalar*, DeviceType> upload_values(const ExecSpace& space, const LocalRows& mine,
                                                const OffsetView& row_map) {
  check_local_shape(mine);
  const auto values = to_device(mine.values, "fgdd::mpi::new_values");
  const Ordinal bad = first_non_finite_row(space, row_map, values, mine.block_size);
  if (bad < mine.num_block_rows()) check_row_values(mine, bad);
  return values;
}

SparseMatrix diagonal_block(const ExecSpace& space, const SortedLocalRows& rows, Ordinal first,
                            int block_size) {
  const Ordinal n = Ordinal(rows.row_map.extent(0)) - 1;
  const Ordinal last = first + n;
  const auto row_map = rows.row_map;
  const auto cols = rows.cols;
  const auto position = rows.position;
  OffsetView block_rows("fgdd::mpi::diagonal_block_row_map", n + 1);
  Kokkos::parallel_for(
      "fgdd::mpi::diagonal_block_count", RowPolicy(space, 0, n), KOKKOS_LAMBDA(const Ordinal i) {
        Offset own = 0;
        for (Offset k = row_map(i); k < row_map(i + 1); ++k) own += cols(k) >= first && cols(k) < last;
        block_rows(i) = own;
      });
  const Offset entries = exclusive_scan_in_place(space, "fgdd::mpi::diagonal_block_scan", block_rows);
  OrdinalView block_cols(uninitialized_view<Ordinal>("fgdd::mpi::diagonal_block_cols", entries));
  OffsetView source(uninitialized_view<Offset>("fgdd::mpi::diagonal_block_source", entries));
  Kokkos::parallel_for(
      "fgdd::mpi::diagonal_block_fill", RowPolicy(space, 0, n), KOKKOS_LAMBDA(const Ordinal i) {
        Offset e = block_rows(i);
        for (Offset k = row_map(i); k < row_map(i + 1); ++k)
          if (cols(k) >= first && cols(k) < last) {
            block_cols(e) = cols(k) - first;
            source(e++) = position(k);
          }
      });
  Kokkos::View<Scalar*, DeviceType> values(uninitialized_view<Scalar>(
      "fgdd::mpi::diagonal_block_values", entries * Offset(block_size) * Offset(block_size)));
  gather_blocks(space, rows.values, source, block_size, values);
  space.fence();
  // Sorted, distinct and holding every diagonal: sort_local_rows checked them.
  return SparseMatrix(SparseMatrix::ValidatedTag{}, n, block_size, block_rows, block_cols, values);
}

OrdinalView ghost_columns(const ExecSpace& space, const SortedLocalRows& rows, Ordinal first) {
  const Ordinal n = Ordinal(rows.row_map.extent(0)) - 1;
  const Ordinal last = first + n;
  const auto cols = rows.cols;
  const Offset entries = cols.extent(0);
  OffsetView slot("fgdd::mpi::ghost_slot", entries + 1);
  Kokkos::parallel_for(
      "fgdd::mpi::ghost_mark", RowPolicy(space, 0, entries),
      KOKKOS_LAMBDA(const Offset k) { slot(k) = cols(k) < first || cols(k) >= last; });
  const Offset ghosts = exclusive_scan_in_place(space, "fgdd::mpi::ghost_scan", slot);
  OrdinalView all(uninitialized_view<Ordinal>("fgdd::mpi::ghost_entries", ghosts));
  Kokkos::parallel_for(
      "fgdd::mpi::ghost_gather", RowPolicy(space, 0, entries), KOKKOS_LAMBDA(const Offset k) {
        if (cols(k) < first || cols(k) >= last) all(slot(k)) = cols(k);
      });
  return sorted_distinct(space, all, "fgdd::mpi::ghost_columns");
}

Slice renumbered_slice(const ExecSpace& space, const SortedLocalRows& rows,
                       const Partition& order, Ordinal first, const OrdinalView& ghosts,
                       const OrdinalView& renumbered, int block_size, OffsetView& source) {
  const Ordinal n = Ordinal(rows.row_map.extent(0)) - 1;
  const Ordinal last = first + n;
  const auto row_map = rows.row_map;
  const auto cols = rows.cols;
  const auto position = rows.position;
  const auto perm = order.perm;
  const auto iperm = order.iperm;
  const Offset ghost_count = ghosts.extent(0);
  Slice slice;
  slice.row_map = OffsetView("fgdd::mpi::slice_row_map", n + 1);
  const auto slice_rows = slice.row_map;
  Kokkos::parallel_for(
      "fgdd::mpi::slice_count", RowPolicy(space, 0, n), KOKKOS_LAMBDA(const Ordinal p) {
        slice_rows(p) = row_map(iperm(p) + 1) - row_map(iperm(p));
      });
  const Offset entries = exclusive_scan_in_place(space, "fgdd::mpi::slice_scan", slice_rows);
  slice.cols = uninitialized_view<Ordinal>("fgdd::mpi::slice_cols", entries);
  source = uninitialized_view<Offset>("fgdd::mpi::slice_source", entries);
  const auto slice_cols = slice.cols;
  const auto slice_source = source;
  Kokkos::parallel_for(
      "fgdd::mpi::slice_fill", RowPolicy(space, 0, n), KOKKOS_LAMBDA(const Ordinal p) {
        const Ordinal i = iperm(p);
        Offset e = slice_rows(p);
        for (Offset k = row_map(i); k < row_map(i + 1); ++k, ++e) {
          const Ordinal c = cols(k);
          slice_cols(e) = c >= first && c < last ? first + perm(c - first)
                                                 : renumbered(find_sorted(ghosts, 0, ghost_count, c));
          slice_source(e) = position(k);
        }
      });
  space.fence();
  sort_crs_rows<ExecSpace>(slice.row_map, slice.cols, source);
  slice.values = uninitialized_view<Scalar>("fgdd::mpi::slice_values",
                                            entries * Offset(block_size) * Offset(block_size));
  gather_blocks(space, rows.values, source, block_size, slice.values);
  return slice;
}

}  // namespace fgdd::detail
