// What the persistent-tiles wavefront (structilu-structured-grid.txt §4.1; struct_schedules.hpp)
// costs in synchronization alone: a 7-point lower sweep of an N³ grid with a constant coupling,
// no matrix, timed under each way a tile can publish and wait on its progress. One JSON line.
//
// A team owns a U×V tile of (x, y) columns and walks its levels l = x + y + z; before a level it
// waits until the tiles to its left and below have finished the level before, after it it
// publishes its own progress. Protocols: "fences" (every thread fences before the level's closing
// barrier, the progress is stored relaxed, the waiting threads spin on relaxed loads and fence),
// "acquire_release" (a barrier, then one release store; acquire loads in the spin), and
// "no_wait" (no waits: a lower bound whose answer is wrong and not checked). fgdd's tiles launch
// uses acquire_release where it measured faster (struct_kernels.hpp, acquire_release_progress).
#include "core/errors.hpp"
#include "core/host_copy.hpp"
#include "core/kokkos_compat.hpp"
#include "core/team_size.hpp"
#include "struct/tile_mapping.hpp"

#include "bench_common.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

namespace {

using namespace fgdd;
using detail::acquire_load;
using detail::atomic_load;
using detail::atomic_store;
using detail::release_store;

constexpr double coupling = 0.1;  // z_p −= coupling · (z_{x−1} + z_{y−1} + z_{z−1})

enum class Protocol { Fences, AcquireRelease, NoWait };

struct Options {
  int n = 128;
  int tile_u = 0, tile_v = 0;  // 0: 32×4 where a team holds 128 threads, else 1×1
  int repeats = 10;
  int warmup = 2;
};

struct TileGrid {
  int n = 0, u = 1, v = 1, tiles_u = 0, tiles_v = 0;
  int num_tiles() const { return tiles_u * tiles_v; }
};

template <Protocol P>
struct TileSweep {
  static constexpr int done_key = std::numeric_limits<int>::max();
  Kokkos::View<double*, DeviceType> z;
  Kokkos::View<int*, DeviceType> progress, first, last, order;
  Kokkos::View<int, DeviceType> tickets;
  int n = 0, u = 1, v = 1, tiles_u = 0, tiles_v = 0;

  using Member = Kokkos::TeamPolicy<ExecSpace>::member_type;

  // Thread k + 1 < 4 of the team waits on neighbour tile k + 1 of (left, below, both); ready
  // caches the progress it last saw, so most levels cost it no load.
  KOKKOS_INLINE_FUNCTION void wait_for(const Member& member, int tu, int tv, int key,
                                       int& ready) const {
    if (P == Protocol::NoWait || ready >= key) return;
    ready = done_key;
    for (int k = member.team_rank() + 1; k < 4; k += member.team_size()) {
      const int nu = tu - k / 2, nv = tv - k % 2;
      if (nu < 0 || nv < 0) continue;
      int* const flag = &progress(nu * tiles_v + nv);
      int seen;
      if (P == Protocol::AcquireRelease) {
        while ((seen = acquire_load(flag)) < key) {
        }
      } else {
        while ((seen = atomic_load(flag)) < key) {
        }
      }
      if (seen < ready) ready = seen;
    }
    if (P == Protocol::Fences) Kokkos::memory_fence();
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& member) const {
    for (;;) {
      int ticket = 0;
      Kokkos::single(
          Kokkos::PerTeam(member), [&](int& t) { t = Kokkos::atomic_fetch_add(&tickets(), 1); },
          ticket);
      if (ticket >= tiles_u * tiles_v) return;
      run_tile(member, order(ticket));
    }
  }

