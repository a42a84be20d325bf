// The acyclic dependency task mapping of structilu-structured-grid.txt §4.1: grid point p gets
// column coordinates (u, v) = (a·p, b·p) beside its level l = w·p, with [a; b; w] unimodular,
// so each column holds at most one point per level, and every lower neighbour of a point lies in
// a column with u' <= u and v' <= v (every upper one in u' >= u, v' >= v). Tiles of columns then
// depend only on tiles below and to the left of them in the lower sweep: ordered by bu + bv,
// they form a DAG, and teams that take tiles in that order cannot deadlock.
#pragma once

#include "core/sparse_matrix.hpp"
#include "struct/stencil.hpp"

#include <array>
#include <optional>
#include <vector>

namespace fgdd {

// Columns per tile along u and v: a team's threads, one column each on GPUs.
struct StructTileShape {
  int u = 32;
  int v = 4;
};

struct StructTileMapping {
  std::array<int, 3> a{1, 0, 0};  // u = a·p
  std::array<int, 3> b{0, 1, 0};  // v = b·p
  LevelWeights w;                 // l = w·p
  // p = column_u·u + column_v·v + along·l: the columns of the inverse of [a; b; w].
  std::array<int, 3> column_u{1, 0, 0}, column_v{0, 1, 0}, along{0, 0, 1};
  // The largest |a·o| and |b·o| over the stencil's offsets: how far a dependency reaches.
  int reach_u = 0, reach_v = 0;
};

// The mapping for a stencil and its level weights with the fewest columns on grid (ties: u
// along x first, so a team's neighbouring threads hold neighbouring x). Searches a, b with
// components in [-4, 4]. Throws InvalidInput naming the stencil when none exists there.
StructTileMapping find_tile_mapping(const Stencil& stencil, const LevelWeights& w,
                                    const GridInfo& grid);
// The same search, with nothing where find_tile_mapping throws (the centre alone, whose points
// all share one level, and some user stencils).
std::optional<StructTileMapping> search_tile_mapping(const Stencil& stencil, const LevelWeights& w,
                                                     const GridInfo& grid);

// Stencil offset o in column coordinates: its steps in u, v and level (a·o, b·o, w·o).
struct StructColumnStep {
  long long du = 0, dv = 0, dl = 0;
};
StructColumnStep column_step(const StructTileMapping& mapping, const StencilOffset& o);

// The columns' bounding box: u in [u_min, u_min + u_count), likewise v.
struct StructColumnBox {
  long long u_min = 0, v_min = 0, u_count = 1, v_count = 1;
};
StructColumnBox column_box(const StructTileMapping& mapping, const GridInfo& grid);

// A mapping's columns on the device: the grid point at (u, v, l), and the levels a column holds.
struct StructColumnMap {
  Kokkos::Array<int, 3> column_u{}, column_v{}, along{}, extent{};  // extent: nx, ny, nz
  Ordinal num_levels = 0;

  // Column (u, v)'s point on level 0, unchecked: its point on level l is base + along·l.
  KOKKOS_INLINE_FUNCTION void base(long long u, long long v, long long* c) const {
    for (int i = 0; i < 3; ++i) c[i] = column_u[i] * u + column_v[i] * v;
  }
  // The point base + along·l (base()); false when it lies outside the grid.
  KOKKOS_INLINE_FUNCTION bool point_on(const long long* base, long long l, Ordinal& x, Ordinal& y,
                                       Ordinal& z) const {
    long long c[3];
    for (int i = 0; i < 3; ++i) {
      c[i] = base[i] + along[i] * l;
      if (c[i] < 0 || c[i] >= extent[i]) return false;
    }
    x = Ordinal(c[0]);
    y = Ordinal(c[1]);
    z = Ordinal(c[2]);
    return true;
  }

  // The levels [lo, hi] of column (u, v)'s grid points (an interval, the grid being a box);
  // false when it has none.
  KOKKOS_INLINE_FUNCTION bool levels(long long u, long long v, long long& lo, long long& hi) const {
    lo = 0;
    hi = num_levels - 1;
    for (int i = 0; i < 3; ++i) {  // 0 <= base + along·l <= extent − 1
      const long long base = column_u[i] * u + column_v[i] * v, d = along[i], top = extent[i] - 1;
      long long from = lo, to = hi;
      if (d > 0) {
        from = -floor_div(base, d);
        to = floor_div(top - base, d);
      } else if (d < 0) {
        from = -floor_div(top - base, -d);
        to = floor_div(base, -d);
      } else if (base < 0 || base > top) {
        to = from - 1;
      }
      if (from > lo) lo = from;
      if (to < hi) hi = to;
    }
    return lo <= hi;
  }

  // Floor of a / d for d > 0.
  KOKKOS_INLINE_FUNCTION static long long floor_div(long long a, long long d) {
    return a >= 0 ? a / d : -((-a + d - 1) / d);
  }
};
StructColumnMap column_map(const StructTileMapping& mapping, const GridInfo& grid,
                           Ordinal num_levels);

// The tile grid of a mapping on a grid: columns u in [u_min, u_min + tiles_u·shape.u), likewise
// v; tile (tu, tv) has index tu·tiles_v + tv. A tile's lower-sweep dependencies are the tiles
// (tu − du, tv − dv), 0 <= du <= reach_tiles_u, 0 <= dv <= reach_tiles_v, not both 0.
struct StructTileGrid {
  StructTileShape shape;
  long long u_min = 0, v_min = 0;
  Ordinal tiles_u = 0, tiles_v = 0;
  int reach_tiles_u = 0, reach_tiles_v = 0;
  KOKKOS_INLINE_FUNCTION Ordinal num_tiles() const noexcept { return tiles_u * tiles_v; }
};

// Throws InvalidInput for a shape with a side < 1.
StructTileGrid make_tile_grid(const StructTileMapping& mapping, const GridInfo& grid,
                              StructTileShape shape);

// The tiles tu·tiles_v + tv of a tiles_u × tiles_v grid in ticket order, by tu + tv: a tile's
// lower-sweep dependencies all have a smaller sum, so teams taking tickets in this order (or in
// reverse, for the upper sweep) cannot deadlock.
std::vector<int> tile_ticket_order(Ordinal tiles_u, Ordinal tiles_v);

}  // namespace fgdd
