// A_p (the partitioned ordering of A) spread over MPI ranks: each rank owns a contiguous range
// of whole subdomains, so the DD preconditioner of its rows needs no data from other ranks.
// Only the SpMV reaches across ranks: its off-rank columns are "ghosts" fetched by the halo
// plan (one message per neighbour).
#pragma once

#include "core/sparse_matrix.hpp"
#include "mpi/communicator.hpp"
#include "mpi/local_rows.hpp"
#include "partition/partition_matrix.hpp"

#include <vector>

namespace fgdd {

namespace detail {
struct RankBlocks;
}

// Who owns what, the same on every rank. Rank r owns block rows
// [block_row_offsets[r], block_row_offsets[r+1]) of A_p and subdomains
// [subdomain_offsets[r], subdomain_offsets[r+1]).
struct RowDistribution {
  std::vector<Ordinal> block_row_offsets;
  std::vector<Ordinal> subdomain_offsets;
  int owner_of(Ordinal block_row) const;
};

// The options the root partitions the whole matrix A with for ranks ranks: a default subdomain
// size (subdomain_rows = 0) becomes default_subdomain_rows for that many ranks (on CPUs one
// subdomain per thread of every rank, not of the root alone; on GPUs enough for every device).
PartitionOptions per_rank_partition(PartitionOptions options, const SparseMatrix& A, int ranks);

// Ranks get contiguous subdomain ranges with about equal row counts. Throws InvalidInput when
// there are fewer subdomains than ranks.
RowDistribution distribute_subdomains(const std::vector<Ordinal>& subdomain_offsets, int ranks);

// The columns of this rank's rows that other ranks own, as a rectangular block: local block
// rows × ghost block columns (ghost g is block row ghost_rows[g] of A_p).
struct OffRankBlock {
  Kokkos::View<Offset*, DeviceType> row_map;
  Kokkos::View<Ordinal*, DeviceType> ghost_col;
  Kokkos::View<Scalar*, DeviceType> values;  // b² per block, row-major like SparseMatrix
  std::vector<Ordinal> ghost_rows;           // sorted, so grouped by owner
  // The local block rows that have ghost columns, ascending: the off-rank product visits only
  // these (a rank's boundary, a few percent of its rows).
  Kokkos::View<Ordinal*, DeviceType> boundary_rows;
};

// The messages one SpMV needs: to each neighbour the listed local block rows, from each the
// ghosts [recv_offsets[k], recv_offsets[k+1]). Built once.
struct HaloPlan {
  std::vector<int> neighbors;
  std::vector<Offset> send_offsets;              // into send_rows, per neighbour
  std::vector<Offset> recv_offsets;              // into the ghosts, per neighbour
  Kokkos::View<Ordinal*, DeviceType> send_rows;  // local block rows
  Offset num_send_rows() const { return send_offsets.empty() ? 0 : send_offsets.back(); }
  Offset num_ghosts() const { return recv_offsets.empty() ? 0 : recv_offsets.back(); }
};

// Collective. The plan for fetching ghost_rows (global block rows, sorted, so grouped by
// owner): each owner learns which of its rows this rank needs (one all-to-all of counts, one
// of row numbers).
HaloPlan plan_halo(const Communicator& comm, const RowDistribution& distribution,
                   const std::vector<Ordinal>& ghost_rows);

// Where this rank's DistributedMatrix construction went, in seconds (each step ends fenced).
struct DistributedSetupSteps {
  double rows = 0;       // its rows received from the root, or uploaded, checked and sorted
  double partition = 0;  // LocalRows: partitioning its diagonal block
  double renumber = 0;   // LocalRows: its ghost columns, their owners' numbering, its A_p rows
  double split = 0;      // the diagonal and off-rank blocks, its subdomains, the dropped matrix
  double halo_plan = 0;  // agreeing on the halo messages with the other ranks
};

class DistributedMatrix {
 public:
  // Collective. The root (rank 0) passes the partitioned whole matrix (partition_matrix of A),
  // the other ranks nullptr; each rank receives its slice. Errors (fewer subdomains than
  // ranks, ...) are thrown on every rank alike.
  DistributedMatrix(const ExecSpace& space, const Communicator& comm,
                    const PartitionedMatrix* whole_on_root);

