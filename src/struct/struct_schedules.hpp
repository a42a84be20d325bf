// How the structured ILU's kernels (struct_kernels.hpp) walk the levels in each StructSchedule:
// a launch per level, chunks by ticket with level counters or point flags, or persistent tiles
// (paper §4.1); and the factorization and sweep entry points that pick the kernel for a
// schedule and layout.
#pragma once

#include "core/sync_free_epoch.hpp"
#include "core/team_size.hpp"
#include "struct/struct_ilu0.hpp"
#include "struct/struct_kernels.hpp"

#include <algorithm>
#include <limits>
#include <type_traits>
#include <vector>

namespace fgdd::detail {

// The synchronization-free schedule: one launch, a team per chunk of at most chunk_points points
// of one level (so the points of a team never depend on each other). Teams take chunks from a
// ticket counter in level order (reverse for the upper sweep), not by league rank, which Kokkos
// does not promise to schedule in order: a point waits only on points of earlier levels, held by
// chunks whose tickets were taken earlier by teams already running, so the sweep cannot deadlock
// however many teams there are (paper §4.1's acyclic task mapping, with point flags instead of
// tile counters).
template <class Kernel>
struct StructSyncFreeLaunch {
  Kernel kernel;
  Kokkos::View<Ordinal*, DeviceType> chunk_ptr;
  Kokkos::View<Ordinal, DeviceType> tickets;
  Ordinal num_chunks = 0;
  bool reverse = false;

  KOKKOS_INLINE_FUNCTION void operator()(const TeamMember& member) const {
    Ordinal ticket = 0;
    Kokkos::single(
        Kokkos::PerTeam(member),
        [&](Ordinal& t) { t = Kokkos::atomic_fetch_add(&tickets(), Ordinal(1)); }, ticket);
    const Ordinal chunk = reverse ? num_chunks - 1 - ticket : ticket;
    Kokkos::parallel_for(
        Kokkos::TeamThreadRange(member, chunk_ptr(chunk), chunk_ptr(chunk + 1)),
        [&](const Ordinal k) { kernel.point(member, kernel.site(Offset(kernel.data.points(k)))); });
  }
};

// The level-counter schedule: one launch, a team per chunk as above, taken by ticket in level
// order. Before its chunk, one thread of the team waits until every earlier level is complete
// (levels_done ≥ the chunk's step), so a level's teams start as soon as the last chunk of the
// level before ends, with no kernel launch in between and a single address spun on per team.
// Deadlock-free for the same reason: a team waits only on steps of earlier tickets. The last
// team to finish a step's chunks advances levels_done.
template <class Kernel>
struct StructCounterLaunch {
  Kernel kernel;
  Kokkos::View<Ordinal*, DeviceType> chunk_ptr, chunk_step, step_chunks, step_done;
  Kokkos::View<Ordinal, DeviceType> tickets, levels_done;
  Ordinal num_chunks = 0, num_steps = 0;
  bool reverse = false;

  KOKKOS_INLINE_FUNCTION void operator()(const TeamMember& member) const {
    Ordinal ticket = 0;
    Kokkos::single(
        Kokkos::PerTeam(member),
        [&](Ordinal& t) { t = Kokkos::atomic_fetch_add(&tickets(), Ordinal(1)); }, ticket);
    const Ordinal chunk = reverse ? num_chunks - 1 - ticket : ticket;
    const Ordinal level = chunk_step(chunk);  // the non-empty level's index, ascending
    const Ordinal step = reverse ? num_steps - 1 - level : level;
    // One lane of one thread waits and, below, counts: team_rank() == 0 holds on every vector
    // lane of thread 0, and each lane counting the chunk advanced levels_done before the level's
    // other chunks were done (wrong factors on GPUs with vector lanes; box27 has 16).
    Kokkos::single(Kokkos::PerTeam(member), [&]() {
      while (atomic_load(&levels_done()) < step) {
      }
      Kokkos::memory_fence();
    });
    member.team_barrier();
    Kokkos::parallel_for(
        Kokkos::TeamThreadRange(member, chunk_ptr(chunk), chunk_ptr(chunk + 1)),
        [&](const Ordinal k) { kernel.point(member, kernel.site(Offset(kernel.data.points(k)))); });
    // Every thread's writes before the barrier, the barrier before the counter.
    Kokkos::memory_fence();
    member.team_barrier();
    Kokkos::single(Kokkos::PerTeam(member), [&]() {
      if (Kokkos::atomic_fetch_add(&step_done(level), Ordinal(1)) + 1 == step_chunks(level)) {
        Kokkos::memory_fence();
        atomic_store(&levels_done(), step + 1);
      }
    });
  }
};

// The persistent-tile schedule: one launch, a team per tile of columns taken by ticket in tu + tv
// order (reverse for the upper sweep). The team walks the tile's levels in sweep order; thread
// (column) c does the column's point on the level, if it has one. Before a level, the team waits
// (a thread per neighbour tile) until every tile the level can read from (below and to the
// left, tile_mapping.hpp) has done all earlier levels; after it, the tile publishes its progress
// (the kernel's acquire_release_progress says how).
// Deadlock-free for any number of tiles: a tile waits only on tiles of earlier tickets, held by
// running teams. Progress is a key that grows in sweep order (the level, or last_key − level in
// reverse); a finished or empty tile holds the largest key. The teams are persistent (about as many
// as the device holds at once, each taking tickets until none is left): fewer blocks to launch.
template <class Kernel>
struct StructTileLaunch {
  static constexpr Ordinal done_key = std::numeric_limits<Ordinal>::max();
  Kernel kernel;
  StructTileGrid tiles;
  StructColumnMap map;
  Kokkos::View<Ordinal*, DeviceType> order, first, last, progress;
  Kokkos::View<Ordinal, DeviceType> tickets;
  Ordinal last_key = 0;
  bool reverse = false;

