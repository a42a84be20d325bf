// The persistent-tile schedule of the structured ILU (structilu-structured-grid.txt §4.1): the
// acyclic task mapping is unimodular and orders every stencil's neighbours, and the tile
// schedule, with its factors in the level layout, gives the level-per-launch schedule's very
// bits for every stencil, DoF, odd grids and tile shapes from one column to tiles wider than the
// grid, IC(0) and refactors included.
#include "catch_compat.hpp"
#include "core/errors.hpp"
#include "reference/dense.hpp"
#include "reference/form_options.hpp"
#include "struct/struct_ilu0.hpp"
#include "struct/tile_mapping.hpp"

#include <array>
#include <string>

using namespace fgdd;

namespace {

long long dot(const std::array<int, 3>& r, const StencilOffset& o) {
  return (long long)r[0] * o.dx + (long long)r[1] * o.dy + (long long)r[2] * o.dz;
}

}  // namespace

TEST_CASE("struct tile mapping: unimodular, lower neighbours below and to the left", "[struct]") {
  const Stencil stencils[] = {
      Stencil::star7(), Stencil::star13(), Stencil::diamond13(), Stencil::diamond25(),
      Stencil::box27(),
      // One-sided, 2-D, and with long reach: the mapping must still exist and order them.
      Stencil::from_offsets({{0, 0, 0}, {-1, 0, 0}, {1, -1, 0}, {2, -1, -1}, {0, 0, 3}}, "odd"),
      Stencil::from_offsets({{0, 0, 0}, {-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}}, "star5")};
  const GridInfo grids[] = {{9, 9, 9}, {31, 7, 1}, {4, 13, 6}};
  for (const Stencil& stencil : stencils)
    for (const GridInfo& grid : grids) {
      INFO(stencil.name() << " on " << grid.nx << "x" << grid.ny << "x" << grid.nz);
      const LevelWeights w = stencil.level_weights(grid);
      const StructTileMapping m = find_tile_mapping(stencil, w, grid);
      const std::array<int, 3> wr{w.x, w.y, w.z};
      // [a; b; w] times [column_u column_v along] is the identity.
      const StencilOffset columns[] = {{m.column_u[0], m.column_u[1], m.column_u[2]},
                                       {m.column_v[0], m.column_v[1], m.column_v[2]},
                                       {m.along[0], m.along[1], m.along[2]}};
      for (int j = 0; j < 3; ++j) {
        CHECK(dot(m.a, columns[j]) == (j == 0 ? 1 : 0));
        CHECK(dot(m.b, columns[j]) == (j == 1 ? 1 : 0));
        CHECK(dot(wr, columns[j]) == (j == 2 ? 1 : 0));
      }
      int reach_u = 0, reach_v = 0;
      for (int e = 0; e < stencil.size(); ++e) {
        const StencilOffset& o = stencil.offsets()[e];
        const long long du = dot(m.a, o), dv = dot(m.b, o);
        if (e < stencil.center()) CHECK((du <= 0 && dv <= 0));
        if (e > stencil.center()) CHECK((du >= 0 && dv >= 0));
        reach_u = std::max<int>(reach_u, int(du < 0 ? -du : du));
        reach_v = std::max<int>(reach_v, int(dv < 0 ? -dv : dv));
      }
      CHECK(m.reach_u == reach_u);
      CHECK(m.reach_v == reach_v);
      // The tile grid covers every column the grid's points fall in.
      const StructTileGrid tiles = make_tile_grid(m, grid, {3, 2});
      for (Ordinal z = 0; z < grid.nz; ++z)
        for (Ordinal y = 0; y < grid.ny; ++y)
          for (Ordinal x = 0; x < grid.nx; ++x) {
            const StencilOffset p{x, y, z};
            const long long u = dot(m.a, p) - tiles.u_min, v = dot(m.b, p) - tiles.v_min;
            CHECK((u >= 0 && u < (long long)tiles.tiles_u * 3));
            CHECK((v >= 0 && v < (long long)tiles.tiles_v * 2));
          }
      CHECK(tiles.reach_tiles_u == (reach_u + 2) / 3);
      CHECK(tiles.reach_tiles_v == (reach_v + 1) / 2);
    }
  // The paper's transforms: Star-7P's columns are the xy plane.
  const StructTileMapping star = find_tile_mapping(Stencil::star7(), {1, 1, 1}, {9, 9, 9});
  CHECK(star.a == std::array<int, 3>{1, 0, 0});
  CHECK(star.b == std::array<int, 3>{0, 1, 0});
  CHECK_THROWS_AS(make_tile_grid(star, {9, 9, 9}, {0, 4}), InvalidInput);
  // Auto layout: the level layout, for the tiles schedule only (which it needs). Auto schedule:
  // tiles where the memory is the device's, levels where the host can read it.
  const bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemSpace>::accessible;
  CHECK(resolve_struct_schedule(StructSchedule::Auto) ==
        (host ? StructSchedule::Levels : StructSchedule::Tiles));
  for (const StructSchedule s : {StructSchedule::Levels, StructSchedule::LevelCounters,
                                 StructSchedule::SyncFree, StructSchedule::Tiles})
    CHECK(resolve_struct_schedule(s) == s);
  for (const int b : {1, 2}) {
    const StructuredMatrix S = structured_problem(ExecSpace(), {5, 4, 3}, Stencil::star7(), b);
    CHECK(StructIlu0(ExecSpace(), S, reference::form_options(IluForm::Ilu0), StructSchedule::Tiles)
              .layout() == StructLayout::Level);
    const StructIlu0 by_default(ExecSpace(), S, reference::form_options(IluForm::Ilu0));
    CHECK(by_default.schedule() == resolve_struct_schedule(StructSchedule::Auto));
    CHECK(by_default.layout() == (host ? StructLayout::Grid : StructLayout::Level));
    CHECK(StructIlu0(ExecSpace(), S, reference::form_options(IluForm::Ilu0), StructSchedule::Levels)
              .layout() == StructLayout::Grid);
    CHECK_THROWS_AS(StructIlu0(ExecSpace(), S, reference::form_options(IluForm::Ilu0),
                               StructSchedule::LevelCounters, {}, StructLayout::Level),
                    InvalidInput);
  }
  CHECK_THROWS_AS(
      StructIlu0(ExecSpace(), structured_problem(ExecSpace(), {3, 3, 3}, Stencil::star7(), 1),
                 reference::form_options(IluForm::Ilu0), StructSchedule::Tiles, {4, 0}),
      InvalidInput);
  // Stencils without a tile mapping (the centre alone, and a 9-point one found by search): auto
  // takes the levels schedule on every backend, asking for tiles is an InvalidInput.
  const GridInfo grid{6, 5, 4};
  for (const Stencil& unmapped : {Stencil(), Stencil::from_offsets({{0, 0, 0},
                                                                    {2, -1, 0},
                                                                    {-2, 1, 0},
                                                                    {-1, 2, -1},
                                                                    {1, -2, 1},
                                                                    {-1, -2, 1},
                                                                    {1, 2, -1},
                                                                    {2, 1, 0},
                                                                    {-2, -1, 0}})}) {
    CAPTURE(unmapped.size());
    CHECK_FALSE(search_tile_mapping(unmapped, unmapped.level_weights(grid), grid).has_value());
    CHECK(resolve_struct_schedule(StructSchedule::Auto, unmapped, grid) == StructSchedule::Levels);
    const StructuredMatrix S = structured_problem(ExecSpace(), grid, unmapped, 2);
    CHECK(StructIlu0(ExecSpace(), S, reference::form_options(IluForm::Ilu0)).schedule() ==
          StructSchedule::Levels);
    CHECK_THROWS_AS(
        StructIlu0(ExecSpace(), S, reference::form_options(IluForm::Ilu0), StructSchedule::Tiles),
        InvalidInput);
    // The level layout with auto: the error says why auto did not take tiles.
    CHECK_THROWS_WITH(StructIlu0(ExecSpace(), S, reference::form_options(IluForm::Ilu0),
                                 StructSchedule::Auto, {}, StructLayout::Level),
                      FGDD_CONTAINS("auto chose levels"));
  }
  CHECK(resolve_struct_schedule(StructSchedule::Auto, Stencil::box27(), grid) ==
        resolve_struct_schedule(StructSchedule::Auto));
  // The tiles schedule factors per level where a point wants more than 8 lanes (and the backend
  // has them; CPU backends claim 1024): box27 DoF 3 (up to 13 upper entries times 3 block columns
  // per lower entry), diamond25 DoF 2 (10 times 2); star7 DoF 1 (1 update) keeps its tiles.
  const auto factor_schedule = [&](const Stencil& stencil, int b) {
    return StructIlu0(ExecSpace(), structured_problem(ExecSpace(), grid, stencil, b),
                      reference::form_options(IluForm::Ilu0), StructSchedule::Tiles)
        .factor_schedule();
  };
  CHECK(factor_schedule(Stencil::star7(), 1) == StructSchedule::Tiles);
  CHECK(factor_schedule(Stencil::box27(), 3) ==
        (Kokkos::TeamPolicy<ExecSpace>::vector_length_max() > 8 ? StructSchedule::Levels
                                                                : StructSchedule::Tiles));
  CHECK(factor_schedule(Stencil::box27(), 3) == factor_schedule(Stencil::diamond25(), 2));
}

