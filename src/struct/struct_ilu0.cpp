#include "struct/struct_ilu0.hpp"

#include "struct/level_layout.hpp"

#include "core/dense_block.hpp"
#include "core/errors.hpp"
#include "core/kokkos_compat.hpp"

#include <Kokkos_Sort.hpp>

#include <algorithm>
#include <limits>
#include <string>

namespace fgdd {

namespace detail {

// What the factorization and solve launches read and write. Block element (r, c) of stencil
// entry e at the point whose values live at i (its grid index, or its slot in the level layout)
// is lu(((e·b + r)·b + c)·stride + i); D⁻¹'s is inv_diag((r·b + c)·stride + i).
struct StructData {
  GridCoordinates g;
  Kokkos::View<int* [3], DeviceType> offsets;
  Kokkos::View<long long*, DeviceType> linear;
  int s = 1, num_lower = 0, center = 0, runtime_b = 1;
  Offset np = 0;      // grid points
  Offset stride = 0;  // np, or the level layout's slots
  bool level_layout = false;
  StructLevelLayout level;  // level_layout only (the kernels of SyncMode::Tiles)
  StructuredMatrix::Values lu;
  Kokkos::View<Scalar*, DeviceType> inv_diag;
  Kokkos::View<Ordinal*, DeviceType> points;
  Kokkos::View<int*, DeviceType> elim_ptr, elim_upper, elim_target, mirror;
  Kokkos::View<Ordinal, DeviceType> failed_point;
  Kokkos::View<Scalar*, DeviceType> pivot_value;
  Kokkos::View<Offset, DeviceType> shifted;
  PivotRule rule;  // rule.tiny is relative: multiplied by the row's largest |entry|
};

// How a point knows that what it reads is final. Levels: a launch per level. PointFlags
// (StructSchedule::SyncFree): a point waits on the done flags of the neighbours it reads and
// publishes its own with a fence before its flag. LevelCounter (StructSchedule::LevelCounters):
// its team waited for a counter of completed levels before starting. Tiles: its team waited on
// the progress of the tiles it reads, and values live in the level layout (level_layout.hpp).
// In the one-launch modes other points' values are read with volatile loads (never a stale L1
// line on GPUs).
enum class SyncMode { Levels, PointFlags, LevelCounter, Tiles };

// Scalars of one b×b block in registers: B·B for the b = 1..4 fast paths, else the largest b.
constexpr int block_capacity(int b) { return b > 0 ? b * b : max_block_size * max_block_size; }

template <int B, SyncMode Mode>
struct StructKernelBase {
  static constexpr int capacity = block_capacity(B);
  static constexpr bool level_layout = Mode == SyncMode::Tiles;
  StructData data;
  Ordinal level_begin = 0;
  Kokkos::View<unsigned*, DeviceType> done;
  unsigned epoch = 0;

  KOKKOS_INLINE_FUNCTION int b() const { return B > 0 ? B : data.runtime_b; }
  // Grid point p's site: its coordinates and where its values live.
  KOKKOS_INLINE_FUNCTION StructSite site(const Offset p) const {
    Ordinal x, y, z;
    data.g.of(p, x, y, z);
    return site(p, x, y, z);
  }
  KOKKOS_INLINE_FUNCTION StructSite site(Offset p, Ordinal x, Ordinal y, Ordinal z) const {
    if constexpr (level_layout) return data.level.site(p, x, y, z);
    return StructSite::grid_order(p, x, y, z);
  }
  // Whether the neighbour of s through entry e lies in the grid.
  KOKKOS_INLINE_FUNCTION bool inside(int e, const StructSite& s) const {
    return data.g.inside(s.x + data.offsets(e, 0), s.y + data.offsets(e, 1),
                         s.z + data.offsets(e, 2));
  }
  // Where that neighbour's values live.
  KOKKOS_INLINE_FUNCTION Offset neighbour(const StructSite& s, int e) const {
    if constexpr (level_layout) return data.level.neighbour(s, e);
    return Offset((long long)s.self + data.linear(e));
  }
  KOKKOS_INLINE_FUNCTION Scalar& lu(int e, int rc, Offset i) const {
    return data.lu((Offset(e) * b() * b() + rc) * data.stride + i);
  }
  KOKKOS_INLINE_FUNCTION Scalar& inv_diag(int rc, Offset i) const {
    return data.inv_diag(Offset(rc) * data.stride + i);
  }
  // Component r of a vector at i: point-major in grid order, one array per component in the
  // level layout (coalesced like the matrix).
  KOKKOS_INLINE_FUNCTION Offset component(Offset i, int r) const {
    if constexpr (level_layout) return Offset(r) * data.stride + i;
    return i * b() + r;
  }
  // A value another point wrote: a volatile load, which reaches the coherent level of the
  // memory system (never a stale L1 line on GPUs) and costs a plain load, unlike an atomic one
  // (the flag or counter wait and its fence order it after the write).
  KOKKOS_INLINE_FUNCTION Scalar read(Scalar& v) const {
    if constexpr (Mode != SyncMode::Levels) return *static_cast<const volatile Scalar*>(&v);
    return v;
  }
  KOKKOS_INLINE_FUNCTION void wait(Offset q) const {
    if constexpr (Mode == SyncMode::PointFlags) {
      while (atomic_load(&done(q)) != epoch) {
      }
      Kokkos::memory_fence();
    }
  }
  KOKKOS_INLINE_FUNCTION void publish(Offset p) const {
    if constexpr (Mode == SyncMode::PointFlags) {
      Kokkos::memory_fence();
      atomic_store(&done(p), epoch);
    }
  }
  // Block e of this thread's own point (values at i).
  KOKKOS_INLINE_FUNCTION void load(int e, Offset i, Scalar* block) const {
    for (int rc = 0; rc < b() * b(); ++rc) block[rc] = lu(e, rc, i);
  }
  // Block e of another point (values at i, waited on before).
  KOKKOS_INLINE_FUNCTION void load_other(int e, Offset i, Scalar* block) const {
    for (int rc = 0; rc < b() * b(); ++rc) block[rc] = read(lu(e, rc, i));
  }
  KOKKOS_INLINE_FUNCTION void load_inv_diag(Offset i, Scalar* block) const {
    for (int rc = 0; rc < b() * b(); ++rc) block[rc] = read(inv_diag(rc, i));
  }
  // Waits on every in-grid neighbour of s with entry in [first, last) (PointFlags: grid order).
  KOKKOS_INLINE_FUNCTION void wait_neighbours(const StructSite& s, int first, int last) const {
    if constexpr (Mode == SyncMode::PointFlags)
      for (int e = first; e < last; ++e)
        if (inside(e, s)) wait(neighbour(s, e));
  }
};

// The in-place ILU(0) of one point (paper Algorithm 1), one thread per point: the points of a
// level are independent and read only rows of earlier levels (their lower neighbours), final
// once waited on. For each lower entry a in column order: L_pa = A_pa·D⁻¹_q (q = p + o_a), then
// A_pt −= L_pa·U_qu for every upper entry u of row q whose o_a + o_u is the stencil entry t — the
// same updates in the same order as the general IKJ ILU0 on the stencil's pattern. Ic0 (L D Lᵀ):
// only targets up to the centre, with U_qu = D_q·L_{q+o_u, −o_u}ᵀ and L_pa·D_q = A_pa (before its
// scaling), so the update is A_pa·L_{q+o_u, −o_u}ᵀ (q + o_u = p + o_t is a lower neighbour of p
// too); U is written afterwards by StructIc0UpperKernel.
template <int B, bool Ic0, SyncMode Mode>
struct StructFactorKernel : StructKernelBase<B, Mode> {
  using Base = StructKernelBase<B, Mode>;
  using Base::b;
  using Base::data;
  using Base::inside;
  using Base::load;
  using Base::load_other;
  using Base::lu;
  using Base::neighbour;
  static constexpr int capacity = Base::capacity;

