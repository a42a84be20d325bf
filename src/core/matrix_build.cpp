// Validation, column sort and duplicate merge of block CSR arrays, all as device kernels.
// Each check reduces to the first offending block row so the error can name it.
#include "core/matrix_build.hpp"

#include "core/exclusive_scan.hpp"
#include "core/first_row_where.hpp"
#include "core/host_copy.hpp"
#include "core/huge_pages.hpp"
#include "core/kokkos_compat.hpp"

#include <sstream>

namespace fgdd {

namespace {

using RowMap = SparseMatrix::RowMap;
using MutableRowMap = Kokkos::View<Offset*, DeviceType>;
using ColumnIndices = SparseMatrix::ColumnIndices;
using Values = SparseMatrix::Values;
using RowPolicy = Kokkos::RangePolicy<ExecSpace>;

template <class ViewType>
auto read_one(const ViewType& view, std::size_t index) {
  typename ViewType::non_const_value_type value{};
  Kokkos::deep_copy(value, Kokkos::subview(view, index));
  return value;
}

void check_shape(Ordinal n, Ordinal m, int b, const RowMap& row_map, const ColumnIndices& col_ind,
                 const Values& values) {
  if (b < 1) throw InvalidMatrix("block size must be at least 1, got " + std::to_string(b));
  if (n < 0 || m < 0) throw InvalidMatrix("negative matrix dimension");
  if (n != m) {
    throw InvalidMatrix("matrix is not square: " + std::to_string(n) + " block rows, " +
                        std::to_string(m) + " block columns");
  }
  if (row_map.extent(0) != Offset(n) + 1) {
    throw InvalidMatrix("row map has " + std::to_string(row_map.extent(0)) +
                        " entries, expected number of block rows + 1 = " + std::to_string(n + 1));
  }
  const Offset nnzb = col_ind.extent(0);
  if (values.extent(0) != nnzb * Offset(b) * Offset(b)) {
    throw InvalidMatrix("values has " + std::to_string(values.extent(0)) +
                        " entries, expected block_size² × " + std::to_string(nnzb) + " = " +
                        std::to_string(nnzb * b * b));
  }
  const Offset start = read_one(row_map, 0);
  if (start != 0) throw InvalidMatrix("row map must start at 0, starts at " + std::to_string(start), 0);
  const Ordinal decreasing = detail::first_row_where(
      ExecSpace(), n, "fgdd::core::check_row_map",
      KOKKOS_LAMBDA(const Ordinal i) { return row_map(i + 1) < row_map(i); });
  if (decreasing < n) throw InvalidMatrix("row map decreases", decreasing);
  const Offset end = read_one(row_map, n);
  if (end != nnzb) {
    throw InvalidMatrix("row map ends at " + std::to_string(end) + " but there are " +
                            std::to_string(nnzb) + " column indices",
                        n - 1);
  }
}

// Throws InvalidMatrix naming the first row (and its column) with a value that is not finite;
// summed: the values are sums of duplicate entries (the message says so).
void check_finite(Ordinal n, int b, const RowMap& row_map, const ColumnIndices& col_ind,
                  const Values& values, bool summed) {
  const Offset block_entries = Offset(b) * Offset(b);
  const Ordinal non_finite_row = detail::first_row_where(
      ExecSpace(), n, "fgdd::core::check_finite", KOKKOS_LAMBDA(const Ordinal i) {
        for (Offset k = row_map(i) * block_entries; k < row_map(i + 1) * block_entries; ++k) {
          if (!detail::isfinite(values(k))) return true;
        }
        return false;
      });
  if (non_finite_row == n) return;
  const auto host_row_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), row_map);
  const auto host_cols = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), col_ind);
  const auto host_values = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), values);
  for (Offset k = host_row_map(non_finite_row); k < host_row_map(non_finite_row + 1); ++k) {
    for (Offset e = 0; e < block_entries; ++e) {
      const double v = host_values(k * block_entries + e);
      if (!std::isfinite(v)) {
        const std::string value = std::to_string(v);
        throw InvalidMatrix(summed ? "duplicate entries sum to " + value + ", which is not finite"
                                   : "value " + value + " is not finite",
                            Offset(non_finite_row) * b + e / b, Offset(host_cols(k)) * b + e % b);
      }
    }
  }
}

