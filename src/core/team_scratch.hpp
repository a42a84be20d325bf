// What fits in team scratch, decided once: the fast level-0 bytes a team may ask for (the
// partitioner sizes subdomains by it), where a kernel's per-team scratch goes, and how many
// bytes to request for it.
#pragma once

#include "core/types.hpp"

#include <cstddef>

namespace fgdd::detail {

// Bytes of level-0 team scratch a team may request on the default execution space
// (TeamPolicy::scratch_size_max(0): it depends on the GPU and the Kokkos version; 32 KB on
// Serial).
inline std::size_t level0_scratch_bytes() {
  return std::size_t(Kokkos::TeamPolicy<ExecSpace>::scratch_size_max(0));
}

struct TeamScratch {
  int level = 0;
  std::size_t bytes = 0;  // per team, to pass to set_scratch_size
};

// The fast level 0 when bytes_per_team fits, else level 1 (backed by global memory: slower, never
// wrong). Level 1 gives the team in slot k the chunk at k × (requested bytes) without aligning it
// (Kokkos 4), so there the request is rounded up to whole 128-byte lines: a size of 4 mod 8 bytes
// misaligned every other team's doubles, which CUDA faults on (the spin kernel's 12 bytes a row
// with 4,913-row subdomains).
inline TeamScratch team_scratch_for(std::size_t bytes_per_team) {
  constexpr std::size_t line = 128;
  if (bytes_per_team <= level0_scratch_bytes()) return {0, bytes_per_team};
  return {1, (bytes_per_team + line - 1) / line * line};
}

}  // namespace fgdd::detail
