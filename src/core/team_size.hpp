// Team sizes and vector lanes for team launches: the backend's limit for a functor, the CPU rule
// for teams whose threads work independently, and the lane rules, which follow the backend's
// SIMD width (32 on NVIDIA, 64 on AMD, 1 on CPUs) instead of assuming a warp of 32.
#pragma once

#include "core/types.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace fgdd::detail {

// `wanted` threads of `lanes` vector lanes each, at most what the backend allows for the functor
// with team_scratch bytes of level-0 scratch a team (and at least one).
template <class Functor>
int team_size_within(const ExecSpace& space, const Functor& functor, int lanes, int wanted,
                     std::size_t team_scratch = 0) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  Policy policy(space, 1, 1, lanes);
  if (team_scratch > 0) policy.set_scratch_size(0, Kokkos::PerTeam(team_scratch));
  const int allowed = policy.team_size_max(functor, Kokkos::ParallelForTag());
  return std::max(1, std::min(allowed, wanted));
}

// Threads per team for a launch whose team threads work independently (a row or a point each,
// no team barrier between them; a team may still share a ticket): team_size_within on GPUs, one
// thread per team on CPU backends. Kokkos' OpenMP teams meet at a rendezvous between league
// ranks, and that costs more than a row's work: with two-thread teams, the OpenMP level-by-level
// structured sweeps ran far slower than Serial
// (measured: docs/PERFORMANCE_HISTORY.md, "Measurements behind code choices").
template <class Functor>
int independent_team_size(const ExecSpace& space, const Functor& functor, int lanes, int wanted) {
  return host_memory ? 1 : team_size_within(space, functor, lanes, wanted);
}

// The backend's SIMD width, as Kokkos reports it (the most vector lanes a team thread may have):
// 32 on NVIDIA GPUs (a warp), 64 on AMD GPUs (a wavefront), 1 on CPU backends.
inline int simd_width() { return Kokkos::TeamPolicy<ExecSpace>::vector_length_max(); }

// The rules below take the SIMD width as an argument, so that tests run them for every backend's
// width on any machine (unit_tests/test_team_size.cpp); the functions without it ask the backend.

// The most vector lanes fgdd gives one row or point: 32, or fewer where the SIMD width is
// smaller (CPU backends run lanes as a loop). 32 also on AMD's 64-wide wavefronts: rows rarely
// have more than 32 entries to share, and a wavefront then holds two team threads.
constexpr int max_vector_lanes_for(int simd) { return simd < 32 ? (simd < 1 ? 1 : simd) : 32; }
inline int max_vector_lanes() { return max_vector_lanes_for(simd_width()); }

// Lanes for `items` pieces of work that one row or point shares out: the smallest power of two
// covering them, at most max_vector_lanes_for(simd).
constexpr int lanes_covering_for(Offset items, int simd) {
  const int most = max_vector_lanes_for(simd);
  int lanes = 1;
  while (lanes < most && Offset(lanes) < items) lanes *= 2;
  return lanes;
}
inline int lanes_covering(Offset items) { return lanes_covering_for(items, simd_width()); }

// `threads` rounded up to whole SIMD groups (warps or wavefronts) when a team may hold one, never
// above team_max: a team of 40 threads would otherwise leave most of its last group idle.
constexpr int whole_simd_groups(int threads, int simd, int team_max) {
  if (simd > 1 && team_max >= simd) threads = (threads + simd - 1) / simd * simd;
  return threads < team_max ? threads : team_max;
}

// How many teams of `threads` threads (vector lanes included) the device likely holds at once,
// for persistent teams that take work by ticket: its thread slots over a team's (whole SIMD
// groups on GPUs, where registers typically leave a quarter of the slots usable), at least one.
constexpr int resident_teams_for(int concurrency, int threads, int simd) {
  const int group = simd < 1 ? 1 : simd;
  const int slots = (threads + group - 1) / group * group;
  const int teams = concurrency / slots / (group > 1 ? 4 : 1);
  return teams > 1 ? teams : 1;
}
inline int resident_teams(const ExecSpace& space, int threads) {
  return resident_teams_for(space.concurrency(), threads, simd_width());
}

