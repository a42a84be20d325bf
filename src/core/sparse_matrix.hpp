// The device matrix: block compressed sparse rows with row-major b×b blocks; CSR is b = 1
// (DESIGN.md "Block size is a runtime value"). Built through core/matrix_build.hpp, or by a stage
// that preserves its invariants (reorder, factorization): every SparseMatrix is square, has sorted
// unique block columns, a diagonal block in every block row and finite values.
#pragma once

#include "core/types.hpp"

namespace fgdd {

class SparseMatrix {
 public:
  // The row map is const so a KokkosSparse::CrsMatrix's (const) row map can be shared.
  using RowMap = Kokkos::View<const Offset*, DeviceType>;
  using ColumnIndices = Kokkos::View<Ordinal*, DeviceType>;
  using Values = Kokkos::View<Scalar*, DeviceType>;

  SparseMatrix() = default;

  // Block rows (= rows when block_size is 1).
  Ordinal num_block_rows() const noexcept { return num_block_rows_; }
  int block_size() const noexcept { return block_size_; }
  // Scalar rows; the length of x and b.
  Offset num_rows() const noexcept { return Offset(num_block_rows_) * Offset(block_size_); }
  // Stored blocks (= stored entries when block_size is 1).
  Offset num_block_entries() const noexcept { return col_ind_.extent(0); }
  // Stored scalar entries, zeros inside stored blocks included.
  Offset num_entries() const noexcept { return values_.extent(0); }
  bool is_csr() const noexcept { return block_size_ == 1; }

  // row_map(i) .. row_map(i+1) index the blocks of block row i; block k's values are
  // values(k*b*b .. (k+1)*b*b), row-major.
  const RowMap& row_map() const noexcept { return row_map_; }
  const ColumnIndices& col_ind() const noexcept { return col_ind_; }
  const Values& values() const noexcept { return values_; }

  // For matrix_build and invariant-preserving stages: the arrays must satisfy every invariant.
  struct ValidatedTag {};
  SparseMatrix(ValidatedTag, Ordinal num_block_rows, int block_size, RowMap row_map,
               ColumnIndices col_ind, Values values)
      : num_block_rows_(num_block_rows),
        block_size_(block_size),
        row_map_(row_map),
        col_ind_(col_ind),
        values_(values) {}

 private:
  Ordinal num_block_rows_ = 0;
  int block_size_ = 1;
  RowMap row_map_;
  ColumnIndices col_ind_;
  Values values_;
};

// Cartesian grid metadata that generators attach so partitioners can cut geometrically.
// Row (x, y, z) of the grid is block row x + nx * (y + ny * z).
struct GridInfo {
  Ordinal nx = 0;
  Ordinal ny = 0;
  Ordinal nz = 0;
  bool empty() const noexcept { return nx == 0; }
  Offset num_points() const noexcept { return Offset(nx) * Offset(ny) * Offset(nz); }
};

}  // namespace fgdd
