// The lane and team-size rules for every backend's SIMD width, on any machine: 1 (CPU backends),
// 32 (NVIDIA warps) and 64 (AMD wavefronts), so the HIP numbers are checked without an AMD GPU.
#include "catch_compat.hpp"
#include "core/team_size.hpp"

using namespace fgdd;
using namespace fgdd::detail;

TEST_CASE("vector lanes follow the backend's SIMD width", "[core]") {
  CHECK(max_vector_lanes_for(1) == 1);
  CHECK(max_vector_lanes_for(16) == 16);
  CHECK(max_vector_lanes_for(32) == 32);
  CHECK(max_vector_lanes_for(64) == 32);  // two team threads a wavefront
  CHECK(max_vector_lanes() == max_vector_lanes_for(simd_width()));

  // 7-point rows share 3 entries, 27-point rows 13, long rows more than a SIMD group.
  for (const int simd : {32, 64}) {
    CAPTURE(simd);
    CHECK(lanes_covering_for(0, simd) == 1);
    CHECK(lanes_covering_for(3, simd) == 4);
    CHECK(lanes_covering_for(13, simd) == 16);
    CHECK(lanes_covering_for(32, simd) == 32);
    CHECK(lanes_covering_for(1000, simd) == 32);
  }
  CHECK(lanes_covering_for(13, 1) == 1);
}

TEST_CASE("teams round up to whole warps or wavefronts", "[core]") {
  CHECK(whole_simd_groups(40, 32, 1024) == 64);
  CHECK(whole_simd_groups(40, 64, 1024) == 64);
  CHECK(whole_simd_groups(100, 64, 1024) == 128);
  CHECK(whole_simd_groups(64, 64, 1024) == 64);
  CHECK(whole_simd_groups(100, 64, 96) == 96);  // never above what the kernel allows
  CHECK(whole_simd_groups(40, 64, 48) == 40);   // a team smaller than a group stays as asked
  CHECK(whole_simd_groups(40, 1, 1) == 1);      // CPU backends: one thread a team
}

TEST_CASE("resident teams count whole SIMD groups", "[core]") {
  const int h100 = 132 * 2048;  // concurrency of an H100
  CHECK(resident_teams_for(h100, 128, 32) == h100 / 128 / 4);
  CHECK(resident_teams_for(h100, 96, 64) == h100 / 128 / 4);  // 96 threads hold 2 wavefronts
  CHECK(resident_teams_for(h100, 96, 32) == h100 / 96 / 4);
  CHECK(resident_teams_for(2, 1, 1) == 2);  // two CPU threads
  CHECK(resident_teams_for(1, 4096, 64) == 1);
}

TEST_CASE("level kernels take the power of two nearest half a level's mean entries", "[core]") {
  // The suite's mean level widths (entries a level, both triangles) on the GPU partition.
  CHECK(level_team_size_for(55.6, 32) == 64);   // bsr3 96³: at least two warps
  CHECK(level_team_size_for(122.1, 32) == 64);  // lap7 160³ (61 threads wanted)
  CHECK(level_team_size_for(224.1, 32) == 128);  // lap27 100³ (112 wanted)
  CHECK(level_team_size_for(1e6, 32) == 256);     // a cap: barriers of more warps cost more
  CHECK(level_team_size_for(0, 32) == 64);
  CHECK(level_team_size_for(224.1, 64) == 128);  // two wavefronts
  CHECK(level_team_size_for(600, 64) == 256);
  CHECK(level_team_size_for(224.1, 1) == 0);  // CPU backends: Kokkos chooses
}

TEST_CASE("the sliced vertex kernel takes whole SIMD groups covering a level's mean rows",
          "[core]") {
  CHECK(row_team_size_for(44.0, 32) == 64);  // lap7 160³: about 44 rows a level
  CHECK(row_team_size_for(21.0, 32) == 32);  // lap27 100³, bsr3 96³: one warp
  CHECK(row_team_size_for(64.0, 32) == 64);  // exactly covered: no extra warp
  CHECK(row_team_size_for(0, 32) == 32);
  CHECK(row_team_size_for(1e6, 32) == 256);  // a cap, as for the ordered kernel
  CHECK(row_team_size_for(21.0, 64) == 64);  // a whole wavefront
  CHECK(row_team_size_for(44.0, 1) == 0);    // CPU backends: Kokkos chooses
}

TEST_CASE("level kernels take 128 threads when few subdomains leave the device idle", "[core]") {
  const std::int64_t h200 = 132 * 2048;  // concurrency of an H200 (and an H100)
  const auto threads = [&](double mean, int simd, std::int64_t subdomains, std::int64_t slots) {
    return level_launch_for(mean, simd, subdomains, slots, true).threads;
  };
  const auto capped = [&](double mean, std::int64_t subdomains, bool scalar) {
    return level_launch_for(mean, 32, subdomains, h200, scalar).capped_registers;
  };
  // The subdomain counts and mean level widths measured on an H200 (default partition).
  CHECK(threads(120.8, 32, 700, h200) == 128);  // lap7 and convdiff 100³
  CHECK(threads(87.9, 32, 616, h200) == 128);   // lap27 64³
  CHECK(threads(121.1, 32, 800, h200) == 128);  // the reservoir: 6.06 an SM ...
  CHECK(capped(121.1, 800, true));              // ... so its registers are capped for 7
  CHECK(threads(89.4, 32, 837, h200) == 128);   // the same, multilevel partition
  CHECK(capped(89.4, 837, true));
  CHECK(threads(122.1, 32, 2816, h200) == 64);  // lap7 160³
  CHECK(threads(117.8, 32, 1521, h200) == 64);  // convdiff 128³
  CHECK(threads(224.1, 32, 700, h200) == 128);  // lap27 100³: 256 was slower
  CHECK_FALSE(capped(224.1, 700, true));        // ... and needs no cap for 128
  CHECK(threads(52.7, 32, 616, h200) == 64);    // a level fits 64 threads already
  CHECK(threads(29.5, 32, 10, h200) == 64);
  CHECK_FALSE(capped(120.8, 700, true));  // 6 an SM fit uncapped: the cap would cost 4-5 %
  // 6 teams of 128 an SM uncapped, 7 capped (scalar blocks only), bounds inclusive.
  CHECK(threads(120.8, 32, 132 * 6, h200) == 128);
  CHECK_FALSE(capped(120.8, 132 * 6, true));
  CHECK(capped(120.8, 132 * 6 + 1, true));
  CHECK(capped(120.8, 132 * 7, true));
  CHECK(threads(120.8, 32, 132 * 7 + 1, h200) == 64);
  CHECK_FALSE(capped(120.8, 132 * 7 + 1, true));
  CHECK(level_launch_for(120.8, 32, 800, h200, false).threads == 64);  // blocks: not measured
  CHECK_FALSE(capped(120.8, 800, false));
  // Never above 128 from the subdomain count; CPUs leave it to Kokkos.
  CHECK(threads(1e6, 32, 1, h200) == 256);
  CHECK(threads(180, 32, 1, h200) == 128);
  CHECK(threads(120.8, 64, 700, h200) == 128);  // two wavefronts already
  CHECK(threads(120.8, 1, 1, 2) == 0);
  CHECK_FALSE(level_launch_for(120.8, 1, 1, 2, true).capped_registers);
}
