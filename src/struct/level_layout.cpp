#include "struct/level_layout.hpp"

#include "core/errors.hpp"

#include <limits>
#include <string>

namespace fgdd::detail {

namespace {

long long dot(const std::array<int, 3>& r, const StencilOffset& o) {
  return (long long)r[0] * o.dx + (long long)r[1] * o.dy + (long long)r[2] * o.dz;
}

Kokkos::Array<int, 3> to_array(const std::array<int, 3>& r) { return {r[0], r[1], r[2]}; }

}  // namespace

StructLevelLayout make_level_layout(const ExecSpace& space, const StructTileMapping& mapping,
                                    const GridInfo& grid, const Stencil& stencil,
                                    Ordinal num_levels) {
  StructLevelLayout layout;
  layout.a = to_array(mapping.a);
  layout.b = to_array(mapping.b);
  layout.w = {mapping.w.x, mapping.w.y, mapping.w.z};
  const StructColumnBox box = column_box(mapping, grid);
  const StructColumnMap map = column_map(mapping, grid, num_levels);
  layout.u_min = box.u_min;
  layout.v_min = box.v_min;

  // Each row's nonempty columns [row_lo, row_hi] (u − u_min) and the longest column.
  using Index = long long;
  Kokkos::View<Index*, DeviceType> row_lo("fgdd::struct::row_lo", box.v_count),
      row_hi("fgdd::struct::row_hi", box.v_count);
  Kokkos::deep_copy(space, row_lo, std::numeric_limits<Index>::max());
  Kokkos::deep_copy(space, row_hi, Index(-1));
  const Index u_count = box.u_count;
  Index longest = 0;
  Kokkos::parallel_reduce(
      "fgdd::struct::layout_rows", Kokkos::RangePolicy<ExecSpace>(space, 0, u_count * box.v_count),
      KOKKOS_LAMBDA(const Index c, Index& most) {
        const Index iu = c % u_count, iv = c / u_count;
        long long lo = 0, hi = 0;
        if (!map.levels(box.u_min + iu, box.v_min + iv, lo, hi)) return;
        Kokkos::atomic_fetch_min(&row_lo(iv), iu);
        Kokkos::atomic_fetch_max(&row_hi(iv), iu);
        if (hi - lo + 1 > most) most = hi - lo + 1;
      },
      Kokkos::Max<Index>(longest));
  // Rows one after another: column(u, v) = row_base(v) + u − u_min.
  layout.row_base = Kokkos::View<Index*, DeviceType>("fgdd::struct::row_base", box.v_count);
  const auto row_base = layout.row_base;
  Index columns = 0;
  Kokkos::parallel_scan(
      "fgdd::struct::layout_row_base", Kokkos::RangePolicy<ExecSpace>(space, 0, box.v_count),
      KOKKOS_LAMBDA(const Index iv, Index& start, const bool final) {
        if (row_hi(iv) < 0) return;
        if (final) row_base(iv) = start - row_lo(iv);
        start += row_hi(iv) - row_lo(iv) + 1;
      },
      columns);
  space.fence();
  if (columns <= 0) throw InvalidInput("the structured grid has no grid point");
  const long long slots = longest * columns;
  if (slots > (long long)std::numeric_limits<Ordinal>::max())
    throw InvalidInput("the level layout needs " + std::to_string(slots) +
                       " slots, more than Ordinal holds; use the levels schedule");
  layout.column_length = Ordinal(longest);
  layout.columns = Offset(columns);
  layout.num_slots = Offset(slots);

  layout.entry_shift =
      Kokkos::View<int* [3], DeviceType>("fgdd::struct::entry_shift", stencil.size());
  const auto shift = Kokkos::create_mirror_view(layout.entry_shift);
  const std::array<int, 3> w{mapping.w.x, mapping.w.y, mapping.w.z};
  for (int e = 0; e < stencil.size(); ++e) {
    const StencilOffset& o = stencil.offsets()[e];
    shift(e, 0) = int(((dot(w, o) % longest) + longest) % longest);
    shift(e, 1) = int(dot(mapping.a, o));
    shift(e, 2) = int(dot(mapping.b, o));
  }
  Kokkos::deep_copy(space, layout.entry_shift, shift);
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

void gather_to_layout(const ExecSpace& space, const StructLevelLayout& layout, const GridInfo& grid,
                      const Kokkos::View<const Ordinal*, DeviceType>& perm, int b, ConstVector from,
                      Vector to) {
  const Offset slots = layout.num_slots;
  const bool permuted = perm.extent(0) != 0;
  for_each_point(
      space, "fgdd::struct::gather_to_layout", layout, grid,
      KOKKOS_LAMBDA(const Offset p, const Offset slot) {
        const Offset row = permuted ? Offset(perm(p)) : p;
        for (int r = 0; r < b; ++r) to(Offset(r) * slots + slot) = from(row * b + r);
      });
}

void scatter_from_layout(const ExecSpace& space, const StructLevelLayout& layout,
                         const GridInfo& grid, const Kokkos::View<const Ordinal*, DeviceType>& perm,
                         int b, ConstVector from, Vector to) {
  const Offset slots = layout.num_slots;
  const bool permuted = perm.extent(0) != 0;
  for_each_point(
      space, "fgdd::struct::scatter_from_layout", layout, grid,
      KOKKOS_LAMBDA(const Offset p, const Offset slot) {
        const Offset row = permuted ? Offset(perm(p)) : p;
        for (int r = 0; r < b; ++r) to(row * b + r) = from(Offset(r) * slots + slot);
      });
}

void gather_to_grid(const ExecSpace& space, const Kokkos::View<const Ordinal*, DeviceType>& perm,
                    int b, ConstVector from, Vector to) {
  Kokkos::parallel_for(
      "fgdd::struct::gather_to_grid", Kokkos::RangePolicy<ExecSpace>(space, 0, to.extent(0)),
      KOKKOS_LAMBDA(const Offset k) {
        const Offset p = k / b, r = k % b;
        to(k) = from(Offset(perm(p)) * b + r);
      });
}

void scatter_from_grid(const ExecSpace& space, const Kokkos::View<const Ordinal*, DeviceType>& perm,
                       int b, ConstVector from, Vector to) {
  Kokkos::parallel_for(
      "fgdd::struct::scatter_from_grid", Kokkos::RangePolicy<ExecSpace>(space, 0, from.extent(0)),
      KOKKOS_LAMBDA(const Offset k) {
        const Offset p = k / b, r = k % b;
        to(Offset(perm(p)) * b + r) = from(k);
      });
}

void values_to_layout(const ExecSpace& space, const StructLevelLayout& layout, const GridInfo& grid,
                      int count, const Kokkos::View<const Scalar*, DeviceType>& from,
                      const Kokkos::View<Scalar*, DeviceType>& to) {
  const Offset slots = layout.num_slots, np = grid.num_points();
  for_each_point(
      space, "fgdd::struct::values_to_layout", layout, grid,
      KOKKOS_LAMBDA(const Offset p, const Offset slot) {
        for (int k = 0; k < count; ++k) to(Offset(k) * slots + slot) = from(k * np + p);
      });
}

void values_from_layout(const ExecSpace& space, const StructLevelLayout& layout,
                        const GridInfo& grid, int count,
                        const Kokkos::View<const Scalar*, DeviceType>& from,
                        const Kokkos::View<Scalar*, DeviceType>& to) {
  const Offset slots = layout.num_slots, np = grid.num_points();
  for_each_point(
      space, "fgdd::struct::values_from_layout", layout, grid,
      KOKKOS_LAMBDA(const Offset p, const Offset slot) {
        for (int k = 0; k < count; ++k) to(k * np + p) = from(Offset(k) * slots + slot);
      });
}

}  // namespace fgdd::detail
