// Large host arrays ask Linux for transparent huge pages before their first touch. The setup
// writes each of its arrays once, so on a CPU its time goes mostly to page faults, one per 4 KB
// page, unless the pages are huge (measured: docs/PERFORMANCE_HISTORY.md, "Measurements behind
// code choices"). Kokkos allocates without the advice; with THP set to "madvise" (the common
// default) only advised memory gets huge pages. GPU memory and other systems are left alone.
#pragma once

#include "core/types.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace fgdd::detail {

// madvise(MADV_HUGEPAGE) on the whole 2 MB pages inside [data, data + bytes); nothing for ranges
// below 4 MB or off Linux. Failures are ignored: the advice only ever saves time.
void advise_huge_pages(void* data, std::size_t bytes) noexcept;

// Arrays this large start on a 2 MB boundary and are advised up to the end of their last 2 MB
// page: Kokkos aligns to 64 bytes only, so the advice above would leave up to 4 MB of each array
// in 4 KB pages (a 6 MB array got about 4 MB of huge pages). The padding costs at most 2 MB of
// resident memory per array, under half of one this large.
inline constexpr std::size_t huge_page_bytes = std::size_t(2) << 20;
inline constexpr std::size_t aligned_huge_threshold = 2 * huge_page_bytes;

// v.reserve(count), its new storage advised as above before anything touches it (host vectors
// that are filled next).
template <class T>
void reserve_advised(std::vector<T>& v, std::size_t count) {
  v.reserve(count);
  advise_huge_pages(v.data(), v.capacity() * sizeof(T));
}

// A device view of count T's, not initialized; in host memory advised as above.
template <class T>
Kokkos::View<T*, DeviceType> uninitialized_view(const std::string& label, std::size_t count) {
  const std::size_t bytes = count * sizeof(T);
  if constexpr (host_memory && huge_page_bytes % sizeof(T) == 0) {
    if (bytes >= aligned_huge_threshold) {
      // One page of slack to reach a boundary, one so the rounded-up end stays inside.
      const std::size_t slack = 2 * huge_page_bytes / sizeof(T);
      Kokkos::View<T*, DeviceType> padded(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, label), count + slack);
      const auto address = reinterpret_cast<std::uintptr_t>(padded.data());
      const std::size_t skip =
          ((huge_page_bytes - address % huge_page_bytes) % huge_page_bytes) / sizeof(T);
      const std::size_t rounded = (bytes + huge_page_bytes - 1) / huge_page_bytes * huge_page_bytes;
      advise_huge_pages(padded.data() + skip, rounded);
      return Kokkos::subview(padded, std::make_pair(skip, skip + count));
    }
  }
  Kokkos::View<T*, DeviceType> view(Kokkos::view_alloc(Kokkos::WithoutInitializing, label),
                                    count);
  if constexpr (host_memory) advise_huge_pages(view.data(), bytes);
  return view;
}

}  // namespace fgdd::detail