  KOKKOS_INLINE_FUNCTION void operator()(const Ordinal k) const {
    point(this->site(Offset(data.points(this->level_begin + k))));
  }

  KOKKOS_INLINE_FUNCTION void point(const StructSite& s) const {
    const Offset p = s.self;
    const int bb = b() * b();
    const int last = Ic0 ? data.center + 1 : data.s;  // Ic0 reads the lower triangle only
    Scalar row_max = 0;
    for (int e = 0; e < last; ++e)
      if (inside(e, s))
        for (int rc = 0; rc < bb; ++rc) {
          const Scalar v = fabs(lu(e, rc, p));
          if (v > row_max) row_max = v;
        }
    this->wait_neighbours(s, 0, data.num_lower);
    for (int a = 0; a < data.num_lower; ++a) {
      if (!inside(a, s)) continue;
      const Offset q = neighbour(s, a);
      Scalar original[capacity], l[capacity], inv[capacity], product[capacity];
      load(a, p, original);
      this->load_inv_diag(q, inv);
      multiply_blocks(original, inv, l, b());
      for (int m = data.elim_ptr(a); m < data.elim_ptr(a + 1); ++m) {
        const int t = data.elim_target(m);
        if (!inside(t, s)) continue;  // p + o_t = q + o_u
        if (Ic0) {
          Scalar other[capacity];  // L_{q', −o_u}, q' = p + o_t; for t = centre that is L_pa
          if (t == data.center)
            for (int e = 0; e < bb; ++e) other[e] = l[e];
          else
            load_other(data.mirror(data.elim_upper(m)), neighbour(s, t), other);
          multiply_blocks_transposed(original, other, product, b());
        } else {
          Scalar u[capacity];
          load_other(data.elim_upper(m), q, u);
          multiply_blocks(l, u, product, b());
        }
        for (int e = 0; e < bb; ++e) lu(t, e, p) -= product[e];
      }
      for (int e = 0; e < bb; ++e) lu(a, e, p) = l[e];
    }
    // The pivot, exactly as GlobalIlu0 treats it.
    Scalar pivot[capacity], inv[capacity];
    load(data.center, p, pivot);
    PivotRule row_rule = data.rule;
    row_rule.tiny = data.rule.tiny * row_max;
    Scalar smallest = 0;
    const Scalar first = pivot[0];
    const int result = invert_block(pivot, inv, b(), row_rule, smallest);
    for (int rc = 0; rc < bb; ++rc) this->inv_diag(rc, p) = inv[rc];
    data.pivot_value(s.p) = b() == 1 ? first : smallest;
    if (result < 0) {
      Kokkos::atomic_fetch_min(&data.failed_point(), Ordinal(s.p));
    } else if (result > 0) {
      Kokkos::atomic_add(&data.shifted(), Offset(result));
      // Keep D consistent with the D⁻¹ actually used: D = (D⁻¹)⁻¹.
      Scalar d[capacity], unused;
      invert_block(inv, d, b(), PivotRule{}, unused);
      for (int rc = 0; rc < bb; ++rc) lu(data.center, rc, p) = d[rc];
    }
    this->publish(p);
  }
};

// Ic0: U_pu = D_p·L_{p+o_u, −o_u}ᵀ, independent per point once every row is eliminated (Levels:
// grid order, Tiles: the level layout).
template <int B, SyncMode Mode>
struct StructIc0UpperKernel : StructKernelBase<B, Mode> {
  using Base = StructKernelBase<B, Mode>;
  KOKKOS_INLINE_FUNCTION void operator()(const Offset point) const {
    const auto& data = this->data;
    const StructSite s = this->site(point);
    const int bb = this->b() * this->b();
    Scalar d[Base::capacity], other[Base::capacity], u[Base::capacity];
    this->load(data.center, s.self, d);
    for (int e = data.center + 1; e < data.s; ++e) {
      if (!this->inside(e, s)) continue;
      this->load(data.mirror(e), this->neighbour(s, e), other);
      multiply_blocks_transposed(d, other, u, this->b());
      for (int rc = 0; rc < bb; ++rc) this->lu(e, rc, s.self) = u[rc];
    }
  }
};

// One point of a sweep (Algorithm 2) in place. Lower: z_p −= Σ_a L_pa z_{p+o_a}, the lower
// neighbours on earlier levels. Upper (levels in reverse): z_p = D⁻¹_p (z_p − Σ_u U_pu z_{p+o_u}),
// the upper neighbours on later levels. z is in the kernel's layout (component()).
template <int B, bool Lower, SyncMode Mode>
struct StructSweepKernel : StructKernelBase<B, Mode> {
  using Base = StructKernelBase<B, Mode>;
  Vector z;
  KOKKOS_INLINE_FUNCTION void operator()(const Ordinal k) const {
    point(this->site(Offset(this->data.points(this->level_begin + k))));
  }
  KOKKOS_INLINE_FUNCTION void point(const StructSite& s) const {
    const auto& data = this->data;
    const Offset p = s.self;
    const int bs = this->b();
    const int first = Lower ? 0 : data.center + 1, last = Lower ? data.num_lower : data.s;
    Scalar sum[B > 0 ? B : max_block_size];
    for (int r = 0; r < bs; ++r) sum[r] = z(this->component(p, r));
    for (int e = first; e < last; ++e) {
      if (!this->inside(e, s)) continue;
      const Offset q = this->neighbour(s, e);
      this->wait(q);
      for (int r = 0; r < bs; ++r)
        for (int c = 0; c < bs; ++c)
          sum[r] -= this->lu(e, r * bs + c, p) * this->read(z(this->component(q, c)));
    }
    if (Lower) {
      for (int r = 0; r < bs; ++r) z(this->component(p, r)) = sum[r];
    } else {
      for (int r = 0; r < bs; ++r) {
        Scalar v = 0;
        for (int c = 0; c < bs; ++c) v += this->inv_diag(r * bs + c, p) * sum[c];
        z(this->component(p, r)) = v;
      }
    }
    this->publish(p);
  }
};

// The synchronization-free schedule: one launch, a team per chunk of at most chunk_points points
// of one level (so the points of a team never depend on each other). Teams take chunks from a
// ticket counter in level order (reverse for the upper sweep), not by league rank, which Kokkos
// does not promise to schedule in order: a point waits only on points of earlier levels, held by
// chunks whose tickets were taken earlier by teams already running, so the sweep cannot deadlock
// however many teams there are (paper §4.1's acyclic task mapping, with point flags instead of
// tile counters).
template <class Kernel>
struct StructSyncFreeLaunch {
  using Member = Kokkos::TeamPolicy<ExecSpace>::member_type;
  Kernel kernel;
  Kokkos::View<Ordinal*, DeviceType> chunk_ptr;
  Kokkos::View<Ordinal, DeviceType> tickets;
  Ordinal num_chunks = 0;
  bool reverse = false;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& member) const {
    Ordinal ticket = 0;
    Kokkos::single(
        Kokkos::PerTeam(member),
        [&](Ordinal& t) { t = Kokkos::atomic_fetch_add(&tickets(), Ordinal(1)); }, ticket);
    const Ordinal chunk = reverse ? num_chunks - 1 - ticket : ticket;
    Kokkos::parallel_for(
        Kokkos::TeamThreadRange(member, chunk_ptr(chunk), chunk_ptr(chunk + 1)),
        [&](const Ordinal k) { kernel.point(kernel.site(Offset(kernel.data.points(k)))); });
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
  using Member = Kokkos::TeamPolicy<ExecSpace>::member_type;
  Kernel kernel;
  Kokkos::View<Ordinal*, DeviceType> chunk_ptr, chunk_step, step_chunks, step_done;
  Kokkos::View<Ordinal, DeviceType> tickets, levels_done;
  Ordinal num_chunks = 0, num_steps = 0;
  bool reverse = false;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& member) const {
    Ordinal ticket = 0;
    Kokkos::single(
        Kokkos::PerTeam(member),
        [&](Ordinal& t) { t = Kokkos::atomic_fetch_add(&tickets(), Ordinal(1)); }, ticket);
    const Ordinal chunk = reverse ? num_chunks - 1 - ticket : ticket;
    const Ordinal level = chunk_step(chunk);  // the non-empty level's index, ascending
    const Ordinal step = reverse ? num_steps - 1 - level : level;
    if (member.team_rank() == 0) {
      while (atomic_load(&levels_done()) < step) {
      }
      Kokkos::memory_fence();
    }
    member.team_barrier();
    Kokkos::parallel_for(
        Kokkos::TeamThreadRange(member, chunk_ptr(chunk), chunk_ptr(chunk + 1)),
        [&](const Ordinal k) { kernel.point(kernel.site(Offset(kernel.data.points(k)))); });
    // Every thread's writes before the barrier, the barrier before the counter.
    Kokkos::memory_fence();
    member.team_barrier();
    if (member.team_rank() == 0) {
      if (Kokkos::atomic_fetch_add(&step_done(level), Ordinal(1)) + 1 == step_chunks(level)) {
        Kokkos::memory_fence();
        atomic_store(&levels_done(), step + 1);
      }
    }
  }
};

// The persistent-tile schedule: one launch, a team per tile of columns taken by ticket in tu + tv
// order (reverse for the upper sweep). The team walks the tile's levels in sweep order; thread
// (column) c does the column's point on the level, if it has one. Before a level, the team waits
// (a thread per neighbour tile) until every tile the level can read from (below and to the
// left, tile_mapping.hpp) has done all earlier levels; after it, the tile publishes its progress.
// Deadlock-free for any number of tiles: a tile waits only on tiles of earlier tickets, held by
// running teams. Progress is a key that grows in sweep order (the level, or last_key − level in
// reverse); a finished or empty tile holds the largest key. The teams are persistent (about as many
// as the device holds at once, each taking tickets until none is left): fewer blocks to launch.
template <class Kernel>
struct StructTileLaunch {
  using Member = Kokkos::TeamPolicy<ExecSpace>::member_type;
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
  KOKKOS_INLINE_FUNCTION void wait_for(const Member& member, Ordinal tu, Ordinal tv, Ordinal key,
                                       Ordinal& ready) const {
    if (ready >= key) return;
    ready = done_key;
    const int span_v = tiles.reach_tiles_v + 1, count = (tiles.reach_tiles_u + 1) * span_v;
    for (int k = member.team_rank() + 1; k < count; k += member.team_size()) {
      const int du = k / span_v, dv = k % span_v;
      const Ordinal nu = reverse ? tu + du : tu - du, nv = reverse ? tv + dv : tv - dv;
      if (nu < 0 || nu >= tiles.tiles_u || nv < 0 || nv >= tiles.tiles_v) continue;
      Ordinal seen;
      while ((seen = atomic_load(&progress(nu * tiles.tiles_v + nv))) < key) {
      }
      if (seen < ready) ready = seen;
    }
    Kokkos::memory_fence();
  }

