#include "partition/weighted_graph.hpp"

#include "core/find_in_row.hpp"
#include "core/kokkos_compat.hpp"

namespace fgdd::detail {

namespace {

// Unit vertex weights; edge weights allocated, left for the caller to fill.
WeightedGraph unit_vertex_graph(const ExecSpace& space, const SymmetricGraph& graph) {
  WeightedGraph weighted;
  weighted.graph = graph;
  weighted.vertex_weight = Kokkos::View<Ordinal*, DeviceType>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::unit_vwgt"),
      graph.num_vertices);
  weighted.edge_weight = Kokkos::View<Ordinal*, DeviceType>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::ewgt"),
      graph.adjacency.extent(0));
  Kokkos::deep_copy(space, weighted.vertex_weight, Ordinal(1));
  return weighted;
}

// ‖block k‖_F, 0 for k = end (a block that is not stored). For b = 1 it is |a|, the bits
// sqrt(a²) gives (binary floating point), without the square root.
KOKKOS_INLINE_FUNCTION double block_norm(const SparseMatrix::Values& values, Offset k, Offset end,
                                         int bb) {
  if (k == end) return 0;
  if (bb == 1) return detail::fabs(values(k));
  double sum = 0;
  for (int e = 0; e < bb; ++e) sum += values(k * bb + e) * values(k * bb + e);
  return detail::sqrt(sum);
}

}  // namespace

WeightedGraph unit_weighted_graph(const ExecSpace& space, const SymmetricGraph& graph) {
  WeightedGraph weighted = unit_vertex_graph(space, graph);
  Kokkos::deep_copy(space, weighted.edge_weight, Ordinal(1));
  return weighted;
}

WeightedGraph strength_weighted_graph(const ExecSpace& space, const SparseMatrix& A,
                                      const SymmetricGraph& graph) {
  using Policy = Kokkos::RangePolicy<ExecSpace>;
  WeightedGraph weighted = unit_vertex_graph(space, graph);
  const Ordinal n = graph.num_vertices;
  const auto row_map = A.row_map();
  const auto col_ind = A.col_ind();
  const auto values = A.values();
  const int bb = A.block_size() * A.block_size();
  Kokkos::View<double*, DeviceType> diagonal(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::strength_diagonal"), n);
  Kokkos::parallel_for(
      "fgdd::partition::strength_diagonal", Policy(space, 0, n), KOKKOS_LAMBDA(const Ordinal i) {
        diagonal(i) = block_norm(values, find_in_row(row_map, col_ind, i, i), row_map(i + 1), bb);
      });
  const auto graph_row_map = graph.row_map;
  const auto adjacency = graph.adjacency;
  const auto edge_weight = weighted.edge_weight;
  Kokkos::parallel_for(
      "fgdd::partition::strength_weights", Policy(space, 0, n), KOKKOS_LAMBDA(const Ordinal i) {
        // Both row i of A and its neighbours are ascending, so one walk finds every A_ij; only
        // the mirror A_ji needs a search, in row j.
        const Offset row_end = row_map(i + 1);
        Offset q = row_map(i);
        for (Offset k = graph_row_map(i); k < graph_row_map(i + 1); ++k) {
          const Ordinal j = adjacency(k);
          while (q < row_end && col_ind(q) < j) ++q;
          const double ij =
              block_norm(values, q < row_end && col_ind(q) == j ? q : row_end, row_end, bb);
          const double ji =
              block_norm(values, find_in_row(row_map, col_ind, j, i), row_map(j + 1), bb);
          const double coupling = ij > ji ? ij : ji;
          const double scale = detail::sqrt(diagonal(i) * diagonal(j));
          const double s = scale > 0 ? (coupling < scale ? coupling / scale : 1.0) : 1.0;
          edge_weight(k) = 1 + Ordinal(strength_weight_range * s + 0.5);
        }
      });
  return weighted;
}

}  // namespace fgdd::detail