  KOKKOS_INLINE_FUNCTION void run_tile(const Member& member, int tile) const {
    const int tu = tile / tiles_v, tv = tile % tiles_v;
    const long long plane = (long long)n * n;
    int ready = -1;
    for (int level = first(tile); level <= last(tile); ++level) {
      wait_for(member, tu, tv, level, ready);
      member.team_barrier();
      for (int c = member.team_rank(); c < u * v; c += member.team_size()) {
        const int x = tu * u + c % u, y = tv * v + c / u, zz = level - x - y;
        if (x >= n || y >= n || zz < 0 || zz >= n) continue;
        const long long p = x + (long long)n * y + plane * zz;
        // Volatile loads: another team's values, never a stale L1 line.
        const auto other = [&](long long q) { return *(const volatile double*)&z(q); };
        const double left = x > 0 ? other(p - 1) : 0, below = y > 0 ? other(p - n) : 0;
        const double back = zz > 0 ? other(p - plane) : 0;
        z(p) = z(p) - coupling * left - coupling * below - coupling * back;
      }
      const int next = level == last(tile) ? done_key : level + 1;
      if (P == Protocol::AcquireRelease) {
        member.team_barrier();  // orders every thread's writes before the release
        if (member.team_rank() == 0) release_store(&progress(tile), next);
      } else {
        Kokkos::memory_fence();
        member.team_barrier();
        if (member.team_rank() == 0) atomic_store(&progress(tile), next);
      }
    }
    member.team_barrier();  // the whole team leaves the tile before it takes the next ticket
  }
};

// The same sweep, serial, in grid order (every dependency comes earlier).
std::vector<double> reference_sweep(int n) {
  const long long plane = (long long)n * n;
  std::vector<double> z(std::size_t(plane * n), 1.0);
  for (int zz = 0; zz < n; ++zz)
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        const long long p = x + (long long)n * y + plane * zz;
        const double left = x > 0 ? z[p - 1] : 0, below = y > 0 ? z[p - n] : 0;
        const double back = zz > 0 ? z[p - plane] : 0;
        z[p] = z[p] - coupling * left - coupling * below - coupling * back;
      }
  return z;
}

int team_size_max() {
  TileSweep<Protocol::Fences> probe;
  return Kokkos::TeamPolicy<ExecSpace>(1, 1).team_size_max(probe, Kokkos::ParallelForTag());
}

struct Result {
  bench::Timing timing;
  double max_error = 0;
};

template <Protocol P>
Result run(const TileGrid& grid, const Options& options, const std::vector<double>& reference) {
  TileSweep<P> sweep;
  sweep.n = grid.n;
  sweep.u = grid.u;
  sweep.v = grid.v;
  sweep.tiles_u = grid.tiles_u;
  sweep.tiles_v = grid.tiles_v;
  std::vector<int> first(grid.num_tiles()), last(grid.num_tiles());
  for (int tu = 0; tu < grid.tiles_u; ++tu)
    for (int tv = 0; tv < grid.tiles_v; ++tv) {
      const int x_last = std::min(grid.n, (tu + 1) * grid.u) - 1;
      const int y_last = std::min(grid.n, (tv + 1) * grid.v) - 1;
      first[tu * grid.tiles_v + tv] = tu * grid.u + tv * grid.v;
      last[tu * grid.tiles_v + tv] = x_last + y_last + grid.n - 1;
    }
  sweep.first = detail::to_device(first, "fgdd::tile_sync_bench::first");
  sweep.last = detail::to_device(last, "fgdd::tile_sync_bench::last");
  sweep.order = detail::to_device(tile_ticket_order(grid.tiles_u, grid.tiles_v),
                                  "fgdd::tile_sync_bench::order");
  sweep.progress =
      Kokkos::View<int*, DeviceType>("fgdd::tile_sync_bench::progress", grid.num_tiles());
  sweep.tickets = Kokkos::View<int, DeviceType>("fgdd::tile_sync_bench::tickets");
  sweep.z = Kokkos::View<double*, DeviceType>("fgdd::tile_sync_bench::z", reference.size());

  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  const ExecSpace space;
  const int team = grid.u * grid.v;
  // As many persistent teams as the device likely holds at once, in the tickets' order.
  const int league = std::min(grid.num_tiles(), detail::resident_teams(space, team));
  const auto run_once = [&]() {
    Kokkos::deep_copy(space, sweep.z, 1.0);
    Kokkos::deep_copy(space, sweep.tickets, 0);
    Kokkos::deep_copy(space, sweep.progress, sweep.first);  // each tile at its first level
    Kokkos::parallel_for("fgdd::tile_sync_bench::sweep", Policy(space, league, team), sweep);
  };
  // Each timed run includes its resets: a fill of z (N³ values) and two small copies, a few µs
  // on GPUs against a sweep of ~1 ms at 128³.
  Result result;
  result.timing = bench::time_it(space, options.warmup, options.repeats, run_once);
  const auto z = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sweep.z);
  for (std::size_t i = 0; i < reference.size(); ++i)
    result.max_error = std::max(result.max_error, std::fabs(z(i) - reference[i]));
  return result;
}