  // Persistent teams: each takes tiles by ticket until none is left.
  KOKKOS_INLINE_FUNCTION void operator()(const Member& member) const {
    for (;;) {
      Ordinal ticket = 0;
      Kokkos::single(
          Kokkos::PerTeam(member),
          [&](Ordinal& t) { t = Kokkos::atomic_fetch_add(&tickets(), Ordinal(1)); }, ticket);
      if (ticket >= tiles.num_tiles()) return;
      run_tile(member, order(reverse ? tiles.num_tiles() - 1 - ticket : ticket));
    }
  }

  KOKKOS_INLINE_FUNCTION void run_tile(const Member& member, const Ordinal tile) const {
    const Ordinal lo = first(tile), hi = last(tile);
    if (lo > hi) return;
    const Ordinal tu = tile / tiles.tiles_v, tv = tile % tiles.tiles_v;
    const int columns = tiles.shape.u * tiles.shape.v;
    const StructLevelLayout& layout = kernel.data.level;
    const Offset nx = kernel.data.g.nx, ny = kernel.data.g.ny;
    Ordinal ready = -1;
    for (Ordinal step = 0; step <= hi - lo; ++step) {
      const Ordinal level = reverse ? hi - step : lo + step;
      const Ordinal key = reverse ? last_key - level : level;
      const Ordinal level_slot = level % layout.column_length;
      wait_for(member, tu, tv, key, ready);
      member.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(member, columns), [&](const int c) {
        const long long u = tiles.u_min + (long long)tu * tiles.shape.u + c % tiles.shape.u;
        const long long v = tiles.v_min + (long long)tv * tiles.shape.v + c / tiles.shape.u;
        Ordinal x, y, z;
        if (!map.point(u, v, level, x, y, z)) return;
        const Offset p = x + nx * (y + ny * z);
        if constexpr (Kernel::level_layout)
          kernel.point(layout.site(p, x, y, z, u, v, level_slot));
        else
          kernel.point(kernel.site(p, x, y, z));
      });
      // Every thread's writes before the barrier, the barrier before the progress.
      Kokkos::memory_fence();
      member.team_barrier();
      if (member.team_rank() == 0)
        atomic_store(&progress(tile), step == hi - lo ? done_key : key + 1);
    }
    member.team_barrier();  // the whole team leaves the tile before it takes the next ticket
  }
};

