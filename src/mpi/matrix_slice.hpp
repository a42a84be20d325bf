// One rank's rows of A_p on the device (a Slice) and what both ways of building a
// DistributedMatrix do with it: split it into the diagonal and off-rank blocks, describe the
// rank's subdomains, and replay the split for new values. Every step is a device kernel: on
// the host these loops made a two-rank setup 100 times slower than a one-rank one.
#pragma once

#include "core/sparse_matrix.hpp"
#include "mpi/distributed_matrix.hpp"
#include "partition/partition.hpp"

#include <string>
#include <vector>

namespace fgdd::detail {

using OffsetView = Kokkos::View<Offset*, DeviceType>;
using OrdinalView = Kokkos::View<Ordinal*, DeviceType>;

// One rank's rows of a CSR/BSR array triple: columns sorted and distinct within each row, still
// in A_p's numbering.
struct Slice {
  OffsetView row_map;  // starts at 0
  OrdinalView cols;
  Kokkos::View<Scalar*, DeviceType> values;
};

// Shifts a row map cut out of a longer one to start at 0; returns its entry count.
Offset rebase_row_map(const ExecSpace& space, const OffsetView& row_map);

// The rows i with an entry in row_map (row_map(i) < row_map(i + 1)) or in other (the same
// number of rows, or empty), ascending: the rows an off-rank product must visit.
OrdinalView rows_with_entries(const ExecSpace& space, const OffsetView& row_map,
                              const OffsetView& other = {});

// The diagonal and off-rank blocks of a slice, with the slice's block behind each of their
// blocks.
struct SplitSlice {
  SparseMatrix diagonal;  // columns [first, last), renumbered from 0
  OffRankBlock off_rank;  // ghost columns, numbered in sorted order
  OffsetView diagonal_source, off_rank_source;
};

// Splits this rank's rows of A_p at its own columns [first, last). Every row must hold its
// diagonal block (the diagonal block is built as a validated matrix without checks).
SplitSlice split_columns(const ExecSpace& space, const Slice& rows, Ordinal first, Ordinal last,
                         int block_size);

// The rank's dropped matrix: the diagonal block's entries inside its subdomains (partition:
// local_partition's), with the slice's block behind each (through diagonal_source).
struct DroppedSlice {
  SparseMatrix dropped;
  OffsetView source;
};
DroppedSlice drop_couplings(const ExecSpace& space, const SparseMatrix& diagonal,
                            const OffsetView& diagonal_source, const Partition& partition);

// Everything a rank keeps of its slice of A_p: the split blocks, its subdomains
// ([first_subdomain, last_subdomain) of subdomain_offsets, original_rows naming the caller's
// rows) and its dropped matrix. With caller_source (the caller's block behind each of the
// slice's), every source map names the caller's blocks; without (empty), the slice's.
struct RankBlocks {
  SplitSlice split;
  Partition partition;
  DroppedSlice dropped;
};
RankBlocks rank_blocks(const ExecSpace& space, const Slice& slice, Ordinal first, Ordinal last,
                       int block_size, const std::vector<Ordinal>& subdomain_offsets,
                       Ordinal first_subdomain, Ordinal last_subdomain, OrdinalView original_rows,
                       const OffsetView& caller_source);

// The distinct values of v in ascending order (v is left alone), on the device.
OrdinalView sorted_distinct(const ExecSpace& space, const OrdinalView& v, const std::string& label);

// This rank's subdomains [first_subdomain, last_subdomain) of whole_offsets in local
// numbering: perm is the identity, iperm keeps the caller's rows (original_rows) for messages.
Partition local_partition(const ExecSpace& space, const std::vector<Ordinal>& whole_offsets,
                          Ordinal first_subdomain, Ordinal last_subdomain,
                          OrdinalView original_rows);

// composed(e) = outer(inner(e)): a source map through another.
OffsetView compose(const ExecSpace& space, const OffsetView& outer, const OffsetView& inner,
                   const std::string& label);

// out(i) = v(i) + shift.
OrdinalView shifted(const ExecSpace& space, const OrdinalView& v, Ordinal shift,
                    const std::string& label);

// target block e = values block sources(e), on the device.
void gather_blocks(const ExecSpace& space, Kokkos::View<const Scalar*, DeviceType> values,
                   Kokkos::View<const Offset*, DeviceType> sources, int block_size,
                   Kokkos::View<Scalar*, DeviceType> target);

}  // namespace fgdd::detail