// Threads per team for the ordered level kernels (threads over a level's entries, then one per
// row) on GPUs: the power of two nearest half a level's mean entries, so a level takes about two
// passes, from two SIMD groups to 256 threads. Each level ends at team barriers, which cost more
// with more warps. On an H200 this picked the fastest of 32/64/128/256 threads on all five suite
// matrices (64 for 56-122 entries a level, 128 for lap27's 224; docs/PERFORMANCE.md), where
// Kokkos' choice (128) was up to 1.3x slower, on an H100 as well. (The vertex kernel preferred
// 64 on the H200 but 128 on two matrices on the H100, so it keeps Kokkos' choice.)
// 0 (Kokkos chooses) on CPU backends, whose team threads are few.
constexpr int level_team_size_for(double mean_level_entries, int simd) {
  if (simd <= 1) return 0;
  int threads = 2 * simd;
  // Next power of two while it is nearer (in ratio) to half the mean: threads·√2 below it.
  while (threads < 256 && threads * 1.41421356 < mean_level_entries / 2) threads *= 2;
  return threads;
}
// How the ordered level kernels launch on GPUs: threads a team, and whether the kernel is
// compiled for at least `capped_level_teams_per_sm` teams of 128 an SM (registers capped).
struct LevelLaunch {
  int threads = 0;  // 0: Kokkos chooses
  bool capped_registers = false;
};

// Teams of 128 threads an SM of 2,048 thread slots holds with the ordered kernel: 6 with its 80
// registers a thread (scalar blocks, CUDA 13, sm_90), 7 when it is compiled for 7 (72
// registers). Capped for 8 (64 registers) it ran 1.7-2.7x slower (H200).
inline constexpr int level_teams_per_sm = 6;
inline constexpr int capped_level_teams_per_sm = 7;
// Teams of 64 an SM that the ordered kernel's 80 registers (scalar blocks) allow, as its scratch
// for a 1,500-row subdomain does: the build that loads two entries ahead is compiled for them
// so that it keeps this occupancy (it needed no more registers on an H100).
inline constexpr int held_level_teams_per_sm = 12;

// level_team_size_for, but 128 threads where the mean level has more entries than 64 and the
// teams would still all be resident at once: 6 teams of 128 an SM (3/8 of the device's thread
// slots), or 7 with the registers capped, for scalar blocks (`scalar`; other block sizes were
// not measured capped). With so few teams nothing on an SM hides the latency of a thread's
// second entry of a level, which it loads only after its first, on the level-to-level path. On
// an H200, 616-700 subdomains ran 1.18-1.41x faster at 128 than at 64 (lap7 and convdiff 100³,
// lap27 64³); the SPE10-size reservoir's 800 (6.06 an SM) ran 1.1-1.2x slower at 128 (a second
// wave) and 1.27x faster than at 64 with the registers capped; the cap costs 4-5 % where 6 an
// SM suffice, so it is used only between 6 and 7. 256 was slower wherever measured
// (docs/PERFORMANCE.md).
constexpr LevelLaunch level_launch_for(double mean_level_entries, int simd, std::int64_t subdomains,
                                       std::int64_t concurrency, bool scalar) {
  const int two_passes = level_team_size_for(mean_level_entries, simd);
  if (two_passes == 0 || two_passes >= 128 || mean_level_entries <= two_passes)
    return {two_passes, false};
  // slots_wanted <= t · concurrency: at most t teams of 128 an SM of 2,048 slots (16 · 128).
  const std::int64_t slots_wanted = 16 * subdomains * 128;
  if (slots_wanted <= level_teams_per_sm * concurrency) return {128, false};
  if (scalar && slots_wanted <= capped_level_teams_per_sm * concurrency) return {128, true};
  return {two_passes, false};
}
inline LevelLaunch level_launch(double mean_level_entries, std::int64_t subdomains, bool scalar) {
  return level_launch_for(mean_level_entries, simd_width(), subdomains, ExecSpace().concurrency(),
                          scalar);
}

// Threads per team for the sliced vertex kernel (a thread per row of a level) on GPUs: the
// smallest power of two of whole SIMD groups that covers a level's mean rows, at most 256, so a
// typical level takes one pass and few threads idle at its barrier. 0 on CPU backends.
constexpr int row_team_size_for(double mean_level_rows, int simd) {
  if (simd <= 1) return 0;
  int threads = simd;
  while (threads < 256 && threads < mean_level_rows) threads *= 2;
  return threads;
}
inline int row_team_size(double mean_level_rows) {
  return row_team_size_for(mean_level_rows, simd_width());
}

}  // namespace fgdd::detail
