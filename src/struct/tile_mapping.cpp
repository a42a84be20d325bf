#include "struct/tile_mapping.hpp"

#include "core/errors.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

namespace fgdd {

namespace {

using Row = std::array<int, 3>;

long long dot(const Row& r, const StencilOffset& o) {
  return (long long)r[0] * o.dx + (long long)r[1] * o.dy + (long long)r[2] * o.dz;
}

// Σ|r_i|·(n_i − 1) + 1: the values r·p takes on the grid.
long long extent(const Row& r, const GridInfo& grid) {
  return (long long)std::abs(r[0]) * (grid.nx - 1) + (long long)std::abs(r[1]) * (grid.ny - 1) +
         (long long)std::abs(r[2]) * (grid.nz - 1) + 1;
}

long long determinant(const Row& a, const Row& b, const Row& w) {
  return (long long)a[0] * (b[1] * w[2] - b[2] * w[1]) -
         (long long)a[1] * (b[0] * w[2] - b[2] * w[0]) +
         (long long)a[2] * (b[0] * w[1] - b[1] * w[0]);
}

// a·o <= 0 on the lower offsets and >= 0 on the upper ones.
bool orders(const Row& r, const Stencil& stencil) {
  for (int e = 0; e < stencil.size(); ++e) {
    const long long d = dot(r, stencil.offsets()[e]);
    if ((e < stencil.num_lower() && d > 0) || (e > stencil.center() && d < 0)) return false;
  }
  return true;
}

// Rows with components in [-4, 4] that order the stencil, the unit rows first.
std::vector<Row> candidate_rows(const Stencil& stencil) {
  std::vector<Row> rows{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  for (int x = -4; x <= 4; ++x)
    for (int y = -4; y <= 4; ++y)
      for (int z = -4; z <= 4; ++z) {
        const Row r{x, y, z};
        if (std::find(rows.begin(), rows.end(), r) == rows.end()) rows.push_back(r);
      }
  rows.erase(
      std::remove_if(rows.begin(), rows.end(), [&](const Row& r) { return !orders(r, stencil); }),
      rows.end());
  return rows;
}

}  // namespace

std::optional<StructTileMapping> search_tile_mapping(const Stencil& stencil,
                                                     const LevelWeights& weights,
                                                     const GridInfo& grid) {
  const Row w{weights.x, weights.y, weights.z};
  const std::vector<Row> rows = candidate_rows(stencil);
  long long best_columns = -1;
  StructTileMapping best;
  best.w = weights;
  for (const Row& a : rows)
    for (const Row& b : rows) {
      const long long det = determinant(a, b, w);
      if (det != 1 && det != -1) continue;
      const long long columns = extent(a, grid) * extent(b, grid);
      if (best_columns >= 0 && columns >= best_columns) continue;
      best_columns = columns;
      best.a = a;
      best.b = b;
    }
  if (best_columns < 0) return std::nullopt;
  // The inverse of the unimodular [a; b; w] is its adjugate times the determinant (±1).
  const Row& a = best.a;
  const Row& b = best.b;
  const int det = int(determinant(a, b, w));
  const int inverse[3][3] = {{det * (b[1] * w[2] - b[2] * w[1]), det * (a[2] * w[1] - a[1] * w[2]),
                              det * (a[1] * b[2] - a[2] * b[1])},
                             {det * (b[2] * w[0] - b[0] * w[2]), det * (a[0] * w[2] - a[2] * w[0]),
                              det * (a[2] * b[0] - a[0] * b[2])},
                             {det * (b[0] * w[1] - b[1] * w[0]), det * (a[1] * w[0] - a[0] * w[1]),
                              det * (a[0] * b[1] - a[1] * b[0])}};
  for (int i = 0; i < 3; ++i) {
    best.column_u[i] = inverse[i][0];
    best.column_v[i] = inverse[i][1];
    best.along[i] = inverse[i][2];
  }
  for (const StencilOffset& o : stencil.offsets()) {
    const StructColumnStep step = column_step(best, o);
    best.reach_u = std::max<int>(best.reach_u, int(std::abs(step.du)));
    best.reach_v = std::max<int>(best.reach_v, int(std::abs(step.dv)));
  }
  return best;
}

StructTileMapping find_tile_mapping(const Stencil& stencil, const LevelWeights& weights,
                                    const GridInfo& grid) {
  const std::optional<StructTileMapping> mapping = search_tile_mapping(stencil, weights, grid);
  if (!mapping)
    throw InvalidInput("stencil " + stencil.name() +
                       " has no acyclic tile mapping with coefficients in [-4, 4]; use the "
                       "levels schedule");
  return *mapping;
}

StructColumnStep column_step(const StructTileMapping& mapping, const StencilOffset& o) {
  return {dot(mapping.a, o), dot(mapping.b, o), dot({mapping.w.x, mapping.w.y, mapping.w.z}, o)};
}

StructColumnBox column_box(const StructTileMapping& mapping, const GridInfo& grid) {
  const auto lowest = [&](const Row& r) {
    return (long long)std::min(0, r[0]) * (grid.nx - 1) +
           (long long)std::min(0, r[1]) * (grid.ny - 1) +
           (long long)std::min(0, r[2]) * (grid.nz - 1);
  };
  return {lowest(mapping.a), lowest(mapping.b), extent(mapping.a, grid), extent(mapping.b, grid)};
}

StructColumnMap column_map(const StructTileMapping& mapping, const GridInfo& grid,
                           Ordinal num_levels) {
  StructColumnMap map;
  for (int i = 0; i < 3; ++i) {
    map.column_u[i] = mapping.column_u[i];
    map.column_v[i] = mapping.column_v[i];
    map.along[i] = mapping.along[i];
  }
  map.extent = {grid.nx, grid.ny, grid.nz};
  map.num_levels = num_levels;
  return map;
}

StructTileGrid make_tile_grid(const StructTileMapping& mapping, const GridInfo& grid,
                              StructTileShape shape) {
  if (shape.u < 1 || shape.v < 1)
    throw InvalidInput("a structured tile needs at least one column per side, not " +
                       std::to_string(shape.u) + "x" + std::to_string(shape.v));
  const StructColumnBox box = column_box(mapping, grid);
  StructTileGrid tiles;
  tiles.shape = shape;
  tiles.u_min = box.u_min;
  tiles.v_min = box.v_min;
  tiles.tiles_u = Ordinal((box.u_count + shape.u - 1) / shape.u);
  tiles.tiles_v = Ordinal((box.v_count + shape.v - 1) / shape.v);
  tiles.reach_tiles_u = (mapping.reach_u + shape.u - 1) / shape.u;
  tiles.reach_tiles_v = (mapping.reach_v + shape.v - 1) / shape.v;
  return tiles;
}

std::vector<int> tile_ticket_order(Ordinal tiles_u, Ordinal tiles_v) {
  std::vector<int> order;
  order.reserve(std::size_t(tiles_u) * std::size_t(tiles_v));
  for (Ordinal sum = 0; sum + 1 < tiles_u + tiles_v; ++sum)
    for (Ordinal tu = std::max<Ordinal>(0, sum - tiles_v + 1);
         tu <= std::min<Ordinal>(sum, tiles_u - 1); ++tu)
      order.push_back(int(tu * tiles_v + (sum - tu)));
  return order;
}

}  // namespace fgdd
