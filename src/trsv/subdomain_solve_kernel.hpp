// The one team-per-subdomain kernel behind every subdomain solve and apply (internal). A launch
// runs up to three steps on the team's vector slice: triangular solves (forward, or transposed
// by scattering), and D⁻¹ (or D⁻ᵀ) scaling. The slice lives in team scratch (InScratch) or is
// the output vector itself in global memory.
#pragma once

#include "core/dense_block.hpp"
#include "schedule/sliced_levels.hpp"
#include "schedule/subdomain_levels.hpp"

namespace fgdd::detail {

enum class Traversal {
  Vertex,       // one thread per row of a level, entries in row order: deterministic
  Edge,         // threads over the level's entries, atomic updates of the row sums
  Spin,         // no levels: each row waits on done flags of the rows it needs
  Lanes,        // one thread per row of a level, the row's entries over vector lanes summed in a
                // fixed order: deterministic, with edge-level parallelism for long rows
  EdgeOrdered,  // threads over the level's entries write their products to scratch, then one
                // thread per row subtracts them in edge order: deterministic, no atomics
  Sliced,       // Vertex, reading each level's entries as padded columns (SlicedLevels): coalesced
};

enum class StepKind { Solve, SolveTransposed, Scale, ScaleTransposed };

struct Step {
  StepKind kind = StepKind::Solve;
  bool lower = true;    // which triangle a solve uses
  bool pivots = false;  // divide by D (true) or treat the diagonal as I
};

struct StepList {
  Step step[3];
  int count = 0;
};

// B: the block size when known at compile time (1..4, the fast paths), or 0 for any b ≤ 16.
// V: the type the factor blocks in edge order and D⁻¹ are stored in (FactorPrecision); the
// vectors and all arithmetic are Scalar.
// Held: EdgeOrdered with a compile-time block size: entries of the next level each thread loads
// ahead (its first Held of the level's passes).
template <Traversal traversal, bool InScratch, int B, class V = Scalar, int Held = 1>
struct SubdomainSolveKernel {
  using Member = Kokkos::TeamPolicy<ExecSpace>::member_type;

  SparseMatrix::RowMap row_map;
  SparseMatrix::ColumnIndices col_ind;
  SparseMatrix::Values values;
  Kokkos::View<Offset*, DeviceType> diag;
  Kokkos::View<const V*, DeviceType> inv_diag;
  Kokkos::View<Ordinal*, DeviceType> offsets;
  SubdomainLevels lower_levels;
  SubdomainLevels upper_levels;
  Kokkos::View<const V*, DeviceType> edge_values;  // factor blocks in edge order
  ConstVector r;
  Vector z;
  StepList steps;
  int runtime_b;
  int scratch_level;
  Offset level_edges_max = 0;  // EdgeOrdered: entries of the widest level (products in scratch)
  // Sliced: both triangles' padded columns and the factor blocks in their order.
  SlicedLevels lower_sliced = {};
  SlicedLevels upper_sliced = {};
  Kokkos::View<const V*, DeviceType> lower_sliced_values = {};
  Kokkos::View<const V*, DeviceType> upper_sliced_values = {};

  KOKKOS_INLINE_FUNCTION int b() const { return B > 0 ? B : runtime_b; }
  KOKKOS_INLINE_FUNCTION const Scalar* block(Offset k) const { return &values(k * b() * b()); }
  KOKKOS_INLINE_FUNCTION const V* edge_block(Offset e) const { return &edge_values(e * b() * b()); }

  // x_i ← D_i⁻¹ x_i (or D_i⁻ᵀ x_i) in place.
  KOKKOS_INLINE_FUNCTION void scale_row(Scalar* xi, Ordinal i, bool transposed) const {
    const int n = b();
    multiply_block_in_place<(B > 0 ? B : max_block_size)>(&inv_diag(Offset(i) * n * n), xi, n,
                                                          transposed);
  }

  // acc -= a · xj (a in registers as Scalar, or stored as V)
  template <class T>
  KOKKOS_INLINE_FUNCTION void subtract_product(Scalar* acc, const T* a, const Scalar* xj) const {
    subtract_block_product(acc, a, xj, b(), false);
  }

