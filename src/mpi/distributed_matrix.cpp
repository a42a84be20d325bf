// Slicing A_p by rank: the root sends each rank a contiguous slice of its device arrays (its own
// stays on the device, the others' pass through the host); each rank splits its slice into the
// diagonal and off-rank blocks on the device, drops its couplings, and agrees on the halo
// messages with its neighbours.
#include "mpi/distributed_matrix.hpp"

#include "core/errors.hpp"
#include "mpi/matrix_slice.hpp"
#include "mpi/mpi_transfer.hpp"

#include <algorithm>
#include <string>
#include <utility>

namespace fgdd {

int RowDistribution::owner_of(Ordinal block_row) const {
  return detail::owner_of(block_row_offsets, block_row);
}

PartitionOptions per_rank_partition(PartitionOptions options, const SparseMatrix& A, int ranks) {
  if (options.subdomain_rows == 0)
    options.subdomain_rows = default_subdomain_rows(A.block_size(), A.num_rows(), ranks);
  return options;
}

RowDistribution distribute_subdomains(const std::vector<Ordinal>& subdomain_offsets, int ranks) {
  const int subdomains = int(subdomain_offsets.size()) - 1;
  if (subdomains < ranks)
    throw InvalidInput("the matrix has " + std::to_string(subdomains) + " subdomains for " +
                       std::to_string(ranks) +
                       " MPI ranks; every rank needs at least one (use smaller subdomains)");
  RowDistribution d;
  d.subdomain_offsets.assign(1, 0);
  const double rows = subdomain_offsets.back();
  for (int r = 1; r < ranks; ++r) {
    // The first subdomain boundary at or past r/ranks of the rows, leaving one per later rank.
    const double target = rows * r / ranks;
    int s = int(std::lower_bound(subdomain_offsets.begin(), subdomain_offsets.end(), target) -
                subdomain_offsets.begin());
    s = std::clamp(s, d.subdomain_offsets.back() + 1, subdomains - (ranks - r));
    d.subdomain_offsets.push_back(s);
  }
  d.subdomain_offsets.push_back(subdomains);
  for (const Ordinal s : d.subdomain_offsets) d.block_row_offsets.push_back(subdomain_offsets[s]);
  return d;
}

namespace {

// The root's row map entries at the given block rows (a handful of device reads).
std::vector<Offset> entries_at(const SparseMatrix::RowMap& row_map,
                               const std::vector<Ordinal>& rows) {
  std::vector<Offset> entries;
  for (const Ordinal row : rows) {
    Offset entry = 0;
    Kokkos::deep_copy(entry, Kokkos::subview(row_map, row));
    entries.push_back(entry);
  }
  return entries;
}

std::vector<Offset> scaled(std::vector<Offset> v, Offset factor) {
  for (Offset& e : v) e *= factor;
  return v;
}

// Each rank's part [starts[r], starts[r + 1]) as starts and ends for scatter_device_ranges.
std::vector<Offset> ends_of(const std::vector<Offset>& starts) {
  return std::vector<Offset>(starts.begin() + (starts.empty() ? 0 : 1), starts.end());
}
std::vector<Offset> starts_of(const std::vector<Offset>& starts) {
  return std::vector<Offset>(starts.begin(), starts.end() - (starts.empty() ? 0 : 1));
}

// Scatters block rows [offsets[r], offsets[r+1]) of the root's A_p (others pass nullptr);
// entry_starts: the root's row map at offsets.
detail::Slice scatter_rows(const Communicator& comm, const std::vector<Ordinal>& offsets,
                           const std::vector<Offset>& entry_starts, int block_size,
                           const SparseMatrix* A) {
  const int me = comm.rank();
  const Offset my_rows = offsets[me + 1] - offsets[me];
  const Offset b2 = Offset(block_size) * Offset(block_size);
  // Row map slices overlap by one entry: rank r receives row_map[offsets[r] .. offsets[r+1]].
  std::vector<Offset> row_starts(offsets.begin(), offsets.end() - 1),
      row_ends(offsets.begin() + 1, offsets.end());
  for (auto& end : row_ends) ++end;
  detail::Slice slice;
  slice.row_map = scatter_device_ranges(comm, A ? A->row_map() : SparseMatrix::RowMap(),
                                        row_starts, row_ends, my_rows + 1,
                                        "fgdd::mpi::slice_row_map");
  const Offset my_entries = detail::rebase_row_map(ExecSpace(), slice.row_map);
  slice.cols = scatter_device_ranges(comm, A ? A->col_ind() : SparseMatrix::ColumnIndices(),
                                     starts_of(entry_starts), ends_of(entry_starts), my_entries,
                                     "fgdd::mpi::slice_cols");
  const std::vector<Offset> value_starts = scaled(entry_starts, b2);
  slice.values = scatter_device_ranges(comm, A ? A->values() : SparseMatrix::Values(),
                                       starts_of(value_starts), ends_of(value_starts),
                                       my_entries * b2, "fgdd::mpi::slice_values");
  return slice;
}

}  // namespace

HaloPlan plan_halo(const Communicator& comm, const RowDistribution& distribution,
                   const std::vector<Ordinal>& ghost_rows) {
  const int ranks = comm.size();
  std::vector<int> ghost_counts(ranks, 0);
  for (const Ordinal row : ghost_rows) ++ghost_counts[distribution.owner_of(row)];
  const std::vector<int> send_counts = receive_counts(comm, ghost_counts);
  const std::vector<Ordinal> requested = all_to_all(comm, ghost_rows, ghost_counts, send_counts);
  HaloPlan plan;
  plan.send_offsets.assign(1, 0);
  plan.recv_offsets.assign(1, 0);
  const Ordinal first = distribution.block_row_offsets[comm.rank()];
  std::vector<Ordinal> send_rows;
  for (int r = 0, k = 0; r < ranks; k += send_counts[r], ++r) {
    if (ghost_counts[r] == 0 && send_counts[r] == 0) continue;
    plan.neighbors.push_back(r);
    for (int i = k; i < k + send_counts[r]; ++i) send_rows.push_back(requested[i] - first);
    plan.send_offsets.push_back(send_rows.size());
    plan.recv_offsets.push_back(plan.recv_offsets.back() + ghost_counts[r]);
  }
  plan.send_rows = to_device(send_rows, "fgdd::mpi::send_rows");
  return plan;
}

DistributedMatrix::DistributedMatrix(const ExecSpace& space, const Communicator& comm,
                                     const PartitionedMatrix* whole_on_root)
    : comm_(comm) {
  Kokkos::Timer timer;
  int block_size = 1;
  std::vector<Ordinal> subdomain_offsets;
  std::vector<Offset> entry_starts;  // the root's: each rank's first block in A_p's arrays
  comm_.run_collectively([&] {
    if (!comm_.is_root()) return;
    if (!whole_on_root) throw InvalidInput("the root rank passed no matrix to distribute");
    space.fence();
    block_size = whole_on_root->system.permuted.block_size();
    subdomain_offsets = whole_on_root->partition.host_subdomain_offsets;
    distribution_ = distribute_subdomains(subdomain_offsets, comm_.size());
    entry_starts = entries_at(whole_on_root->system.permuted.row_map(),
                              distribution_.block_row_offsets);
    permuted_value_starts_ = scaled(entry_starts, Offset(block_size) * Offset(block_size));
  });
  broadcast(comm_, block_size);
  broadcast(comm_, subdomain_offsets);
  broadcast(comm_, distribution_.block_row_offsets);
  broadcast(comm_, distribution_.subdomain_offsets);

  const int me = comm_.rank();
  const Ordinal first = distribution_.block_row_offsets[me];
  const Ordinal last = distribution_.block_row_offsets[me + 1];
  const bool root = comm_.is_root();
  const detail::Slice permuted =
      scatter_rows(comm_, distribution_.block_row_offsets, entry_starts, block_size,
                   root ? &whole_on_root->system.permuted : nullptr);
  const std::vector<Offset> row_offsets(distribution_.block_row_offsets.begin(),
                                        distribution_.block_row_offsets.end());
  const detail::OrdinalView original_rows = scatter_device_ranges(
      comm_, root ? whole_on_root->partition.iperm : detail::OrdinalView(),
      starts_of(row_offsets), ends_of(row_offsets), Offset(last - first), "fgdd::mpi::iperm");
  space.fence();
  steps_.rows = timer.seconds();

  timer.reset();
  comm_.run_collectively([&] {
    adopt(detail::rank_blocks(space, permuted, first, last, block_size, subdomain_offsets,
                              distribution_.subdomain_offsets[me],
                              distribution_.subdomain_offsets[me + 1], original_rows, {}));
  });
  steps_.split = timer.seconds();
  timer.reset();
  halo_ = plan_halo(comm_, distribution_, off_rank_.ghost_rows);
  steps_.halo_plan = timer.seconds();
}

void DistributedMatrix::adopt(detail::RankBlocks&& blocks) {
  diagonal_ = std::move(blocks.split.diagonal);
  off_rank_ = std::move(blocks.split.off_rank);
  diagonal_source_ = blocks.split.diagonal_source;
  off_rank_source_ = blocks.split.off_rank_source;
  partition_ = std::move(blocks.partition);
  dropped_ = blocks.dropped.dropped;
  dropped_source_ = blocks.dropped.source;
}

void DistributedMatrix::update_values(const ExecSpace& space,
                                      const PartitionedMatrix* whole_on_root) {
  // Only the values travel: the root's array in A_p's order, sliced as at construction.
  comm_.run_collectively([&] {
    if (from_local_rows_)
      throw InvalidInput(
          "update_values: this matrix was built from each rank's LocalRows; pass "
          "new LocalRows");
    if (!comm_.is_root()) return;
    if (!whole_on_root) throw InvalidInput("the root rank passed no matrix to update from");
    if (whole_on_root->system.permuted.num_entries() != permuted_value_starts_.back())
      throw InvalidInput("update_values: the new matrix has another pattern");
    space.fence();
  });
  const int b = block_size();
  const Offset mine = (diagonal_source_.extent(0) + off_rank_source_.extent(0)) * b * b;
  const auto slice = scatter_device_ranges(
      comm_, comm_.is_root() ? whole_on_root->system.permuted.values() : SparseMatrix::Values(),
      starts_of(permuted_value_starts_), ends_of(permuted_value_starts_), mine,
      "fgdd::mpi::new_values");
  detail::gather_blocks(space, slice, diagonal_source_, b, diagonal_.values());
  detail::gather_blocks(space, slice, off_rank_source_, b, off_rank_.values);
  detail::gather_blocks(space, slice, dropped_source_, b, dropped_.values());
}

}  // namespace fgdd