  // Waits on the neighbour tiles this tile reads from: team rank k spins on neighbours k + 1,
  // k + 1 + team size, ... of the (du, dv) box, so the waits (and their loads) overlap; ready
  // caches the smallest progress the thread saw, so that most levels cost it no load.
  KOKKOS_INLINE_FUNCTION void wait_for(const TeamMember& member, Ordinal tu, Ordinal tv,
                                       Ordinal key, Ordinal& ready) const {
    if (ready >= key) return;
    ready = done_key;
    const int span_v = tiles.reach_tiles_v + 1, count = (tiles.reach_tiles_u + 1) * span_v;
    for (int k = member.team_rank() + 1; k < count; k += member.team_size()) {
      const int du = k / span_v, dv = k % span_v;
      const Ordinal nu = reverse ? tu + du : tu - du, nv = reverse ? tv + dv : tv - dv;
      if (nu < 0 || nu >= tiles.tiles_u || nv < 0 || nv >= tiles.tiles_v) continue;
      Ordinal* const flag = &progress(nu * tiles.tiles_v + nv);
      Ordinal seen;
      if constexpr (Kernel::acquire_release_progress) {
        while ((seen = acquire_load(flag)) < key) {
        }
      } else {
        while ((seen = atomic_load(flag)) < key) {
        }
      }
      if (seen < ready) ready = seen;
    }
    if constexpr (!Kernel::acquire_release_progress) Kokkos::memory_fence();
  }

  // Persistent teams: each takes tiles by ticket until none is left.
  KOKKOS_INLINE_FUNCTION void operator()(const TeamMember& member) const {
    for (;;) {
      Ordinal ticket = 0;
      Kokkos::single(
          Kokkos::PerTeam(member),
          [&](Ordinal& t) { t = Kokkos::atomic_fetch_add(&tickets(), Ordinal(1)); }, ticket);
      if (ticket >= tiles.num_tiles()) return;
      run_tile(member, order(reverse ? tiles.num_tiles() - 1 - ticket : ticket));
    }
  }

  // What the sites of column c of tile (tu, tv) share on every level, found once per tile.
  struct Column {
    long long base[3];                 // the column's point on level 0 (StructColumnMap::base)
    Ordinal u_offset = 0, v_slot = 0;  // its u − u_min and v slot in the level layout
  };

  // Column c of tile (tu, tv).
  KOKKOS_INLINE_FUNCTION Column column(int c, Ordinal tu, Ordinal tv) const {
    const long long u = tiles.u_min + (long long)tu * tiles.shape.u + c % tiles.shape.u;
    const long long v = tiles.v_min + (long long)tv * tiles.shape.v + c / tiles.shape.u;
    Column column;
    map.base(u, v, column.base);
    if constexpr (Kernel::level_layout) {
      column.u_offset = Ordinal(u - kernel.data.level.u_min);
      column.v_slot = kernel.data.level.v_slot(v);
    }
    return column;
  }

