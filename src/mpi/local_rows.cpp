#include "mpi/local_rows.hpp"

#include "core/errors.hpp"
#include "mpi/mpi_transfer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

namespace fgdd {

LocalRows rows_of(const SparseMatrix& A, Ordinal first_block_row, Ordinal count) {
  if (first_block_row < 0 || count < 0 || first_block_row > A.num_block_rows() - count)
    throw InvalidInput("rows_of: block rows [" + std::to_string(first_block_row) + ", " +
                       std::to_string(Offset(first_block_row) + count) + ") are not rows of a " +
                       std::to_string(A.num_block_rows()) + "-row matrix");
  const HostCopy<Offset> rows = host_copy(A.row_map());
  const HostCopy<Ordinal> cols = host_copy(A.col_ind());
  const HostCopy<Scalar> values = host_copy(A.values());
  const Offset b2 = Offset(A.block_size()) * A.block_size();
  const Offset begin = rows(first_block_row), end = rows(first_block_row + count);
  LocalRows mine;
  mine.first_block_row = first_block_row;
  mine.block_size = A.block_size();
  for (Ordinal r = first_block_row; r <= first_block_row + count; ++r)
    mine.row_map.push_back(rows(r) - begin);
  mine.col_ind.assign(cols.data() + begin, cols.data() + end);
  mine.values.assign(values.data() + begin * b2, values.data() + end * b2);
  return mine;
}

}  // namespace fgdd

namespace fgdd::detail {

std::vector<Ordinal> gather_row_offsets(const Communicator& comm, const LocalRows& mine) {
  const int ranks = comm.size();
  const long long local[3] = {mine.first_block_row, mine.num_block_rows(), mine.block_size};
  std::vector<long long> all(3 * std::size_t(ranks));
  MPI_Allgather(local, 3, MPI_LONG_LONG, all.data(), 3, MPI_LONG_LONG, comm.get());
  std::vector<Ordinal> offsets(1, 0);
  long long next = 0;
  for (int r = 0; r < ranks; ++r) {
    const long long first = all[3 * r], count = all[3 * r + 1], block_size = all[3 * r + 2];
    // Every rank sees the same numbers, so every rank throws the same error.
    if (first != next)
      throw InvalidInput("rank " + std::to_string(r) + "'s rows start at block row " +
                         std::to_string(first) + ", expected " + std::to_string(next) +
                         ": ranks hold consecutive block rows from 0 in rank order");
    if (count == 0)
      throw InvalidInput("rank " + std::to_string(r) +
                         " holds no block rows; every rank needs at least one (run fewer ranks)");
    if (block_size != all[2])
      throw InvalidInput("rank " + std::to_string(r) + " has block size " +
                         std::to_string(block_size) + ", rank 0 " + std::to_string(all[2]));
    next += count;
    if (next > std::numeric_limits<Ordinal>::max())
      throw InvalidInput("the ranks hold " + std::to_string(next) +
                         " block rows, more than a 32-bit index counts");
    offsets.push_back(Ordinal(next));
  }
  return offsets;
}

void check_local_shape(const LocalRows& mine) {
  const Ordinal first = mine.first_block_row;
  if (mine.block_size < 1)
    throw InvalidMatrix("block size " + std::to_string(mine.block_size) + " is not positive");
  if (mine.row_map.empty() || mine.row_map.front() != 0)
    throw InvalidMatrix(
        "the row map must hold the rank's block rows + 1 offsets from 0 (one 0 "
        "for no rows)",
        first);
  const Offset b2 = Offset(mine.block_size) * mine.block_size;
  if (Offset(mine.values.size()) != Offset(mine.col_ind.size()) * b2)
    throw InvalidMatrix(std::to_string(mine.values.size()) + " values for " +
                        std::to_string(mine.col_ind.size()) + " blocks of " + std::to_string(b2));
}

void check_row_values(const LocalRows& mine, Ordinal i) {
  const Offset b2 = Offset(mine.block_size) * mine.block_size;
  const Ordinal row = mine.first_block_row + i;
  for (Offset k = mine.row_map[i]; k < mine.row_map[i + 1]; ++k)
    for (Offset e = 0; e < b2; ++e)
      if (!std::isfinite(mine.values[k * b2 + e]))
        throw InvalidMatrix("block (" + std::to_string(row) + ", " +
                                std::to_string(mine.col_ind[k]) + ") holds NaN or Inf",
                            row, mine.col_ind[k]);
}

void check_local_row(const LocalRows& mine, Ordinal i, Ordinal global_rows) {
  const Ordinal row = mine.first_block_row + i;
  std::vector<Ordinal> cols(mine.col_ind.begin() + mine.row_map[i],
                            mine.col_ind.begin() + mine.row_map[i + 1]);
  for (const Ordinal c : cols)
    if (c < 0 || c >= global_rows)
      throw InvalidMatrix("block row " + std::to_string(row) + " has column " + std::to_string(c) +
                              " outside 0.." + std::to_string(global_rows - 1),
                          row, c);
  std::sort(cols.begin(), cols.end());
  const auto twice = std::adjacent_find(cols.begin(), cols.end());
  if (twice != cols.end())
    throw InvalidMatrix(
        "block row " + std::to_string(row) + " has column " + std::to_string(*twice) + " twice",
        row, *twice);
  if (!std::binary_search(cols.begin(), cols.end(), row))
    throw InvalidMatrix("block row " + std::to_string(row) + " has no diagonal block", row, row);
  check_row_values(mine, i);
}

int owner_of(const std::vector<Ordinal>& offsets, Ordinal row) {
  return int(std::upper_bound(offsets.begin(), offsets.end(), row) - offsets.begin()) - 1;
}

std::vector<Ordinal> renumber_remote_rows(const Communicator& comm,
                                          const std::vector<Ordinal>& offsets,
                                          const std::vector<Ordinal>& rows,
                                          const Kokkos::View<const Ordinal*, DeviceType>& my_perm) {
  std::vector<int> asked(comm.size(), 0);
  for (const Ordinal row : rows) ++asked[owner_of(offsets, row)];
  const std::vector<int> asking = receive_counts(comm, asked);
  const std::vector<Ordinal> requests = all_to_all(comm, rows, asked, asking);
  const auto answers = to_device(requests, "fgdd::mpi::renumbered_requests");
  const Ordinal first = offsets[comm.rank()];
  Kokkos::parallel_for(
      "fgdd::mpi::renumber_requests", Kokkos::RangePolicy<ExecSpace>(0, answers.extent(0)),
      KOKKOS_LAMBDA(const Offset k) { answers(k) = first + my_perm(answers(k) - first); });
  return all_to_all(comm, to_host_vector(answers), asking, asked);
}

}  // namespace fgdd::detail