int parse_positive(const std::string& text, const std::string& flag) {
  char* end = nullptr;
  const long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || value < 1 || value > 1 << 20)
    throw bench::UsageError(flag + " takes a positive integer, got '" + text + "'");
  return int(value);
}

Options parse_options(int argc, char* argv[]) {
  Options options;
  bench::CommandLine("fgdd_tile_sync_bench",
                     "The tiles wavefront's synchronization alone, under each progress protocol.")
      .custom("--grid", "N", std::to_string(options.n), "grid edge (N^3 points)",
              [&](const std::string& text) { options.n = parse_positive(text, "--grid"); })
      .custom("--tile", "UxV", "32x4 where a team holds 128 threads, else 1x1", "a team's tile",
              [&](const std::string& text) {
                const auto x = text.find('x');
                if (x == std::string::npos)
                  throw bench::UsageError("--tile takes UxV, got '" + text + "'");
                options.tile_u = parse_positive(text.substr(0, x), "--tile");
                options.tile_v = parse_positive(text.substr(x + 1), "--tile");
              })
      .custom("--repeats", "R", std::to_string(options.repeats), "timed runs",
              [&](const std::string& text) { options.repeats = parse_positive(text, "--repeats"); })
      .custom("--warmup", "W", std::to_string(options.warmup), "untimed runs before them",
              [&](const std::string& text) {
                options.warmup = text == "0" ? 0 : parse_positive(text, "--warmup");
              })
      .parse(argc, argv);
  return options;
}

bench::JsonObject result_json(const Result& r, int levels, double tolerance, bool checked) {
  bench::JsonObject json;
  json.add("min_s", r.timing.min, bench::scientific(6))
      .add("median_s", r.timing.median, bench::scientific(6))
      .add("us_per_level", r.timing.min * 1e6 / levels, bench::fixed(3))
      .add("max_error", r.max_error, bench::scientific(3));
  if (checked) json.add("verified", r.max_error <= tolerance);
  return json;
}

int benchmark_main(int argc, char* argv[]) {
  const Options options = parse_options(argc, argv);
  TileGrid grid;
  grid.n = options.n;
  const int max_team = team_size_max();
  grid.u = options.tile_u > 0 ? options.tile_u : max_team >= 128 ? 32 : 1;
  grid.v = options.tile_v > 0 ? options.tile_v : max_team >= 128 ? 4 : 1;
  if (grid.u * grid.v > max_team)
    throw InvalidInput("--tile " + std::to_string(grid.u) + "x" + std::to_string(grid.v) +
                       " needs teams of " + std::to_string(grid.u * grid.v) +
                       " threads; this backend holds at most " + std::to_string(max_team));
  grid.tiles_u = (grid.n + grid.u - 1) / grid.u;
  grid.tiles_v = (grid.n + grid.v - 1) / grid.v;
  const auto reference = reference_sweep(grid.n);
  // Each point is 1 − 0.1·(three earlier points), a contraction: rounding differences (fused
  // multiply-adds on GPUs) stay within a few ulps of the values, which lie in (0, 1].
  const double tolerance = 16 * std::numeric_limits<double>::epsilon();
  const int levels = 3 * grid.n - 2;
  const Result fences = run<Protocol::Fences>(grid, options, reference);
  const Result acquire_release = run<Protocol::AcquireRelease>(grid, options, reference);
  const Result no_wait = run<Protocol::NoWait>(grid, options, reference);
  bench::JsonObject line;
  line.add("benchmark", "tile_sync")
      .add("commit", bench::commit())
      .add("device", bench::device_name())
      .add("grid", grid.n)
      .add("tile", std::to_string(grid.u) + "x" + std::to_string(grid.v))
      .add("tiles", grid.num_tiles())
      .add("levels", levels)
      .add("repeats", options.repeats)
      .add("protocols",
           bench::JsonObject()
               .add("fences", result_json(fences, levels, tolerance, true))
               .add("acquire_release", result_json(acquire_release, levels, tolerance, true))
               .add("no_wait", result_json(no_wait, levels, tolerance, false)));
  bench::print_line(line);
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) { return fgdd::bench::run_benchmark(argc, argv, benchmark_main); }
