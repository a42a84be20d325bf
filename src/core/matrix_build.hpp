// Building a validated SparseMatrix from host arrays, device arrays, or a KokkosSparse::CrsMatrix.
// All checks, the column sort and the duplicate merge run on the device.
#pragma once

#include "core/errors.hpp"
#include "core/sparse_matrix.hpp"

#include <KokkosSparse_CrsMatrix.hpp>

#include <string>
#include <type_traits>
#include <vector>

namespace fgdd {

// Block CSR arrays on the host, as a caller or a file provides them. Blocks are row-major;
// block_size 1 is plain CSR. Columns may be unsorted and may repeat (see make_matrix).
struct HostMatrixArrays {
  Ordinal num_block_rows = 0;
  Ordinal num_block_cols = 0;
  int block_size = 1;
  std::vector<Offset> row_map;   // num_block_rows + 1
  std::vector<Ordinal> col_ind;  // one block column per stored block
  std::vector<Scalar> values;    // block_size² per stored block
};

// Validates and copies to the device. Unsorted columns are sorted; duplicate (row, column)
// entries are summed, as Matrix Market readers and assembly codes expect.
// Throws InvalidMatrix naming the row/column for: a non-square matrix, block_size < 1, wrong
// array lengths, row_map not starting at 0, decreasing or not ending at the entry count, a
// column out of range, a NaN/Inf value, a block row without a diagonal block.
SparseMatrix make_matrix(const HostMatrixArrays& arrays);

// The same on arrays already on the device. If arrays_may_change is false and the columns need
// sorting or merging, the arrays are copied first so the caller's data stays untouched.
SparseMatrix make_matrix(Ordinal num_block_rows, Ordinal num_block_cols, int block_size,
                         SparseMatrix::RowMap row_map, SparseMatrix::ColumnIndices col_ind,
                         SparseMatrix::Values values, bool arrays_may_change);

namespace detail {

// Block CSR arrays on the device with sorted, unique block columns in every block row.
struct SortedArrays {
  SparseMatrix::RowMap row_map;
  SparseMatrix::ColumnIndices col_ind;
  SparseMatrix::Values values;
};

// make_matrix without its diagonal check (the same checks, sort and merge, the same throws), for
// a reader that regroups the arrays before the matrix is complete: a scalar file read as BSR
// (core/block_pattern.hpp) must first report an incomplete block, then a missing diagonal block.
SortedArrays sorted_unique_arrays(Ordinal num_block_rows, Ordinal num_block_cols, int block_size,
                                  SparseMatrix::RowMap row_map, SparseMatrix::ColumnIndices col_ind,
                                  SparseMatrix::Values values, bool arrays_may_change);

// to(i) = from(i) with a type conversion; a functor because device lambdas stay out of headers
// (core/types.hpp).
template <class To, class From>
struct ConvertInto {
  To to;
  From from;
  KOKKOS_INLINE_FUNCTION void operator()(const Offset i) const {
    to(i) = static_cast<typename To::value_type>(from(i));
  }
};
}  // namespace detail

// Wraps a KokkosSparse::CrsMatrix. Its column indices and values are shared (no copy) when they
// already live in fgdd's memory space with fgdd's types and are sorted and unique; the row map
// is shared too when its type is Offset. Otherwise the arrays are converted.
template <class KokkosCrs>
SparseMatrix from_kokkos_crs(const KokkosCrs& A) {
  const Ordinal n = static_cast<Ordinal>(A.numRows());
  const Ordinal m = static_cast<Ordinal>(A.numCols());
  const auto row_map = Kokkos::create_mirror_view_and_copy(MemSpace(), A.graph.row_map);
  SparseMatrix::RowMap our_row_map;
  if constexpr (std::is_same_v<typename std::decay_t<decltype(row_map)>::non_const_value_type, Offset>) {
    our_row_map = row_map;
  } else {
    Kokkos::View<Offset*, DeviceType> converted(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::core::row_map"), n + 1);
    Kokkos::parallel_for("fgdd::core::convert_row_map", Kokkos::RangePolicy<ExecSpace>(0, n + 1),
                         detail::ConvertInto<decltype(converted), decltype(row_map)>{converted,
                                                                                   row_map});
    our_row_map = converted;
  }
  constexpr bool shared = std::is_same_v<typename KokkosCrs::ordinal_type, Ordinal> &&
                          std::is_same_v<typename KokkosCrs::value_type, Scalar> &&
                          std::is_same_v<typename KokkosCrs::memory_space, MemSpace>;
  SparseMatrix::ColumnIndices col_ind;
  SparseMatrix::Values values;
  if constexpr (shared) {
    col_ind = A.graph.entries;
    values = A.values;
  } else {
    col_ind = SparseMatrix::ColumnIndices(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::core::col_ind"),
        A.graph.entries.extent(0));
    values = SparseMatrix::Values(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::core::values"), A.values.extent(0));
    const auto entries = Kokkos::create_mirror_view_and_copy(MemSpace(), A.graph.entries);
    const auto their_values = Kokkos::create_mirror_view_and_copy(MemSpace(), A.values);
    Kokkos::parallel_for(
        "fgdd::core::convert_entries", Kokkos::RangePolicy<ExecSpace>(0, entries.extent(0)),
        detail::ConvertInto<SparseMatrix::ColumnIndices, decltype(entries)>{col_ind, entries});
    Kokkos::parallel_for(
        "fgdd::core::convert_values", Kokkos::RangePolicy<ExecSpace>(0, entries.extent(0)),
        detail::ConvertInto<SparseMatrix::Values, decltype(their_values)>{values, their_values});
  }
  return make_matrix(n, m, 1, our_row_map, col_ind, values, /*arrays_may_change=*/!shared);
}

// Throws DimensionMismatch unless the vector length equals A.num_rows(); name says which
// vector ("b", "x") so the message explains itself.
void check_vector_size(const SparseMatrix& A, Offset length, const std::string& name);

}  // namespace fgdd
