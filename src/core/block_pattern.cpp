// A block row is B-blocked when its B scalar rows hold the same sorted columns and those fall into
// whole groups {J B, ..., J B + B − 1}: then the k-th entry of scalar row r is entry (r, k mod B)
// of block k / B, so both the check and the regrouping are one pass with no search.
#include "core/block_pattern.hpp"

#include "core/first_row_where.hpp"
#include "core/host_copy.hpp"

#include <algorithm>
#include <vector>

namespace fgdd::detail {

std::optional<BlockGap> first_block_gap(Ordinal rows, int block_size, const SortedArrays& scalar) {
  const Ordinal block_rows = rows / block_size;
  const auto row_map = scalar.row_map;
  const auto col_ind = scalar.col_ind;
  const Offset b = Offset(block_size);
  const Ordinal bad = first_row_where(
      ExecSpace(), block_rows, "fgdd::core::check_block_pattern",
      KOKKOS_LAMBDA(const Ordinal block_row) {
        const Offset first_row = Offset(block_row) * b;
        const Offset first = row_map(first_row);
        const Offset length = row_map(first_row + 1) - first;
        if (length % b != 0) return true;
        for (Offset k = 0; k < length; ++k) {
          const Offset lane = k % b;
          const Ordinal leader = col_ind(first + k - lane);
          if (Offset(leader) % b != 0 || col_ind(first + k) != leader + Ordinal(lane)) return true;
        }
        for (Offset r = 1; r < b; ++r) {
          const Offset start = row_map(first_row + r);
          if (row_map(first_row + r + 1) - start != length) return true;
          for (Offset k = 0; k < length; ++k) {
            if (col_ind(start + k) != col_ind(first + k)) return true;
          }
        }
        return false;
      });
  if (bad == block_rows) return std::nullopt;

  // Only the offending block row comes to the host: its stored blocks in order, and in the first
  // one missing an entry, the first entry missing.
  const Offset first_row = Offset(bad) * b;
  const std::vector<Offset> starts =
      to_host_vector(Kokkos::subview(row_map, Kokkos::make_pair(first_row, first_row + b + 1)));
  const std::vector<Ordinal> columns =
      to_host_vector(Kokkos::subview(col_ind, Kokkos::make_pair(starts.front(), starts.back())));
  const auto row_columns = [&](Offset r) {
    return std::make_pair(columns.begin() + (starts[r] - starts[0]),
                          columns.begin() + (starts[r + 1] - starts[0]));
  };
  std::vector<Offset> block_columns;
  for (const Ordinal column : columns) block_columns.push_back(Offset(column) / b);
  std::sort(block_columns.begin(), block_columns.end());
  block_columns.erase(std::unique(block_columns.begin(), block_columns.end()), block_columns.end());
  for (const Offset block_column : block_columns) {
    for (Offset r = 0; r < b; ++r) {
      const auto [begin, end] = row_columns(r);
      for (Offset c = 0; c < b; ++c) {
        const Offset column = block_column * b + c;
        if (!std::binary_search(begin, end, Ordinal(column)))
          return BlockGap{Offset(bad), block_column, first_row + r, column};
      }
    }
  }
  // Unreachable: with sorted unique columns the device test fails exactly when an entry is
  // missing. Name the block row rather than claim it is blocked.
  return BlockGap{Offset(bad), block_columns.front(), first_row, block_columns.front() * b};
}

SortedArrays regroup_into_blocks(Ordinal rows, int block_size, const SortedArrays& scalar) {
  const Ordinal block_rows = rows / block_size;
  const Offset b = Offset(block_size);
  const Offset block_entries = b * b;
  const auto row_map = scalar.row_map;
  const auto col_ind = scalar.col_ind;
  const auto values = scalar.values;
  const Offset blocks = values.extent(0) / block_entries;

  Kokkos::View<Offset*, DeviceType> block_row_map(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::core::row_map"), block_rows + 1);
  SparseMatrix::ColumnIndices block_cols(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::core::col_ind"), blocks);
  SparseMatrix::Values block_values(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::core::values"),
      blocks * block_entries);
  // Block row I starts after the b² entries of each block above it: no scan needed.
  Kokkos::parallel_for(
      "fgdd::core::block_row_map", Kokkos::RangePolicy<ExecSpace>(0, block_rows + 1),
      KOKKOS_LAMBDA(const Ordinal block_row) {
        block_row_map(block_row) = row_map(Offset(block_row) * b) / block_entries;
      });
  Kokkos::parallel_for(
      "fgdd::core::regroup_into_blocks", Kokkos::RangePolicy<ExecSpace>(0, rows),
      KOKKOS_LAMBDA(const Ordinal row) {
        const Offset r = Offset(row) % b;
        const Offset first_block = row_map(Offset(row) - r) / block_entries;
        const Offset start = row_map(row);
        const Offset length = row_map(row + 1) - start;
        for (Offset k = 0; k < length; ++k) {
          const Offset block = first_block + k / b;
          const Offset c = k % b;
          block_values(block * block_entries + r * b + c) = values(start + k);
          if (r == 0 && c == 0) block_cols(block) = col_ind(start + k) / Ordinal(b);
        }
      });
  return {block_row_map, block_cols, block_values};
}

std::string describe_block_gap(int block_size, const BlockGap& gap) {
  const std::string b = std::to_string(block_size);
  const auto range = [&](Offset block) {
    return std::to_string(block * block_size + 1) + "-" + std::to_string((block + 1) * block_size);
  };
  return "not " + b + "x" + b + "-blocked: block row " + std::to_string(gap.block_row + 1) +
         " (rows " + range(gap.block_row) + "), block column " +
         std::to_string(gap.block_column + 1) + " (columns " + range(gap.block_column) +
         "): entry (" + std::to_string(gap.row + 1) + ", " + std::to_string(gap.column + 1) +
         ") is not stored";
}

}  // namespace fgdd::detail