void check_entries(Ordinal n, int b, const RowMap& row_map, const ColumnIndices& col_ind,
                   const Values& values) {
  const Ordinal bad_column_row = detail::first_row_where(
      ExecSpace(), n, "fgdd::core::check_columns", KOKKOS_LAMBDA(const Ordinal i) {
        for (Offset k = row_map(i); k < row_map(i + 1); ++k) {
          if (col_ind(k) < 0 || col_ind(k) >= n) return true;
        }
        return false;
      });
  if (bad_column_row < n) {
    const auto host_row_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), row_map);
    const auto host_cols = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), col_ind);
    for (Offset k = host_row_map(bad_column_row); k < host_row_map(bad_column_row + 1); ++k) {
      const Ordinal c = host_cols(k);
      if (c < 0 || c >= n) {
        throw InvalidMatrix("column index " + std::to_string(c) + " out of range [0, " +
                                std::to_string(n) + ")",
                            bad_column_row, c);
      }
    }
  }
  check_finite(n, b, row_map, col_ind, values, false);
}

bool rows_sorted_and_unique(Ordinal n, const RowMap& row_map, const ColumnIndices& col_ind) {
  const Ordinal unsorted = detail::first_row_where(
      ExecSpace(), n, "fgdd::core::check_sorted", KOKKOS_LAMBDA(const Ordinal i) {
        for (Offset k = row_map(i) + 1; k < row_map(i + 1); ++k) {
          if (col_ind(k) <= col_ind(k - 1)) return true;
        }
        return false;
      });
  return unsorted == n;
}

// Sorts each block row by column and sums blocks with equal columns. Returns new arrays; the
// inputs are not modified except the column order of col_ind when arrays_may_change.
detail::SortedArrays sort_and_merge(Ordinal n, int b, const RowMap& row_map, ColumnIndices col_ind,
                                    Values values, bool arrays_may_change) {
  const Offset nnzb = col_ind.extent(0);
  const Offset block_entries = Offset(b) * Offset(b);
  if (!arrays_may_change) {
    const ColumnIndices copy = detail::uninitialized_view<Ordinal>("fgdd::core::col_ind", nnzb);
    Kokkos::deep_copy(copy, col_ind);
    col_ind = copy;
  }
  // Sort positions alongside columns, then gather the value blocks: one path for any b.
  const auto source = detail::uninitialized_view<Offset>("fgdd::core::sort_source", nnzb);
  Kokkos::parallel_for(
      "fgdd::core::iota", RowPolicy(0, nnzb), KOKKOS_LAMBDA(const Offset k) { source(k) = k; });
  detail::sort_crs_rows<ExecSpace>(row_map, col_ind, source);

  MutableRowMap merged_row_map("fgdd::core::row_map", n + 1);
  Kokkos::parallel_for(
      "fgdd::core::count_unique", RowPolicy(0, n), KOKKOS_LAMBDA(const Ordinal i) {
        Offset unique = 0;
        for (Offset k = row_map(i); k < row_map(i + 1); ++k) {
          if (k == row_map(i) || col_ind(k) != col_ind(k - 1)) ++unique;
        }
        merged_row_map(i) = unique;
      });
  const Offset merged_nnzb =
      detail::exclusive_scan_in_place(ExecSpace(), "fgdd::core::row_map_scan", merged_row_map);
  const ColumnIndices merged_cols =
      detail::uninitialized_view<Ordinal>("fgdd::core::col_ind", merged_nnzb);
  // Zeroed: duplicates are summed into it.
  const Values merged_values = detail::uninitialized_view<Scalar>("fgdd::core::values",
                                                                  merged_nnzb * block_entries);
  Kokkos::deep_copy(merged_values, 0.0);
  Kokkos::parallel_for(
      "fgdd::core::merge_duplicates", RowPolicy(0, n), KOKKOS_LAMBDA(const Ordinal i) {
        Offset out = merged_row_map(i);
        for (Offset k = row_map(i); k < row_map(i + 1); ++k) {
          if (k != row_map(i) && col_ind(k) != col_ind(k - 1)) ++out;
          merged_cols(out) = col_ind(k);
          for (Offset e = 0; e < block_entries; ++e) {
            merged_values(out * block_entries + e) += values(source(k) * block_entries + e);
          }
        }
      });
  return {merged_row_map, merged_cols, merged_values};
}

