// The searches among a row's sorted columns against a plain scan, on the device.
#include "catch_compat.hpp"
#include "core/find_in_row.hpp"

#include <iterator>
#include <random>
#include <vector>

using namespace fgdd;

TEST_CASE("run_within: the columns of a sorted range inside [low, high)", "[core]") {
  // Ranges of 0 to 40 ascending columns (gaps, a repeated start), and bounds below, inside,
  // above and on their columns: whole rows (no search), rows cut at one end, at both, or empty.
  std::mt19937 random(17u);
  std::vector<Ordinal> cols;
  std::vector<Offset> starts{0};
  for (int range = 0; range < 60; ++range) {
    const int length = range % 41;
    Ordinal column = Ordinal(random() % 50);
    for (int k = 0; k < length; ++k) {
      cols.push_back(column);
      column += 1 + Ordinal(random() % 4);
    }
    starts.push_back(Offset(cols.size()));
  }
  Kokkos::View<Ordinal*, Kokkos::HostSpace> host_cols("cols", cols.size());
  for (std::size_t k = 0; k < cols.size(); ++k) host_cols(k) = cols[k];
  const auto device_cols =
      Kokkos::create_mirror_view_and_copy(DeviceType::memory_space(), host_cols);
  const Ordinal bounds[] = {-1, 0, 3, 17, 40, 41, 90, 200, 1000};
  const int num_bounds = int(std::size(bounds));
  const int num_ranges = int(starts.size()) - 1;
  const int cases = num_ranges * num_bounds * num_bounds;
  Kokkos::View<Offset*, DeviceType> firsts("firsts", cases), lasts("lasts", cases);
  Kokkos::View<Offset*, Kokkos::HostSpace> host_starts("starts", starts.size());
  Kokkos::View<Ordinal*, Kokkos::HostSpace> host_bounds("bounds", num_bounds);
  for (std::size_t r = 0; r < starts.size(); ++r) host_starts(r) = starts[r];
  for (int b = 0; b < num_bounds; ++b) host_bounds(b) = bounds[b];
  const auto device_starts =
      Kokkos::create_mirror_view_and_copy(DeviceType::memory_space(), host_starts);
  const auto device_bounds =
      Kokkos::create_mirror_view_and_copy(DeviceType::memory_space(), host_bounds);
  Kokkos::parallel_for(
      "test::run_within", Kokkos::RangePolicy<ExecSpace>(0, cases), KOKKOS_LAMBDA(const int c) {
        const int range = c / (num_bounds * num_bounds);
        const Ordinal low = device_bounds((c / num_bounds) % num_bounds);
        const Ordinal high = device_bounds(c % num_bounds);
        Offset first = 0, last = 0;
        detail::run_within(device_cols, device_starts(range), device_starts(range + 1), low, high,
                           first, last);
        firsts(c) = first;
        lasts(c) = last;
      });
  const auto got_first = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), firsts);
  const auto got_last = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), lasts);
  for (int c = 0; c < cases; ++c) {
    const int range = c / (num_bounds * num_bounds);
    const Ordinal low = bounds[(c / num_bounds) % num_bounds], high = bounds[c % num_bounds];
    CAPTURE(range, low, high);
    // The scan: the first column not below low, then the first not below high after it.
    Offset first = starts[range];
    while (first < starts[range + 1] && cols[first] < low) ++first;
    Offset last = first;
    while (last < starts[range + 1] && cols[last] < high) ++last;
    CHECK(got_first(c) == first);
    CHECK(got_last(c) == last);
  }
}