  // Collective. Each rank passes its own rows (local_rows.hpp), so that no rank ever holds the
  // whole matrix. Each rank splits its diagonal block into subdomains (options; local_grid: its
  // rows as a grid, or empty) and renumbers its rows by them (partition_matrix with options);
  // A_p is the ranks' renumbered rows
  // in rank order, and a rank's block rows keep their global range. Throws on every rank alike:
  // InvalidInput when the ranks' rows do not follow each other from row 0, InvalidMatrix
  // naming the global block row and column for bad arrays (sort_local_rows), the errors of
  // partition_matrix.
  DistributedMatrix(const ExecSpace& space, const Communicator& comm, const LocalRows& mine,
                    const GridInfo& local_grid, const PartitionOptions& options);

  const Communicator& comm() const noexcept { return comm_; }
  const RowDistribution& distribution() const noexcept { return distribution_; }
  int block_size() const noexcept { return diagonal_.block_size(); }
  Ordinal global_num_block_rows() const noexcept { return distribution_.block_row_offsets.back(); }
  Ordinal first_block_row() const noexcept { return distribution_.block_row_offsets[comm_.rank()]; }
  Offset num_rows() const noexcept { return diagonal_.num_rows(); }  // this rank's scalar rows

  // This rank's rows and columns of A_p (the part of the SpMV that needs no messages).
  const SparseMatrix& diagonal() const noexcept { return diagonal_; }
  const OffRankBlock& off_rank() const noexcept { return off_rank_; }
  const HaloPlan& halo() const noexcept { return halo_; }
  // This rank's rows of the dropped matrix and its subdomains, in local numbering; the
  // partition's iperm names the caller's (original) block rows, so errors report those.
  const SparseMatrix& dropped() const noexcept { return dropped_; }
  const Partition& partition() const noexcept { return partition_; }

  // Collective. New values of the same pattern: the root passes the partitioned whole matrix
  // after fgdd::update_values, each rank refreshes its blocks in place (plan and arrays kept).
  void update_values(const ExecSpace& space, const PartitionedMatrix* whole_on_root);
  // Collective. New values for the LocalRows constructor: the same row map and columns as then
  // (else InvalidInput naming the first differing block row); nothing travels between ranks.
  void update_values(const ExecSpace& space, const LocalRows& mine);

  // The LocalRows constructor's renumbering of this rank's rows: perm(the caller's local row) =
  // its local row of A_p (InvalidInput for the other constructor), and the partition report of
  // this rank's diagonal block.
  const Partition& local_order() const;
  const PartitionReport& local_report() const noexcept { return local_report_; }
  bool from_local_rows() const noexcept { return from_local_rows_; }
  const DistributedSetupSteps& setup_steps() const noexcept { return steps_; }

 private:
  // Takes what both constructors build from this rank's slice (mpi/matrix_slice.hpp).
  void adopt(detail::RankBlocks&& blocks);

  // For each block of diagonal(), off_rank() and dropped(), the block of this rank's slice of
  // A_p it holds (LocalRows constructor: the caller's block): the split and drop done once,
  // replayed on the device for new values.
  Kokkos::View<Offset*, DeviceType> diagonal_source_, off_rank_source_, dropped_source_;
  // LocalRows constructor: the caller's pattern, which update_values checks.
  bool from_local_rows_ = false;
  Kokkos::View<Offset*, DeviceType> pattern_row_map_;
  Kokkos::View<Ordinal*, DeviceType> pattern_cols_;
  Partition local_order_;
  PartitionReport local_report_;
  DistributedSetupSteps steps_;
  // The root only: where each rank's values start in A_p's arrays.
  std::vector<Offset> permuted_value_starts_;
  Communicator comm_;
  RowDistribution distribution_;
  SparseMatrix diagonal_, dropped_;
  OffRankBlock off_rank_;
  HaloPlan halo_;
  Partition partition_;
};

}  // namespace fgdd
