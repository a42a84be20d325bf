// The structured ILU's level-counter launch (struct_schedules.hpp) on its own, with a probe
// kernel: every chunk is counted once per level however many vector lanes a point has, and a
// point starts only after every point of the level before it in sweep order. Counting once per
// lane advanced the counter early on GPUs (box27's factorization runs 16 lanes); the counts
// expose that on every run, the order checks when the timing does.
#include "catch_compat.hpp"
#include "core/host_copy.hpp"
#include "struct/struct_schedules.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <numeric>
#include <vector>

using namespace fgdd;

namespace {

// Marks its point done after checking that every point of the step before it (in sweep order)
// is: the launch's data.points lists the points level by level, step_ptr delimits the steps.
struct OrderProbe {
  detail::StructData data;  // the launch reads points and lanes only
  Kokkos::View<Ordinal*, DeviceType> step_of, step_ptr;
  Kokkos::View<int*, DeviceType> done;
  Kokkos::View<int, DeviceType> early;  // points that found one of the step before not done
  Ordinal num_steps = 0;
  bool reverse = false;

  KOKKOS_INLINE_FUNCTION detail::StructSite site(Offset p) const {
    return detail::StructSite::grid_order(p, 0, 0, 0);
  }
  KOKKOS_INLINE_FUNCTION void point(const detail::TeamMember& member,
                                    const detail::StructSite& s) const {
    Kokkos::single(Kokkos::PerThread(member), [&]() {
      const Ordinal before = reverse ? step_of(s.p) + 1 : step_of(s.p) - 1;
      if (before >= 0 && before < num_steps)
        for (Ordinal k = step_ptr(before); k < step_ptr(before + 1); ++k)
          if (detail::atomic_load(&done(data.points(k))) == 0) Kokkos::atomic_add(&early(), 1);
      Kokkos::memory_fence();
      detail::atomic_store(&done(s.p), 1);
    });
  }
};

}  // namespace

TEST_CASE("struct level-counter launch: a chunk counts once, levels run in order", "[struct]") {
  // Levels of 1 to 300 points and empty ones, in chunks of 64: single-chunk levels, levels
  // one point past a chunk, and more chunks per level than a level has teams waiting.
  std::vector<Ordinal> level_sizes;
  for (int l = 0; l < 61; ++l) level_sizes.push_back(l % 7 == 3 ? 0 : (l * 37) % 300 + 1);
  level_sizes.push_back(65);
  std::vector<Ordinal> level_ptr{0}, step_ptr{0}, step_of;
  for (const Ordinal size : level_sizes) {
    level_ptr.push_back(level_ptr.back() + size);
    if (size == 0) continue;
    step_of.insert(step_of.end(), std::size_t(size), Ordinal(step_ptr.size()) - 1);
    step_ptr.push_back(level_ptr.back());
  }
  const Ordinal n = level_ptr.back(), num_steps = Ordinal(step_ptr.size()) - 1;
  // Points stored in a shuffled order, so a point's number says nothing of its level.
  std::vector<Ordinal> points(static_cast<std::size_t>(n)), step_of_point(points.size());
  for (Ordinal k = 0; k < n; ++k) points[std::size_t(k)] = (k * 7919) % n;
  for (Ordinal k = 0; k < n; ++k) step_of_point[std::size_t(points[std::size_t(k)])] = step_of[k];
  std::vector<Ordinal> sorted = points, identity(points.size());
  std::sort(sorted.begin(), sorted.end());
  std::iota(identity.begin(), identity.end(), Ordinal(0));
  REQUIRE(sorted == identity);

  const int lanes_max = Kokkos::TeamPolicy<ExecSpace>::vector_length_max();
  for (const int lanes : {1, std::min(16, lanes_max), std::min(32, lanes_max)})
    for (const bool reverse : {false, true}) {
      INFO("lanes " << lanes << (reverse ? ", reverse" : ""));
      detail::StructSyncState state;
      detail::make_level_chunks(level_ptr, state);
      OrderProbe probe;
      probe.data.lanes = lanes;
      probe.data.points = detail::to_device(points, "points");
      probe.step_of = detail::to_device(step_of_point, "step_of");
      probe.step_ptr = detail::to_device(step_ptr, "step_ptr");
      probe.done = Kokkos::View<int*, DeviceType>("done", std::size_t(n));
      probe.early = Kokkos::View<int, DeviceType>("early");
      probe.num_steps = num_steps;
      probe.reverse = reverse;
      for (int repeat = 0; repeat < 3; ++repeat) {
        Kokkos::deep_copy(probe.done, 0);
        detail::launch_counters(ExecSpace(), "test::counter_launch", probe, state, reverse);
        const auto step_done = detail::to_host_vector(state.step_done);
        const auto step_chunks = detail::to_host_vector(state.step_chunks);
        CHECK(step_done == step_chunks);
        Ordinal levels_done = 0;
        Kokkos::deep_copy(levels_done, state.levels_done);
        CHECK(levels_done == num_steps);
        int early = 0;
        Kokkos::deep_copy(early, probe.early);
        CHECK(early == 0);
        const auto done = detail::to_host_vector(probe.done);
        CHECK(std::count(done.begin(), done.end(), 1) == n);
      }
    }
}
