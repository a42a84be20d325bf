// Copies of setup arrays between host vectors and device views, in one place. Both copies are
// synchronous: the host vector may change or be freed as soon as they return.
#pragma once

#include "core/types.hpp"

#include <string>
#include <vector>

namespace fgdd::detail {

template <class T>
using UnmanagedHostView =
    Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

// A device copy of a host vector.
template <class T>
Kokkos::View<T*, DeviceType> to_device(const std::vector<T>& host, const std::string& label) {
  Kokkos::View<T*, DeviceType> view(Kokkos::view_alloc(Kokkos::WithoutInitializing, label),
                                    host.size());
  Kokkos::deep_copy(view, UnmanagedHostView<const T>(host.data(), host.size()));
  return view;
}

// A host vector of a rank-1 device view (or a contiguous subview of one).
template <class View>
std::vector<typename View::non_const_value_type> to_host_vector(const View& device) {
  using T = typename View::non_const_value_type;
  std::vector<T> host(device.extent(0));
  Kokkos::deep_copy(UnmanagedHostView<T>(host.data(), host.size()), device);
  return host;
}

}  // namespace fgdd::detail
