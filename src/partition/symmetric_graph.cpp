#include "partition/symmetric_graph.hpp"

#include "core/exclusive_scan.hpp"
#include "core/find_in_row.hpp"
#include "core/huge_pages.hpp"
#include "core/kokkos_compat.hpp"

namespace fgdd::detail {

namespace {

using Policy = Kokkos::RangePolicy<ExecSpace>;

// Whether every off-diagonal block (i, j) has its mirror (j, i) stored, one thread a row (GPUs).
// Only upper blocks are looked up, half the searches of looking up every block: each upper block
// found names a distinct lower block (rows are sorted and unique), so when every upper block is
// found and the lower blocks are as many, each lower block is some upper block's mirror. A lower
// block counts +1, an upper block -1 when its mirror is found and +1 when not: the sum, never
// negative, is 0 exactly when the pattern is symmetric.
bool mirrors_found_by_search(const ExecSpace& space, const SparseMatrix& A) {
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

// The same verdict by merging, for host threads: thread t owns the rows [lo, hi) of its chunk and
// walks the rows i < hi in ascending order; each upper block (i, j) with j in its rows must be
// the next unmet lower block of row j (a cursor per row), and in the end every lower block must
// have been met. A search per block costs a few cache misses; the merge reads each row once
// (rows below lo that reach no column ≥ lo are skipped by their last column).
struct MirrorsMerged {
  SparseMatrix::RowMap row_map;
  SparseMatrix::ColumnIndices col_ind;
  Kokkos::View<Offset*, DeviceType> cursor;
  Ordinal n;
  int chunks;

  KOKKOS_INLINE_FUNCTION void operator()(const int t, Offset& mismatches) const {
    const Ordinal lo = Ordinal(Offset(n) * t / chunks), hi = Ordinal(Offset(n) * (t + 1) / chunks);
    for (Ordinal j = lo; j < hi; ++j) cursor(j) = row_map(j);
    for (Ordinal i = 0; i < hi; ++i) {
      const Offset begin = row_map(i), end = row_map(i + 1);
      if (begin == end || col_ind(end - 1) < lo) continue;
      for (Offset k = begin; k < end; ++k) {
        const Ordinal j = col_ind(k);
        if (j <= i || j < lo) continue;
        if (j >= hi) break;
        const Offset c = cursor(j);
        if (c == row_map(j + 1) || col_ind(c) != i) {
          ++mismatches;
          return;
        }
        cursor(j) = c + 1;
      }
    }
    for (Ordinal j = lo; j < hi; ++j)
      if (cursor(j) < row_map(j + 1) && col_ind(cursor(j)) < j) {
        ++mismatches;
        return;
      }
  }
};

}  // namespace

bool structurally_symmetric(const ExecSpace& space, const SparseMatrix& A, int chunks) {
  if constexpr (!host_memory) return mirrors_found_by_search(space, A);
  const Ordinal n = A.num_block_rows();
  if (chunks <= 0) chunks = space.concurrency() > 1 ? int(space.concurrency()) : 1;
  const auto cursor = uninitialized_view<Offset>("fgdd::partition::graph_mirror_cursor",
                                                 std::size_t(n));
  Offset mismatches = 0;
  Kokkos::parallel_reduce("fgdd::partition::graph_mirror_merge",
                          Kokkos::RangePolicy<ExecSpace>(space, 0, chunks),
                          MirrorsMerged{A.row_map(), A.col_ind(), cursor, n, chunks}, mismatches);
  return mismatches == 0;
}

namespace {

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
