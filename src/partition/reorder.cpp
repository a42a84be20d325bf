#include "partition/reorder.hpp"

#include "core/errors.hpp"
#include "core/exclusive_scan.hpp"
#include "core/find_in_row.hpp"
#include "core/first_row_where.hpp"
#include "core/huge_pages.hpp"
#include "core/kokkos_compat.hpp"
#include "core/prefetch.hpp"

namespace fgdd {

namespace {

using Policy = Kokkos::RangePolicy<ExecSpace>;
using MutableRowMap = Kokkos::View<Offset*, DeviceType>;
using SourceMap = Kokkos::View<Offset*, DeviceType>;

// permuted's values from A's, row by row: block k of row r is block position_in_row(k) of A's
// row source_rows(r).
void gather_permuted(const ExecSpace& space, const ReorderedSystem& system,
                     const SparseMatrix::Values& source_values) {
  const Offset block_entries = Offset(system.permuted.block_size()) * system.permuted.block_size();
  const auto row_map = system.permuted.row_map();
  const auto source_row_map = system.original_row_map;
  const auto source_rows = system.source_rows;
  const auto position = system.position_in_row;
  const auto values = system.permuted.values();
  const Ordinal rows = system.permuted.num_block_rows();
  Kokkos::parallel_for(
      "fgdd::partition::gather_values", Policy(space, 0, rows), KOKKOS_LAMBDA(const Ordinal r) {
        const Offset base = source_row_map(source_rows(r));
        detail::prefetch_row_ahead(r, rows, [&](Ordinal row) {
          return &source_values(source_row_map(source_rows(row)) * block_entries);
        });
        for (Offset k = row_map(r); k < row_map(r + 1); ++k) {
          const Offset from = (base + Offset(position(k))) * block_entries;
          for (Offset e = 0; e < block_entries; ++e)
            values(k * block_entries + e) = source_values(from + e);
        }
      });
}

// True when perm is the identity (natural partitions keep the caller's order).
bool is_identity(const ExecSpace& space, const Kokkos::View<Ordinal*, DeviceType>& perm) {
  Ordinal moved = 0;
  Kokkos::parallel_reduce(
      "fgdd::partition::count_moved_rows", Policy(space, 0, perm.extent(0)),
      KOKKOS_LAMBDA(const Offset i, Ordinal& count) {
        if (perm(i) != Ordinal(i)) ++count;
      },
      moved);
  return moved == 0;
}

SparseMatrix::Values allocate_values(const char* label, Offset blocks, int b) {
  return detail::uninitialized_view<Scalar>(label, blocks * Offset(b) * Offset(b));
}

}  // namespace

ReorderedSystem reorder_and_drop(const ExecSpace& space, const SparseMatrix& A,
                                 const Partition& partition, DroppedValues dropped_values) {
  const Ordinal n = A.num_block_rows();
  const int b = A.block_size();
  if (partition.num_block_rows() != n)
    throw InvalidInput("partition covers " + std::to_string(partition.num_block_rows()) +
                       " block rows but the matrix has " + std::to_string(n));
  const auto row_map = A.row_map();
  const auto col_ind = A.col_ind();
  const auto perm = partition.perm;
  const auto iperm = partition.iperm;
  const auto part_of_row = partition.part_of_row;

  // Algorithm 2: new row r is old row iperm(r) with columns mapped through perm, then sorted.
  // Under the identity A_p is A: its arrays are shared, with no source map.
  const bool identity = is_identity(space, perm);
  SparseMatrix::RowMap p_row_map = A.row_map();
  SparseMatrix::ColumnIndices permuted_cols = A.col_ind();
  Kokkos::View<Ordinal*, DeviceType> position_in_row;  // empty: the identity
  if (!identity) {
    const MutableRowMap permuted_row_map("fgdd::partition::permuted_row_map", n + 1);
    Kokkos::parallel_for(
        "fgdd::partition::count_rows", Policy(space, 0, n), KOKKOS_LAMBDA(const Ordinal r) {
          permuted_row_map(r) = row_map(iperm(r) + 1) - row_map(iperm(r));
        });
    const Offset permuted_nnzb = detail::exclusive_scan_in_place(
        space, "fgdd::partition::permuted_row_map_scan", permuted_row_map);
    permuted_cols =
        detail::uninitialized_view<Ordinal>("fgdd::partition::permuted_col_ind", permuted_nnzb);
    position_in_row =
        detail::uninitialized_view<Ordinal>("fgdd::partition::position_in_row", permuted_nnzb);
    Kokkos::parallel_for(
        "fgdd::partition::permute_rows", Policy(space, 0, n), KOKKOS_LAMBDA(const Ordinal r) {
          const Ordinal old = iperm(r);
          detail::prefetch_row_ahead(r, n,
                                     [&](Ordinal row) { return &col_ind(row_map(iperm(row))); });
          const Offset begin = row_map(old), end = row_map(old + 1);
          // A row whose new columns run downwards (as RCM's reversal leaves many) is written
          // back to front, so that the sort below finds it nearly in order.
          const bool descending = end - begin > 1 && perm(col_ind(begin)) > perm(col_ind(end - 1));
          Offset out = permuted_row_map(r);
          for (Offset i = 0; i < end - begin; ++i, ++out) {
            const Offset k = descending ? end - 1 - i : begin + i;
            permuted_cols(out) = perm(col_ind(k));
            position_in_row(out) = Ordinal(k - begin);
          }
        });
    detail::sort_crs_rows<ExecSpace>(permuted_row_map, permuted_cols, position_in_row);
    p_row_map = permuted_row_map;
  }
  const Offset permuted_nnzb = permuted_cols.extent(0);

  ReorderedSystem system;
  system.permuted = SparseMatrix(
      SparseMatrix::ValidatedTag{}, n, b, p_row_map, permuted_cols,
      identity ? A.values()
               : allocate_values("fgdd::partition::permuted_values", permuted_nnzb, b));
  system.position_in_row = position_in_row;
  if (!identity) system.source_rows = iperm;
  system.original_row_map = A.row_map();
  system.original_col_ind = A.col_ind();
  // Nothing dropped (one subdomain, or no coupling between them): the dropped matrix is the
  // permuted one, not a second copy of the matrix. One subdomain is known without looking.
  const auto nothing_dropped = [&] {
    system.dropped = system.permuted;
    update_values(space, A, system);
    return system;
  };
  if (partition.num_subdomains <= 1) return nothing_dropped();

  // Drop (§3.2): keep the entries whose column lies in the row's own subdomain. Its rows are
  // consecutive in A_p and A_p's columns sorted, so a row keeps one run, found by halving.
  const MutableRowMap dropped_row_map("fgdd::partition::dropped_row_map", n + 1);
  const SourceMap dropped_start(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::dropped_start"), n);
  const auto subdomain_offsets = partition.subdomain_offsets;
  Kokkos::parallel_for(
      "fgdd::partition::kept_runs", Policy(space, 0, n), KOKKOS_LAMBDA(const Ordinal r) {
        const Ordinal subdomain = part_of_row(iperm(r));
        Offset begin = 0, end = 0;
        detail::run_within(permuted_cols, p_row_map(r), p_row_map(r + 1),
                           subdomain_offsets(subdomain), subdomain_offsets(subdomain + 1), begin,
                           end);
        dropped_start(r) = begin;
        dropped_row_map(r) = end - begin;
      });
  const Offset dropped_nnzb = detail::exclusive_scan_in_place(
      space, "fgdd::partition::dropped_row_map_scan", dropped_row_map);

  if (dropped_nnzb == permuted_nnzb) return nothing_dropped();

  const SparseMatrix::ColumnIndices dropped_cols =
      detail::uninitialized_view<Ordinal>("fgdd::partition::dropped_col_ind", dropped_nnzb);
  Kokkos::parallel_for(
      "fgdd::partition::drop_couplings", Policy(space, 0, n), KOKKOS_LAMBDA(const Ordinal r) {
        const Offset out = dropped_row_map(r), from = dropped_start(r);
        for (Offset t = 0; t < dropped_row_map(r + 1) - out; ++t)
          dropped_cols(out + t) = permuted_cols(from + t);
      });

  system.dropped = SparseMatrix(SparseMatrix::ValidatedTag{}, n, b, dropped_row_map, dropped_cols,
                                allocate_values("fgdd::partition::dropped_values", dropped_nnzb, b));
  system.dropped_start = dropped_start;
  system.dropped_values_deferred = dropped_values == DroppedValues::Deferred;
  update_values(space, A, system);
  return system;
}

void update_values(const ExecSpace& space, const SparseMatrix& A_new, ReorderedSystem& system) {
  const Ordinal n = system.permuted.num_block_rows();
  const int b = system.permuted.block_size();
  if (A_new.num_block_rows() != n || A_new.block_size() != b ||
      A_new.num_block_entries() != system.original_col_ind.extent(0)) {
    throw InvalidInput("update_values: the matrix has " + std::to_string(A_new.num_block_rows()) +
                       " block rows of size " + std::to_string(A_new.block_size()) + " and " +
                       std::to_string(A_new.num_block_entries()) + " blocks; setup saw " +
                       std::to_string(n) + ", " + std::to_string(b) + " and " +
                       std::to_string(system.original_col_ind.extent(0)));
  }
  const auto new_row_map = A_new.row_map();
  const auto new_cols = A_new.col_ind();
  const auto old_row_map = system.original_row_map;
  const auto old_cols = system.original_col_ind;
  if (new_cols.data() != old_cols.data() || new_row_map.data() != old_row_map.data()) {
    const Ordinal first_different = detail::first_row_where(
        space, n, "fgdd::partition::compare_pattern", KOKKOS_LAMBDA(const Ordinal i) {
          bool same = new_row_map(i + 1) == old_row_map(i + 1);
          for (Offset k = old_row_map(i); same && k < old_row_map(i + 1); ++k)
            same = new_cols(k) == old_cols(k);
          return !same;
        });
    if (first_different < n)
      throw InvalidInput("update_values: the sparsity pattern differs from the one setup saw, "
                         "first at block row " + std::to_string(first_different));
  }
  const bool dropped_is_permuted =
      system.dropped.values().data() == system.permuted.values().data();
  if (system.keeps_callers_order()) {  // A_p is A_new, not a copy of it
    system.permuted = SparseMatrix(SparseMatrix::ValidatedTag{}, n, b, system.permuted.row_map(),
                                   system.permuted.col_ind(), A_new.values());
    if (dropped_is_permuted) system.dropped = system.permuted;
  } else {
    gather_permuted(space, system, A_new.values());
  }
  if (dropped_is_permuted || system.dropped_values_deferred) return;
  // Each dropped row copies its run of the permuted row's values.
  copy_kept_runs(space, KeptRuns{system.permuted.values(), system.dropped_start},
                 system.dropped.row_map(), b, system.dropped.values());
}

Kokkos::View<Offset*, DeviceType> dropped_positions(const ExecSpace& space,
                                                    const ReorderedSystem& system) {
  if (system.dropped.values().data() == system.permuted.values().data()) return {};
  const auto row_map = system.dropped.row_map();
  const auto start = system.dropped_start;
  const SourceMap positions = detail::uninitialized_view<Offset>(
      "fgdd::partition::dropped_positions", system.dropped.num_block_entries());
  Kokkos::parallel_for(
      "fgdd::partition::dropped_positions", Policy(space, 0, system.dropped.num_block_rows()),
      KOKKOS_LAMBDA(const Ordinal r) {
        for (Offset k = row_map(r); k < row_map(r + 1); ++k)
          positions(k) = start(r) + (k - row_map(r));
      });
  return positions;
}

namespace {
void check_permutable(const Partition& partition, int block_size, Offset in, Offset out) {
  const Offset expected = Offset(partition.num_block_rows()) * Offset(block_size);
  if (in != expected || out != expected)
    throw DimensionMismatch("permuting vectors of lengths " + std::to_string(in) + " and " +
                            std::to_string(out) + " with a partition of " +
                            std::to_string(expected) + " rows");
}
}  // namespace

void permute_vector(const ExecSpace& space, const Partition& partition, int block_size,
                    ConstVector x, Vector x_permuted) {
  check_permutable(partition, block_size, x.extent(0), x_permuted.extent(0));
  const auto iperm = partition.iperm;
  const Offset b = block_size;
  Kokkos::parallel_for(
      "fgdd::partition::permute_vector", Policy(space, 0, x.extent(0)),
      KOKKOS_LAMBDA(const Offset i) { x_permuted(i) = x(Offset(iperm(i / b)) * b + i % b); });
}

void unpermute_vector(const ExecSpace& space, const Partition& partition, int block_size,
                      ConstVector x_permuted, Vector x) {
  check_permutable(partition, block_size, x_permuted.extent(0), x.extent(0));
  const auto iperm = partition.iperm;
  const Offset b = block_size;
  Kokkos::parallel_for(
      "fgdd::partition::unpermute_vector", Policy(space, 0, x.extent(0)),
      KOKKOS_LAMBDA(const Offset i) { x(Offset(iperm(i / b)) * b + i % b) = x_permuted(i); });
}

}  // namespace fgdd
