// DistributedMatrix from each rank's own rows: the rank partitions its diagonal block, learns
// where its ghost columns went from their owners, and builds its slice of A_p on the device,
// which then goes the way of a slice scattered from the root (matrix_slice.hpp).
#include "core/errors.hpp"
#include "mpi/distributed_matrix.hpp"
#include "mpi/local_rows_on_device.hpp"
#include "mpi/matrix_slice.hpp"
#include "mpi/mpi_transfer.hpp"
#include "partition/partition_matrix.hpp"

#include <string>
#include <utility>

namespace fgdd {

DistributedMatrix::DistributedMatrix(const ExecSpace& space, const Communicator& comm,
                                     const LocalRows& mine, const GridInfo& local_grid,
                                     const PartitionOptions& options)
    : from_local_rows_(true), comm_(comm) {
  std::vector<Ordinal> offsets;
  comm_.run_collectively([&] { offsets = detail::gather_row_offsets(comm_, mine); });
  const int me = comm_.rank();
  const Ordinal first = offsets[me], last = offsets[me + 1];
  const int block_size = mine.block_size;
  detail::SortedLocalRows sorted;
  detail::OrdinalView ghosts;
  std::vector<Ordinal> host_ghosts;
  Kokkos::Timer timer;
  comm_.run_collectively([&] {
    sorted = detail::sort_local_rows(space, mine, offsets.back());
    space.fence();
    steps_.rows = timer.seconds();
    timer.reset();
    const PartitionedMatrix local =
        partition_matrix(space, detail::diagonal_block(space, sorted, first, block_size),
                         local_grid, Coordinates(), options);
    local_order_ = local.partition;
    local_report_ = local.report;
    space.fence();
    steps_.partition = timer.seconds();
    timer.reset();
    ghosts = detail::ghost_columns(space, sorted, first);
    host_ghosts = detail::to_host_vector(ghosts);
  });
  const std::vector<Ordinal> renumbered_ghosts =
      detail::renumber_remote_rows(comm_, offsets, host_ghosts, local_order_.perm);

  // Subdomains in rank order; each rank's are its own.
  int my_subdomains = int(local_order_.num_subdomains);
  std::vector<int> subdomains(comm_.size());
  MPI_Allgather(&my_subdomains, 1, MPI_INT, subdomains.data(), 1, MPI_INT, comm_.get());
  distribution_.block_row_offsets = offsets;
  distribution_.subdomain_offsets.assign(1, 0);
  for (const int count : subdomains)
    distribution_.subdomain_offsets.push_back(distribution_.subdomain_offsets.back() + count);

  comm_.run_collectively([&] {
    detail::OffsetView source;
    const detail::Slice slice = detail::renumbered_slice(
        space, sorted, local_order_, first, ghosts,
        to_device(renumbered_ghosts, "fgdd::mpi::renumbered_ghosts"), block_size, source);
    space.fence();
    steps_.renumber = timer.seconds();
    timer.reset();
    // The caller's global rows of this rank's A_p rows, for messages.
    const detail::OrdinalView original_rows =
        detail::shifted(space, local_order_.iperm, first, "fgdd::mpi::iperm");
    adopt(detail::rank_blocks(space, slice, first, last, block_size,
                              local_order_.host_subdomain_offsets, 0, local_order_.num_subdomains,
                              original_rows, source));
    pattern_row_map_ = sorted.row_map;
    pattern_cols_ = sorted.caller_cols;
    steps_.split = timer.seconds();
  });
  timer.reset();
  halo_ = plan_halo(comm_, distribution_, off_rank_.ghost_rows);
  steps_.halo_plan = timer.seconds();
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
    const Ordinal rows = Ordinal(pattern_row_map_.extent(0)) - 1;
    const Ordinal changed = detail::first_changed_row(space, pattern_row_map_, pattern_cols_, mine);
    if (changed < rows || mine.num_block_rows() != rows ||
        Offset(mine.col_ind.size()) != pattern_cols_.extent(0))
      throw InvalidInput("update_values: block row " +
                         std::to_string(distribution_.block_row_offsets[comm_.rank()] + changed) +
                         " has another pattern than at setup");
  });
  Kokkos::View<Scalar*, DeviceType> values;
  // The pattern is the one checked at construction; only the values are new.
  comm_.run_collectively([&] { values = detail::upload_values(space, mine, pattern_row_map_); });
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