TEST_CASE("struct tiles: the level schedule's bits on every stencil, DoF and tile shape",
          "[struct]") {
  const char* name = GENERATE("star7", "star13", "diamond13", "diamond25", "box27");
  const int b = GENERATE(1, 2, 3, 4);
  CAPTURE(name, b);
  const GridInfo grid{7, 5, 9};
  const Stencil stencil = Stencil::named(name);
  const StructuredMatrix A =
      structured_problem(ExecSpace(), grid, stencil, b, StructuredValues::Symmetric, 17u + b);
  const Offset n = A.num_rows();
  const StructuredMatrix A2 =
      structured_problem(ExecSpace(), grid, stencil, b, StructuredValues::Symmetric, 91u + b);
  const Vector r = reference::to_device(reference::random_vector(n, 5u));
  for (const IluForm form : {IluForm::Ilu0, IluForm::Ildlt}) {
    const StructIlu0 levels(ExecSpace(), A, reference::form_options(form));
    const StructIlu0 levels2(ExecSpace(), A2, reference::form_options(form));
    Vector z_levels("z_levels", n), z_tiles("z_tiles", n), y_levels("y_levels", n);
    levels.apply(ExecSpace(), r, z_levels);
    // One column per team, tiles narrower than the reach (star13, diamond25: 2), odd shapes,
    // and one tile wider than the whole grid.
    for (const StructTileShape shape : {StructTileShape{1, 1}, StructTileShape{2, 3},
                                        StructTileShape{5, 1}, StructTileShape{64, 64}}) {
      for (const StructLayout layout : {StructLayout::Grid, StructLayout::Level}) {
        INFO("tile " << shape.u << "x" << shape.v << (form == IluForm::Ildlt ? " ic0" : " ilu0")
                     << (layout == StructLayout::Level ? " level layout" : " grid order"));
        StructIlu0 tiles(ExecSpace(), A, reference::form_options(form), StructSchedule::Tiles,
                         shape, layout);
        CHECK(tiles.layout() == layout);
        CHECK(reference::host_vector(tiles.factors().values()) ==
              reference::host_vector(levels.factors().values()));
        CHECK(reference::host_vector(tiles.inv_diag()) ==
              reference::host_vector(levels.inv_diag()));
        for (int repeat = 0; repeat < 2; ++repeat) {  // progress counters are reset per sweep
          tiles.apply(ExecSpace(), r, z_tiles);
          CHECK(reference::to_host(z_tiles) == reference::to_host(z_levels));
        }
        // A refactor with new values reuses the tiles and the layout, and factors() copies out
        // the new factors; each sweep alone moves its vectors in and out of the layout.
        tiles.numeric(ExecSpace(), A2);
        CHECK(reference::host_vector(tiles.factors().values()) ==
              reference::host_vector(levels2.factors().values()));
        CHECK(reference::host_vector(tiles.inv_diag()) ==
              reference::host_vector(levels2.inv_diag()));
        tiles.solve_lower(ExecSpace(), r, z_tiles);
        levels2.solve_lower(ExecSpace(), r, y_levels);
        CHECK(reference::to_host(z_tiles) == reference::to_host(y_levels));
        tiles.solve_upper(ExecSpace(), r, z_tiles);
        levels2.solve_upper(ExecSpace(), r, y_levels);
        CHECK(reference::to_host(z_tiles) == reference::to_host(y_levels));
      }
    }
  }
}
