// Team sizes for launches whose team threads work independently: a row or a point each, with no
// team barrier between them (a team may still share a ticket).
#pragma once

#include "core/types.hpp"

#include <algorithm>

namespace fgdd::detail {

// Threads per team for such a launch. GPUs get `wanted` threads of `lanes` vector lanes each, at
// most what the backend allows for the functor. CPU backends get one thread per team. Kokkos'
// OpenMP teams meet at a rendezvous between league ranks, and that costs more than a row's work:
// with two-thread teams, the OpenMP level-by-level structured sweeps ran 25× slower than Serial.
template <class Functor>
int independent_team_size(const ExecSpace& space, const Functor& functor, int lanes, int wanted) {
  constexpr bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemSpace>::accessible;
  if (host) return 1;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  const int allowed = Policy(space, 1, 1, lanes).team_size_max(functor, Kokkos::ParallelForTag());
  return std::max(1, std::min(allowed, wanted));
}

}  // namespace fgdd::detail
