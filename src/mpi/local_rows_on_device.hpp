// The LocalRows setup's steps on the device: upload and check a rank's rows, cut out its
// diagonal block, list its ghost columns, and renumber its rows and columns into A_p. The rows
// are sorted once; every later step reads them sorted.
#pragma once

#include "mpi/local_rows.hpp"
#include "mpi/matrix_slice.hpp"
#include "partition/partition.hpp"

namespace fgdd::detail {

// A rank's LocalRows on the device, each row's columns ascending.
struct SortedLocalRows {
  OffsetView row_map;
  OrdinalView caller_cols;  // the columns as the caller ordered them (update_values checks them)
  OrdinalView cols;
  OffsetView position;                       // the caller's block index behind each block
  Kokkos::View<Scalar*, DeviceType> values;  // the caller's values, in the caller's order
};

// Uploads mine and sorts a copy of each row's columns. Throws InvalidMatrix naming the global
// block row (and column) for arrays of the wrong length, a row map not starting at 0 or
// decreasing, and the errors of check_local_row: the checks run on the device, and the first
// offending row is described from the host arrays.
SortedLocalRows sort_local_rows(const ExecSpace& space, const LocalRows& mine,
                                Ordinal global_rows);

// The first local row whose columns (or their count) differ between the pattern (row_map,
// cols: a SortedLocalRows' row map and caller_cols) and mine, among the rows both have; else
// the smaller row count (the caller compares the counts).
Ordinal first_changed_row(const ExecSpace& space, const OffsetView& row_map,
                          const OrdinalView& cols, const LocalRows& mine);

// The caller's values on the device, mine's pattern being row_map's (the setup's, already on the
// device); InvalidMatrix naming the first block with NaN or Inf.
Kokkos::View<Scalar*, DeviceType> upload_values(const ExecSpace& space, const LocalRows& mine,
                                                const OffsetView& row_map);

// The caller's diagonal block (columns [first, first + rows)) as a square matrix in local
// numbering, and for each of its blocks the caller's block behind it.
SparseMatrix diagonal_block(const ExecSpace& space, const SortedLocalRows& rows, Ordinal first,
                            int block_size);

// The distinct columns outside [first, first + rows), ascending.
OrdinalView ghost_columns(const ExecSpace& space, const SortedLocalRows& rows, Ordinal first);

// This rank's rows of A_p: row perm(i) is the caller's row i, own columns c renumbered to
// first + perm(c − first), ghost columns ghosts(g) to renumbered(g), each row sorted; source:
// the caller's block behind each block of the slice.
Slice renumbered_slice(const ExecSpace& space, const SortedLocalRows& rows,
                       const Partition& order, Ordinal first, const OrdinalView& ghosts,
                       const OrdinalView& renumbered, int block_size, OffsetView& source);

}  // namespace fgdd::detail
