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

// The weight of the arcs i -> j and j -> i, from A_ij and A_ji stored at q_ij and q_ji (the
// row's end where a block is not stored).
struct StrengthWeight {
  SparseMatrix::RowMap row_map;
  SparseMatrix::Values values;
  Kokkos::View<double*, DeviceType> diagonal;  // ‖A_ii‖_F
  int bb;
  KOKKOS_INLINE_FUNCTION Ordinal operator()(Ordinal i, Ordinal j, Offset q_ij, Offset q_ji) const {
    const double ij = block_norm(values, q_ij, row_map(i + 1), bb);
    const double ji = block_norm(values, q_ji, row_map(j + 1), bb);
    const double coupling = ij > ji ? ij : ji;
    const double scale = detail::sqrt(diagonal(i) * diagonal(j));
    const double s = scale > 0 ? (coupling < scale ? coupling / scale : 1.0) : 1.0;
    return 1 + Ordinal(strength_weight_range * s + 0.5);
  }
};

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
  const StrengthWeight weight{row_map, values, diagonal, bb};
  if (graph.rows_of_matrix) {
    // Both arcs of a pair from its upper end, half the searches: A_ji is found in row j at
    // q_ji, and row j's arc to i lies as far into the graph's row, since the entries before it
    // (columns below i < j) hold no diagonal block.
    Kokkos::parallel_for(
        "fgdd::partition::strength_weights", Policy(space, 0, n),
        KOKKOS_LAMBDA(const Ordinal i) {
          Offset q = row_map(i);
          for (Offset k = graph_row_map(i); k < graph_row_map(i + 1); ++k, ++q) {
            if (col_ind(q) == i) ++q;
            const Ordinal j = adjacency(k);
            if (j < i) continue;
            const Offset q_ji = find_in_row(row_map, col_ind, j, i);
            const Ordinal w = weight(i, j, q, q_ji);
            edge_weight(k) = w;
            edge_weight(graph_row_map(j) + (q_ji - row_map(j))) = w;
          }
        });
    return weighted;
  }
  Kokkos::parallel_for(
      "fgdd::partition::strength_weights", Policy(space, 0, n), KOKKOS_LAMBDA(const Ordinal i) {
        // Both row i of A and its neighbours are ascending, so one walk finds every A_ij; only
        // the mirror A_ji needs a search, in row j.
        const Offset row_end = row_map(i + 1);
        Offset q = row_map(i);
        for (Offset k = graph_row_map(i); k < graph_row_map(i + 1); ++k) {
          const Ordinal j = adjacency(k);
          while (q < row_end && col_ind(q) < j) ++q;
          const Offset q_ij = q < row_end && col_ind(q) == j ? q : row_end;
          edge_weight(k) = weight(i, j, q_ij, find_in_row(row_map, col_ind, j, i));
        }
      });
  return weighted;
}

}  // namespace fgdd::detail