template <class Kernel>
void launch_levels(const ExecSpace& space, const char* label, Kernel kernel,
                   const std::vector<Ordinal>& level_ptr, bool reverse) {
  const std::size_t levels = level_ptr.size() - 1;
  for (std::size_t step = 0; step < levels; ++step) {
    const std::size_t l = reverse ? levels - 1 - step : step;
    if (level_ptr[l + 1] == level_ptr[l]) continue;
    kernel.level_begin = level_ptr[l];
    Kokkos::parallel_for(
        label, Kokkos::RangePolicy<ExecSpace>(space, 0, level_ptr[l + 1] - level_ptr[l]), kernel);
  }
}

template <class Kernel>
void launch_sync_free(const ExecSpace& space, const char* label, Kernel kernel,
                      const StructSyncState& state, bool reverse) {
  const Ordinal num_chunks = Ordinal(state.chunk_ptr.extent(0)) - 1;
  if (num_chunks <= 0) return;
  ++state.epoch;
  if (state.epoch == 0) {  // wrapped around: old flags could match again
    Kokkos::deep_copy(space, state.done, 0u);
    state.epoch = 1;
  }
  Kokkos::deep_copy(space, state.tickets, Ordinal(0));
  kernel.done = state.done;
  kernel.epoch = state.epoch;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  const StructSyncFreeLaunch<Kernel> launch{kernel, state.chunk_ptr, state.tickets, num_chunks,
                                            reverse};
  const int team_size =
      std::max(1, std::min(Policy(space, 1, 1).team_size_max(launch, Kokkos::ParallelForTag()),
                           state.chunk_points));
  Kokkos::parallel_for(label, Policy(space, num_chunks, team_size), launch);
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
  const int team_size =
      std::max(1, std::min(Policy(space, 1, 1).team_size_max(launch, Kokkos::ParallelForTag()),
                           state.chunk_points));
  Kokkos::parallel_for(label, Policy(space, num_chunks, team_size), launch);
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
  const int team_size = std::max(
      1, std::min(Policy(space, 1, 1).team_size_max(launch, Kokkos::ParallelForTag()), columns));
  // As many persistent teams as the device likely holds at once: its thread slots over a team's
  // (whole warps on GPUs, where registers typically leave a quarter of the slots usable).
  const int lanes = Policy::vector_length_max();
  const int team_slots = (team_size + lanes - 1) / lanes * lanes;
  const int resident = std::max(1, space.concurrency() / team_slots / (lanes > 1 ? 4 : 1));
  Kokkos::parallel_for(label, Policy(space, std::min<Ordinal>(num_tiles, resident), team_size),
                       launch);
}

