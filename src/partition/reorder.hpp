// A_p = P A Pᵀ and its block-diagonal part (couplings between subdomains dropped), on the device
// (fine-grained-dd-sptrsv-gpu.txt §3.1 Algorithm 2 and §3.2). The pattern work is done once; new
// values of the same pattern are gathered by update_values (the symbolic / numeric split).
#pragma once

#include "core/kept_runs.hpp"
#include "core/sparse_matrix.hpp"
#include "partition/partition.hpp"

namespace fgdd {

struct ReorderedSystem {
  // A_p = P A Pᵀ with sorted columns: the operator for SpMV. Where the partition keeps A's
  // order, A itself (its arrays, not a copy; update_values takes the new matrix's values).
  SparseMatrix permuted;
  // A_p without entries outside the subdomains' diagonal blocks; where nothing is outside them,
  // permuted itself (the same arrays).
  SparseMatrix dropped;
  // Block k of permuted, in block row r, is block position_in_row(k) of A's block row
  // source_rows(r) (a 4-byte index within the row instead of an 8-byte one into A). Where the
  // partition keeps A's order, permuted shares A's pattern and both are empty (the identity).
  Kokkos::View<Ordinal*, DeviceType> position_in_row;
  Kokkos::View<const Ordinal*, DeviceType> source_rows;
  // Block row r of dropped is the run of permuted's block row r that starts at block
  // dropped_start(r): columns are sorted and a subdomain's rows are consecutive in A_p, so the
  // blocks a row keeps are consecutive. Empty where dropped is permuted. (A row's start instead
  // of a source per block: 8 bytes a row, not a block.)
  Kokkos::View<Offset*, DeviceType> dropped_start;
  // DroppedValues::Deferred: dropped's values are allocated but never filled here or by
  // update_values; its consumer reads them from permuted (dropped_runs).
  bool dropped_values_deferred = false;
  // A's pattern, kept (not copied) so update_values can refuse a different one.
  SparseMatrix::RowMap original_row_map;
  SparseMatrix::ColumnIndices original_col_ind;

  // The partition keeps A's order: permuted is A itself and has no source map.
  bool keeps_callers_order() const noexcept { return position_in_row.extent(0) == 0; }
  // Where dropped's values lie in permuted when they were deferred; empty otherwise.
  KeptRuns dropped_runs() const {
    return dropped_values_deferred ? KeptRuns{permuted.values(), dropped_start} : KeptRuns{};
  }
};

// Whether reorder_and_drop fills the dropped matrix's values (Copied) or leaves them to its one
// consumer (Deferred): the subdomain factorization in place reads each row's run from A_p as it
// eliminates the row and writes the factors over dropped's values, so a copy of the kept values
// at setup and at every update_values would be read once and overwritten (SUPG: 1.2-1.7 ms on
// two CPU threads). Where nothing is dropped there is nothing to defer.
enum class DroppedValues { Copied, Deferred };

// Throws InvalidInput when partition does not cover A's block rows.
ReorderedSystem reorder_and_drop(const ExecSpace& space, const SparseMatrix& A,
                                 const Partition& partition,
                                 DroppedValues dropped_values = DroppedValues::Copied);

// Refills permuted and dropped with A_new's values (under the identity permuted becomes A_new).
// Throws InvalidInput (naming the first block row that differs) if A_new's pattern or block size is
// not the one reorder_and_drop saw.
void update_values(const ExecSpace& space, const SparseMatrix& A_new, ReorderedSystem& system);

// The block of permuted behind each block of dropped, for callers that keep a source map of
// their own; empty where dropped is permuted.
Kokkos::View<Offset*, DeviceType> dropped_positions(const ExecSpace& space,
                                                    const ReorderedSystem& system);

// x_new = P x (caller's ordering -> permuted) and its inverse; b is A's block size.
void permute_vector(const ExecSpace& space, const Partition& partition, int block_size,
                    ConstVector x, Vector x_permuted);
void unpermute_vector(const ExecSpace& space, const Partition& partition, int block_size,
                      ConstVector x_permuted, Vector x);

}  // namespace fgdd
