#include "mpi/matrix_slice.hpp"

#include "core/errors.hpp"
#include "core/exclusive_scan.hpp"
#include "core/find_in_row.hpp"
#include "core/host_copy.hpp"
#include "core/huge_pages.hpp"
#include "partition/reorder.hpp"

#include <Kokkos_Sort.hpp>

#include <string>

namespace fgdd::detail {

namespace {

using RowPolicy = Kokkos::RangePolicy<ExecSpace>;

}  // namespace

OrdinalView rows_with_entries(const ExecSpace& space, const OffsetView& row_map,
                              const OffsetView& other) {
  const Ordinal n = Ordinal(row_map.extent(0)) - 1;
  const bool both = other.extent(0) > 0;
  if (both && other.extent(0) != row_map.extent(0))
    throw Error("rows_with_entries: row maps of " + std::to_string(n) + " and " +
                std::to_string(other.extent(0) - 1) + " rows");
  // slot(i): 1 for a row with entries; after the scan, its place in the list.
  OffsetView slot("fgdd::mpi::boundary_slot", n + 1);
  Kokkos::parallel_for(
      "fgdd::mpi::boundary_mark", RowPolicy(space, 0, n), KOKKOS_LAMBDA(const Ordinal i) {
        slot(i) = row_map(i) < row_map(i + 1) || (both && other(i) < other(i + 1)) ? 1 : 0;
      });
  const Offset count = exclusive_scan_in_place(space, "fgdd::mpi::boundary_scan", slot);
  OrdinalView rows(uninitialized_view<Ordinal>("fgdd::mpi::boundary_rows", count));
  Kokkos::parallel_for(
      "fgdd::mpi::boundary_rows", RowPolicy(space, 0, n), KOKKOS_LAMBDA(const Ordinal i) {
        if (slot(i + 1) > slot(i)) rows(slot(i)) = i;
      });
  return rows;
}

Offset rebase_row_map(const ExecSpace& space, const OffsetView& row_map) {
  Offset base = 0, end = 0;
  Kokkos::deep_copy(base, Kokkos::subview(row_map, 0));
  Kokkos::deep_copy(end, Kokkos::subview(row_map, row_map.extent(0) - 1));
  Kokkos::parallel_for(
      "fgdd::mpi::rebase_row_map", RowPolicy(space, 0, row_map.extent(0)),
      KOKKOS_LAMBDA(const Offset i) { row_map(i) -= base; });
  space.fence();
  return end - base;
}

OrdinalView sorted_distinct(const ExecSpace& space, const OrdinalView& v, const std::string& label) {
  const Offset n = v.extent(0);
  OrdinalView sorted(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "_sorted"), n);
  Kokkos::deep_copy(space, sorted, v);
  space.fence();
  Kokkos::sort(sorted);
  OffsetView starts(label + "_starts", n + 1);
  Kokkos::parallel_for(
      label + "_mark", RowPolicy(space, 0, n),
      KOKKOS_LAMBDA(const Offset i) { starts(i) = i == 0 || sorted(i) != sorted(i - 1); });
  const Offset distinct = exclusive_scan_in_place(space, label + "_scan", starts);
  OrdinalView out(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), distinct);
  Kokkos::parallel_for(
      label + "_compact", RowPolicy(space, 0, n), KOKKOS_LAMBDA(const Offset i) {
        if (i == 0 || sorted(i) != sorted(i - 1)) out(starts(i)) = sorted(i);
      });
  return out;
}

