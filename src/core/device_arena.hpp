// Arrays that live and die together (the coarse graphs of a multilevel hierarchy) carved out of
// a few large allocations: on GPUs every allocation and every free waits for the device.
#pragma once

#include "core/huge_pages.hpp"
#include "core/types.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace fgdd::detail {

class DeviceArena {
 public:
  // New chunks hold at least chunk_bytes; label names their allocations.
  DeviceArena(std::string label, std::size_t chunk_bytes);
  DeviceArena(const DeviceArena&) = delete;
  DeviceArena& operator=(const DeviceArena&) = delete;

  // count uninitialized T's, aligned for any T, valid while the arena lives (the view does not
  // keep it alive).
  template <class T>
  Kokkos::View<T*, DeviceType> take(std::size_t count) {
    return Kokkos::View<T*, DeviceType>(reinterpret_cast<T*>(take_bytes(count * sizeof(T))), count);
  }

  std::size_t reserved_bytes() const;

 private:
  char* take_bytes(std::size_t bytes);

  std::string label_;
  std::size_t chunk_bytes_;
  std::vector<Kokkos::View<char*, DeviceType>> chunks_;
  char* open_ = nullptr;  // the chunk small requests are cut from
  std::size_t used_ = 0;  // bytes taken from it
};

// From the arena when there is one, else an allocation of its own named label.
template <class T>
Kokkos::View<T*, DeviceType> take_or_allocate(DeviceArena* arena, const std::string& label,
                                              std::size_t count) {
  return arena ? arena->take<T>(count) : uninitialized_view<T>(label, count);
}

}  // namespace fgdd::detail