  KOKKOS_INLINE_FUNCTION Offset deps_begin(bool lower, Ordinal i) const {
    return lower ? row_map(i) : diag(i) + 1;
  }
  KOKKOS_INLINE_FUNCTION Offset deps_end(bool lower, Ordinal i) const {
    return lower ? diag(i) : row_map(i + 1);
  }

  // Vertex: rows of a level in parallel, each thread runs its row's entries in order.
  KOKKOS_INLINE_FUNCTION void solve_vertex(const Member& team, Scalar* x, Ordinal first,
                                           const SubdomainLevels& levels, const Step& step) const {
    const Ordinal s = team.league_rank(), base = first + s, n = b();
    for (Ordinal l = 0; l < levels.num_levels(s); ++l) {
      Kokkos::parallel_for(
          Kokkos::TeamThreadRange(team, levels.level_ptr(base + l), levels.level_ptr(base + l + 1)),
          [&](const Ordinal p) {
            const Ordinal i = levels.rows(p);
            Scalar* xi = x + Offset(i - first) * n;
            Scalar acc[B > 0 ? B : max_block_size];
            for (int c = 0; c < n; ++c) acc[c] = xi[c];
            for (Offset e = levels.row_edge_begin(p); e < levels.row_edge_end(p); ++e)
              subtract_product(acc, edge_block(e), x + Offset(levels.edge_col(e) - first) * n);
            for (int c = 0; c < n; ++c) xi[c] = acc[c];
            if (step.pivots) scale_row(xi, i, false);
          });
      team.team_barrier();
    }
  }

  // Lanes: Kokkos' vector reduction combines the lanes' partial sums in an order fixed by the
  // lane count (a shuffle tree on GPUs, a loop on CPUs), so z is the same bits every run, while
  // a long row (27-point, BSR) still spreads its loads over several lanes.
  KOKKOS_INLINE_FUNCTION void solve_lanes(const Member& team, Scalar* x, Ordinal first,
                                          const SubdomainLevels& levels, const Step& step) const {
    const Ordinal s = team.league_rank(), base = first + s, n = b();
    for (Ordinal l = 0; l < levels.num_levels(s); ++l) {
      Kokkos::parallel_for(
          Kokkos::TeamThreadRange(team, levels.level_ptr(base + l), levels.level_ptr(base + l + 1)),
          [&](const Ordinal p) {
            const Ordinal i = levels.rows(p);
            Scalar* xi = x + Offset(i - first) * n;
            const Offset begin = levels.row_edge_begin(p), end = levels.row_edge_end(p);
            Scalar sums[B > 0 ? B : max_block_size];
            for (int c = 0; c < n; ++c) {
              sums[c] = 0;
              Kokkos::parallel_reduce(
                  Kokkos::ThreadVectorRange(team, begin, end),
                  [&](const Offset e, Scalar& part) {
                    const V* a = edge_block(e) + c * n;
                    const Scalar* xj = x + Offset(levels.edge_col(e) - first) * n;
                    for (int q = 0; q < n; ++q) part += Scalar(a[q]) * xj[q];
                  },
                  sums[c]);
            }
            // Only the writing lane reads x_i: a lane that read it while another wrote it would
            // race inside the warp (racecheck reports it), though the value read was unused.
            Kokkos::single(Kokkos::PerThread(team), [&] {
              Scalar acc[B > 0 ? B : max_block_size];
              for (int c = 0; c < n; ++c) acc[c] = xi[c] - sums[c];
              if (step.pivots) scale_row(acc, i, false);
              for (int c = 0; c < n; ++c) xi[c] = acc[c];
            });
          });
      team.team_barrier();
    }
  }

