#include "partition/symmetric_graph.hpp"

#include "core/exclusive_scan.hpp"
#include "core/find_in_row.hpp"
#include "core/kokkos_compat.hpp"

namespace fgdd::detail {

namespace {

using Policy = Kokkos::RangePolicy<ExecSpace>;

// Whether every off-diagonal block (i, j) has its mirror (j, i) stored. Only upper blocks are
// looked up, half the searches of looking up every block: each upper block found names a
// distinct lower block (rows are sorted and unique), so when every upper block is found and
// the lower blocks are as many, each lower block is some upper block's mirror. A lower block
// counts +1, an upper block -1 when its mirror is found and +1 when not: the sum, never
// negative, is 0 exactly when the pattern is symmetric.
bool structurally_symmetric(const ExecSpace& space, const SparseMatrix& A) {
  const auto row_map = A.row_map();
  const auto col_ind = A.col_ind();
  Offset imbalance = 0;
  Kokkos::parallel_reduce(
      "fgdd::partition::graph_mirror_check", Policy(space, 0, A.num_block_rows()),
      KOKKOS_LAMBDA(const Ordinal i, Offset& sum) {
        for (Offset k = row_map(i); k < row_map(i + 1); ++k) {
          const Ordinal j = col_ind(k);
          if (j < i) ++sum;
          if (j > i) sum += find_in_row(row_map, col_ind, j, i) == row_map(j + 1) ? 1 : -1;
        }
      },
      imbalance);
  return imbalance == 0;
}

// Which entries of a row compact_rows keeps: the off-diagonal ones of a symmetric pattern...
struct OffDiagonal {
  Kokkos::View<Ordinal*, DeviceType> cols;
  KOKKOS_INLINE_FUNCTION bool operator()(Ordinal i, Offset k, Offset) const {
    return cols(k) != i;
  }
};
// ...or the first of each run of equal columns in a sorted row.
struct FirstOfRun {
  Kokkos::View<Ordinal*, DeviceType> cols;
  KOKKOS_INLINE_FUNCTION bool operator()(Ordinal, Offset k, Offset begin) const {
    return k == begin || cols(k) != cols(k - 1);
  }
};

// The graph whose vertex i lists the columns cols(k), k in [row_map(i), row_map(i + 1)), that
// keep accepts, in their order.
template <class RowMap, class Keep>
SymmetricGraph compact_rows(const ExecSpace& space, Ordinal n, const RowMap& row_map,
                            const Kokkos::View<Ordinal*, DeviceType>& cols, const Keep& keep) {
  SymmetricGraph graph;
  graph.num_vertices = n;
  graph.row_map = Kokkos::View<Offset*, DeviceType>("fgdd::partition::graph_row_map", n + 1);
  const auto out_row_map = graph.row_map;
  Kokkos::parallel_for(
      "fgdd::partition::graph_count_kept", Policy(space, 0, n), KOKKOS_LAMBDA(const Ordinal i) {
        Offset kept = 0;
        for (Offset k = row_map(i); k < row_map(i + 1); ++k)
          if (keep(i, k, row_map(i))) ++kept;
        out_row_map(i) = kept;
      });
  const Offset total =
      exclusive_scan_in_place(space, "fgdd::partition::graph_kept_scan", out_row_map);
  graph.adjacency = Kokkos::View<Ordinal*, DeviceType>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::graph_adjacency"), total);
  const auto adjacency = graph.adjacency;
  Kokkos::parallel_for(
      "fgdd::partition::graph_compact", Policy(space, 0, n), KOKKOS_LAMBDA(const Ordinal i) {
        Offset out = out_row_map(i);
        for (Offset k = row_map(i); k < row_map(i + 1); ++k)
          if (keep(i, k, row_map(i))) adjacency(out++) = cols(k);
      });
  return graph;
}

}  // namespace

SymmetricGraph symmetric_graph(const ExecSpace& space, const SparseMatrix& A) {
  const Ordinal n = A.num_block_rows();
  // A structurally symmetric A is its own graph: its rows without the diagonal, already sorted.
  if (structurally_symmetric(space, A)) {
    SymmetricGraph graph =
        compact_rows(space, n, A.row_map(), A.col_ind(), OffDiagonal{A.col_ind()});
    graph.rows_of_matrix = true;
    return graph;
  }
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
  return compact_rows(space, n, counts, scattered, FirstOfRun{scattered});
}

}  // namespace fgdd::detail