// Runs kernel template K<Mode> over all points in the schedule's order (reverse: last level
// first).
template <template <SyncMode> class K, class Setup>
void run_schedule(const ExecSpace& space, const char* label, StructSchedule schedule,
                  bool level_layout, const StructSyncState& state,
                  const std::vector<Ordinal>& level_ptr, bool reverse, const Setup& setup) {
  if (schedule == StructSchedule::Tiles && level_layout) {
    K<SyncMode::Tiles> kernel;
    setup(kernel);
    launch_tiles(space, label, kernel, state, Ordinal(level_ptr.size()) - 1, reverse);
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

template <int B, bool Lower>
struct SweepFor {
  template <SyncMode Mode>
  using Kernel = StructSweepKernel<B, Lower, Mode>;
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
  run_schedule<SweepFor<B, Lower>::template Kernel>(
      space, Lower ? "fgdd::struct::lower_sweep" : "fgdd::struct::upper_sweep", schedule,
      data.level_layout, state, level_ptr, !Lower, setup);
}

// The one dispatch from a runtime block size to the b = 1..4 fast paths.
template <class Functor>
void dispatch_block_size(int b, Functor&& f) {
  switch (b) {
    case 1:
      f(std::integral_constant<int, 1>{});
      break;
    case 2:
      f(std::integral_constant<int, 2>{});
      break;
    case 3:
      f(std::integral_constant<int, 3>{});
      break;
    case 4:
      f(std::integral_constant<int, 4>{});
      break;
    default:
      f(std::integral_constant<int, 0>{});
      break;
  }
}

// The launches' data for the factors' shape, with their values and D⁻¹ in the schedule's
// layout.
StructData make_data(const StructuredMatrix& shape, const StructIlu0Storage& storage) {
  StructData data;
  data.g = GridCoordinates{shape.grid().nx, shape.grid().ny, shape.grid().nz};
  data.offsets = shape.device_stencil().offsets;
  data.linear = shape.device_stencil().linear_offset;
  data.s = shape.stencil().size();
  data.num_lower = shape.stencil().num_lower();
  data.center = shape.stencil().center();
  data.runtime_b = shape.block_size();
  data.np = shape.num_points();
  data.stride = storage.stride;
  data.level_layout = storage.layout.num_slots != 0;
  data.level = storage.layout;
  data.lu = storage.values;
  data.inv_diag = storage.inv_diag;
  return data;
}

void build_levels(const ExecSpace& space, const GridInfo& grid, const LevelWeights& w,
                  StructLevels& levels) {
  const Offset np = grid.num_points();
  const Ordinal num_levels = w.num_levels(grid);
  const GridCoordinates g{grid.nx, grid.ny, grid.nz};
  Kokkos::View<long long*, DeviceType> keys(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::struct::level_keys"), np);
  Kokkos::parallel_for(
      "fgdd::struct::level_keys", Kokkos::RangePolicy<ExecSpace>(space, 0, np),
      KOKKOS_LAMBDA(const Offset p) {
        Ordinal x, y, z;
        g.of(p, x, y, z);
        const long long level = (long long)w.x * x + (long long)w.y * y + (long long)w.z * z;
        keys(p) = level * (long long)np + (long long)p;
      });
  space.fence();
  Kokkos::sort(keys);  // (level, point): ascending points inside each level
  levels.weights = w;
  levels.num_levels = num_levels;
  levels.points = Kokkos::View<Ordinal*, DeviceType>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::struct::level_points"), np);
  levels.level_ptr = Kokkos::View<Ordinal*, DeviceType>("fgdd::struct::level_ptr", num_levels + 1);
  const auto points = levels.points;
  const auto level_ptr = levels.level_ptr;
  Kokkos::parallel_for(
      "fgdd::struct::level_ptr", Kokkos::RangePolicy<ExecSpace>(space, 0, np),
      KOKKOS_LAMBDA(const Offset k) {
        const long long level = keys(k) / (long long)np;
        points(k) = Ordinal(keys(k) % (long long)np);
        // Level boundaries between the previous key's level and this one start at k.
        const long long previous = k == 0 ? -1 : keys(k - 1) / (long long)np;
        for (long long l = previous + 1; l <= level; ++l) level_ptr(l) = Ordinal(k);
        if (k + 1 == np)
          for (long long l = level + 1; l <= num_levels; ++l) level_ptr(l) = Ordinal(np);
      });
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), levels.level_ptr);
  levels.host_level_ptr.assign(host.data(), host.data() + host.extent(0));
  levels.max_level_points = 0;
  for (Ordinal l = 0; l < num_levels; ++l)
    levels.max_level_points =
        std::max(levels.max_level_points, levels.host_level_ptr[l + 1] - levels.host_level_ptr[l]);
}

void check_vector(const StructIlu0& M, Offset size, const char* name) {
  if (size != M.num_rows())
    throw DimensionMismatch(std::string(name) + " has " + std::to_string(size) +
                            " entries; the structured factors have " +
                            std::to_string(M.num_rows()) + " rows");
}

Kokkos::View<int*, DeviceType> to_device(const std::vector<int>& host, const char* label) {
  Kokkos::View<int*, DeviceType> view(std::string(label), host.size());
  const auto mirror = Kokkos::create_mirror_view(view);
  for (std::size_t k = 0; k < host.size(); ++k) mirror(k) = host[k];
  Kokkos::deep_copy(view, mirror);
  return view;
}

// Each tile's level range [first, last] (first > last: the tile has no grid point), from its
// columns' ranges. Built on the device.
void build_tile_ranges(const ExecSpace& space, StructSyncState& state) {
  const StructTileGrid tiles = state.tile_grid;
  const StructColumnMap map = state.column_map;
  state.tile_first = Kokkos::View<Ordinal*, DeviceType>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::struct::tile_first"),
      tiles.num_tiles());
  state.tile_last = Kokkos::View<Ordinal*, DeviceType>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::struct::tile_last"),
      tiles.num_tiles());
  const auto first = state.tile_first, last = state.tile_last;
  Kokkos::deep_copy(space, first, std::numeric_limits<Ordinal>::max());
  Kokkos::deep_copy(space, last, Ordinal(-1));
  const Offset columns_u = Offset(tiles.tiles_u) * tiles.shape.u;
  const Offset columns = columns_u * Offset(tiles.tiles_v) * tiles.shape.v;
  Kokkos::parallel_for(
      "fgdd::struct::tile_ranges", Kokkos::RangePolicy<ExecSpace>(space, 0, columns),
      KOKKOS_LAMBDA(const Offset c) {
        const long long iu = c % columns_u, iv = c / columns_u;
        long long lo = 0, hi = 0;
        if (!map.levels(tiles.u_min + iu, tiles.v_min + iv, lo, hi)) return;
        const Ordinal tile =
            Ordinal(iu / tiles.shape.u) * tiles.tiles_v + Ordinal(iv / tiles.shape.v);
        Kokkos::atomic_fetch_min(&first(tile), Ordinal(lo));
        Kokkos::atomic_fetch_max(&last(tile), Ordinal(hi));
      });
  // Tickets in tu + tv order: a tile's dependencies all have a smaller sum.
  std::vector<int> order;
  order.reserve(tiles.num_tiles());
  for (Ordinal sum = 0; sum + 1 < tiles.tiles_u + tiles.tiles_v; ++sum)
    for (Ordinal tu = std::max<Ordinal>(0, sum - tiles.tiles_v + 1);
         tu <= std::min<Ordinal>(sum, tiles.tiles_u - 1); ++tu)
      order.push_back(int(tu * tiles.tiles_v + (sum - tu)));
  state.tile_order = to_device(order, "fgdd::struct::tile_order");
  state.tile_progress =
      Kokkos::View<Ordinal*, DeviceType>("fgdd::struct::tile_progress", tiles.num_tiles());
  state.tickets = Kokkos::View<Ordinal, DeviceType>("fgdd::struct::tickets");
}

}  // namespace detail

