// Large host arrays ask Linux for transparent huge pages before their first touch. The setup
// writes each of its arrays once, so on a CPU its time goes mostly to page faults, one per 4 KB
// page, unless the pages are huge (measured: docs/PERFORMANCE_HISTORY.md, "Measurements behind
// code choices"). Kokkos allocates without the advice; with THP set to "madvise" (the common
// default) only advised memory gets huge pages. GPU memory and other systems are left alone.
#pragma once

#include "core/types.hpp"

#include <cstddef>
#include <string>

namespace fgdd::detail {

// madvise(MADV_HUGEPAGE) on the whole 2 MB pages inside [data, data + bytes); nothing for ranges
// below 4 MB or off Linux. Failures are ignored: the advice only ever saves time.
void advise_huge_pages(void* data, std::size_t bytes) noexcept;

// A device view of count T's, not initialized; in host memory advised as above.
template <class T>
Kokkos::View<T*, DeviceType> uninitialized_view(const std::string& label, std::size_t count) {
  Kokkos::View<T*, DeviceType> view(Kokkos::view_alloc(Kokkos::WithoutInitializing, label),
                                    count);
  if constexpr (host_memory) advise_huge_pages(view.data(), count * sizeof(T));
  return view;
}

}  // namespace fgdd::detail
