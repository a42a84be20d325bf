// The level-based layout of the tile schedule (structilu-structured-grid.txt §4.4): every grid
// point gets its own slot, a neighbour's slot found from the site equals the neighbour's own, the
// threads of a tile on one level (u, u + 1) hold neighbouring slots, the built-in stencils need no
// more slots than points, and vectors and values survive the trip into the layout and back.
#include "catch_compat.hpp"
#include "reference/dense.hpp"
#include "struct/level_layout.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <numeric>
#include <tuple>

using namespace fgdd;

namespace {

long long dot(const std::array<int, 3>& r, long long x, long long y, long long z) {
  return r[0] * x + r[1] * y + r[2] * z;
}

// Per grid point its slot and, per stencil entry, its neighbour's slot through the site (-1
// where the neighbour is outside the grid), computed on the device.
struct LayoutSlots {
  std::vector<long long> slot, neighbour;
};

LayoutSlots slots_of(const detail::StructLevelLayout& layout, const GridInfo& grid,
                     const Stencil& stencil) {
  const Offset np = grid.num_points();
  const int s = stencil.size();
  const StructuredMatrix shape(grid, stencil, 1);
  const auto offsets = shape.device_stencil().offsets;
  const detail::GridCoordinates g{grid.nx, grid.ny, grid.nz};
  Kokkos::View<long long*, DeviceType> slot("slot", np), neighbour("neighbour", np * s);
  Kokkos::parallel_for(
      "test::layout_slots", Kokkos::RangePolicy<ExecSpace>(0, np), KOKKOS_LAMBDA(const Offset p) {
        Ordinal x, y, z;
        g.of(p, x, y, z);
        const detail::StructSite site = layout.site(p, x, y, z);
        slot(p) = (long long)site.self;
        for (int e = 0; e < s; ++e)
          neighbour(p * s + e) = g.inside(x + offsets(e, 0), y + offsets(e, 1), z + offsets(e, 2))
                                     ? (long long)layout.neighbour(site, e)
                                     : -1;
      });
  return {reference::host_vector(slot), reference::host_vector(neighbour)};
}

}  // namespace

TEST_CASE("struct level layout: one slot per point, neighbours found, levels coalesced",
          "[struct]") {
  const Stencil stencils[] = {
      Stencil::star7(),
      Stencil::star13(),
      Stencil::diamond13(),
      Stencil::diamond25(),
      Stencil::box27(),
      Stencil::from_offsets({{0, 0, 0}, {-1, 0, 0}, {1, -1, 0}, {2, -1, -1}, {0, 0, 3}}, "odd"),
      Stencil::from_offsets({{0, 0, 0}, {-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}}, "star5")};
  const GridInfo grids[] = {{9, 9, 9}, {31, 7, 1}, {4, 13, 6}, {1, 1, 1}, {1, 5, 2}};
  for (const Stencil& stencil : stencils)
    for (const GridInfo& grid : grids) {
      INFO(stencil.name() << " on " << grid.nx << "x" << grid.ny << "x" << grid.nz);
      const LevelWeights w = stencil.level_weights(grid);
      const StructTileMapping m = find_tile_mapping(stencil, w, grid);
      const auto layout =
          detail::make_level_layout(ExecSpace(), m, grid, stencil, w.num_levels(grid));
      const Offset np = grid.num_points();
      const LayoutSlots slots = slots_of(layout, grid, stencil);
      // Distinct slots below num_slots.
      std::vector<long long> sorted = slots.slot;
      std::sort(sorted.begin(), sorted.end());
      CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
      CHECK(sorted.front() >= 0);
      CHECK(sorted.back() < (long long)layout.num_slots);
      CHECK(layout.num_slots ==
            Offset(layout.column_length) * Offset(layout.v_slots) * Offset(layout.u_count));
      // A box grid fills every column of the built-in stencils' mappings: no padding.
      if (stencil.name() != "odd") CHECK(layout.num_slots == np);
      const auto index = [&](long long x, long long y, long long z) {
        return Offset(x + grid.nx * (y + (long long)grid.ny * z));
      };
      std::map<std::tuple<long long, long long, long long>, long long> by_column_level;
      const std::array<int, 3> wr{w.x, w.y, w.z};
      for (Ordinal z = 0; z < grid.nz; ++z)
        for (Ordinal y = 0; y < grid.ny; ++y)
          for (Ordinal x = 0; x < grid.nx; ++x) {
            const Offset p = index(x, y, z);
            by_column_level[{dot(wr, x, y, z), dot(m.b, x, y, z), dot(m.a, x, y, z)}] =
                slots.slot[p];
            for (int e = 0; e < stencil.size(); ++e) {
              const StencilOffset& o = stencil.offsets()[e];
              const long long nx = x + o.dx, ny = y + o.dy, nz = z + o.dz;
              const bool in =
                  nx >= 0 && nx < grid.nx && ny >= 0 && ny < grid.ny && nz >= 0 && nz < grid.nz;
              const long long found = slots.neighbour[p * stencil.size() + e];
              CHECK(found == (in ? slots.slot[index(nx, ny, nz)] : -1));
            }
          }
      // Same level and row, u and u + 1: neighbouring slots.
      for (const auto& [key, slot] : by_column_level) {
        const auto [l, v, u] = key;
        const auto next = by_column_level.find({l, v, u + 1});
        if (next != by_column_level.end()) CHECK(next->second == slot + 1);
      }
    }
}

TEST_CASE("struct level layout: vectors and values into the layout and back", "[struct]") {
  const GridInfo grid{7, 5, 9};
  for (const Stencil& stencil : {Stencil::star7(), Stencil::box27()}) {
    INFO(stencil.name());
    const LevelWeights w = stencil.level_weights(grid);
    const auto layout = detail::make_level_layout(ExecSpace(), find_tile_mapping(stencil, w, grid),
                                                  grid, stencil, w.num_levels(grid));
    const Ordinal np = Ordinal(grid.num_points());
    const auto slots = slots_of(layout, grid, stencil).slot;
    for (const int b : {1, 3}) {
      const auto x = reference::random_vector(Offset(np) * b, 11u + b);
      std::vector<Ordinal> perm(np);
      std::iota(perm.begin(), perm.end(), 0);
      std::reverse(perm.begin(), perm.end());
      for (const bool permuted : {false, true}) {
        const Kokkos::View<const Ordinal*, DeviceType> p =
            permuted ? reference::to_device(perm) : Kokkos::View<Ordinal*, DeviceType>();
        Vector work("work", Offset(b) * layout.num_slots), back("back", x.size());
        detail::gather_to_layout(ExecSpace(), layout, grid, p, b, reference::to_device(x), work);
        // Component r of grid point q sits at r·slots + slot(q).
        const auto host_work = reference::to_host(work);
        for (Ordinal q = 0; q < np; ++q)
          for (int r = 0; r < b; ++r)
            CHECK(host_work[Offset(r) * layout.num_slots + slots[q]] ==
                  x[Offset(permuted ? perm[q] : q) * b + r]);
        detail::scatter_from_layout(ExecSpace(), layout, grid, p, b, work, back);
        CHECK(reference::to_host(back) == x);
      }
    }
    const int count = 4;
    const auto values = reference::random_vector(Offset(count) * np, 21u);
    Vector in_layout("in_layout", Offset(count) * layout.num_slots), back("back", values.size());
    detail::values_to_layout(ExecSpace(), layout, grid, count, reference::to_device(values),
                             in_layout);
    detail::values_from_layout(ExecSpace(), layout, grid, count, in_layout, back);
    CHECK(reference::to_host(back) == values);
  }
}
