// The level-based memory layout of the tile schedule (structilu-structured-grid.txt §4.4). Grid
// point p with column (u, v) and level l (tile_mapping.hpp) lives at slot
// ((l mod M)·V + (v − v_min) mod V)·U + u − u_min, the paper's (î, ĵ, l) with a modulus on each
// dimension: U spans the columns' u, V the most v values of one u, M the most levels of one
// column. A tile's threads (neighbouring u) on one level then touch neighbouring slots, so their
// loads coalesce, where in grid order they lie a plane apart. Distinct points get distinct slots
// (a column's levels, and the v values of one u, are intervals no longer than M and V), and a
// neighbour's slot is the point's own plus a constant per stencil entry, less M·V·U or V·U where
// a coordinate wraps: no tables. M·V·U is the number of grid points for the built-in stencils on
// box grids. A vector in this layout holds component r of slot s at r·num_slots + s; a matrix,
// element k (stencil entry and block element) at k·num_slots + s.
#pragma once

#include "struct/entry_table.hpp"
#include "struct/structured_matrix.hpp"
#include "struct/tile_mapping.hpp"

namespace fgdd::detail {

// Where a kernel's grid point is and where its values live: self is p in grid order, or its slot
// in the level layout; level_slot (l mod M) and v_slot ((v − v_min) mod V) find its neighbours'.
struct StructSite {
  Offset p = 0;
  Ordinal x = 0, y = 0, z = 0;
  Offset self = 0;
  Ordinal level_slot = 0, v_slot = 0;

  // Grid point p at (x, y, z), its values at p (grid order).
  KOKKOS_INLINE_FUNCTION static StructSite grid_order(Offset p, Ordinal x, Ordinal y, Ordinal z) {
    StructSite s;
    s.p = s.self = p;
    s.x = x;
    s.y = y;
    s.z = z;
    return s;
  }
};

struct StructLevelLayout {
  Kokkos::Array<int, 3> a{}, b{}, w{};  // u = a·p, v = b·p, l = w·p
  long long u_min = 0, v_min = 0;
  Ordinal u_count = 1;        // U
  Ordinal v_slots = 1;        // V
  Ordinal column_length = 1;  // M
  Offset num_slots = 0;       // M·V·U
  // Per stencil entry o: (w·o) mod M, (b·o) mod V, and the slot step a·o + ((b·o) mod V)·U +
  // ((w·o) mod M)·V·U before the wraps; by value, like StructEntryTable.
  Kokkos::Array<int, StructEntryTable::capacity> level_step{}, v_step{}, slot_step{};

  // The site of the grid point in column (u, v) on level l, from the column's u − u_min and
  // v_slot(v), which its sites on every level share (level_slot = l mod M).
  KOKKOS_INLINE_FUNCTION StructSite column_site(Offset p, Ordinal x, Ordinal y, Ordinal z,
                                                Ordinal u_offset, Ordinal v_slot,
                                                Ordinal level_slot) const {
    StructSite s = StructSite::grid_order(p, x, y, z);
    s.level_slot = level_slot;
    s.v_slot = v_slot;
    s.self = (Offset(level_slot) * v_slots + v_slot) * u_count + Offset(u_offset);
    return s;
  }
  KOKKOS_INLINE_FUNCTION Ordinal v_slot(long long v) const {
    return Ordinal((v - v_min) % v_slots);
  }
  // The site of grid point p at (x, y, z).
  KOKKOS_INLINE_FUNCTION StructSite site(Offset p, Ordinal x, Ordinal y, Ordinal z) const {
    const long long u = (long long)a[0] * x + (long long)a[1] * y + (long long)a[2] * z;
    const long long v = (long long)b[0] * x + (long long)b[1] * y + (long long)b[2] * z;
    const long long l = (long long)w[0] * x + (long long)w[1] * y + (long long)w[2] * z;
    return column_site(p, x, y, z, Ordinal(u - u_min), v_slot(v), Ordinal(l % column_length));
  }
  // The slot of s's neighbour through stencil entry e, which must lie in the grid.
  KOKKOS_INLINE_FUNCTION Offset neighbour(const StructSite& s, int e) const {
    long long q = (long long)s.self + slot_step[e];
    if (s.level_slot + level_step[e] >= column_length) q -= (long long)num_slots;
    if (s.v_slot + v_step[e] >= v_slots) q -= (long long)v_slots * u_count;
    return Offset(q);
  }
};

// The layout for a stencil's tile mapping on grid (num_levels levels), built on the device.
// Throws InvalidInput when the slots overflow Ordinal or the stencil has more entries than
// StructEntryTable holds.
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
