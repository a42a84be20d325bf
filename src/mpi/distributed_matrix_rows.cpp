// DistributedMatrix from each rank's own rows: the rank partitions its diagonal block, learns
// where its ghost columns went from their owners, and builds its slice of A_p on the host,
// which then goes the way of a slice scattered from the root (matrix_slice.hpp).
#include "core/errors.hpp"
#include "core/matrix_build.hpp"
#include "mpi/distributed_matrix.hpp"
#include "mpi/matrix_slice.hpp"
#include "mpi/mpi_transfer.hpp"
#include "partition/partition_matrix.hpp"

#include <algorithm>
#include <numeric>
#include <string>
#include <utility>

namespace fgdd {
namespace {

// The caller's diagonal block (columns in [first, first + n)) as a square matrix in its local
// numbering.
SparseMatrix diagonal_block(const LocalRows& mine) {
  const Ordinal first = mine.first_block_row, n = mine.num_block_rows();
  const Offset b2 = Offset(mine.block_size) * mine.block_size;
  HostMatrixArrays block;
  block.num_block_rows = block.num_block_cols = n;
  block.block_size = mine.block_size;
  block.row_map.assign(1, 0);
  for (Ordinal i = 0; i < n; ++i) {
    for (Offset k = mine.row_map[i]; k < mine.row_map[i + 1]; ++k) {
      const Ordinal c = mine.col_ind[k];
      if (c < first || c >= first + n) continue;
      block.col_ind.push_back(c - first);
      block.values.insert(block.values.end(), mine.values.begin() + k * b2,
                          mine.values.begin() + (k + 1) * b2);
    }
    block.row_map.push_back(Offset(block.col_ind.size()));
  }
  return make_matrix(block);
}

// This rank's rows of A_p: row perm(i) is the caller's row i, every column renumbered (own
// columns by perm, ghosts by their owners' answers) and sorted; source: the caller's block
// behind each of the slice's blocks.
detail::Slice renumbered_slice(const LocalRows& mine, const std::vector<Ordinal>& perm,
                               const std::vector<Ordinal>& ghosts,
                               const std::vector<Ordinal>& renumbered_ghosts,
                               std::vector<Offset>& source) {
  const Ordinal first = mine.first_block_row, n = mine.num_block_rows();
  const Offset b2 = Offset(mine.block_size) * mine.block_size;
  std::vector<Ordinal> iperm(n);
  for (Ordinal i = 0; i < n; ++i) iperm[perm[i]] = i;
  detail::Slice slice;
  slice.row_map.assign(1, 0);
  std::vector<std::pair<Ordinal, Offset>> row;  // (A_p column, caller's block)
  for (Ordinal ip = 0; ip < n; ++ip) {
    const Ordinal i = iperm[ip];
    row.clear();
    for (Offset k = mine.row_map[i]; k < mine.row_map[i + 1]; ++k) {
      const Ordinal c = mine.col_ind[k];
      const Ordinal renumbered =
          c >= first && c < first + n
              ? first + perm[c - first]
              : renumbered_ghosts[std::lower_bound(ghosts.begin(), ghosts.end(), c) -
                                  ghosts.begin()];
      row.emplace_back(renumbered, k);
    }
    std::sort(row.begin(), row.end());
    for (const auto& [column, k] : row) {
      slice.cols.push_back(column);
      slice.values.insert(slice.values.end(), mine.values.begin() + k * b2,
                          mine.values.begin() + (k + 1) * b2);
      source.push_back(k);
    }
    slice.row_map.push_back(Offset(slice.cols.size()));
  }
  return slice;
}

// For each block of dropped (local A_p numbering, a sub-pattern of the slice's own columns),
// the caller's block behind it.
std::vector<Offset> dropped_sources(const SparseMatrix& dropped, const detail::Slice& slice,
                                    const std::vector<Offset>& source, Ordinal first) {
  const HostCopy<Offset> rows = host_copy(dropped.row_map());
  const HostCopy<Ordinal> cols = host_copy(dropped.col_ind());
  std::vector<Offset> sources(cols.size());
  for (Ordinal r = 0; r + 1 < Ordinal(rows.size()); ++r) {
    const auto begin = slice.cols.begin() + slice.row_map[r];
    const auto end = slice.cols.begin() + slice.row_map[r + 1];
    for (Offset k = rows(r); k < rows(r + 1); ++k) {
      const auto at = std::lower_bound(begin, end, first + cols(k));
      if (at == end || *at != first + cols(k))
        throw Error("internal: dropped block (" + std::to_string(r) + ", " +
                    std::to_string(cols(k)) + ") is not in the rank's rows");
      sources[k] = source[at - slice.cols.begin()];
    }
  }
  return sources;
}

// The first of the caller's local rows whose columns differ from the pattern (row_map, cols);
// the row count when only rows after it do.
Ordinal first_changed_row(const std::vector<Offset>& row_map, const std::vector<Ordinal>& cols,
                          const LocalRows& mine) {
  const Ordinal rows = Ordinal(row_map.size()) - 1;
  Ordinal row = 0;
  for (; row < rows && row + 1 < Ordinal(mine.row_map.size()); ++row) {
    const Offset begin = mine.row_map[row], end = mine.row_map[row + 1];
    if (begin > end || end > Offset(mine.col_ind.size()) ||
        end - begin != row_map[row + 1] - row_map[row] ||
        !std::equal(cols.begin() + row_map[row], cols.begin() + row_map[row + 1],
                    mine.col_ind.begin() + begin))
      break;
  }
  return row;
}

std::vector<Offset> compose(const std::vector<Offset>& outer, const std::vector<Offset>& inner) {
  std::vector<Offset> composed(inner.size());
  for (std::size_t k = 0; k < inner.size(); ++k) composed[k] = outer[inner[k]];
  return composed;
}

}  // namespace

DistributedMatrix::DistributedMatrix(const ExecSpace& space, const Communicator& comm,
                                     const LocalRows& mine, const GridInfo& local_grid,
                                     const PartitionOptions& options)
    : from_local_rows_(true), comm_(comm) {
  std::vector<Ordinal> offsets;
  comm_.run_collectively([&] { offsets = detail::gather_row_offsets(comm_, mine); });
  const int me = comm_.rank();
  const Ordinal first = offsets[me], last = offsets[me + 1];
  const int block_size = mine.block_size;
  std::vector<Ordinal> perm, ghosts;
  comm_.run_collectively([&] {
    detail::check_local_rows(mine, offsets.back());
    PartitionedMatrix local = partition_matrix(space, diagonal_block(mine), local_grid, options);
    const HostCopy<Ordinal> perm_host = host_copy(local.partition.perm);
    perm.assign(perm_host.data(), perm_host.data() + perm_host.size());
    dropped_ = local.system.dropped;
    local_order_ = local.partition;
    local_report_ = local.report;
    for (const Ordinal c : mine.col_ind)
      if (c < first || c >= last) ghosts.push_back(c);
    std::sort(ghosts.begin(), ghosts.end());
    ghosts.erase(std::unique(ghosts.begin(), ghosts.end()), ghosts.end());
  });
  const std::vector<Ordinal> renumbered_ghosts =
      detail::renumber_remote_rows(comm_, offsets, ghosts, perm);

  // Subdomains in rank order; each rank's are its own.
  int my_subdomains = int(local_order_.num_subdomains);
  std::vector<int> subdomains(comm_.size());
  MPI_Allgather(&my_subdomains, 1, MPI_INT, subdomains.data(), 1, MPI_INT, comm_.get());
  distribution_.block_row_offsets = offsets;
  distribution_.subdomain_offsets.assign(1, 0);
  for (const int count : subdomains)
    distribution_.subdomain_offsets.push_back(distribution_.subdomain_offsets.back() + count);

  comm_.run_collectively([&] {
    std::vector<Offset> source, diagonal_source, off_rank_source;
    const detail::Slice slice = renumbered_slice(mine, perm, ghosts, renumbered_ghosts, source);
    detail::split_columns(slice, first, last, block_size, diagonal_, off_rank_, diagonal_source,
                          off_rank_source);
    diagonal_source_ = to_device(compose(source, diagonal_source), "fgdd::mpi::diagonal_source");
    off_rank_source_ = to_device(compose(source, off_rank_source), "fgdd::mpi::off_rank_source");
    dropped_source_ =
        to_device(dropped_sources(dropped_, slice, source, first), "fgdd::mpi::dropped_source");
    std::vector<Ordinal> original_rows(last - first);
    for (Ordinal i = 0; i < last - first; ++i) original_rows[perm[i]] = first + i;
    partition_ = detail::local_partition(local_order_.host_subdomain_offsets, 0,
                                         local_order_.num_subdomains, std::move(original_rows));
    local_row_map_ = mine.row_map;
    local_cols_ = mine.col_ind;
  });
  halo_ = plan_halo(comm_, distribution_, off_rank_.ghost_rows);
}

void DistributedMatrix::update_values(const ExecSpace& space, const LocalRows& mine) {
  comm_.run_collectively([&] {
    if (!from_local_rows_)
      throw InvalidInput(
          "update_values: this matrix was distributed from the root; pass the "
          "root's partitioned matrix");
    if (mine.first_block_row != first_block_row() || mine.block_size != block_size())
      throw InvalidInput("update_values: rows from block row " +
                         std::to_string(mine.first_block_row) + " with block size " +
                         std::to_string(mine.block_size) + ", not " +
                         std::to_string(first_block_row()) + " and " +
                         std::to_string(block_size()) + " as at setup");
    if (mine.row_map != local_row_map_ || mine.col_ind != local_cols_)
      throw InvalidInput("update_values: block row " +
                         std::to_string(distribution_.block_row_offsets[comm_.rank()] +
                                        first_changed_row(local_row_map_, local_cols_, mine)) +
                         " has another pattern than at setup");
    detail::check_local_values(mine);  // the pattern is the one checked at construction
  });
  const auto values = to_device(mine.values, "fgdd::mpi::new_values");
  const int b = block_size();
  detail::gather_blocks(space, values, diagonal_source_, b, diagonal_.values());
  detail::gather_blocks(space, values, off_rank_source_, b, off_rank_.values);
  detail::gather_blocks(space, values, dropped_source_, b, dropped_.values());
}

const Partition& DistributedMatrix::local_order() const {
  if (!from_local_rows_)
    throw InvalidInput(
        "local_order: this matrix was distributed from the root, not built from "
        "LocalRows");
  return local_order_;
}

}  // namespace fgdd