StructLevels build_struct_levels(const ExecSpace& space, const GridInfo& grid,
                                 const LevelWeights& weights) {
  if (grid.nx < 1 || grid.ny < 1 || grid.nz < 1)
    throw InvalidInput("structured levels need a grid with every dimension >= 1");
  if (weights.x < 0 || weights.y < 0 || weights.z < 0)
    throw InvalidInput("level weights must be >= 0");
  const long long count = (long long)weights.x * (grid.nx - 1) +
                          (long long)weights.y * (grid.ny - 1) +
                          (long long)weights.z * (grid.nz - 1) + 1;
  if (count > (long long)std::numeric_limits<Ordinal>::max())
    throw InvalidInput("the grid has " + std::to_string(count) +
                       " levels under these weights, more than Ordinal holds");
  StructLevels levels;
  detail::build_levels(space, grid, weights, levels);
  return levels;
}

StructIlu0::StructIlu0(const ExecSpace& space, const StructuredMatrix& A,
                       const FactorOptions& options, StructSchedule schedule,
                       StructTileShape tile_shape, StructLayout layout)
    : options_(options), schedule_(schedule) {
  if (layout == StructLayout::Level && schedule != StructSchedule::Tiles)
    throw InvalidInput("the level layout of the structured ILU needs the tiles schedule");
  level_layout_ =
      schedule == StructSchedule::Tiles &&
      (layout == StructLayout::Level || (layout == StructLayout::Auto && A.block_size() >= 2));
  options_.validate();
  if (options_.form != IluForm::Ilu0 && options_.form != IluForm::Ildlt)
    throw InvalidInput("StructIlu0 computes IluForm::Ilu0 (ILU(0)) or IluForm::Ildlt (IC(0))");
  if (options_.level_of_fill != 0)
    throw InvalidInput("StructIlu0 is ILU(0): level_of_fill must be 0, not " +
                       std::to_string(options_.level_of_fill));
  const Stencil& stencil = A.stencil();
  const bool ic0 = options_.form == IluForm::Ildlt;
  if (ic0 && !stencil.is_symmetric())
    throw InvalidInput("IC(0) needs a symmetric stencil; " + stencil.name() + " is not");
  Kokkos::Timer timer;
  levels_ = build_struct_levels(space, A.grid(), stencil.level_weights(A.grid()));
  // The elimination table of Algorithm 1, LOOP3.
  std::vector<int> ptr{0}, upper, target, mirror(stencil.size(), -1);
  const auto& o = stencil.offsets();
  for (int e = 0; e < stencil.size(); ++e)
    mirror[e] = stencil.index_of({-o[e].dx, -o[e].dy, -o[e].dz});
  for (int a = 0; a < stencil.num_lower(); ++a) {
    for (int u = stencil.center() + 1; u < stencil.size(); ++u) {
      const int t = stencil.index_of({o[a].dx + o[u].dx, o[a].dy + o[u].dy, o[a].dz + o[u].dz});
      if (t < 0 || (ic0 && t > stencil.center())) continue;
      upper.push_back(u);
      target.push_back(t);
    }
    ptr.push_back(int(upper.size()));
  }
  elim_ptr_ = detail::to_device(ptr, "fgdd::struct::elim_ptr");
  elim_upper_ = detail::to_device(upper, "fgdd::struct::elim_upper");
  elim_target_ = detail::to_device(target, "fgdd::struct::elim_target");
  mirror_ = detail::to_device(mirror, "fgdd::struct::mirror");
  const int b = A.block_size();
  if (schedule_ == StructSchedule::Tiles) {
    sync_.mapping = find_tile_mapping(stencil, levels_.weights, A.grid());
    sync_.column_map = column_map(sync_.mapping, A.grid(), levels_.num_levels);
    sync_.tile_grid = make_tile_grid(sync_.mapping, A.grid(), tile_shape);
    detail::build_tile_ranges(space, sync_);
  }
  if (level_layout()) {
    storage_.layout =
        detail::make_level_layout(space, sync_.mapping, A.grid(), stencil, levels_.num_levels);
    storage_.stride = storage_.layout.num_slots;
    storage_.values = StructuredMatrix::Values("fgdd::struct::level_values",
                                               Offset(stencil.size()) * b * b * storage_.stride);
    factors_ = A.shape();
  } else {
    factors_ = StructuredMatrix(A.grid(), stencil, b);
    storage_.values = factors_.values();
    storage_.stride = A.num_points();
  }
  storage_.inv_diag =
      Kokkos::View<Scalar*, DeviceType>("fgdd::struct::inv_diag", Offset(b) * b * storage_.stride);
  if (!level_layout()) inv_diag_ = storage_.inv_diag;
  if (schedule_ == StructSchedule::LevelCounters || schedule_ == StructSchedule::SyncFree) {
    // Chunks of at most chunk_points points, never across a level (built from the level
    // offsets: one entry per chunk, no per-point host work), and the non-empty levels ("steps")
    // they belong to.
    std::vector<Ordinal> chunks, chunk_step, step_chunks;
    const auto& level_ptr = levels_.host_level_ptr;
    for (std::size_t l = 0; l + 1 < level_ptr.size(); ++l) {
      if (level_ptr[l + 1] == level_ptr[l]) continue;
      step_chunks.push_back(0);
      for (Ordinal k = level_ptr[l]; k < level_ptr[l + 1]; k += sync_.chunk_points) {
        chunks.push_back(k);
        chunk_step.push_back(Ordinal(step_chunks.size()) - 1);
        ++step_chunks.back();
      }
    }
    chunks.push_back(level_ptr.back());
    sync_.chunk_ptr = detail::to_device(chunks, "fgdd::struct::chunk_ptr");
    sync_.chunk_step = detail::to_device(chunk_step, "fgdd::struct::chunk_step");
    sync_.step_chunks = detail::to_device(step_chunks, "fgdd::struct::step_chunks");
    sync_.step_done =
        Kokkos::View<Ordinal*, DeviceType>("fgdd::struct::step_done", step_chunks.size());
    sync_.levels_done = Kokkos::View<Ordinal, DeviceType>("fgdd::struct::levels_done");
    sync_.done = Kokkos::View<unsigned*, DeviceType>("fgdd::struct::done", A.num_points());
    sync_.tickets = Kokkos::View<Ordinal, DeviceType>("fgdd::struct::tickets");
  }
  pivots_ = detail::PivotStatus("fgdd::struct", Ordinal(A.num_points()));
  space.fence();
  const double symbolic = timer.seconds();
  numeric(space, A);
  report_.symbolic_seconds = symbolic;
}

