// Team sizes for team launches: the backend's limit for a functor, and the CPU rule for teams
// whose threads work independently.
#pragma once

#include "core/types.hpp"

#include <algorithm>

namespace fgdd::detail {

// `wanted` threads of `lanes` vector lanes each, at most what the backend allows for the functor
// (and at least one).
template <class Functor>
int team_size_within(const ExecSpace& space, const Functor& functor, int lanes, int wanted) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  const int allowed = Policy(space, 1, 1, lanes).team_size_max(functor, Kokkos::ParallelForTag());
  return std::max(1, std::min(allowed, wanted));
}

// Threads per team for a launch whose team threads work independently (a row or a point each,
// no team barrier between them; a team may still share a ticket): team_size_within on GPUs, one
// thread per team on CPU backends. Kokkos' OpenMP teams meet at a rendezvous between league
// ranks, and that costs more than a row's work: with two-thread teams, the OpenMP level-by-level
// structured sweeps ran far slower than Serial
// (measured: docs/PERFORMANCE_HISTORY.md, "Measurements behind code choices").
template <class Functor>
int independent_team_size(const ExecSpace& space, const Functor& functor, int lanes, int wanted) {
  return host_memory ? 1 : team_size_within(space, functor, lanes, wanted);
}

// The most vector lanes fgdd gives one row or point: a warp's 32, fewer where the backend allows
// fewer (CPU backends run lanes as a loop).
inline int max_vector_lanes() {
  return std::min(32, Kokkos::TeamPolicy<ExecSpace>::vector_length_max());
}

// Lanes for `items` pieces of work that one row or point shares out: the smallest power of two
// covering them, at most max_vector_lanes().
inline int lanes_covering(Offset items) {
  const int most = max_vector_lanes();
  int lanes = 1;
  while (lanes < most && Offset(lanes) < items) lanes *= 2;
  return lanes;
}

// How many teams of `threads` threads (vector lanes included) the device likely holds at once,
// for persistent teams that take work by ticket: its thread slots over a team's (whole warps on
// GPUs, where registers typically leave a quarter of the slots usable), at least one.
inline int resident_teams(const ExecSpace& space, int threads) {
  const int warp = Kokkos::TeamPolicy<ExecSpace>::vector_length_max();
  const int slots = (threads + warp - 1) / warp * warp;
  return std::max(1, space.concurrency() / slots / (warp > 1 ? 4 : 1));
}

}  // namespace fgdd::detail