  // x_i -= a · x_j with atomics (other threads update row i in the same level).
  template <class T>
  KOKKOS_INLINE_FUNCTION void scatter_product(Scalar* x, Ordinal first, const T* a, Ordinal row,
                                              Ordinal col) const {
    const int n = b();
    const Scalar* xj = x + Offset(col - first) * n;
    Scalar* xi = x + Offset(row - first) * n;
    for (int c = 0; c < n; ++c) {
      Scalar sum = 0;
      for (int q = 0; q < n; ++q) sum += Scalar(a[c * n + q]) * xj[q];
      Kokkos::atomic_add(&xi[c], -sum);
    }
  }

  KOKKOS_INLINE_FUNCTION void scale_level(const Member& team, Scalar* x, Ordinal first,
                                          const SubdomainLevels& levels, Ordinal l) const {
    const Ordinal base = first + team.league_rank();
    Kokkos::parallel_for(
        Kokkos::TeamThreadRange(team, levels.level_ptr(base + l), levels.level_ptr(base + l + 1)),
        [&](const Ordinal p) {
          const Ordinal i = levels.rows(p);
          scale_row(x + Offset(i - first) * b(), i, false);
        });
    team.team_barrier();
  }

  // One edge's data in registers.
  struct EdgeData {
    bool valid = false;
    Ordinal row = 0, col = 0;
    V a[B > 0 ? B* B : 1];
  };

  // with_row false: the row is not needed (EdgeOrdered), so its index is not loaded.
  template <bool with_row = true>
  KOKKOS_INLINE_FUNCTION void load_edge(const SubdomainLevels& levels, Offset e, Offset end,
                                        EdgeData& d) const {
    d.valid = e < end;
    if (!d.valid) return;
    if constexpr (with_row) d.row = levels.edge_row(e);
    d.col = levels.edge_col(e);
    for (int q = 0; q < B * B; ++q) d.a[q] = edge_values(e * (B * B) + q);
  }

  // Edge: all strictly triangular entries of a level at once, atomics into their rows. With a
  // compile-time block size each thread loads its first edge of the next level (and the level
  // bound after it) before working on the current one: the edge data never depends on x, so
  // its memory latency leaves the level-to-level critical path, which is then the scratch
  // atomics and the barrier.
  KOKKOS_INLINE_FUNCTION void solve_edge(const Member& team, Scalar* x, Ordinal first,
                                         const SubdomainLevels& levels, const Step& step) const {
    const Ordinal s = team.league_rank(), base = first + s, num_levels = levels.num_levels(s);
    if constexpr (B == 0) {
      for (Ordinal l = 0; l < num_levels; ++l) {
        Kokkos::parallel_for(
            Kokkos::TeamThreadRange(team, levels.edge_ptr(base + l), levels.edge_ptr(base + l + 1)),
            [&](const Offset e) {
              scatter_product(x, first, edge_block(e), levels.edge_row(e), levels.edge_col(e));
            });
        team.team_barrier();
        if (step.pivots) scale_level(team, x, first, levels, l);
      }
    } else {
      if (num_levels == 0) return;
      const Offset t = team.team_rank(), threads = team.team_size();
      Offset begin = levels.edge_ptr(base), end = levels.edge_ptr(base + 1);
      Offset end_next = num_levels > 1 ? levels.edge_ptr(base + 2) : end;
      EdgeData current;
      load_edge(levels, begin + t, end, current);
      for (Ordinal l = 0; l < num_levels; ++l) {
        EdgeData next;
        Offset end_after = end_next;
        if (l + 1 < num_levels) {
          load_edge(levels, end + t, end_next, next);
          if (l + 2 < num_levels) end_after = levels.edge_ptr(base + l + 3);
        }
        if (current.valid) scatter_product(x, first, current.a, current.row, current.col);
        for (Offset e = begin + t + threads; e < end; e += threads) {
          EdgeData more;
          load_edge(levels, e, end, more);
          scatter_product(x, first, more.a, more.row, more.col);
        }
        team.team_barrier();
        if (step.pivots) scale_level(team, x, first, levels, l);
        begin = end;
        end = end_next;
        end_next = end_after;
        current = next;
      }
    }
  }

  // One row of a level: its position's row and edge range (EdgeOrdered), or row -1 for none.
  struct RowSpan {
    Ordinal row = -1;
    Offset begin = 0, end = 0;
  };