  // The column's point on level, if it has one there (level_slot: the level's slot in the level
  // layout's columns).
  KOKKOS_INLINE_FUNCTION bool column_site(const Column& column, Ordinal level, Ordinal level_slot,
                                          StructSite& site) const {
    Ordinal x, y, z;
    if (!map.point_on(column.base, level, x, y, z)) return false;
    const Offset nx = kernel.data.g.nx, ny = kernel.data.g.ny;
    const Offset p = x + nx * (y + ny * z);
    if constexpr (Kernel::level_layout)
      site = kernel.data.level.column_site(p, x, y, z, column.u_offset, column.v_slot, level_slot);
    else
      site = kernel.site(p, x, y, z);
    return true;
  }

  KOKKOS_INLINE_FUNCTION void run_tile(const TeamMember& member, const Ordinal tile) const {
    const Ordinal lo = first(tile), hi = last(tile);
    if (lo > hi) return;
    const Ordinal tu = tile / tiles.tiles_v, tv = tile % tiles.tiles_v;
    const int columns = tiles.shape.u * tiles.shape.v;
    const int rank = member.team_rank(), threads = member.team_size();
    // The thread's first column, where a DoF-1 sweep's column work leaves the level loop (the
    // other kernels keep it inside: a column held across levels costs them registers).
    const Column own_column = Kernel::loads_own_early ? column(rank, tu, tv) : Column{};
    const Ordinal slots = kernel.data.level.column_length;
    Ordinal ready = -1;
    Ordinal level_slot = (reverse ? hi : lo) % slots;  // level mod slots, stepped with the level
    for (Ordinal step = 0; step <= hi - lo; ++step) {
      const Ordinal level = reverse ? hi - step : lo + step;
      const Ordinal key = reverse ? last_key - level : level;
      if constexpr (Kernel::loads_own_early) {
        // A thread's first column loads what its point alone writes before the wait, so those
        // loads overlap it; further columns (a team smaller than the tile) come after it.
        StructSite site;
        typename Kernel::Own own;
        const bool here = rank < columns && column_site(own_column, level, level_slot, site);
        if (here) kernel.load_own(site, own);
        wait_for(member, tu, tv, key, ready);
        member.team_barrier();
        if (here) kernel.point(member, site, own);
        for (int c = rank + threads; c < columns; c += threads)
          if (column_site(column(c, tu, tv), level, level_slot, site)) kernel.point(member, site);
      } else {
        wait_for(member, tu, tv, key, ready);
        member.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(member, columns), [&](const int c) {
          StructSite site;
          if (column_site(column(c, tu, tv), level, level_slot, site)) kernel.point(member, site);
        });
      }
      // The barrier orders every thread's writes before the release, or each thread fences its
      // own before the barrier and the store is relaxed.
      const Ordinal next = step == hi - lo ? done_key : key + 1;
      if constexpr (Kernel::acquire_release_progress) {
        member.team_barrier();
        if (member.team_rank() == 0) release_store(&progress(tile), next);
      } else {
        Kokkos::memory_fence();
        member.team_barrier();
        if (member.team_rank() == 0) atomic_store(&progress(tile), next);
      }
      if (reverse)
        level_slot = level_slot == 0 ? slots - 1 : level_slot - 1;
      else
        level_slot = level_slot + 1 == slots ? 0 : level_slot + 1;
    }
    member.team_barrier();  // the whole team leaves the tile before it takes the next ticket
  }
};

// Points per team of a launch per level unless the launch says (StructData::level_team_threads):
// 256 threads, lanes included.
constexpr int default_level_team_threads(int lanes) { return lanes < 256 ? 256 / lanes : 1; }

// The launch-per-level schedule: a team thread per point of levels' [begin, end).
template <class Kernel>
struct StructLevelLaunch {
  Kernel kernel;
  Ordinal begin = 0, end = 0;

  KOKKOS_INLINE_FUNCTION void operator()(const TeamMember& member) const {
    const Ordinal k = begin + member.league_rank() * member.team_size() + member.team_rank();
    if (k >= end) return;  // no team barrier in the kernels of this schedule
    kernel.point(member, kernel.site(Offset(kernel.data.points(k))));
  }
};

// Team size for a launch whose team works together (barriers, shared waits): wanted threads of
// the kernel's vector lanes.
template <class Launch>
int team_size_for(const ExecSpace& space, const Launch& launch, int wanted) {
  return team_size_within(space, launch, launch.kernel.data.lanes, wanted);
}