const FactorReport& StructIlu0::numeric(const ExecSpace& space, const StructuredMatrix& A) {
  if (!factors_.same_structure(A))
    throw InvalidInput("numeric: the structured matrix (stencil " + A.stencil().name() +
                       ", block size " + std::to_string(A.block_size()) +
                       ") is not the grid, stencil and block size the factorization was set up "
                       "with (stencil " +
                       factors_.stencil().name() + ", block size " +
                       std::to_string(factors_.block_size()) + ")");
  Kokkos::Timer timer;
  const Ordinal np = Ordinal(A.num_points());
  const int b = A.block_size();
  if (level_layout()) {
    detail::values_to_layout(space, storage_.layout, A.grid(), A.stencil().size() * b * b,
                             A.values(), storage_.values);
    factors_copied_ = false;
  } else {
    Kokkos::deep_copy(space, factors_.values(), A.values());
  }
  pivots_.reset(space);
  detail::StructData data = detail::make_data(factors_, storage_);
  data.points = levels_.points;
  data.elim_ptr = elim_ptr_;
  data.elim_upper = elim_upper_;
  data.elim_target = elim_target_;
  data.mirror = mirror_;
  data.failed_point = pivots_.failed_row;
  data.pivot_value = pivots_.pivot_value;
  data.shifted = pivots_.shifted;
  data.rule = options_.pivot_rule();
  const bool ic0 = options_.form == IluForm::Ildlt;
  const auto& level_ptr = levels_.host_level_ptr;
  detail::dispatch_block_size(b, [&](auto block) {
    detail::factor_points<decltype(block)::value>(space, data, level_ptr, ic0, schedule_, sync_);
  });
  const detail::PivotReadback pivots = pivots_.read(space);
  if (pivots.failed_row < np) throw ZeroPivot(std::int64_t(pivots.failed_row) * b, pivots.pivot);
  report_.shifted_pivots = pivots.shifted;
  report_.numeric_seconds = timer.seconds();
  return report_;
}

