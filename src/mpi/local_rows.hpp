// One rank's share of a distributed matrix as applications hold it: consecutive block rows
// with global block columns, rank r's rows right after rank r − 1's (a contiguous row map, as
// in Tpetra). What DistributedMatrix and DistributedSolver take when no rank holds the whole
// matrix.
#pragma once

#include "core/sparse_matrix.hpp"
#include "core/types.hpp"
#include "mpi/communicator.hpp"

#include <vector>

namespace fgdd {

struct LocalRows {
  Ordinal first_block_row = 0;   // global index of this rank's first block row
  int block_size = 1;            // the same on every rank
  std::vector<Offset> row_map;   // this rank's block rows + 1 offsets, from 0
  std::vector<Ordinal> col_ind;  // global block columns, in any order within a row
  std::vector<Scalar> values;    // block_size² per stored block, row-major

  Ordinal num_block_rows() const noexcept {
    return row_map.empty() ? 0 : Ordinal(row_map.size() - 1);
  }
};

// Block rows [first_block_row, first_block_row + count) of a matrix every rank holds, with
// their global columns (for checks and benchmarks of the LocalRows path; an application passes
// the rows it assembled). Throws InvalidInput for a range outside the matrix.
LocalRows rows_of(const SparseMatrix& A, Ordinal first_block_row, Ordinal count);

namespace detail {

// Collective. Every rank's first block row and the global count: offsets[r] is rank r's first
// row, offsets.back() the number of block rows. Throws InvalidInput on every rank alike when
// the ranks' rows do not follow each other from row 0 in rank order, a rank has none, or the
// block sizes differ.
std::vector<Ordinal> gather_row_offsets(const Communicator& comm, const LocalRows& mine);

// Throws InvalidMatrix naming the global block row for arrays of the wrong length or a row
// map not starting at 0 (the checks that need no pass over the rows).
void check_local_shape(const LocalRows& mine);
// Throws InvalidMatrix naming the global block row and column if local row i has: a column
// outside [0, global_rows), a column twice, no diagonal block, a NaN or Inf value.
void check_local_row(const LocalRows& mine, Ordinal i, Ordinal global_rows);
// Throws InvalidMatrix naming the block of local row i that holds NaN or Inf, if any.
void check_row_values(const LocalRows& mine, Ordinal i);

// The rank r whose rows [offsets[r], offsets[r + 1]) hold row (offsets ascending, one more
// entry than ranks, row inside their range).
int owner_of(const std::vector<Ordinal>& offsets, Ordinal row);

// Collective. For each of rows (global, sorted, none of this rank's), its owner's answer:
// offsets[owner] + owner_perm(row − offsets[owner]), where every rank passes its own perm
// (local row → its place among its rows, on the device). One all-to-all of counts and two of
// rows.
std::vector<Ordinal> renumber_remote_rows(const Communicator& comm,
                                          const std::vector<Ordinal>& offsets,
                                          const std::vector<Ordinal>& rows,
                                          const Kokkos::View<const Ordinal*, DeviceType>& my_perm);

}  // namespace detail
}  // namespace fgdd