template <class Kernel>
void launch_levels(const ExecSpace& space, const char* label, const Kernel& kernel,
                   const std::vector<Ordinal>& level_ptr, bool reverse) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  StructLevelLaunch<Kernel> launch{kernel};
  const int lanes = kernel.data.lanes;
  const int wanted = kernel.data.level_team_threads > 0 ? kernel.data.level_team_threads
                                                        : default_level_team_threads(lanes);
  const int team_size = independent_team_size(space, launch, lanes, wanted);
  const std::size_t levels = level_ptr.size() - 1;
  for (std::size_t step = 0; step < levels; ++step) {
    const std::size_t l = reverse ? levels - 1 - step : step;
    if (level_ptr[l + 1] == level_ptr[l]) continue;
    launch.begin = level_ptr[l];
    launch.end = level_ptr[l + 1];
    const Ordinal league = (launch.end - launch.begin + team_size - 1) / team_size;
    Kokkos::parallel_for(label, Policy(space, league, team_size, lanes), launch);
  }
}

template <class Kernel>
void launch_sync_free(const ExecSpace& space, const char* label, Kernel kernel,
                      const StructSyncState& state, bool reverse) {
  const Ordinal num_chunks = Ordinal(state.chunk_ptr.extent(0)) - 1;
  if (num_chunks <= 0) return;
  kernel.done = state.done;
  kernel.epoch = start_sync_free_sweep(space, state.epoch, state.done, state.tickets);
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  const StructSyncFreeLaunch<Kernel> launch{kernel, state.chunk_ptr, state.tickets, num_chunks,
                                            reverse};
  Kokkos::parallel_for(label,
                       Policy(space, num_chunks, team_size_for(space, launch, state.chunk_points),
                              kernel.data.lanes),
                       launch);
}

template <class Kernel>
void launch_counters(const ExecSpace& space, const char* label, const Kernel& kernel,
                     const StructSyncState& state, bool reverse) {
  const Ordinal num_chunks = Ordinal(state.chunk_ptr.extent(0)) - 1;
  if (num_chunks <= 0) return;
  Kokkos::deep_copy(space, state.tickets, Ordinal(0));
  Kokkos::deep_copy(space, state.levels_done, Ordinal(0));
  Kokkos::deep_copy(space, state.step_done, Ordinal(0));
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  StructCounterLaunch<Kernel> launch;
  launch.kernel = kernel;
  launch.chunk_ptr = state.chunk_ptr;
  launch.chunk_step = state.chunk_step;
  launch.step_chunks = state.step_chunks;
  launch.step_done = state.step_done;
  launch.tickets = state.tickets;
  launch.levels_done = state.levels_done;
  launch.num_chunks = num_chunks;
  launch.num_steps = Ordinal(state.step_chunks.extent(0));
  launch.reverse = reverse;
  Kokkos::parallel_for(label,
                       Policy(space, num_chunks, team_size_for(space, launch, state.chunk_points),
                              kernel.data.lanes),
                       launch);
}

template <class Kernel>
void launch_tiles(const ExecSpace& space, const char* label, const Kernel& kernel,
                  const StructSyncState& state, Ordinal num_levels, bool reverse) {
  const Ordinal num_tiles = state.tile_grid.num_tiles();
  if (num_tiles <= 0) return;
  Kokkos::deep_copy(space, state.tickets, Ordinal(0));
  const auto first = state.tile_first, last = state.tile_last, progress = state.tile_progress;
  const Ordinal last_key = num_levels - 1;
  Kokkos::parallel_for(
      "fgdd::struct::tile_progress", Kokkos::RangePolicy<ExecSpace>(space, 0, num_tiles),
      KOKKOS_LAMBDA(const Ordinal t) {
        progress(t) = first(t) > last(t) ? StructTileLaunch<Kernel>::done_key
                      : reverse          ? last_key - last(t)
                                         : first(t);
      });
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  StructTileLaunch<Kernel> launch;
  launch.kernel = kernel;
  launch.tiles = state.tile_grid;
  launch.map = state.column_map;
  launch.order = state.tile_order;
  launch.first = first;
  launch.last = last;
  launch.progress = progress;
  launch.tickets = state.tickets;
  launch.last_key = last_key;
  launch.reverse = reverse;
  const int columns = state.tile_grid.shape.u * state.tile_grid.shape.v;
  const int lanes = kernel.data.lanes;
  const int team_size = team_size_for(space, launch, columns);
  const int resident = resident_teams(space, team_size * lanes);
  Kokkos::parallel_for(
      label, Policy(space, std::min<Ordinal>(num_tiles, resident), team_size, lanes), launch);
}

