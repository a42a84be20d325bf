// A symmetric graph with vertex and edge weights: the levels of the multilevel partitioner,
// where a coarse vertex stands for several block rows and a coarse edge for several couplings.
#pragma once

#include "core/sparse_matrix.hpp"
#include "core/types.hpp"
#include "partition/symmetric_graph.hpp"

namespace fgdd::detail {

struct WeightedGraph {
  SymmetricGraph graph;                              // sorted, unique neighbours, no self loops
  Kokkos::View<Ordinal*, DeviceType> vertex_weight;  // block rows a vertex stands for
  Kokkos::View<Ordinal*, DeviceType> edge_weight;    // couplings an edge stands for, per arc

  Ordinal num_vertices() const noexcept { return graph.num_vertices; }
  Offset num_arcs() const noexcept { return graph.adjacency.extent(0); }
};

// graph with every vertex and edge weight 1, built on space (the graph's views are shared).
WeightedGraph unit_weighted_graph(const ExecSpace& space, const SymmetricGraph& graph);

// Edge weights grow with the coupling strength s = max(‖A_ij‖, ‖A_ji‖) / sqrt(‖A_ii‖ ‖A_jj‖)
// (Frobenius norms of the blocks; s = 1 where a diagonal block is zero, clamped to 1):
// 1 + round(strength_weight_range · s), so heavy-edge matching keeps strong couplings inside
// parts and the cut falls on weak ones, as AMG aggregation does (a reservoir's permeability
// contrasts). graph must be A's block graph (symmetric_graph); vertex weights are 1.
constexpr int strength_weight_range = 15;
WeightedGraph strength_weighted_graph(const ExecSpace& space, const SparseMatrix& A,
                                      const SymmetricGraph& graph);

}  // namespace fgdd::detail