void StructIlu0::sweep(const ExecSpace& space, const Vector& v, bool lower) const {
  detail::StructData data = detail::make_data(factors_, storage_);
  data.points = levels_.points;
  detail::dispatch_block_size(factors_.block_size(), [&](auto block) {
    constexpr int B = decltype(block)::value;
    if (lower)
      detail::sweep_points<B, true>(space, data, levels_.host_level_ptr, v, schedule_, sync_);
    else
      detail::sweep_points<B, false>(space, data, levels_.host_level_ptr, v, schedule_, sync_);
  });
}

const Vector& StructIlu0::work() const {
  if (work_.extent(0) == 0)
    work_ = Vector(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::struct::work"),
                   Offset(factors_.block_size()) * storage_.stride);
  return work_;
}

void StructIlu0::solve(const ExecSpace& space, ConstVector in, Vector out, bool lower) const {
  detail::check_vector(*this, in.extent(0), lower ? "r" : "y");
  detail::check_vector(*this, out.extent(0), lower ? "y" : "z");
  if (level_layout()) {
    const int b = factors_.block_size();
    detail::gather_to_layout(space, storage_.layout, factors_.grid(), {}, b, in, work());
    sweep(space, work(), lower);
    detail::scatter_from_layout(space, storage_.layout, factors_.grid(), {}, b, work(), out);
    return;
  }
  if (in.data() != out.data()) Kokkos::deep_copy(space, out, in);
  sweep(space, out, lower);
}

void StructIlu0::solve_lower(const ExecSpace& space, ConstVector r, Vector y) const {
  solve(space, r, y, true);
}

void StructIlu0::solve_upper(const ExecSpace& space, ConstVector y, Vector z) const {
  solve(space, y, z, false);
}

void StructIlu0::apply(const ExecSpace& space, ConstVector r, Vector z,
                       const Kokkos::View<const Ordinal*, DeviceType>& perm) const {
  detail::check_vector(*this, r.extent(0), "r");
  detail::check_vector(*this, z.extent(0), "z");
  if (perm.extent(0) != 0 && perm.extent(0) != factors_.num_points())
    throw DimensionMismatch("the permutation has " + std::to_string(perm.extent(0)) +
                            " entries; the grid has " + std::to_string(factors_.num_points()) +
                            " points");
  const int b = factors_.block_size();
  if (level_layout()) {
    detail::gather_to_layout(space, storage_.layout, factors_.grid(), perm, b, r, work());
  } else if (perm.extent(0) != 0) {
    detail::gather_to_grid(space, perm, b, r, work());
  } else {
    if (r.data() != z.data()) Kokkos::deep_copy(space, z, r);
    sweep(space, z, true);
    sweep(space, z, false);
    return;
  }
  sweep(space, work(), true);
  sweep(space, work(), false);
  if (level_layout())
    detail::scatter_from_layout(space, storage_.layout, factors_.grid(), perm, b, work(), z);
  else
    detail::scatter_from_grid(space, perm, b, work(), z);
}

void StructIlu0::copy_out_factors() const {
  if (!level_layout() || factors_copied_) return;
  const ExecSpace space;
  const int b = factors_.block_size();
  factors_.allocate_values();
  detail::values_from_layout(space, storage_.layout, factors_.grid(),
                             factors_.stencil().size() * b * b, storage_.values, factors_.values());
  if (inv_diag_.extent(0) == 0)
    inv_diag_ = Kokkos::View<Scalar*, DeviceType>("fgdd::struct::inv_diag",
                                                  Offset(b) * b * factors_.num_points());
  detail::values_from_layout(space, storage_.layout, factors_.grid(), b * b, storage_.inv_diag,
                             inv_diag_);
  space.fence();
  factors_copied_ = true;
}

const StructuredMatrix& StructIlu0::factors() const {
  copy_out_factors();
  return factors_;
}

const Kokkos::View<Scalar*, DeviceType>& StructIlu0::inv_diag() const {
  copy_out_factors();
  return inv_diag_;
}

}  // namespace fgdd
