#include "partition/weighted_graph.hpp"

namespace fgdd::detail {

WeightedGraph unit_weighted_graph(const ExecSpace& space, const SymmetricGraph& graph) {
  WeightedGraph weighted;
  weighted.graph = graph;
  weighted.vertex_weight = Kokkos::View<Ordinal*, DeviceType>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::unit_vwgt"),
      graph.num_vertices);
  weighted.edge_weight = Kokkos::View<Ordinal*, DeviceType>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::unit_ewgt"),
      graph.adjacency.extent(0));
  Kokkos::deep_copy(space, weighted.vertex_weight, Ordinal(1));
  Kokkos::deep_copy(space, weighted.edge_weight, Ordinal(1));
  return weighted;
}

}  // namespace fgdd::detail
