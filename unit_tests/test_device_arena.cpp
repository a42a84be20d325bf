// DeviceArena: views taken from it are aligned, disjoint and hold what is written into them;
// requests of a chunk or more get chunks of their own, the rest share chunks.
#include "catch_compat.hpp"
#include "core/device_arena.hpp"
#include "core/host_copy.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

using namespace fgdd;

TEST_CASE("DeviceArena hands out disjoint aligned views that keep their contents", "[core]") {
  constexpr std::size_t chunk_bytes = 4096;
  detail::DeviceArena arena("test_arena", chunk_bytes);
  // Small, empty, chunk-sized and larger requests, interleaved.
  const std::vector<std::size_t> counts{1, 0, 100, 1024, 3, 5000, 77, 1023, 2, 0, 600};
  std::vector<Kokkos::View<Ordinal*, DeviceType>> views;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    views.push_back(arena.take<Ordinal>(counts[i]));
    const auto view = views.back();
    REQUIRE(view.extent(0) == counts[i]);
    CHECK(reinterpret_cast<std::uintptr_t>(view.data()) % 64 == 0);
    const Ordinal tag = Ordinal(1000 * i);
    Kokkos::parallel_for(
        "test_arena_fill", Kokkos::RangePolicy<ExecSpace>(0, Ordinal(counts[i])),
        KOKKOS_LAMBDA(const Ordinal k) { view(k) = tag + k; });
  }
  // Every view still holds its own values after all were written: no two overlap.
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> ranges;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    const auto host = detail::to_host_vector(views[i]);
    for (std::size_t k = 0; k < host.size(); ++k) REQUIRE(host[k] == Ordinal(1000 * i + k));
    const auto begin = reinterpret_cast<std::uintptr_t>(views[i].data());
    if (counts[i] > 0) ranges.emplace_back(begin, begin + counts[i] * sizeof(Ordinal));
  }
  std::sort(ranges.begin(), ranges.end());
  for (std::size_t i = 1; i < ranges.size(); ++i) CHECK(ranges[i - 1].second <= ranges[i].first);
  // Requests are rounded up to 256 bytes: 1024, 5000 and 1023 Ordinals (4096, 20224 and 4096
  // bytes) reach a chunk and get chunks of their own; the others take 256 + 512 + 256 + 512 +
  // 256 bytes of a shared chunk, and the last (2560 bytes) opens a second one.
  static_assert(sizeof(Ordinal) == 4);
  CHECK(arena.reserved_bytes() == 4096 + 20224 + 4096 + 2 * chunk_bytes);
}

TEST_CASE("take_or_allocate allocates a view of its own without an arena", "[core]") {
  const auto view = detail::take_or_allocate<Offset>(nullptr, "test_own", 17);
  CHECK(view.extent(0) == 17);
  CHECK(view.label() == "test_own");
}