SplitSlice split_columns(const ExecSpace& space, const Slice& rows, Ordinal first, Ordinal last,
                         int block_size) {
  const Ordinal n = Ordinal(rows.row_map.extent(0)) - 1;
  const auto row_map = rows.row_map;
  const auto cols = rows.cols;
  // Columns are sorted, so a row's own columns are one run [own_begin, own_end) between the
  // ghosts below and above.
  OffsetView own_begin(uninitialized_view<Offset>("fgdd::mpi::own_begin", n)),
      own_end(uninitialized_view<Offset>("fgdd::mpi::own_end", n));
  OffsetView diagonal_rows("fgdd::mpi::diagonal_row_map", n + 1),
      ghost_rows("fgdd::mpi::off_rank_row_map", n + 1);
  Kokkos::parallel_for(
      "fgdd::mpi::own_columns", RowPolicy(space, 0, n), KOKKOS_LAMBDA(const Ordinal i) {
        const Offset begin = row_map(i), end = row_map(i + 1);
        Offset own_first = 0, own_last = 0;
        run_within(cols, begin, end, first, last, own_first, own_last);
        own_begin(i) = own_first;
        own_end(i) = own_last;
        diagonal_rows(i) = own_last - own_first;
        ghost_rows(i) = (end - begin) - diagonal_rows(i);
      });
  const Offset own = exclusive_scan_in_place(space, "fgdd::mpi::diagonal_scan", diagonal_rows);
  const Offset ghost = exclusive_scan_in_place(space, "fgdd::mpi::off_rank_scan", ghost_rows);

  SplitSlice split;
  OrdinalView diagonal_cols(uninitialized_view<Ordinal>("fgdd::mpi::diagonal_cols", own)),
      ghost_cols(uninitialized_view<Ordinal>("fgdd::mpi::off_rank_cols", ghost));
  split.diagonal_source = uninitialized_view<Offset>("fgdd::mpi::diagonal_source", own);
  split.off_rank_source = uninitialized_view<Offset>("fgdd::mpi::off_rank_source", ghost);
  const auto diagonal_source = split.diagonal_source;
  const auto off_rank_source = split.off_rank_source;
  // Ghost columns first as A_p columns, to number them in sorted order.
  Kokkos::parallel_for(
      "fgdd::mpi::split_columns", RowPolicy(space, 0, n), KOKKOS_LAMBDA(const Ordinal i) {
        Offset d = diagonal_rows(i), g = ghost_rows(i);
        for (Offset k = row_map(i); k < row_map(i + 1); ++k) {
          if (k >= own_begin(i) && k < own_end(i)) {
            diagonal_cols(d) = cols(k) - first;
            diagonal_source(d++) = k;
          } else {
            ghost_cols(g) = cols(k);
            off_rank_source(g++) = k;
          }
        }
      });
  const OrdinalView ghosts = sorted_distinct(space, ghost_cols, "fgdd::mpi::ghost_rows");
  const Offset distinct = ghosts.extent(0);
  Kokkos::parallel_for(
      "fgdd::mpi::number_ghosts", RowPolicy(space, 0, ghost), KOKKOS_LAMBDA(const Offset k) {
        ghost_cols(k) = Ordinal(first_not_below(ghosts, 0, distinct, ghost_cols(k)));
      });

  const Offset b2 = Offset(block_size) * Offset(block_size);
  Kokkos::View<Scalar*, DeviceType> diagonal_values(
      uninitialized_view<Scalar>("fgdd::mpi::diagonal_values", own * b2)),
      ghost_values(uninitialized_view<Scalar>("fgdd::mpi::off_rank_values", ghost * b2));
  gather_blocks(space, rows.values, diagonal_source, block_size, diagonal_values);
  gather_blocks(space, rows.values, off_rank_source, block_size, ghost_values);
  split.diagonal = SparseMatrix(SparseMatrix::ValidatedTag{}, n, block_size, diagonal_rows,
                                diagonal_cols, diagonal_values);
  split.off_rank.row_map = ghost_rows;
  split.off_rank.ghost_col = ghost_cols;
  split.off_rank.values = ghost_values;
  split.off_rank.ghost_rows = to_host_vector(ghosts);
  split.off_rank.boundary_rows = rows_with_entries(space, ghost_rows);
  return split;
}

DroppedSlice drop_couplings(const ExecSpace& space, const SparseMatrix& diagonal,
                            const OffsetView& diagonal_source, const Partition& partition) {
  // The partition keeps the order, so reorder_and_drop only drops; the kept blocks' positions
  // index the diagonal block's blocks, and are empty when nothing was dropped (dropped is then
  // diagonal's copy).
  // Its iperm names the caller's rows, not local ones: the identity (perm) stands in.
  Partition in_order = partition;
  in_order.iperm = partition.perm;
  const ReorderedSystem local = reorder_and_drop(space, diagonal, in_order);
  DroppedSlice out{local.dropped, diagonal_source};
  const OffsetView kept = dropped_positions(space, local);
  if (kept.extent(0) > 0)
    out.source = compose(space, diagonal_source, kept, "fgdd::mpi::dropped_source");
  return out;
}

