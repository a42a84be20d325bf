#include "struct/level_layout.hpp"

#include "core/errors.hpp"

#include <limits>
#include <string>

namespace fgdd::detail {

namespace {

Kokkos::Array<int, 3> to_array(const std::array<int, 3>& r) { return {r[0], r[1], r[2]}; }

}  // namespace

StructLevelLayout make_level_layout(const ExecSpace& space, const StructTileMapping& mapping,
                                    const GridInfo& grid, const Stencil& stencil,
                                    Ordinal num_levels) {
  check_entry_capacity(stencil);
  StructLevelLayout layout;
  layout.a = to_array(mapping.a);
  layout.b = to_array(mapping.b);
  layout.w = {mapping.w.x, mapping.w.y, mapping.w.z};
  const StructColumnBox box = column_box(mapping, grid);
  const StructColumnMap map = column_map(mapping, grid, num_levels);
  layout.u_min = box.u_min;
  layout.v_min = box.v_min;

  // The longest column (M) and, per u, the span of v over its nonempty columns (V: the widest).
  using Index = long long;
  Kokkos::View<Index*, DeviceType> v_lo("fgdd::struct::v_lo", box.u_count),
      v_hi("fgdd::struct::v_hi", box.u_count);
  Kokkos::deep_copy(space, v_lo, std::numeric_limits<Index>::max());
  Kokkos::deep_copy(space, v_hi, Index(-1));
  const Index u_count = box.u_count;
  Index longest = 0;
  Kokkos::parallel_reduce(
      "fgdd::struct::layout_columns",
      Kokkos::RangePolicy<ExecSpace>(space, 0, u_count * box.v_count),
      KOKKOS_LAMBDA(const Index c, Index& most) {
        const Index iu = c % u_count, iv = c / u_count;
        long long lo = 0, hi = 0;
        if (!map.levels(box.u_min + iu, box.v_min + iv, lo, hi)) return;
        Kokkos::atomic_fetch_min(&v_lo(iu), iv);
        Kokkos::atomic_fetch_max(&v_hi(iu), iv);
        if (hi - lo + 1 > most) most = hi - lo + 1;
      },
      Kokkos::Max<Index>(longest));
  Index widest = 0;
  Kokkos::parallel_reduce(
      "fgdd::struct::layout_v_span", Kokkos::RangePolicy<ExecSpace>(space, 0, u_count),
      KOKKOS_LAMBDA(const Index iu, Index& most) {
        if (v_hi(iu) >= 0 && v_hi(iu) - v_lo(iu) + 1 > most) most = v_hi(iu) - v_lo(iu) + 1;
      },
      Kokkos::Max<Index>(widest));
  space.fence();
  if (longest <= 0 || widest <= 0) throw InvalidInput("the structured grid has no grid point");
  const double slots = double(longest) * double(widest) * double(u_count);
  // Slots and the per-entry steps (below num_slots plus a stencil reach) fit an int.
  if (slots > double(std::numeric_limits<Ordinal>::max() - 4096))
    throw InvalidInput("the level layout needs " + std::to_string((long long)slots) +
                       " slots, more than Ordinal holds; use the levels schedule");
  layout.u_count = Ordinal(u_count);
  layout.v_slots = Ordinal(widest);
  layout.column_length = Ordinal(longest);
  layout.num_slots = Offset(longest) * Offset(widest) * Offset(u_count);

  const auto modulo = [](long long value, long long m) { return ((value % m) + m) % m; };
  for (int e = 0; e < stencil.size(); ++e) {
    const StructColumnStep step = column_step(mapping, stencil.offsets()[e]);
    const long long level_step = modulo(step.dl, longest), v_step = modulo(step.dv, widest);
    layout.level_step[e] = int(level_step);
    layout.v_step[e] = int(v_step);
    layout.slot_step[e] = int(step.du + v_step * u_count + level_step * widest * u_count);
  }
  return layout;
}

// Calls f(p, slot) for every grid point (a functor, not a lambda around f: CUDA's extended
// lambdas do not nest in templates).
template <class F>
struct ForEachPoint {
  GridCoordinates g;
  StructLevelLayout layout;
  F f;
  KOKKOS_INLINE_FUNCTION void operator()(const Offset p) const {
    Ordinal x, y, z;
    g.of(p, x, y, z);
    f(p, layout.site(p, x, y, z).self);
  }
};

template <class F>
void for_each_point(const ExecSpace& space, const char* label, const StructLevelLayout& layout,
                    const GridInfo& grid, const F& f) {
  Kokkos::parallel_for(label, Kokkos::RangePolicy<ExecSpace>(space, 0, grid.num_points()),
                       ForEachPoint<F>{GridCoordinates{grid.nx, grid.ny, grid.nz}, layout, f});
}

// b components per point between an ordering (row(p)·b + r) and the layout (r·slots + slot),
// in the direction to_layout says.
void move_vector(const ExecSpace& space, const StructLevelLayout& layout, const GridInfo& grid,
                 const Kokkos::View<const Ordinal*, DeviceType>& perm, int b, ConstVector from,
                 Vector to, bool to_layout) {
  const Offset slots = layout.num_slots;
  const bool permuted = perm.extent(0) != 0;
  for_each_point(
      space, to_layout ? "fgdd::struct::gather_to_layout" : "fgdd::struct::scatter_from_layout",
      layout, grid, KOKKOS_LAMBDA(const Offset p, const Offset slot) {
        const Offset row = permuted ? Offset(perm(p)) : p;
        for (int r = 0; r < b; ++r) {
          const Offset ordered = row * b + r, in_layout = Offset(r) * slots + slot;
          to(to_layout ? in_layout : ordered) = from(to_layout ? ordered : in_layout);
        }
      });
}

void gather_to_layout(const ExecSpace& space, const StructLevelLayout& layout, const GridInfo& grid,
                      const Kokkos::View<const Ordinal*, DeviceType>& perm, int b, ConstVector from,
                      Vector to) {
  move_vector(space, layout, grid, perm, b, from, to, true);
}

void scatter_from_layout(const ExecSpace& space, const StructLevelLayout& layout,
                         const GridInfo& grid, const Kokkos::View<const Ordinal*, DeviceType>& perm,
                         int b, ConstVector from, Vector to) {
  move_vector(space, layout, grid, perm, b, from, to, false);
}

// b components per point between an ordering (perm(p)·b + r) and grid order (p·b + r), in the
// direction to_grid says.
void move_grid(const ExecSpace& space, const Kokkos::View<const Ordinal*, DeviceType>& perm, int b,
               ConstVector from, Vector to, bool to_grid) {
  Kokkos::parallel_for(
      to_grid ? "fgdd::struct::gather_to_grid" : "fgdd::struct::scatter_from_grid",
      Kokkos::RangePolicy<ExecSpace>(space, 0, Offset(perm.extent(0)) * b),
      KOKKOS_LAMBDA(const Offset k) {
        const Offset ordered = Offset(perm(k / b)) * b + k % b;
        to(to_grid ? k : ordered) = from(to_grid ? ordered : k);
      });
}

void gather_to_grid(const ExecSpace& space, const Kokkos::View<const Ordinal*, DeviceType>& perm,
                    int b, ConstVector from, Vector to) {
  move_grid(space, perm, b, from, to, true);
}

void scatter_from_grid(const ExecSpace& space, const Kokkos::View<const Ordinal*, DeviceType>& perm,
                       int b, ConstVector from, Vector to) {
  move_grid(space, perm, b, from, to, false);
}

// count per-point arrays between grid order (k·np + p) and the layout (k·slots + slot).
void move_values(const ExecSpace& space, const StructLevelLayout& layout, const GridInfo& grid,
                 int count, const Kokkos::View<const Scalar*, DeviceType>& from,
                 const Kokkos::View<Scalar*, DeviceType>& to, bool to_layout) {
  const Offset slots = layout.num_slots, np = grid.num_points();
  for_each_point(
      space, to_layout ? "fgdd::struct::values_to_layout" : "fgdd::struct::values_from_layout",
      layout, grid, KOKKOS_LAMBDA(const Offset p, const Offset slot) {
        for (int k = 0; k < count; ++k) {
          const Offset ordered = k * np + p, in_layout = Offset(k) * slots + slot;
          to(to_layout ? in_layout : ordered) = from(to_layout ? ordered : in_layout);
        }
      });
}

void values_to_layout(const ExecSpace& space, const StructLevelLayout& layout, const GridInfo& grid,
                      int count, const Kokkos::View<const Scalar*, DeviceType>& from,
                      const Kokkos::View<Scalar*, DeviceType>& to) {
  move_values(space, layout, grid, count, from, to, true);
}

void values_from_layout(const ExecSpace& space, const StructLevelLayout& layout,
                        const GridInfo& grid, int count,
                        const Kokkos::View<const Scalar*, DeviceType>& from,
                        const Kokkos::View<Scalar*, DeviceType>& to) {
  move_values(space, layout, grid, count, from, to, false);
}

}  // namespace fgdd::detail
