// The level-based memory layout of the tile schedule (structilu-structured-grid.txt §4.4). Grid
// point p with column (u, v) and level l (tile_mapping.hpp) lives at slot
// (l mod M)·C + column(u, v): C is the number of columns, M the most levels one column holds, and
// columns are numbered row by row of v, u ascending. A tile's threads (neighbouring u) on one
// level then touch neighbouring slots, so their loads coalesce, where in grid order they lie a
// plane apart. A column's levels form an interval of at most M, so they take distinct slots.
// M·C is the number of grid points when every column is full (the built-in stencils on box grids).
// A vector in this layout holds component r of slot s at r·num_slots + s; a matrix, element k
// (stencil entry and block element) at k·num_slots + s.
#pragma once

#include "struct/structured_matrix.hpp"
#include "struct/tile_mapping.hpp"

namespace fgdd::detail {

// Where a kernel's grid point is and where its values live: self is p in grid order, or its slot
// in the level layout; level_slot (l mod M) and the column offsets find its neighbours' slots.
struct StructSite {
  Offset p = 0;
  Ordinal x = 0, y = 0, z = 0;
  Offset self = 0;
  Ordinal level_slot = 0;
  long long u_off = 0, v_off = 0;  // u − u_min, v − v_min
};

struct StructLevelLayout {
  Kokkos::Array<int, 3> a{}, b{}, w{};  // u = a·p, v = b·p, l = w·p
  long long u_min = 0, v_min = 0;
  Ordinal column_length = 1;  // M
  Offset columns = 0;         // C
  Offset num_slots = 0;       // M·C
  // Per row v − v_min: column(u, v) = row_base + u − u_min (empty rows: unused).
  Kokkos::View<long long*, DeviceType> row_base;
  // Per stencil entry o: ((w·o) mod M, a·o, b·o), the step to the neighbour's slot.
  Kokkos::View<int* [3], DeviceType> entry_shift;

  // The site of the grid point at column (u, v), level l.
  KOKKOS_INLINE_FUNCTION StructSite site(Offset p, Ordinal x, Ordinal y, Ordinal z, long long u,
                                         long long v, Ordinal level_slot) const {
    StructSite s;
    s.p = p;
    s.x = x;
    s.y = y;
    s.z = z;
    s.level_slot = level_slot;
    s.u_off = u - u_min;
    s.v_off = v - v_min;
    s.self = Offset(level_slot) * columns + Offset(row_base(s.v_off) + s.u_off);
    return s;
  }
  // The site of grid point p at (x, y, z).
  KOKKOS_INLINE_FUNCTION StructSite site(Offset p, Ordinal x, Ordinal y, Ordinal z) const {
    const long long u = (long long)a[0] * x + (long long)a[1] * y + (long long)a[2] * z;
    const long long v = (long long)b[0] * x + (long long)b[1] * y + (long long)b[2] * z;
    const long long l = (long long)w[0] * x + (long long)w[1] * y + (long long)w[2] * z;
    return site(p, x, y, z, u, v, Ordinal(l % column_length));
  }
  // The slot of s's neighbour through stencil entry e, which must lie in the grid.
  KOKKOS_INLINE_FUNCTION Offset neighbour(const StructSite& s, int e) const {
    Ordinal level_slot = s.level_slot + entry_shift(e, 0);
    if (level_slot >= column_length) level_slot -= column_length;
    return Offset(level_slot) * columns +
           Offset(row_base(s.v_off + entry_shift(e, 2)) + s.u_off + entry_shift(e, 1));
  }
};

// The layout for a stencil's tile mapping on grid (num_levels levels), built on the device.
StructLevelLayout make_level_layout(const ExecSpace& space, const StructTileMapping& mapping,
                                    const GridInfo& grid, const Stencil& stencil,
                                    Ordinal num_levels);

// Vectors of b components per grid point between an ordering and the layout: row(p) = perm(p)
// (perm maps grid points to the vector's block rows) or p when perm is empty.
// to(r·num_slots + slot(p)) = from(row(p)·b + r):
void gather_to_layout(const ExecSpace& space, const StructLevelLayout& layout, const GridInfo& grid,
                      const Kokkos::View<const Ordinal*, DeviceType>& perm, int b, ConstVector from,
                      Vector to);
// to(row(p)·b + r) = from(r·num_slots + slot(p)):
void scatter_from_layout(const ExecSpace& space, const StructLevelLayout& layout,
                         const GridInfo& grid, const Kokkos::View<const Ordinal*, DeviceType>& perm,
                         int b, ConstVector from, Vector to);

// The same between an ordering and grid order (b components per point, point-major):
// to(p·b + r) = from(perm(p)·b + r), and back.
void gather_to_grid(const ExecSpace& space, const Kokkos::View<const Ordinal*, DeviceType>& perm,
                    int b, ConstVector from, Vector to);
void scatter_from_grid(const ExecSpace& space, const Kokkos::View<const Ordinal*, DeviceType>& perm,
                       int b, ConstVector from, Vector to);

// count arrays of per-point values (a StructuredMatrix's, count = s·b²) between grid order
// (element k of p at k·num_points + p) and the layout (at k·num_slots + slot(p)).
void values_to_layout(const ExecSpace& space, const StructLevelLayout& layout, const GridInfo& grid,
                      int count, const Kokkos::View<const Scalar*, DeviceType>& from,
                      const Kokkos::View<Scalar*, DeviceType>& to);
void values_from_layout(const ExecSpace& space, const StructLevelLayout& layout,
                        const GridInfo& grid, int count,
                        const Kokkos::View<const Scalar*, DeviceType>& from,
                        const Kokkos::View<Scalar*, DeviceType>& to);

}  // namespace fgdd::detail
