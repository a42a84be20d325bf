// The merged runs of a scalar sweep (GlobalRowKernel::Merged) with what a level reads loaded
// before the level starts (internal, device code). GlobalSolveMergedKernel reads, after each
// level's barrier, the level's rows, then their ranges, then their entries, then the x of those:
// four rounds of memory latency a level, and a run is hundreds of levels on one SM (the multilevel
// ILU's Schur complements and nested-dissection separators). Here a team of merged_team_rows
// threads holds one slot of every level per thread, and while level l runs each thread loads its
// slot's row of level l+3, range and right-hand side of level l+2 and first entries of level l+1,
// so a level waits only on the x of its entries. The levels, lanes and order of adds are
// GlobalSolveMergedKernel's, and so are the bits.
#pragma once

#include "trsv/global_solve_row.hpp"
#include "trsv/global_trsv.hpp"

#include <cstddef>

namespace fgdd::detail {

// Levels a pipelined run holds at most: their level_ptr entries are copied into scratch.
inline constexpr Ordinal pipelined_run_levels = 2048;

struct GlobalSolvePipelinedKernel {
  using Member = Kokkos::TeamPolicy<ExecSpace>::member_type;
  template <class T>
  using Scratch =
      Kokkos::View<T*, ExecSpace::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  static constexpr int held = 4;  // entries of a slot loaded a level ahead

  GlobalSolveRow<1> row;
  Kokkos::View<Ordinal*, DeviceType> level_ptr;
  Ordinal first_level = 0;
  Ordinal end_level = 0;  // at most first_level + pipelined_run_levels
  int max_lanes = 1;      // merged_lanes_cap of the triangle

  static std::size_t scratch_bytes() {
    return Scratch<Scalar>::shmem_size(merged_team_rows) +
           Scratch<Ordinal>::shmem_size(pipelined_run_levels + 1);
  }

  // A thread's slot of one level: lane `lane` of the `lanes` that add slot_row's products, and
  // the row it then finishes (a one-lane slot finishes its own row). -1: none.
  struct Rows {
    Ordinal slot_row = -1;
    Ordinal finish_row = -1;
    int lanes = 1;
    int lane = 0;
  };
  // The slot's entries are next, next + lanes, ... below end; rhs and d are r and D⁻¹ of the
  // finished row.
  struct Range : Rows {
    Offset next = 0, end = 0;
    Scalar rhs = 0, d = 0;
  };
  // The first `held` of those entries.
  struct Held : Range {
    Ordinal cols[held] = {};
    Scalar values[held] = {};
  };

  // Stage one (three levels ahead): level l's rows; ptr holds the run's level_ptr.
  KOKKOS_INLINE_FUNCTION Rows rows_of(const Scratch<Ordinal>& ptr, Ordinal l, int t) const {
    Rows s;
    const Ordinal begin = ptr(l - first_level), count = ptr(l - first_level + 1) - begin;
    s.lanes = merged_row_lanes(count, max_lanes);
    s.lane = t % s.lanes;
    if (t < count * s.lanes) s.slot_row = row.data.level_rows(begin + t / s.lanes);
    // A one-lane slot's finish_row is slot_row, set in range_of once that load has landed.
    if (s.lanes > 1 && t < count) s.finish_row = row.data.level_rows(begin + t);
    return s;
  }

  // Stage two (two levels ahead): the slot's range, the finished row's r and D⁻¹. r may alias x:
  // a row's x is written only at its own level, so its r can be read this early.
  KOKKOS_INLINE_FUNCTION Range range_of(const Rows& s) const {
    Range q;
    static_cast<Rows&>(q) = s;
    if (s.lanes == 1) q.finish_row = s.slot_row;
    if (q.slot_row >= 0) {
      q.next = row.deps_begin(q.slot_row) + s.lane;
      q.end = row.deps_end(q.slot_row);
    }
    if (q.finish_row >= 0) {
      q.rhs = row.data.r(q.finish_row);
      if (row.data.scale_rhs || row.data.scale_result) q.d = row.data.inv_diag(q.finish_row);
    }
    return q;
  }

  // Stage three (a level ahead): the slot's first entries.
  KOKKOS_INLINE_FUNCTION Held held_of(const Range& q) const {
    Held h;
    static_cast<Range&>(h) = q;
    for (int e = 0; e < held; ++e) {
      const Offset k = q.next + Offset(e) * q.lanes;
      if (k < q.end) {
        h.cols[e] = row.data.col_ind(k);
        h.values[e] = row.data.values(k);
      }
    }
    return h;
  }