  // The three loads are issued together: a branch on the loaded row would hold the thread until
  // it arrived, one more memory latency on the level-to-level path.
  KOKKOS_INLINE_FUNCTION void load_span(const SubdomainLevels& levels, Ordinal p, Ordinal end,
                                        RowSpan& r) const {
    if (p >= end) {
      r.row = -1;
      return;
    }
    r.row = levels.rows(p);
    r.begin = levels.row_edge_begin(p);
    r.end = levels.row_edge_end(p);
  }

  // product = a · x_j, one entry's share of its row's sum.
  template <class T>
  KOKKOS_INLINE_FUNCTION void store_product(Scalar* product, const T* a, const Scalar* xj) const {
    const int n = b();
    for (int c = 0; c < n; ++c) {
      Scalar sum = 0;
      for (int q = 0; q < n; ++q) sum += Scalar(a[c * n + q]) * xj[q];
      product[c] = sum;
    }
  }

  // x_i -= the row's products in edge order (the bits of subtract_product over the row, as the
  // vertex traversal computes them), then x_i ← D_i⁻¹ x_i when the step divides by the pivots.
  KOKKOS_INLINE_FUNCTION void finish_row(Scalar* x, Ordinal first, const Scalar* products,
                                         Offset level_begin, const RowSpan& r,
                                         const Step& step) const {
    const int n = b();
    Scalar* xi = x + Offset(r.row - first) * n;
    Scalar acc[B > 0 ? B : max_block_size];
    for (int c = 0; c < n; ++c) acc[c] = xi[c];
    for (Offset e = r.begin; e < r.end; ++e)
      for (int c = 0; c < n; ++c) acc[c] -= products[(e - level_begin) * n + c];
    if (step.pivots) scale_row(acc, r.row, false);
    for (int c = 0; c < n; ++c) xi[c] = acc[c];
  }

