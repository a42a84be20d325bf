// Slicing A_p by rank happens on the host during setup: the root copies its arrays to the
// host once and sends each rank a contiguous slice; each rank splits its slice into the
// diagonal and off-rank blocks and agrees on the halo messages with its neighbours.
#include "mpi/distributed_matrix.hpp"

#include "core/errors.hpp"
#include "core/matrix_build.hpp"
#include "mpi/matrix_slice.hpp"
#include "mpi/mpi_transfer.hpp"

#include <algorithm>
#include <numeric>
#include <string>

namespace fgdd {

int RowDistribution::owner_of(Ordinal block_row) const {
  return detail::owner_of(block_row_offsets, block_row);
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

using detail::Slice;

// The root's arrays of the whole partitioned matrix, on the host.
struct WholeOnHost {
  int block_size = 1;
  std::vector<Ordinal> subdomain_offsets;
  HostCopy<Offset> permuted_rows, dropped_rows;
  HostCopy<Ordinal> permuted_cols, dropped_cols, iperm;
  HostCopy<Scalar> permuted_values, dropped_values;
};

WholeOnHost copy_to_host(const PartitionedMatrix& dd) {
  const SparseMatrix& A = dd.system.permuted;
  const SparseMatrix& D = dd.system.dropped;
  return {A.block_size(),
          dd.partition.host_subdomain_offsets,
          host_copy(A.row_map()),
          host_copy(D.row_map()),
          host_copy(A.col_ind()),
          host_copy(D.col_ind()),
          host_copy(dd.partition.iperm),
          host_copy(A.values()),
          host_copy(D.values())};
}

// Scatters rows [offsets[r], offsets[r+1]) of a matrix from the root.
Slice scatter_rows(const Communicator& comm, const std::vector<Ordinal>& offsets, int block_size,
                   const HostCopy<Offset>* rows, const HostCopy<Ordinal>* cols,
                   const HostCopy<Scalar>* values) {
  const int ranks = comm.size();
  std::vector<Offset> row_starts(ranks + 1), entry_starts(ranks + 1), value_starts(ranks + 1);
  const Offset b2 = Offset(block_size) * Offset(block_size);
  for (int r = 0; r <= ranks; ++r) {
    row_starts[r] = offsets[r];
    if (comm.is_root()) entry_starts[r] = (*rows)(offsets[r]);
    value_starts[r] = entry_starts[r] * b2;
  }
  const int me = comm.rank();
  const Offset my_rows = offsets[me + 1] - offsets[me];
  Slice slice;
  // row_map slices overlap by one entry: rank r receives row_map[offsets[r] .. offsets[r+1]].
  std::vector<Offset> row_map_starts(row_starts.begin(), row_starts.end() - 1),
      row_map_ends(row_starts.begin() + 1, row_starts.end());
  for (auto& end : row_map_ends) ++end;
  slice.row_map = scatter_ranges<Offset>(comm, rows ? rows->data() : nullptr, row_map_starts,
                                         row_map_ends, my_rows + 1);
  const Offset base = slice.row_map.front();
  for (auto& start : slice.row_map) start -= base;
  const Offset my_entries = slice.row_map.back();
  std::vector<Offset> entry_ends(entry_starts.begin() + 1, entry_starts.end()),
      value_ends(value_starts.begin() + 1, value_starts.end());
  slice.cols = scatter_ranges<Ordinal>(comm, cols ? cols->data() : nullptr, entry_starts,
                                       entry_ends, my_entries);
  slice.values = scatter_ranges<Scalar>(comm, values ? values->data() : nullptr, value_starts,
                                        value_ends, my_entries * b2);
  return slice;
}

// Each rank's start in a value array, from the root's row map (block rows at offsets).
std::vector<Offset> value_starts(const HostCopy<Offset>& rows, const std::vector<Ordinal>& offsets,
                                 int block_size) {
  std::vector<Offset> starts;
  for (const Ordinal row : offsets) starts.push_back(rows(row) * block_size * block_size);
  return starts;
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
  WholeOnHost whole;
  comm_.run_collectively([&] {
    if (comm_.is_root()) {
      if (!whole_on_root) throw InvalidInput("the root rank passed no matrix to distribute");
      space.fence();
      whole = copy_to_host(*whole_on_root);
      distribution_ = distribute_subdomains(whole.subdomain_offsets, comm_.size());
      permuted_value_starts_ =
          value_starts(whole.permuted_rows, distribution_.block_row_offsets, whole.block_size);
      dropped_value_starts_ =
          value_starts(whole.dropped_rows, distribution_.block_row_offsets, whole.block_size);
    }
  });
  broadcast(comm_, whole.block_size);
  broadcast(comm_, whole.subdomain_offsets);
  broadcast(comm_, distribution_.block_row_offsets);
  broadcast(comm_, distribution_.subdomain_offsets);

  const int me = comm_.rank();
  const Ordinal first = distribution_.block_row_offsets[me];
  const Ordinal last = distribution_.block_row_offsets[me + 1];
  const bool root = comm_.is_root();
  Slice permuted =
      scatter_rows(comm_, distribution_.block_row_offsets, whole.block_size,
                   root ? &whole.permuted_rows : nullptr, root ? &whole.permuted_cols : nullptr,
                   root ? &whole.permuted_values : nullptr);
  Slice dropped =
      scatter_rows(comm_, distribution_.block_row_offsets, whole.block_size,
                   root ? &whole.dropped_rows : nullptr, root ? &whole.dropped_cols : nullptr,
                   root ? &whole.dropped_values : nullptr);
  std::vector<Offset> row_starts(distribution_.block_row_offsets.begin(),
                                 distribution_.block_row_offsets.end() - 1),
      row_ends(distribution_.block_row_offsets.begin() + 1, distribution_.block_row_offsets.end());
  std::vector<Ordinal> original_rows = scatter_ranges<Ordinal>(
      comm_, root ? whole.iperm.data() : nullptr, row_starts, row_ends, Offset(last - first));
  const int block_size = whole.block_size;
  const std::vector<Ordinal> subdomain_offsets = std::move(whole.subdomain_offsets);
  whole = WholeOnHost{};  // the root's host copy is no longer needed

  comm_.run_collectively([&] {
    std::vector<Offset> diagonal_source, off_rank_source;
    detail::split_columns(permuted, first, last, block_size, diagonal_, off_rank_, diagonal_source,
                          off_rank_source);
    diagonal_source_ = to_device(diagonal_source, "fgdd::mpi::diagonal_source");
    off_rank_source_ = to_device(off_rank_source, "fgdd::mpi::off_rank_source");
    for (auto& c : dropped.cols) c -= first;  // subdomains never leave the rank
    dropped_ = detail::to_matrix(last - first, block_size, std::move(dropped));
    partition_ =
        detail::local_partition(subdomain_offsets, distribution_.subdomain_offsets[me],
                                distribution_.subdomain_offsets[me + 1], std::move(original_rows));
  });
  halo_ = plan_halo(comm_, distribution_, off_rank_.ghost_rows);
}

void DistributedMatrix::update_values(const ExecSpace& space,
                                      const PartitionedMatrix* whole_on_root) {
  // Only the values travel: the root's arrays in A_p's order, sliced as at construction.
  HostCopy<Scalar> permuted, dropped;
  comm_.run_collectively([&] {
    if (from_local_rows_)
      throw InvalidInput(
          "update_values: this matrix was built from each rank's LocalRows; pass "
          "new LocalRows");
    if (!comm_.is_root()) return;
    if (!whole_on_root) throw InvalidInput("the root rank passed no matrix to update from");
    const SparseMatrix& A = whole_on_root->system.permuted;
    const SparseMatrix& D = whole_on_root->system.dropped;
    if (A.num_entries() != permuted_value_starts_.back() ||
        D.num_entries() != dropped_value_starts_.back())
      throw InvalidInput("update_values: the new matrix has another pattern");
    space.fence();
    permuted = host_copy(A.values());
    dropped = host_copy(D.values());
  });
  const bool root = comm_.is_root();
  const auto ends = [](const std::vector<Offset>& starts) {
    return std::vector<Offset>(starts.begin() + (starts.empty() ? 0 : 1), starts.end());
  };
  const int b = block_size();
  const Offset mine = (diagonal_source_.extent(0) + off_rank_source_.extent(0)) * b * b;
  const std::vector<Scalar> permuted_slice =
      scatter_ranges<Scalar>(comm_, root ? permuted.data() : nullptr, permuted_value_starts_,
                             ends(permuted_value_starts_), mine);
  const std::vector<Scalar> dropped_slice =
      scatter_ranges<Scalar>(comm_, root ? dropped.data() : nullptr, dropped_value_starts_,
                             ends(dropped_value_starts_), dropped_.values().extent(0));
  const auto slice = to_device(permuted_slice, "fgdd::mpi::new_values");
  detail::gather_blocks(space, slice, diagonal_source_, b, diagonal_.values());
  detail::gather_blocks(space, slice, off_rank_source_, b, off_rank_.values);
  Kokkos::deep_copy(space, dropped_.values(), to_device(dropped_slice, "fgdd::mpi::new_dropped"));
}

}  // namespace fgdd
