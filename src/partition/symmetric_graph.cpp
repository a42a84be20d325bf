#include "partition/symmetric_graph.hpp"

#include "core/exclusive_scan.hpp"
#include "core/first_row_where.hpp"
#include "core/kokkos_compat.hpp"

namespace fgdd::detail {

namespace {

using Policy = Kokkos::RangePolicy<ExecSpace>;

// The first block row holding an entry (i, j) whose mirror (j, i) is not stored, or n.
Ordinal first_unmirrored_row(const ExecSpace& space, const SparseMatrix& A) {
  const auto row_map = A.row_map();
  const auto col_ind = A.col_ind();
  return first_row_where(
      space, A.num_block_rows(), "fgdd::partition::graph_mirror_check",
      KOKKOS_LAMBDA(const Ordinal i) {
        for (Offset k = row_map(i); k < row_map(i + 1); ++k) {
          const Ordinal j = col_ind(k);
          Offset lo = row_map(j), hi = row_map(j + 1);  // columns are sorted: bisect for i
          while (lo < hi) {
            const Offset mid = (lo + hi) / 2;
            if (col_ind(mid) < i)
              lo = mid + 1;
            else
              hi = mid;
          }
          if (lo == row_map(j + 1) || col_ind(lo) != i) return true;
        }
        return false;
      });
}

// A structurally symmetric A is its own graph: its rows minus the diagonal, already sorted.
SymmetricGraph graph_of_symmetric_pattern(const ExecSpace& space, const SparseMatrix& A) {
  const Ordinal n = A.num_block_rows();
  const auto row_map = A.row_map();
  const auto col_ind = A.col_ind();
  SymmetricGraph graph;
  graph.num_vertices = n;
  graph.row_map = Kokkos::View<Offset*, DeviceType>("fgdd::partition::graph_row_map", n + 1);
  const auto out_row_map = graph.row_map;
  Kokkos::parallel_for(
      "fgdd::partition::graph_count_mirrored", Policy(space, 0, n), KOKKOS_LAMBDA(const Ordinal i) {
        Offset off_diagonal = 0;
        for (Offset k = row_map(i); k < row_map(i + 1); ++k)
          if (col_ind(k) != i) ++off_diagonal;
        out_row_map(i) = off_diagonal;
      });
  const Offset total =
      exclusive_scan_in_place(space, "fgdd::partition::graph_mirrored_scan", out_row_map);
  graph.adjacency = Kokkos::View<Ordinal*, DeviceType>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::graph_adjacency"), total);
  const auto adjacency = graph.adjacency;
  Kokkos::parallel_for(
      "fgdd::partition::graph_copy_mirrored", Policy(space, 0, n), KOKKOS_LAMBDA(const Ordinal i) {
        Offset out = out_row_map(i);
        for (Offset k = row_map(i); k < row_map(i + 1); ++k)
          if (col_ind(k) != i) adjacency(out++) = col_ind(k);
      });
  return graph;
}

}  // namespace

SymmetricGraph symmetric_graph(const ExecSpace& space, const SparseMatrix& A) {
  const Ordinal n = A.num_block_rows();
  if (first_unmirrored_row(space, A) == n) return graph_of_symmetric_pattern(space, A);
  const auto row_map = A.row_map();
  const auto col_ind = A.col_ind();

  // Each off-diagonal block (i, j) contributes j to row i and i to row j; duplicates (when A
  // already holds both directions) are removed after the sort.
  Kokkos::View<Offset*, DeviceType> counts("fgdd::partition::graph_counts", n + 1);
  Kokkos::parallel_for(
      "fgdd::partition::graph_count", Policy(space, 0, n), KOKKOS_LAMBDA(const Ordinal i) {
        for (Offset k = row_map(i); k < row_map(i + 1); ++k) {
          const Ordinal j = col_ind(k);
          if (j == i) continue;
          Kokkos::atomic_add(&counts(i), Offset(1));
          Kokkos::atomic_add(&counts(j), Offset(1));
        }
      });
  const Offset total = exclusive_scan_in_place(space, "fgdd::partition::graph_scan", counts);
  Kokkos::View<Ordinal*, DeviceType> scattered(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::graph_scattered"), total);
  Kokkos::View<Offset*, DeviceType> fill("fgdd::partition::graph_fill", n);
  Kokkos::parallel_for(
      "fgdd::partition::graph_scatter", Policy(space, 0, n), KOKKOS_LAMBDA(const Ordinal i) {
        for (Offset k = row_map(i); k < row_map(i + 1); ++k) {
          const Ordinal j = col_ind(k);
          if (j == i) continue;
          scattered(counts(i) + Kokkos::atomic_fetch_add(&fill(i), Offset(1))) = j;
          scattered(counts(j) + Kokkos::atomic_fetch_add(&fill(j), Offset(1))) = i;
        }
      });
  Kokkos::View<Ordinal*, DeviceType> unused_values("fgdd::partition::graph_sort_values", total);
  detail::sort_crs_rows<ExecSpace>(counts, scattered, unused_values);

  SymmetricGraph graph;
  graph.num_vertices = n;
  graph.row_map = Kokkos::View<Offset*, DeviceType>("fgdd::partition::graph_row_map", n + 1);
  const auto out_row_map = graph.row_map;
  Kokkos::parallel_for(
      "fgdd::partition::graph_count_unique", Policy(space, 0, n), KOKKOS_LAMBDA(const Ordinal i) {
        Offset unique = 0;
        for (Offset k = counts(i); k < counts(i + 1); ++k)
          if (k == counts(i) || scattered(k) != scattered(k - 1)) ++unique;
        out_row_map(i) = unique;
      });
  const Offset unique_total =
      exclusive_scan_in_place(space, "fgdd::partition::graph_unique_scan", out_row_map);
  graph.adjacency = Kokkos::View<Ordinal*, DeviceType>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::graph_adjacency"),
      unique_total);
  const auto adjacency = graph.adjacency;
  Kokkos::parallel_for(
      "fgdd::partition::graph_compact", Policy(space, 0, n), KOKKOS_LAMBDA(const Ordinal i) {
        Offset out = out_row_map(i);
        for (Offset k = counts(i); k < counts(i + 1); ++k)
          if (k == counts(i) || scattered(k) != scattered(k - 1)) adjacency(out++) = scattered(k);
      });
  return graph;
}

}  // namespace fgdd::detail
