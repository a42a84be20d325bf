// The peak-memory tracker of the benchmarks: views of known size, alive together or one after
// the other, give the peak they must, with their labels.
#include "catch_compat.hpp"

#include "memory_tracker.hpp"

#include "core/types.hpp"

#include <Kokkos_Core.hpp>

#include <stdexcept>

using fgdd::bench::PeakMemoryTracker;

namespace {

// What Kokkos may report beyond the data per allocation: 3.4 includes its allocation header
// (128 bytes) and rounding; 4.x reports the data alone.
constexpr std::size_t slack = 512;

}  // namespace

TEST_CASE("the tracker's peak is the largest sum of views alive together", "[bench][memory]") {
  PeakMemoryTracker tracker;
  const std::size_t before = tracker.live_bytes();

  SECTION("two views alive together") {
    tracker.start_phase();
    {
      fgdd::Vector a("fgdd::test::a", 1000);
      fgdd::Vector b("fgdd::test::b", 3000);
      CHECK(tracker.live_bytes() - before >= 4000 * sizeof(double));
    }
    const std::size_t peak = tracker.phase_peak_bytes() - before;
    CHECK(peak >= 4000 * sizeof(double));
    CHECK(peak <= 4000 * sizeof(double) + 2 * slack);
    CHECK(tracker.live_bytes() == before);

    const auto labels = tracker.phase_peak_labels();
    REQUIRE(labels.size() >= 2);
    CHECK(labels[0].label == "fgdd::test::b");
    CHECK(labels[0].bytes >= 3000 * sizeof(double));
    CHECK(labels[1].label == "fgdd::test::a");
    CHECK(labels[1].bytes <= 1000 * sizeof(double) + slack);
  }

  SECTION("views one after the other: the larger one alone, with its label") {
    tracker.start_phase();
    { fgdd::Vector c("fgdd::test::c", 2000); }
    { fgdd::Vector d("fgdd::test::d", 1000); }
    const std::size_t peak = tracker.phase_peak_bytes() - before;
    CHECK(peak >= 2000 * sizeof(double));
    CHECK(peak <= 2000 * sizeof(double) + slack);
    const auto labels = tracker.phase_peak_labels();
    REQUIRE(!labels.empty());
    CHECK(labels[0].label == "fgdd::test::c");
  }

  SECTION("a new phase starts from what is alive, not from the old peak") {
    fgdd::Vector kept("fgdd::test::kept", 500);
    { fgdd::Vector big("fgdd::test::big", 5000); }
    tracker.start_phase();
    CHECK(tracker.phase_peak_bytes() == tracker.live_bytes());
    { fgdd::Vector small("fgdd::test::small", 100); }
    const std::size_t peak = tracker.phase_peak_bytes() - before;
    CHECK(peak >= 600 * sizeof(double));
    CHECK(peak <= 600 * sizeof(double) + 2 * slack);
  }

  SECTION("host mirrors of a device memory space do not count") {
    if constexpr (!std::is_same_v<fgdd::MemSpace, Kokkos::HostSpace>) {
      tracker.start_phase();
      { Kokkos::View<double*, Kokkos::HostSpace> host("fgdd::test::host", 4000); }
      CHECK(tracker.phase_peak_bytes() == before);
    }
  }
}

TEST_CASE("only one tracker at a time", "[bench][memory]") {
  PeakMemoryTracker tracker;
  CHECK_THROWS_AS(PeakMemoryTracker(), std::logic_error);
}