// Runs kernel template K<Mode> over all points in the schedule's order (reverse: last level
// first). Values in the level layout (which only the tiles schedule stores) take the Tiles mode
// under either launch: a tiles factorization may run a launch per level (StructIlu0).
template <template <SyncMode> class K, class Setup>
void run_schedule(const ExecSpace& space, const char* label, StructSchedule schedule,
                  bool level_layout, const StructSyncState& state,
                  const std::vector<Ordinal>& level_ptr, bool reverse, const Setup& setup) {
  if (level_layout) {
    K<SyncMode::Tiles> kernel;
    setup(kernel);
    if (schedule == StructSchedule::Tiles)
      launch_tiles(space, label, kernel, state, Ordinal(level_ptr.size()) - 1, reverse);
    else
      launch_levels(space, label, kernel, level_ptr, reverse);
  } else if (schedule == StructSchedule::Tiles) {
    K<SyncMode::LevelCounter> kernel;  // the same waits, grid-order values
    setup(kernel);
    launch_tiles(space, label, kernel, state, Ordinal(level_ptr.size()) - 1, reverse);
  } else if (schedule == StructSchedule::SyncFree) {
    K<SyncMode::PointFlags> kernel;
    setup(kernel);
    launch_sync_free(space, label, kernel, state, reverse);
  } else if (schedule == StructSchedule::LevelCounters) {
    K<SyncMode::LevelCounter> kernel;
    setup(kernel);
    launch_counters(space, label, kernel, state, reverse);
  } else {
    K<SyncMode::Levels> kernel;
    setup(kernel);
    launch_levels(space, label, kernel, level_ptr, reverse);
  }
}

template <int B>
struct FactorFor {
  template <SyncMode Mode>
  using Ilu0 = StructFactorKernel<B, false, Mode>;
  template <SyncMode Mode>
  using Ic0 = StructFactorKernel<B, true, Mode>;
};

template <int B, bool Lower, int Batch>
struct SweepFor {
  template <SyncMode Mode>
  using Kernel = StructSweepKernel<B, Lower, Batch, Mode>;
};

template <int B>
void factor_points(const ExecSpace& space, const StructData& data,
                   const std::vector<Ordinal>& level_ptr, bool ic0, StructSchedule schedule,
                   const StructSyncState& state) {
  const auto setup = [&](auto& kernel) { kernel.data = data; };
  if (ic0) {
    run_schedule<FactorFor<B>::template Ic0>(space, "fgdd::struct::ic0", schedule,
                                             data.level_layout, state, level_ptr, false, setup);
    const auto upper = [&](auto kernel) {
      kernel.data = data;
      Kokkos::parallel_for("fgdd::struct::ic0_upper",
                           Kokkos::RangePolicy<ExecSpace>(space, 0, data.np), kernel);
    };
    if (data.level_layout)
      upper(StructIc0UpperKernel<B, SyncMode::Tiles>{});
    else
      upper(StructIc0UpperKernel<B, SyncMode::Levels>{});
  } else {
    run_schedule<FactorFor<B>::template Ilu0>(space, "fgdd::struct::ilu0", schedule,
                                              data.level_layout, state, level_ptr, false, setup);
  }
}

template <int B, bool Lower>
void sweep_points(const ExecSpace& space, const StructData& data,
                  const std::vector<Ordinal>& level_ptr, const Vector& z, StructSchedule schedule,
                  const StructSyncState& state) {
  const auto setup = [&](auto& kernel) {
    kernel.data = data;
    kernel.z = z;
  };
  const auto run = [&](auto batch) {
    run_schedule<SweepFor<B, Lower, decltype(batch)::value>::template Kernel>(
        space, Lower ? "fgdd::struct::lower_sweep" : "fgdd::struct::upper_sweep", schedule,
        data.level_layout, state, level_ptr, !Lower, setup);
  };
  // The batch for the stencil's entries on this side (one kernel where b > 1).
  const int batch = sweep_batch(B, Lower ? data.num_lower : data.s - data.center - 1);
  if (batch == sweep_batch(B, 4))
    run(std::integral_constant<int, sweep_batch(B, 4)>{});
  else if (batch == sweep_batch(B, 8))
    run(std::integral_constant<int, sweep_batch(B, 8)>{});
  else
    run(std::integral_constant<int, sweep_batch(B, 16)>{});
}

}  // namespace fgdd::detail