RankBlocks rank_blocks(const ExecSpace& space, const Slice& slice, Ordinal first, Ordinal last,
                       int block_size, const std::vector<Ordinal>& subdomain_offsets,
                       Ordinal first_subdomain, Ordinal last_subdomain, OrdinalView original_rows,
                       const OffsetView& caller_source) {
  RankBlocks blocks;
  blocks.split = split_columns(space, slice, first, last, block_size);
  if (caller_source.is_allocated()) {
    blocks.split.diagonal_source = compose(space, caller_source, blocks.split.diagonal_source,
                                           "fgdd::mpi::diagonal_source");
    blocks.split.off_rank_source = compose(space, caller_source, blocks.split.off_rank_source,
                                           "fgdd::mpi::off_rank_source");
  }
  blocks.partition = local_partition(space, subdomain_offsets, first_subdomain, last_subdomain,
                                     original_rows);
  // Subdomains never leave the rank: it drops its own couplings (nothing more to send).
  blocks.dropped = drop_couplings(space, blocks.split.diagonal, blocks.split.diagonal_source,
                                  blocks.partition);
  space.fence();
  return blocks;
}

Partition local_partition(const ExecSpace& space, const std::vector<Ordinal>& whole_offsets,
                          Ordinal first_subdomain, Ordinal last_subdomain,
                          OrdinalView original_rows) {
  Partition p;
  p.num_subdomains = last_subdomain - first_subdomain;
  const Ordinal first_row = whole_offsets[first_subdomain];
  for (Ordinal s = first_subdomain; s <= last_subdomain; ++s)
    p.host_subdomain_offsets.push_back(whole_offsets[s] - first_row);
  const Ordinal n = p.host_subdomain_offsets.back();
  p.subdomain_offsets = to_device(p.host_subdomain_offsets, "fgdd::mpi::subdomain_offsets");
  p.perm = uninitialized_view<Ordinal>("fgdd::mpi::perm", n);
  p.part_of_row = uninitialized_view<Ordinal>("fgdd::mpi::part_of_row", n);
  p.iperm = original_rows;
  const auto perm = p.perm;
  const auto part_of_row = p.part_of_row;
  const auto offsets = p.subdomain_offsets;
  Kokkos::parallel_for(
      "fgdd::mpi::local_partition", Kokkos::RangePolicy<ExecSpace>(space, 0, p.num_subdomains),
      KOKKOS_LAMBDA(const Ordinal s) {
        for (Ordinal i = offsets(s); i < offsets(s + 1); ++i) {
          perm(i) = i;
          part_of_row(i) = s;
        }
      });
  return p;
}

OffsetView compose(const ExecSpace& space, const OffsetView& outer, const OffsetView& inner,
                   const std::string& label) {
  OffsetView composed(uninitialized_view<Offset>(label, inner.extent(0)));
  Kokkos::parallel_for(
      label, RowPolicy(space, 0, inner.extent(0)),
      KOKKOS_LAMBDA(const Offset e) { composed(e) = outer(inner(e)); });
  return composed;
}

OrdinalView shifted(const ExecSpace& space, const OrdinalView& v, Ordinal shift,
                    const std::string& label) {
  OrdinalView out(uninitialized_view<Ordinal>(label, v.extent(0)));
  Kokkos::parallel_for(
      label, RowPolicy(space, 0, v.extent(0)),
      KOKKOS_LAMBDA(const Offset i) { out(i) = v(i) + shift; });
  return out;
}

void gather_blocks(const ExecSpace& space, Kokkos::View<const Scalar*, DeviceType> values,
                   Kokkos::View<const Offset*, DeviceType> sources, int block_size,
                   Kokkos::View<Scalar*, DeviceType> target) {
  const Offset b2 = Offset(block_size) * Offset(block_size);
  Kokkos::parallel_for(
      "fgdd::mpi::gather_values", RowPolicy(space, 0, target.extent(0)),
      KOKKOS_LAMBDA(const Offset k) { target(k) = values(sources(k / b2) * b2 + k % b2); });
}

}  // namespace fgdd::detail
