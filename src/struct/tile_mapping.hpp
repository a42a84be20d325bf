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

}  // namespace fgdd