  // A one-lane row's Σ_j T_ij x_j in sparse_dot's order (four partial sums, the tail in the
  // first), its first entries from h.
  KOKKOS_INLINE_FUNCTION Scalar one_lane_sum(const Held& h) const {
    const Scalar* x = row.data.x.data();
    const Ordinal* cols = row.data.col_ind.data();
    const Scalar* values = row.data.values.data();
    Scalar s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    if (h.end - h.next >= 4) {
      static_assert(held == 4, "the first group of four is the held entries");
      s0 += h.values[0] * x[h.cols[0]];
      s1 += h.values[1] * x[h.cols[1]];
      s2 += h.values[2] * x[h.cols[2]];
      s3 += h.values[3] * x[h.cols[3]];
      Offset k = h.next + 4;
      for (; k + 4 <= h.end; k += 4) {
        s0 += values[k] * x[cols[k]];
        s1 += values[k + 1] * x[cols[k + 1]];
        s2 += values[k + 2] * x[cols[k + 2]];
        s3 += values[k + 3] * x[cols[k + 3]];
      }
      for (; k < h.end; ++k) s0 += values[k] * x[cols[k]];
    } else {
      for (int e = 0; e < held - 1; ++e)
        if (h.next + e < h.end) s0 += h.values[e] * x[h.cols[e]];
    }
    return (s0 + s1) + (s2 + s3);
  }

  // A shared row's lane share in strided_dot's order, its first entries from h.
  KOKKOS_INLINE_FUNCTION Scalar lane_share(const Held& h) const {
    const Scalar* x = row.data.x.data();
    const Ordinal* cols = row.data.col_ind.data();
    const Scalar* values = row.data.values.data();
    const Offset step = h.lanes;
    Scalar sum = 0;
    for (int e = 0; e < held; ++e)
      if (h.next + e * step < h.end) sum += h.values[e] * x[h.cols[e]];
    // Long rows: four entries' loads issued before their adds, which stay in order.
    Offset k = h.next + held * step;
    for (; k + 3 * step < h.end; k += 4 * step) {
      const Ordinal c0 = cols[k], c1 = cols[k + step], c2 = cols[k + 2 * step],
                    c3 = cols[k + 3 * step];
      const Scalar x0 = x[c0], x1 = x[c1], x2 = x[c2], x3 = x[c3];
      sum += values[k] * x0;
      sum += values[k + step] * x1;
      sum += values[k + 2 * step] * x2;
      sum += values[k + 3 * step] * x3;
    }
    for (; k < h.end; k += step) sum += values[k] * x[cols[k]];
    return sum;
  }

  // x_i = S (R r_i − sum), written as GlobalSolveRow's load_rhs, scale and store write it.
  KOKKOS_INLINE_FUNCTION void finish(Ordinal i, Scalar rhs, Scalar d, Scalar sum) const {
    Scalar acc = rhs;
    if (row.data.scale_rhs) {
      Scalar scaled = 0;
      scaled += d * acc;
      acc = scaled;
    }
    acc -= sum;
    if (row.data.scale_result) {
      Scalar scaled = 0;
      scaled += d * acc;
      acc = scaled;
    }
    row.data.x(i) = acc;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const Scratch<Scalar> shares(team.team_scratch(0), merged_team_rows);
    const Scratch<Ordinal> ptr(team.team_scratch(0), end_level - first_level + 1);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, first_level, end_level + 1),
                         [&](const Ordinal l) { ptr(l - first_level) = level_ptr(l); });
    team.team_barrier();
    const int t = team.team_rank();
    // Levels l+3, l+2 and l+1 of step l, each one stage further than the one before.
    Rows rows_ahead;
    Range range_ahead;
    Held held_ahead;
    for (Ordinal l = first_level - 3; l < end_level; ++l) {
      const Held current = held_ahead;
      held_ahead = held_of(range_ahead);
      range_ahead = range_of(rows_ahead);
      rows_ahead = l + 3 < end_level ? rows_of(ptr, l + 3, t) : Rows{};
      if (l < first_level) continue;
      if (current.lanes == 1) {
        if (current.slot_row >= 0)
          finish(current.slot_row, current.rhs, current.d, one_lane_sum(current));
      } else {  // every thread of a level has the same lanes: the barrier is the team's
        if (current.slot_row >= 0) shares(t) = lane_share(current);
        team.team_barrier();
        if (current.finish_row >= 0) {
          Scalar sum = 0;
          for (int q = 0; q < current.lanes; ++q) sum += shares(t * current.lanes + q);
          finish(current.finish_row, current.rhs, current.d, sum);
        }
      }
      team.team_barrier();
    }
  }
};

}  // namespace fgdd::detail
