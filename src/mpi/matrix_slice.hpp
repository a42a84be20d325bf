// One rank's rows of A_p on the host (a Slice) and what both ways of building a
// DistributedMatrix do with it: split it into the diagonal and off-rank blocks, describe the
// rank's subdomains, and replay the split on the device for new values.
#pragma once

#include "core/sparse_matrix.hpp"
#include "mpi/distributed_matrix.hpp"
#include "partition/partition.hpp"

#include <string>
#include <vector>

namespace fgdd::detail {

// One rank's rows of a CSR/BSR array triple, columns still in A_p's numbering.
struct Slice {
  std::vector<Offset> row_map;  // starts at 0
  std::vector<Ordinal> cols;
  std::vector<Scalar> values;
};

// A square matrix of the slice's rows (columns already local).
SparseMatrix to_matrix(Ordinal block_rows, int block_size, Slice&& slice);

// Splits this rank's rows of A_p into the diagonal block (columns [first, last)) and the
// off-rank block (ghost columns, numbered in sorted order); *_source: for each block of either,
// the index of the slice's block it came from.
void split_columns(const Slice& rows, Ordinal first, Ordinal last, int block_size,
                   SparseMatrix& diagonal, OffRankBlock& off_rank,
                   std::vector<Offset>& diagonal_source, std::vector<Offset>& off_rank_source);

// This rank's subdomains [first_subdomain, last_subdomain) of whole_offsets in local
// numbering: perm is the identity, iperm keeps the caller's rows (original_rows) for messages.
Partition local_partition(const std::vector<Ordinal>& whole_offsets, Ordinal first_subdomain,
                          Ordinal last_subdomain, std::vector<Ordinal>&& original_rows);

// target block e = values block sources(e), on the device.
void gather_blocks(const ExecSpace& space, Kokkos::View<const Scalar*, DeviceType> values,
                   Kokkos::View<const Offset*, DeviceType> sources, int block_size,
                   Kokkos::View<Scalar*, DeviceType> target);

}  // namespace fgdd::detail
