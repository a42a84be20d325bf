// One level of graph coarsening for the multilevel partitioner, on the device: heavy-edge
// matching (the coarsening METIS and Jet use) done as locally dominant edge matching, so it is
// parallel and deterministic, then the coarse graph with summed vertex and edge weights.
#pragma once

#include "core/types.hpp"
#include "partition/weighted_graph.hpp"

namespace fgdd::detail {

class DeviceArena;

struct CoarseLevel {
  WeightedGraph coarse;
  Kokkos::View<Ordinal*, DeviceType> coarse_of_fine;  // fine vertex -> its coarse vertex
};

// Pairs vertices along heavy edges and contracts each pair (or unpaired vertex) to one coarse
// vertex. A vertex pairs with the neighbour whose edge it ranks highest (weight, then the lighter
// pair, then a hash of the edge that both ends compute alike); pairs that chose each other are
// matched, over a few rounds among the still unmatched. When fewer than half of the vertices
// matched (a star, say), the vertices left pair with one that shares their heaviest neighbour
// (two-hop); vertices without neighbours always pair among themselves (their placement costs no
// cut). No coarse vertex weighs more than
// max_vertex_weight (a vertex already heavier stays alone), so parts of the cap stay possible.
// The result depends only on the graph, never on thread timing.
// Throws InvalidInput if max_vertex_weight < 1.
CoarseLevel coarsen_by_matching(const ExecSpace& space, const WeightedGraph& fine,
                                Ordinal max_vertex_weight);

// Work arrays of coarsen_by_matching for graphs of up to max_vertices vertices and max_arcs arcs,
// so the levels of one hierarchy allocate them once (on GPUs every free waits for the device).
struct CoarsenWork {
  CoarsenWork(Ordinal max_vertices, Offset max_arcs);
  Kokkos::View<Ordinal*, DeviceType> match, choice, leader, group, members, member_weights,
      candidates, candidate_weights;
  Kokkos::View<Offset*, DeviceType> group_map, group_fill, candidate_map;
  Kokkos::View<Ordinal, DeviceType> matched;  // vertices matched by the rounds
};

// The same with work arrays of the caller; the level's arrays come from arena when one is given
// (they then live as long as the arena).
CoarseLevel coarsen_by_matching(const ExecSpace& space, const WeightedGraph& fine,
                                Ordinal max_vertex_weight, const CoarsenWork& work,
                                DeviceArena* arena);

}  // namespace fgdd::detail