  // EdgeOrdered: per level, threads over its entries store a_ij · x_j in scratch (coalesced
  // edge-order loads, as the edge traversal makes), a barrier, then one thread per row subtracts
  // its products in edge order and a barrier. Two barriers a level instead of atomics, and every
  // row is summed in the same order on every run. With a compile-time block size each thread
  // loads its first entry and its first row of the next level before working on the current
  // one: neither depends on x, so their memory latency leaves the level-to-level critical path.
  // (Holding two of each was slower on an H200: docs/PERFORMANCE.md.)
  // A level without entries and without pivots changes nothing and is skipped (level 0).
  KOKKOS_INLINE_FUNCTION void solve_edge_ordered(const Member& team, Scalar* x, Scalar* products,
                                                 Ordinal first, const SubdomainLevels& levels,
                                                 const Step& step) const {
    const Ordinal s = team.league_rank(), base = first + s, num_levels = levels.num_levels(s);
    const int n = b();
    if constexpr (B == 0) {
      for (Ordinal l = 0; l < num_levels; ++l) {
        const Offset begin = levels.edge_ptr(base + l), end = levels.edge_ptr(base + l + 1);
        if (begin == end && !step.pivots) continue;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, begin, end), [&](const Offset e) {
          store_product(products + (e - begin) * n, edge_block(e),
                        x + Offset(levels.edge_col(e) - first) * n);
        });
        team.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, levels.level_ptr(base + l),
                                                     levels.level_ptr(base + l + 1)),
                             [&](const Ordinal p) {
                               RowSpan r;
                               load_span(levels, p, p + 1, r);
                               finish_row(x, first, products, begin, r, step);
                             });
        team.team_barrier();
      }
    } else {
      if (num_levels == 0) return;
      const Offset t = team.team_rank(), threads = team.team_size();
      Offset begin = levels.edge_ptr(base), end = levels.edge_ptr(base + 1);
      Offset end_next = num_levels > 1 ? levels.edge_ptr(base + 2) : end;
      Ordinal row_begin = levels.level_ptr(base), row_end = levels.level_ptr(base + 1);
      Ordinal row_end_next = num_levels > 1 ? levels.level_ptr(base + 2) : row_end;
      EdgeData edge[Held];
      RowSpan row;
      for (int h = 0; h < Held; ++h)
        load_edge<false>(levels, begin + t + h * threads, end, edge[h]);
      load_span(levels, row_begin + Ordinal(t), row_end, row);
      for (Ordinal l = 0; l < num_levels; ++l) {
        EdgeData next_edge[Held];
        RowSpan next_row;
        Offset end_after = end_next;
        Ordinal row_end_after = row_end_next;
        if (l + 1 < num_levels) {
          for (int h = 0; h < Held; ++h)
            load_edge<false>(levels, end + t + h * threads, end_next, next_edge[h]);
          load_span(levels, row_end + Ordinal(t), row_end_next, next_row);
          if (l + 2 < num_levels) {
            end_after = levels.edge_ptr(base + l + 3);
            row_end_after = levels.level_ptr(base + l + 3);
          }
        }
        if (begin != end || step.pivots) {
          for (int h = 0; h < Held; ++h)
            if (edge[h].valid)
              store_product(products + (t + h * threads) * B, edge[h].a,
                            x + Offset(edge[h].col - first) * B);
          for (Offset e = begin + t + Held * threads; e < end; e += threads) {
            EdgeData more;
            load_edge<false>(levels, e, end, more);
            store_product(products + (e - begin) * B, more.a, x + Offset(more.col - first) * B);
          }
          team.team_barrier();
          if (row.row >= 0) finish_row(x, first, products, begin, row, step);
          for (Ordinal p = row_begin + Ordinal(t + threads); p < row_end; p += Ordinal(threads)) {
            RowSpan more;
            load_span(levels, p, row_end, more);
            finish_row(x, first, products, begin, more, step);
          }
          team.team_barrier();
        }
        begin = end;
        end = end_next;
        end_next = end_after;
        row_begin = row_end;
        row_end = row_end_next;
        row_end_next = row_end_after;
        row = next_row;
        for (int h = 0; h < Held; ++h) edge[h] = next_edge[h];
      }
    }
  }

  // Entries of a row that a Sliced thread holds in registers ahead of its level: at least one
  // block, about eight scalars (more would cost occupancy: the team's registers).
  static constexpr int held_entries = B > 0 ? (8 / (B * B) > 0 ? 8 / (B * B) : 1) : 0;

  // One level slot of a Sliced triangle: its first row position, rows, width and first padded
  // entry, loaded together.
  struct SlicedLevel {
    Ordinal row_begin = 0, rows = 0, width = 0;
    Offset slice = 0;
  };

  KOKKOS_INLINE_FUNCTION SlicedLevel load_sliced_level(const SubdomainLevels& levels,
                                                       const SlicedLevels& sliced,
                                                       Ordinal L) const {
    SlicedLevel v;
    v.row_begin = levels.level_ptr(L);
    v.rows = levels.level_ptr(L + 1) - v.row_begin;
    v.width = sliced.width(L);
    v.slice = sliced.slice_ptr(L);
    return v;
  }

  // One row of a Sliced level: where its entries start (stride: the level's rows) and the first
  // held_entries of them; row -1 for none.
  struct SlicedRow {
    Ordinal row = -1;
    Offset first_entry = 0;
    Ordinal col[held_entries > 0 ? held_entries : 1] = {};
    V a[held_entries > 0 ? held_entries* B* B : 1] = {};
  };

  // The row at position p of level v. Every load's address and condition come from v (loaded a
  // level earlier), none from another load here, so they are all in flight at once.
  KOKKOS_INLINE_FUNCTION void load_sliced_row(const SubdomainLevels& levels,
                                              const SlicedLevels& sliced, const V* values,
                                              const SlicedLevel& v, Ordinal p, SlicedRow& r) const {
    if (p >= v.rows) {
      r.row = -1;
      return;
    }
    r.row = levels.rows(v.row_begin + p);
    r.first_entry = v.slice + p;
    for (int q = 0; q < held_entries; ++q) {
      const Offset k = r.first_entry + Offset(q) * v.rows;
      const bool inside = q < v.width;
      r.col[q] = inside ? sliced.col(k) : -1;
      for (int c = 0; c < B * B; ++c) r.a[q * B * B + c] = inside ? values[k * (B * B) + c] : V(0);
    }
  }

  // x_i -= the row's entries times x_j in row order (the bits of the vertex traversal), held
  // entries first, then the rest from memory; then x_i ← D_i⁻¹ x_i when the step divides.
  KOKKOS_INLINE_FUNCTION void finish_sliced_row(Scalar* x, Ordinal first,
                                                const SlicedLevels& sliced, const V* values,
                                                const SlicedRow& r, const SlicedLevel& v,
                                                const Step& step) const {
    const int n = b();
    Scalar* xi = x + Offset(r.row - first) * n;
    Scalar acc[B > 0 ? B : max_block_size];
    for (int c = 0; c < n; ++c) acc[c] = xi[c];
    int q = 0;
    for (; q < held_entries && r.col[q] >= 0; ++q)
      subtract_product(acc, r.a + q * B * B, x + Offset(r.col[q]) * n);
    if (q == held_entries) {
      for (; q < v.width; ++q) {
        const Offset k = r.first_entry + Offset(q) * v.rows;
        const Ordinal c = sliced.col(k);
        if (c < 0) break;
        subtract_product(acc, values + k * n * n, x + Offset(c) * n);
      }
    }
    if (step.pivots) scale_row(acc, r.row, false);
    for (int c = 0; c < n; ++c) xi[c] = acc[c];
  }

  // Sliced: per level, thread t takes the rows at positions t, t + T, ... of the level, each row
  // alone in row order; entry q of the level's rows are adjacent (SlicedLevels), so the loads
  // are coalesced. The factor data never depends on x, so it is loaded ahead: each thread's
  // first row of the next level while it works on the current one, and the level bounds one
  // level earlier still, so no load waits on another inside a level. A level without entries
  // and without pivots changes nothing and is skipped.
  KOKKOS_INLINE_FUNCTION void solve_sliced(const Member& team, Scalar* x, Ordinal first,
                                           const SubdomainLevels& levels,
                                           const SlicedLevels& sliced, const V* values,
                                           const Step& step) const {
    const Ordinal s = team.league_rank(), base = first + s, num_levels = levels.num_levels(s);
    if (num_levels == 0) return;
    const Ordinal t = team.team_rank(), threads = team.team_size();
    SlicedLevel level = load_sliced_level(levels, sliced, base), next_level;
    if (num_levels > 1) next_level = load_sliced_level(levels, sliced, base + 1);
    SlicedRow row;
    load_sliced_row(levels, sliced, values, level, t, row);
    for (Ordinal l = 0; l < num_levels; ++l) {
      SlicedLevel level_after;
      if (l + 2 < num_levels) level_after = load_sliced_level(levels, sliced, base + l + 2);
      SlicedRow next_row;
      if (l + 1 < num_levels) load_sliced_row(levels, sliced, values, next_level, t, next_row);
      if (level.width > 0 || step.pivots) {
        if (row.row >= 0) finish_sliced_row(x, first, sliced, values, row, level, step);
        for (Ordinal p = t + threads; p < level.rows; p += threads) {
          SlicedRow more;
          load_sliced_row(levels, sliced, values, level, p, more);
          finish_sliced_row(x, first, sliced, values, more, level, step);
        }
        team.team_barrier();
      }
      level = next_level;
      next_level = level_after;
      row = next_row;
    }
  }

  // Spin (paper Algorithm 1): each thread takes rows in dependency order and waits on the done
  // flag of every row it reads. A thread only ever waits on rows that come earlier in that order,
  // which some thread of the team has already taken, so the team always makes progress.
  KOKKOS_INLINE_FUNCTION void solve_spin(const Member& team, Scalar* x, int* done, Ordinal first,
                                         Ordinal m, const Step& step) const {
    const int n = b();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, m), [&](const Ordinal t) { done[t] = 0; });
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, m), [&](const Ordinal t) {
      const Ordinal i = step.lower ? first + t : first + m - 1 - t;
      Scalar acc[B > 0 ? B : max_block_size];
      Scalar* xi = x + Offset(i - first) * n;
      for (int c = 0; c < n; ++c) acc[c] = xi[c];
      for (Offset k = deps_begin(step.lower, i); k < deps_end(step.lower, i); ++k) {
        const Ordinal j = col_ind(k) - first;
        while (atomic_load(&done[j]) == 0) {
        }
        Scalar xj[B > 0 ? B : max_block_size];
        for (int c = 0; c < n; ++c) xj[c] = atomic_load(&x[Offset(j) * n + c]);
        subtract_product(acc, block(k), xj);
      }
      if (step.pivots) scale_row(acc, i, false);
      for (int c = 0; c < n; ++c) atomic_store(&xi[c], acc[c]);
      Kokkos::memory_fence();
      atomic_store(&done[i - first], 1);
    });
    team.team_barrier();
  }

  // Transposed solve with the rows of one triangle: levels in reverse, each row finished (scaled
  // by D⁻ᵀ when pivots) and then scattered into the rows that depend on it.
  KOKKOS_INLINE_FUNCTION void solve_transposed(const Member& team, Scalar* x, Ordinal first,
                                               const SubdomainLevels& levels,
                                               const Step& step) const {
    const Ordinal s = team.league_rank(), base = first + s, n = b();
    for (Ordinal l = levels.num_levels(s) - 1; l >= 0; --l) {
      if (step.pivots) {
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, levels.level_ptr(base + l),
                                                     levels.level_ptr(base + l + 1)),
                             [&](const Ordinal p) {
                               const Ordinal i = levels.rows(p);
                               scale_row(x + Offset(i - first) * n, i, true);
                             });
        team.team_barrier();
      }
      Kokkos::parallel_for(
          Kokkos::TeamThreadRange(team, levels.edge_ptr(base + l), levels.edge_ptr(base + l + 1)),
          [&](const Offset e) {
            const Scalar* xi = x + Offset(levels.edge_row(e) - first) * n;
            Scalar* xj = x + Offset(levels.edge_col(e) - first) * n;
            const V* a = edge_block(e);
            for (int c = 0; c < n; ++c) {
              Scalar sum = 0;
              for (int q = 0; q < n; ++q) sum += Scalar(a[q * n + c]) * xi[q];
              Kokkos::atomic_add(&xj[c], -sum);
            }
          });
      team.team_barrier();
    }
  }

  // The copy of r into the team's x and the scaling by D⁻¹ are a load and a store per entry;
  // a loop of one each made every thread wait a whole memory latency per entry. Each thread
  // now issues load_batch independent loads before it stores any (the same values, the same
  // products: the same bits). H100, the ordered default: lap7 160³ 0.311 → 0.262 ms an apply,
  // convection-diffusion 128³ 0.162 → 0.138 (docs/PERFORMANCE.md). Teams of one lane a thread
  // only (not Lanes, where every vector lane runs a thread's body). Two written-out loops: one
  // helper taking the value as a lambda made the apply 16 % slower on the H100; 8 loads a
  // thread were no faster than 4, 16 slower (docs/PERFORMANCE.md).
  static constexpr int load_batch = 4;
  KOKKOS_INLINE_FUNCTION void copy_in_batched(const Member& team, Scalar* x, Offset begin,
                                              Offset length) const {
    const Offset threads = team.team_size();
    for (Offset base = team.team_rank(); base < length; base += load_batch * threads) {
      Scalar v[load_batch];
      for (int q = 0; q < load_batch; ++q) {
        const Offset k = base + q * threads;
        v[q] = k < length ? r(begin + k) : Scalar(0);
      }
      for (int q = 0; q < load_batch; ++q) {
        const Offset k = base + q * threads;
        if (k < length) x[k] = v[q];
      }
    }
  }
  // x_i ← D_i⁻¹ x_i for scalar blocks (b = 1; D⁻ᵀ is the same), batched as above.
  KOKKOS_INLINE_FUNCTION void scale_scalars_batched(const Member& team, Scalar* x, Ordinal first,
                                                    Ordinal m) const {
    const Ordinal threads = team.team_size();
    for (Ordinal base = team.team_rank(); base < m; base += load_batch * threads) {
      Scalar d[load_batch], v[load_batch];
      for (int q = 0; q < load_batch; ++q) {
        const Ordinal k = base + q * threads;
        d[q] = k < m ? Scalar(inv_diag(first + k)) : Scalar(0);
        v[q] = k < m ? x[k] : Scalar(0);
      }
      for (int q = 0; q < load_batch; ++q) {
        const Ordinal k = base + q * threads;
        if (k < m) x[k] = Scalar(0) + d[q] * v[q];  // scale_row's sum: -0 becomes +0 there too
      }
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const Ordinal s = team.league_rank();
    const Ordinal first = offsets(s), m = offsets(s + 1) - first;
    const int n = b();
    const Offset length = Offset(m) * n, begin = Offset(first) * n;
    Scalar* x;
    int* done = nullptr;
    Scalar* products = nullptr;
    if constexpr (InScratch) {
      x = static_cast<Scalar*>(team.team_scratch(scratch_level).get_shmem(sizeof(Scalar) * length));
      if constexpr (traversal == Traversal::Spin)
        done = static_cast<int*>(team.team_scratch(scratch_level).get_shmem(sizeof(int) * m));
      if constexpr (traversal == Traversal::EdgeOrdered)
        products = static_cast<Scalar*>(
            team.team_scratch(scratch_level).get_shmem(sizeof(Scalar) * level_edges_max * n));
    } else {
      x = &z(begin);
    }
    // Copies and scaling touch each entry once: over threads and lanes alike (TeamVectorRange),
    // or in one lane (single), as a TeamThreadRange body runs in every vector lane of the
    // Lanes traversal, and a lane reading x_i after another lane scaled it would scale it twice.
    if constexpr (traversal == Traversal::Lanes)
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, length),
                           [&](const Offset t) { x[t] = r(begin + t); });
    else
      copy_in_batched(team, x, begin, length);
    team.team_barrier();
    for (int q = 0; q < steps.count; ++q) {
      const Step& step = steps.step[q];
      const SubdomainLevels& levels = step.lower ? lower_levels : upper_levels;
      switch (step.kind) {
        case StepKind::Solve:
          if constexpr (traversal == Traversal::Vertex) solve_vertex(team, x, first, levels, step);
          if constexpr (traversal == Traversal::Edge) solve_edge(team, x, first, levels, step);
          if constexpr (traversal == Traversal::Spin) solve_spin(team, x, done, first, m, step);
          if constexpr (traversal == Traversal::Lanes) solve_lanes(team, x, first, levels, step);
          if constexpr (traversal == Traversal::EdgeOrdered)
            solve_edge_ordered(team, x, products, first, levels, step);
          if constexpr (traversal == Traversal::Sliced)
            solve_sliced(team, x, first, levels, step.lower ? lower_sliced : upper_sliced,
                         (step.lower ? lower_sliced_values : upper_sliced_values).data(), step);
          break;
        case StepKind::SolveTransposed:
          solve_transposed(team, x, first, levels, step);
          break;
        case StepKind::Scale:
        case StepKind::ScaleTransposed:
          if (traversal != Traversal::Lanes && n == 1) {
            scale_scalars_batched(team, x, first, m);
            team.team_barrier();
            break;
          }
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, m), [&](const Ordinal t) {
            Kokkos::single(Kokkos::PerThread(team), [&] {
              scale_row(x + Offset(t) * n, first + t, step.kind == StepKind::ScaleTransposed);
            });
          });
          team.team_barrier();
          break;
      }
    }
    if constexpr (InScratch) {
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, length),
                           [&](const Offset t) { z(begin + t) = x[t]; });
    }
  }
};

}  // namespace fgdd::detail
