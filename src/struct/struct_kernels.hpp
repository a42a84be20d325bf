// The per-point kernels of the structured ILU (structilu-structured-grid.txt Algorithms 1-2):
// the factorization of one point, IC(0)'s upper triangle, and one point of a sweep, for every
// SyncMode (how a point knows that what it reads is final) and layout. Used by struct_ilu0.cpp
// through struct_schedules.hpp.
#pragma once

#include "core/dense_block.hpp"
#include "core/kokkos_compat.hpp"
#include "factor/pivot_shift.hpp"
#include "struct/entry_table.hpp"
#include "struct/level_layout.hpp"
#include "struct/structured_matrix.hpp"

namespace fgdd::detail {

// What the factorization and solve launches read and write. Block element (r, c) of stencil
// entry e at the point whose values live at i (its grid index, or its slot in the level layout)
// is lu(((e·b + r)·b + c)·stride + i); D⁻¹'s is inv_diag((r·b + c)·stride + i).
struct StructData {
  GridCoordinates g;
  StructEntryTable entries;
  int s = 1, num_lower = 0, center = 0, runtime_b = 1;
  int margin = 0;     // the stencil's radius (interior())
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
  PivotTreatment pivot;        // pivot.rule.tiny is relative: times the row's largest |entry|;
                               // pivot.shift_scale per grid point's scalar rows (grid order)
  int lanes = 1;               // vector lanes per point: the launches' vector length
  int level_team_threads = 0;  // points per team of a launch per level; 0: the default one
};

using TeamMember = Kokkos::TeamPolicy<ExecSpace>::member_type;

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
  // Whether the kernel has load_own(site, Own&) and point(member, site, Own&) (the DoF-1 sweeps).
  static constexpr bool loads_own_early = false;
  // Whether the tiles launch publishes and waits on progress with release stores and acquire
  // loads (else relaxed ones beside fences in every thread). Against the fences they sped up
  // the DoF-1 sweeps and the factorizations but slowed the DoF 2–3 sweeps (cause not
  // established), so those keep the fences
  // (measured: docs/PERFORMANCE_HISTORY.md, "Measurements behind code choices").
  static constexpr bool acquire_release_progress = true;
  StructData data;
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
    return data.g.inside(s.x + data.entries.dx[e], s.y + data.entries.dy[e],
                         s.z + data.entries.dz[e]);
  }
  // Whether every neighbour of s lies in the grid, so that the factorization's entries need no
  // inside(): most points of a grid are interior, and inside() costs three table reads and six
  // comparisons an entry (measured: docs/PERFORMANCE_HISTORY.md, "Measurements behind code
  // choices").
  KOKKOS_INLINE_FUNCTION bool interior(const StructSite& s) const {
    const int m = data.margin;
    return s.x >= m && s.x < data.g.nx - m && s.y >= m && s.y < data.g.ny - m && s.z >= m &&
           s.z < data.g.nz - m;
  }
  // Where that neighbour's values live.
  KOKKOS_INLINE_FUNCTION Offset neighbour(const StructSite& s, int e) const {
    if constexpr (level_layout) return data.level.neighbour(s, e);
    return Offset((long long)s.self + data.entries.linear[e]);
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

// The in-place ILU(0) of one point (paper Algorithm 1), a team thread per point: the points of a
// level are independent and read only rows of earlier levels (their lower neighbours), final
// once waited on. For each lower entry a in column order: L_pa = A_pa·D⁻¹_q (q = p + o_a), then
// A_pt −= L_pa·U_qu for every upper entry u of row q whose o_a + o_u is the stencil entry t — the
// same updates in the same order as the general IKJ ILU0 on the stencil's pattern. The thread's
// vector lanes share those updates, one (u, block column) pair each: the targets t of one a are
// distinct, so no lane writes what another reads until the lanes synchronize at the end of the
// range, and each scalar gets exactly the serial arithmetic (bitwise the same factors for any
// lane count). Ic0 (L D Lᵀ): only targets up to the centre, with U_qu = D_q·L_{q+o_u, −o_u}ᵀ and
// L_pa·D_q = A_pa (before its scaling), so the update is A_pa·L_{q+o_u, −o_u}ᵀ (q + o_u = p + o_t
// is a lower neighbour of p too); U is written afterwards by StructIc0UpperKernel.
template <int B, bool Ic0, SyncMode Mode>
struct StructFactorKernel : StructKernelBase<B, Mode> {
  using Base = StructKernelBase<B, Mode>;
  using Base::b;
  using Base::data;
  using Base::inside;
  using Base::load;
  using Base::lu;
  using Base::neighbour;
  using Base::read;
  static constexpr int capacity = Base::capacity;
  static constexpr int width = B > 0 ? B : max_block_size;

  KOKKOS_INLINE_FUNCTION void point(const TeamMember& member, const StructSite& s) const {
    const Offset p = s.self;
    const int bs = b(), bb = bs * bs;
    const int last = Ic0 ? data.center + 1 : data.s;  // Ic0 reads the lower triangle only
    const bool all_in = this->interior(s);
    Scalar row_max = 0;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(member, last * bb),
        [&](const int k, Scalar& m) {
          if (!all_in && !inside(k / bb, s)) return;
          const Scalar v = fabs(lu(k / bb, k % bb, p));
          if (v > m) m = v;
        },
        Kokkos::Max<Scalar>(row_max));
    this->wait_neighbours(s, 0, data.num_lower);
    for (int a = 0; a < data.num_lower; ++a) {
      if (!all_in && !inside(a, s)) continue;
      const Offset q = neighbour(s, a);
      // Every lane computes L_pa in registers; lane 0 stores it after the updates.
      Scalar original[capacity], l[capacity], inv[capacity];
      load(a, p, original);
      this->load_inv_diag(q, inv);
      multiply_blocks(original, inv, l, bs);
      const int first = data.elim_ptr(a);
      // One (u, block column) update of row p per lane.
      const auto update = [&](const int item) {
        const int m = first + item / bs, c = item % bs;
        const int t = data.elim_target(m);
        if (!all_in && !inside(t, s)) return;  // p + o_t = q + o_u
        // Every load before the first product (in-order issue: one memory latency, not two).
        Scalar target[width];
        for (int r = 0; r < bs; ++r) target[r] = lu(t, r * bs + c, p);
        // Column c of U_qu (Ilu0), or row c of L_{q', −o_u} (Ic0, q' = p + o_t; for t = centre
        // that is L_pa, recomputed from A_pa, which no lane changes in this range).
        Scalar other[width];
        if (!Ic0) {
          for (int k = 0; k < bs; ++k) other[k] = read(lu(data.elim_upper(m), k * bs + c, q));
        } else if (t == data.center) {
          for (int k = 0; k < bs; ++k) {
            Scalar sum = 0;
            for (int j = 0; j < bs; ++j) sum += lu(a, c * bs + j, p) * inv[j * bs + k];
            other[k] = sum;
          }
        } else {
          const int mirror = data.mirror(data.elim_upper(m));
          const Offset q_t = neighbour(s, t);
          for (int k = 0; k < bs; ++k) other[k] = read(lu(mirror, c * bs + k, q_t));
        }
        // Column c of L_pa·U_qu, or of A_pa·L_{q', −o_u}ᵀ.
        const Scalar* left = Ic0 ? original : l;
        for (int r = 0; r < bs; ++r) {
          Scalar sum = 0;
          for (int k = 0; k < bs; ++k) sum += left[r * bs + k] * other[k];
          lu(t, r * bs + c, p) = target[r] - sum;
        }
      };
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(member, (data.elim_ptr(a + 1) - first) * bs),
                           update);
      Kokkos::single(Kokkos::PerThread(member), [&]() {
        for (int e = 0; e < bb; ++e) lu(a, e, p) = l[e];
      });
    }
    Kokkos::single(Kokkos::PerThread(member), [&]() { finish(s, row_max); });
  }

  // The pivot, exactly as GlobalIlu0 treats it, and the point's publication.
  KOKKOS_INLINE_FUNCTION void finish(const StructSite& s, Scalar row_max) const {
    const Offset p = s.self;
    const int bb = b() * b();
    Scalar pivot[capacity], inv[capacity];
    load(data.center, p, pivot);
    bool changed = false;
    Scalar reported = 0;
    const int result = treat_pivot<capacity>(pivot, inv, b(), Offset(s.p) * b(), row_max,
                                             data.pivot, changed, reported);
    for (int rc = 0; rc < bb; ++rc) this->inv_diag(rc, p) = inv[rc];
    data.pivot_value(s.p) = reported;
    if (result < 0)
      Kokkos::atomic_fetch_min(&data.failed_point(), Ordinal(s.p));
    else if (result > 0)
      Kokkos::atomic_add(&data.shifted(), Offset(result));
    if (changed)
      for (int rc = 0; rc < bb; ++rc) lu(data.center, rc, p) = pivot[rc];
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

// Entries per batch of a sweep at block size b over a point's entries (lower or upper): about 48
// scalars of registers, 1 for the runtime block size; at b = 1 the fewest of 4, 8 and 16 that
// hold the entries, since every slot of a batch costs registers and instructions whether or not
// it is used (star7 has 3 entries a side).
constexpr int sweep_batch(int b, int entries) {
  if (b <= 0) return 1;
  if (b == 1) return entries <= 4 ? 4 : entries <= 8 ? 8 : 16;
  return 48 / (b * b + b) > 16 ? 16 : 48 / (b * b + b);
}

// One point of a sweep (Algorithm 2) in place. Lower: z_p −= Σ_a L_pa z_{p+o_a}, the lower
// neighbours on earlier levels. Upper (levels in reverse): z_p = D⁻¹_p (z_p − Σ_u U_pu z_{p+o_u}),
// the upper neighbours on later levels. z is in the kernel's layout (component()). A GPU thread
// issues in order, so a load followed by its use per entry would cost a memory latency per entry:
// the entries go in batches whose loads are all issued before the first product (a branch on
// whether an entry is in the grid does not wait for memory); the products keep the serial order.
//
// At DoF 1 the tiles launch first loads what no other point writes (Own: z_p, D⁻¹_p, the first
// batch's entries) and then waits on the tiles before it, so those loads overlap the wait. At
// DoF 2–3 the same split made the sweeps slower (likely registers), so there every launch takes
// point(). point() keeps its own batch loop: one loop for both paths was slower with the same
// loads, and far slower with the neighbours' addresses loaded before the wait. The sweeps test
// inside() at every point: skipping it at interior() points made the solves slower, likely
// because warps that mix boundary and interior points run both paths
// (measured: docs/PERFORMANCE_HISTORY.md, "Measurements behind code choices").
template <int B, bool Lower, int Batch, SyncMode Mode>
struct StructSweepKernel : StructKernelBase<B, Mode> {
  using Base = StructKernelBase<B, Mode>;
  static constexpr int width = B > 0 ? B : max_block_size;
  static constexpr int batch = Batch;
  static constexpr bool loads_own_early = B == 1;
  static constexpr bool acquire_release_progress = B == 1;
  Vector z;

  KOKKOS_INLINE_FUNCTION int first_entry() const { return Lower ? 0 : this->data.center + 1; }
  KOKKOS_INLINE_FUNCTION int last_entry() const {
    return Lower ? this->data.num_lower : this->data.s;
  }

  KOKKOS_INLINE_FUNCTION void point(const TeamMember&, const StructSite& s) const {
    const Offset p = s.self;
    const int bs = this->b(), bb = bs * bs;
    const int first = first_entry(), last = last_entry();
    Scalar sum[width], inv[Base::capacity];
    for (int r = 0; r < bs; ++r) sum[r] = z(this->component(p, r));
    if (!Lower)
      for (int rc = 0; rc < bb; ++rc) inv[rc] = this->inv_diag(rc, p);
    for (int e0 = first; e0 < last; e0 += batch) {
      bool in[batch];
      Scalar values[batch][Base::capacity], other[batch][width];
      for (int j = 0; j < batch; ++j) {
        const int e = e0 + j;
        in[j] = e < last && this->inside(e, s);
        if (!in[j]) continue;
        const Offset q = this->neighbour(s, e);
        this->wait(q);
        for (int rc = 0; rc < bb; ++rc) values[j][rc] = this->lu(e, rc, p);
        for (int c = 0; c < bs; ++c) other[j][c] = this->read(z(this->component(q, c)));
      }
      for (int j = 0; j < batch; ++j) {
        if (!in[j]) continue;
        for (int r = 0; r < bs; ++r)
          for (int c = 0; c < bs; ++c) sum[r] -= values[j][r * bs + c] * other[j][c];
      }
    }
    finish(s, sum, inv);
  }

  // What no other point writes, loaded before the point's waits (loads_own_early).
  struct Own {
    Scalar sum[width];           // z_p
    Scalar inv[Base::capacity];  // D⁻¹_p (upper)
    bool in[batch];              // the first batch's entries in the grid
    Scalar values[batch][Base::capacity];
  };

  KOKKOS_INLINE_FUNCTION void load_own(const StructSite& s, Own& own) const {
    const int bs = this->b();
    for (int r = 0; r < bs; ++r) own.sum[r] = z(this->component(s.self, r));
    if (!Lower)
      for (int rc = 0; rc < bs * bs; ++rc) own.inv[rc] = this->inv_diag(rc, s.self);
    load_batch(s, first_entry(), own.in, own.values);
  }

  // point() after load_own.
  KOKKOS_INLINE_FUNCTION void point(const TeamMember&, const StructSite& s, Own& own) const {
    subtract_loaded_batch(s, first_entry(), own.in, own.values, own.sum);
    for (int e0 = first_entry() + batch; e0 < last_entry(); e0 += batch) {
      bool in[batch];
      Scalar values[batch][Base::capacity];
      load_batch(s, e0, in, values);
      subtract_loaded_batch(s, e0, in, values, own.sum);
    }
    finish(s, own.sum, own.inv);
  }

 private:
  // The entries of the batch from e0 at the point (in: whether each neighbour is in the grid).
  KOKKOS_INLINE_FUNCTION void load_batch(const StructSite& s, int e0, bool* in,
                                         Scalar (*values)[Base::capacity]) const {
    const int bb = this->b() * this->b();
    for (int j = 0; j < batch; ++j) {
      const int e = e0 + j;
      in[j] = e < last_entry() && this->inside(e, s);
      if (in[j])
        for (int rc = 0; rc < bb; ++rc) values[j][rc] = this->lu(e, rc, s.self);
    }
  }

  // Waits on and loads the batch's neighbours, then subtracts its products.
  KOKKOS_INLINE_FUNCTION void subtract_loaded_batch(const StructSite& s, int e0, const bool* in,
                                                    const Scalar (*values)[Base::capacity],
                                                    Scalar* sum) const {
    const int bs = this->b();
    Scalar other[batch][width];
    for (int j = 0; j < batch; ++j) {
      if (!in[j]) continue;
      const Offset q = this->neighbour(s, e0 + j);
      this->wait(q);
      for (int c = 0; c < bs; ++c) other[j][c] = this->read(z(this->component(q, c)));
    }
    for (int j = 0; j < batch; ++j) {
      if (!in[j]) continue;
      for (int r = 0; r < bs; ++r)
        for (int c = 0; c < bs; ++c) sum[r] -= values[j][r * bs + c] * other[j][c];
    }
  }

  // Stores z_p (lower) or D⁻¹_p z_p (upper) and publishes the point.
  KOKKOS_INLINE_FUNCTION void finish(const StructSite& s, const Scalar* sum,
                                     const Scalar* inv) const {
    const Offset p = s.self;
    const int bs = this->b();
    if (Lower) {
      for (int r = 0; r < bs; ++r) z(this->component(p, r)) = sum[r];
    } else {
      for (int r = 0; r < bs; ++r) {
        Scalar v = 0;
        for (int c = 0; c < bs; ++c) v += inv[r * bs + c] * sum[c];
        z(this->component(p, r)) = v;
      }
    }
    this->publish(p);
  }
};

}  // namespace fgdd::detail