void check_diagonal(const SparseMatrix& A) {
  const auto row_map = A.row_map();
  const auto col_ind = A.col_ind();
  const Ordinal missing = detail::first_row_where(
      ExecSpace(), A.num_block_rows(), "fgdd::core::check_diagonal", KOKKOS_LAMBDA(const Ordinal i) {
        for (Offset k = row_map(i); k < row_map(i + 1); ++k) {
          if (col_ind(k) == i) return false;
        }
        return true;
      });
  if (missing < A.num_block_rows()) {
    const int b = A.block_size();
    throw InvalidMatrix(std::string("no diagonal ") + (b == 1 ? "entry" : "block") +
                            " (a structural zero pivot)",
                        Offset(missing) * b, Offset(missing) * b);
  }
}

}  // namespace

namespace detail {

SortedArrays sorted_unique_arrays(Ordinal num_block_rows, Ordinal num_block_cols, int block_size,
                                  SparseMatrix::RowMap row_map, SparseMatrix::ColumnIndices col_ind,
                                  SparseMatrix::Values values, bool arrays_may_change) {
  check_shape(num_block_rows, num_block_cols, block_size, row_map, col_ind, values);
  check_entries(num_block_rows, block_size, row_map, col_ind, values);
  if (rows_sorted_and_unique(num_block_rows, row_map, col_ind)) return {row_map, col_ind, values};
  SortedArrays merged =
      sort_and_merge(num_block_rows, block_size, row_map, col_ind, values, arrays_may_change);
  // Finite entries can sum to ±inf.
  check_finite(num_block_rows, block_size, merged.row_map, merged.col_ind, merged.values, true);
  return merged;
}

}  // namespace detail

SparseMatrix make_matrix(Ordinal num_block_rows, Ordinal num_block_cols, int block_size,
                         SparseMatrix::RowMap row_map, SparseMatrix::ColumnIndices col_ind,
                         SparseMatrix::Values values, bool arrays_may_change) {
  const detail::SortedArrays sorted = detail::sorted_unique_arrays(
      num_block_rows, num_block_cols, block_size, row_map, col_ind, values, arrays_may_change);
  SparseMatrix A(SparseMatrix::ValidatedTag{}, num_block_rows, block_size, sorted.row_map,
                 sorted.col_ind, sorted.values);
  check_diagonal(A);
  return A;
}

SparseMatrix make_matrix(const HostMatrixArrays& arrays) {
  // Lengths are checked before the copy so a short vector never reads out of bounds.
  const Ordinal n = arrays.num_block_rows;
  if (n < 0) throw InvalidMatrix("negative matrix dimension");
  if (arrays.row_map.size() != Offset(n) + 1) {
    throw InvalidMatrix("row map has " + std::to_string(arrays.row_map.size()) +
                        " entries, expected number of block rows + 1 = " + std::to_string(n + 1));
  }
  const MutableRowMap row_map = detail::to_device(arrays.row_map, "fgdd::core::row_map");
  const ColumnIndices col_ind = detail::to_device(arrays.col_ind, "fgdd::core::col_ind");
  const Values values = detail::to_device(arrays.values, "fgdd::core::values");
  return make_matrix(n, arrays.num_block_cols, arrays.block_size, row_map, col_ind, values,
                     /*arrays_may_change=*/true);
}

void check_vector_size(const SparseMatrix& A, Offset length, const std::string& name) {
  if (length != A.num_rows()) {
    throw DimensionMismatch("vector " + name + " has length " + std::to_string(length) +
                            " but the matrix has " + std::to_string(A.num_rows()) + " rows");
  }
}

}  // namespace fgdd
