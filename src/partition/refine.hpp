// Boundary refinement of a k-way labeling on the device, the uncoarsening step of the multilevel
// partitioner (label propagation with conflict resolution, after the Jet partitioner's "jet"
// move selection and "afterburner" filter; Gilbert, Madduri, Boman, Rajamanickam 2024).
#pragma once

#include "core/types.hpp"
#include "partition/weighted_graph.hpp"

namespace fgdd::detail {

// Moves boundary vertices to the neighbouring part they are most connected to, Jet-style: a
// vertex proposes its best move when that loses at most a quarter of its own-part connection,
// and the move is made only if it loses nothing after the proposing neighbours that outrank it
// (larger gain, then smaller index) have moved, so two neighbours never trade places for
// nothing. Moves into a part are admitted in increasing vertex order while the part stays within
// max_part_weight. A part above the limit evicts boundary vertices to neighbouring parts with
// room whatever the loss (a hash-chosen share of its candidates, about 1.5 times its excess).
// Because moves that lose nothing wander over plateaus, the labeling seen with the least weight
// above the limit, then the smallest cut, is the one returned in part;
// refinement stops after max_passes passes or a few passes without a better cut.
// Deterministic: only integer sums are accumulated with atomics, and the moves admitted do not
// depend on thread timing. Returns how many vertices end with another label than they began.
// Throws InvalidInput if part has another length than the graph or a label is outside
// [0, num_parts).
Offset refine_labeling(const ExecSpace& space, const WeightedGraph& graph,
                       const Kokkos::View<Ordinal*, DeviceType>& part, Ordinal num_parts,
                       Ordinal max_part_weight, int max_passes);

// A refinement pass's scalars on the device, so that no pass waits for the host.
struct RefineState {
  Kokkos::View<Offset, DeviceType> over, cut, moved, best_over, best_cut;
  Kokkos::View<int, DeviceType> since_best, copy_best, done;
};

// Work arrays of refine_labeling for graphs of up to max_vertices vertices and labelings of up to
// max_parts parts, so the levels of one multilevel hierarchy allocate them once.
struct RefineWork {
  RefineWork(Ordinal max_vertices, Ordinal max_parts);
  Kokkos::View<Ordinal*, DeviceType> dest, gain, confirmed, input, best, movers, mover_weights,
      part_weight, evictable, filled, departed;
  Kokkos::View<Offset*, DeviceType> arrivals, group_fill;
  Kokkos::View<Offset, DeviceType> changed;    // one call's relabeled vertices
  Kokkos::View<Offset, DeviceType> relabeled;  // summed over the calls with this work
  RefineState state;
};

// The same with work arrays of the caller, for labels known to be valid (not checked: the
// multilevel partitioner's projections). Adds the count of relabeled vertices to
// work.relabeled instead of returning it, so nothing waits for the device.
void refine_labeling(const ExecSpace& space, const WeightedGraph& graph,
                     const Kokkos::View<Ordinal*, DeviceType>& part, Ordinal num_parts,
                     Ordinal max_part_weight, int max_passes, const RefineWork& work);

}  // namespace fgdd::detail
