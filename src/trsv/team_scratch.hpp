// Where a kernel's per-team scratch goes: the fast level 0 when it fits, else level 1 (backed
// by global memory: slower, never wrong).
#pragma once

#include "core/types.hpp"

namespace fgdd::detail {

inline int scratch_level_for(std::size_t bytes_per_team) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  return bytes_per_team <= std::size_t(Policy::scratch_size_max(0)) ? 0 : 1;
}

}  // namespace fgdd::detail
