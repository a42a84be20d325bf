// The start of a synchronization-free sweep, shared by the global and the structured ones.
#pragma once

#include "core/types.hpp"

namespace fgdd::detail {

// Advances epoch, so that done flags left by earlier sweeps mean "not yet" (clearing them when
// the counter wraps around, where old flags could match again), and sets the ticket counter to
// zero. Returns the sweep's epoch.
inline unsigned start_sync_free_sweep(const ExecSpace& space, unsigned& epoch,
                                      const Kokkos::View<unsigned*, DeviceType>& done,
                                      const Kokkos::View<Ordinal, DeviceType>& tickets) {
  if (++epoch == 0) {
    Kokkos::deep_copy(space, done, 0u);
    epoch = 1;
  }
  Kokkos::deep_copy(space, tickets, Ordinal(0));
  return epoch;
}

}  // namespace fgdd::detail
