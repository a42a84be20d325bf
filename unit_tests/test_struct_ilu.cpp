// The structured-grid ILU(0) / IC(0) (structilu-structured-grid.txt): stencils and their analytic
// levels, the structured layout round trip and detection from CSR/BSR, factors equal to the
// general GlobalIlu0 and the serial reference within rounding bounds derived from the problem on
// every stencil with DoF 1-4 and odd grids, solves meeting the substitution backward-error bound,
// the preconditioner in the solver's permuted ordering, and typed errors for bad input.
#include "catch_compat.hpp"
#include "core/generators.hpp"
#include "core/matrix_build.hpp"
#include "factor/global_ilu0.hpp"
#include "reference/dense.hpp"
#include "reference/factor_bounds.hpp"
#include "reference/form_options.hpp"
#include "reference/ic0_breakdown.hpp"
#include "reference/reference_ilu0.hpp"
#include "solver/solver.hpp"
#include "struct/struct_ilu0.hpp"
#include "precond/struct_ilu0_preconditioner.hpp"
#include "trsv/global_trsv.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <tuple>

using namespace fgdd;

namespace {

constexpr double unit_roundoff = std::numeric_limits<double>::epsilon() / 2;

const char* const stencil_names[] = {"star7", "star13", "diamond13", "diamond25", "box27"};
// The schedules that run a whole sweep in one launch and must give the level-per-launch bits.
const StructSchedule one_launch_schedules[] = {
    StructSchedule::SyncFree, StructSchedule::LevelCounters, StructSchedule::Tiles};

struct GridPoint {
  Ordinal x, y, z;
};
GridPoint coordinates_of(const GridInfo& g, Offset p) {
  return {Ordinal(p % g.nx), Ordinal((p / g.nx) % g.ny), Ordinal(p / (Offset(g.nx) * g.ny))};
}

// ---- host algebra and rounding bounds on factors in block CSR (reference/factor_bounds.hpp) ----

using reference::factor_tolerance;

// The substitution backward-error ratio of z = M⁻¹ r for Ilu0 factors; ≤ 1 passes.
double apply_ratio(const reference::HostBlockCsr& F, double gamma, const std::vector<double>& r,
                   const std::vector<double>& z) {
  return reference::apply_ratio(F, IluForm::Ilu0, gamma, r, z);
}

double max_difference(const std::vector<double>& a, const std::vector<double>& b) {
  REQUIRE(a.size() == b.size());
  double worst = 0;
  for (std::size_t e = 0; e < a.size(); ++e) worst = std::max(worst, std::fabs(a[e] - b[e]));
  return worst;
}

// D⁻¹ of the structured factors ((r·b + c)·np + p) in the block-per-row layout (p·b² + r·b + c).
std::vector<double> point_major_inv_diag(const StructIlu0& ilu) {
  const auto inv = reference::host_vector(ilu.inv_diag());
  const int b = ilu.factors().block_size(), bb = b * b;
  const Offset np = ilu.factors().num_points();
  std::vector<double> out(inv.size());
  for (Offset p = 0; p < np; ++p)
    for (int rc = 0; rc < bb; ++rc) out[p * bb + rc] = inv[rc * np + p];
  return out;
}

FactorOptions ilu0_options(IluForm form = IluForm::Ilu0) { return reference::form_options(form); }

}  // namespace

TEST_CASE("struct stencils: shapes, lower halves and the paper's level weights", "[struct]") {
  const std::tuple<const char*, int, int, LevelWeights> expected[] = {
      {"star7", 7, 3, {1, 1, 1}},
      {"star13", 13, 6, {1, 1, 1}},
      {"diamond13", 13, 6, {1, 2, 3}},
      {"diamond25", 25, 12, {1, 2, 3}},
      {"box27", 27, 13, {1, 2, 4}}};
  const GridInfo cube{9, 9, 9};
  for (const auto& [name, size, lower, weights] : expected) {
    INFO(name);
    const Stencil s = Stencil::named(name);
    CHECK(s.size() == size);
    CHECK(s.num_lower() == lower);
    CHECK(s.num_upper() == lower);
    CHECK(s.is_symmetric());
    CHECK(s.offsets()[s.center()] == StencilOffset{});
    const LevelWeights w = s.level_weights(cube);
    CHECK(std::tie(w.x, w.y, w.z) == std::tie(weights.x, weights.y, weights.z));
    // Every lower neighbour lies on an earlier level, every upper one on a later level.
    for (int e = 0; e < s.size(); ++e) {
      const StencilOffset& o = s.offsets()[e];
      const int dot = w.x * o.dx + w.y * o.dy + w.z * o.dz;
      if (e < s.center()) CHECK(dot < 0);
      if (e > s.center()) CHECK(dot > 0);
      CHECK(s.index_of(o) == e);
    }
  }
  // Paper §4.1 / §5.4: level counts on an N³ grid.
  CHECK(Stencil::star7().level_weights(cube).num_levels(cube) == 3 * 9 - 2);
  CHECK(Stencil::diamond13().level_weights(cube).num_levels(cube) == 6 * 9 - 5);
  CHECK(Stencil::box27().level_weights(cube).num_levels(cube) == 9 + 2 * 9 + 4 * 9 - 6);

  // A user-defined one-sided stencil: a 2-D 5-point star with a diagonal; z needs no weight.
  const Stencil custom = Stencil::from_offsets(
      {{0, 0, 0}, {-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {1, -1, 0}, {-1, 1, 0}}, "d2");
  CHECK(custom.num_lower() == 3);
  const LevelWeights w2 = custom.level_weights({6, 5, 4});
  CHECK(std::tie(w2.x, w2.y, w2.z) == std::make_tuple(1, 2, 0));
  CHECK(Stencil().level_weights({3, 3, 3}).num_levels({3, 3, 3}) == 1);  // diagonal only

  CHECK_THROWS_AS(Stencil::from_offsets({{1, 0, 0}}), InvalidInput);
  CHECK_THROWS_AS(Stencil::from_offsets({{0, 0, 0}, {1, 0, 0}, {1, 0, 0}}), InvalidInput);
  CHECK_THROWS_AS(Stencil::from_offsets({{0, 0, 0}, {0, 0, Stencil::max_radius + 1}}),
                  InvalidInput);
  CHECK_THROWS_WITH(Stencil::named("star9"), FGDD_CONTAINS("star9"));
  CHECK(!Stencil::from_offsets({{0, 0, 0}, {-1, 0, 0}}).is_symmetric());
}

TEST_CASE("struct levels: every point once, ascending, on its hyperplane", "[struct]") {
  const std::string name = GENERATE(from_range(std::begin(stencil_names), std::end(stencil_names)));
  const GridInfo grid = GENERATE(GridInfo{5, 3, 7}, GridInfo{1, 1, 1}, GridInfo{4, 1, 2});
  CAPTURE(name, grid.nx, grid.ny, grid.nz);
  const Stencil s = Stencil::named(name);
  const LevelWeights w = s.level_weights(grid);
  const StructLevels levels = build_struct_levels(ExecSpace(), grid, w);
  const auto points = reference::host_vector(levels.points);
  REQUIRE(levels.host_level_ptr == reference::host_vector(levels.level_ptr));
  REQUIRE(levels.num_levels == w.num_levels(grid));
  REQUIRE(levels.host_level_ptr.front() == 0);
  REQUIRE(Offset(levels.host_level_ptr.back()) == grid.num_points());
  std::vector<int> seen(grid.num_points(), 0);
  Ordinal widest = 0;
  for (Ordinal l = 0; l < levels.num_levels; ++l) {
    widest = std::max(widest, levels.host_level_ptr[l + 1] - levels.host_level_ptr[l]);
    for (Ordinal k = levels.host_level_ptr[l]; k < levels.host_level_ptr[l + 1]; ++k) {
      const GridPoint c = coordinates_of(grid, points[k]);
      CHECK(w.x * c.x + w.y * c.y + w.z * c.z == l);
      if (k > levels.host_level_ptr[l]) CHECK(points[k] > points[k - 1]);
      ++seen[points[k]];
    }
  }
  CHECK(levels.max_level_points == widest);
  CHECK(std::all_of(seen.begin(), seen.end(), [](int v) { return v == 1; }));
}

TEST_CASE("struct matrix: generator, CSR/BSR round trip and stencil detection", "[struct]") {
  const std::string name = GENERATE(from_range(std::begin(stencil_names), std::end(stencil_names)));
  const int b = GENERATE(1, 3);
  CAPTURE(name, b);
  const GridInfo grid{5, 3, 7};
  const Stencil stencil = Stencil::named(name);
  const StructuredMatrix S = structured_problem(ExecSpace(), grid, stencil, b);
  const SparseMatrix A = to_sparse(ExecSpace(), S);
  REQUIRE(A.block_size() == b);
  REQUIRE(Offset(A.num_block_rows()) == grid.num_points());
  // The CSR holds exactly the in-grid stencil neighbours, with the generator's values.
  const auto host = reference::to_host_csr(A);
  const auto values = reference::host_vector(S.values());
  for (Ordinal i = 0; i < host.num_block_rows(); ++i) {
    const GridPoint c = coordinates_of(grid, i);
    Offset k = host.row_map[i];
    for (int e = 0; e < stencil.size(); ++e) {
      const StencilOffset& o = stencil.offsets()[e];
      const GridPoint q{c.x + o.dx, c.y + o.dy, c.z + o.dz};
      if (q.x < 0 || q.x >= grid.nx || q.y < 0 || q.y >= grid.ny || q.z < 0 || q.z >= grid.nz)
        continue;
      REQUIRE(k < host.row_map[i + 1]);
      CHECK(host.col_ind[k] == q.x + grid.nx * (q.y + grid.ny * q.z));
      for (int rc = 0; rc < b * b; ++rc)
        CHECK(host.values[k * b * b + rc] == values[S.value_index(e, rc / b, rc % b, i)]);
      ++k;
    }
    CHECK(k == host.row_map[i + 1]);
  }
  // Detected and converted back: the very same stencil and values.
  const Stencil detected = detect_stencil(ExecSpace(), A, grid);
  CHECK(detected.offsets() == stencil.offsets());
  CHECK(detected.name() == stencil.name());
  const StructuredMatrix back = to_structured(ExecSpace(), A, grid, detected);
  CHECK(back.same_structure(S));
  CHECK(reference::unequal_entries(reference::host_vector(back.values()), values) == "");

  // Symmetric values: A = Aᵀ exactly.
  const SparseMatrix sym =
      to_sparse(ExecSpace(),
                structured_problem(ExecSpace(), grid, stencil, b, StructuredValues::Symmetric, 7));
  const auto dense = reference::to_dense(sym);
  for (std::size_t i = 0; i < dense.n; ++i)
    for (std::size_t j = 0; j < i; ++j) CHECK(dense(i, j) == dense(j, i));
}

TEST_CASE("struct matrix: the generators' matrices are detected with their stencils", "[struct]") {
  const std::pair<const char*, const char*> cases[] = {{"gen:lap7:5:3:7", "star7"},
                                                       {"gen:lap27:5:3:7", "box27"},
                                                       {"gen:convdiff:5", "star7"},
                                                       {"gen:bsr3:3", "star7"}};
  for (const auto& [spec, stencil] : cases) {
    CAPTURE(spec);
    const GeneratedProblem problem = generate_problem(spec);
    const Stencil detected = detect_stencil(ExecSpace(), problem.matrix, problem.grid);
    CHECK(detected.name() == stencil);
    const StructuredMatrix S = to_structured(ExecSpace(), problem.matrix, problem.grid, detected);
    CHECK(reference::host_vector(to_sparse(ExecSpace(), S).values()) ==
          reference::host_vector(problem.matrix.values()));
  }
}

TEST_CASE("struct ILU0 equals the general global ILU0 and the serial reference", "[struct]") {
  const std::string name = GENERATE(from_range(std::begin(stencil_names), std::end(stencil_names)));
  const int b = GENERATE(1, 2, 3, 4);
  const GridInfo grid = GENERATE(GridInfo{5, 3, 7}, GridInfo{1, 1, 1}, GridInfo{3, 1, 2});
  CAPTURE(name, b, grid.nx, grid.ny, grid.nz);
  const StructuredMatrix S = structured_problem(ExecSpace(), grid, Stencil::named(name), b,
                                                StructuredValues::Nonsymmetric, 100 + b);
  const SparseMatrix A = to_sparse(ExecSpace(), S);

  const StructIlu0 ilu(ExecSpace(), S, ilu0_options());
  CHECK(ilu.report().shifted_pivots == 0);
  const auto F = reference::to_host_csr(to_sparse(ExecSpace(), ilu.factors()));
  const auto reference = reference::ilu0(reference::to_host_csr(A));
  const double tol = factor_tolerance(reference);
  {
    const double worst = max_difference(F.values, reference.values);
    CAPTURE(worst, tol);
    CHECK(worst <= tol);
  }
  const GlobalIlu0 global(ExecSpace(), A, ilu0_options());
  const auto global_values = reference::host_vector(global.factors().values());
  {
    const double worst = max_difference(F.values, global_values);
    CAPTURE(worst, tol);
    CHECK(worst <= tol);
  }
  // D⁻¹ from the same pivots by the same Gauss-Jordan: within the pivots' own difference
  // propagated through the inverse, γ_2b|D⁻¹||D||D⁻¹| + |D⁻¹| tol |D⁻¹| summed per entry.
  const auto inv = point_major_inv_diag(ilu);
  const auto global_inv = reference::host_vector(global.inv_diag());
  const int bb = b * b;
  for (Ordinal i = 0; i < F.num_block_rows(); ++i) {
    Offset d = F.row_map[i];
    while (F.col_ind[d] != i) ++d;
    for (int r = 0; r < b; ++r)
      for (int c = 0; c < b; ++c) {
        double size = 0, inherited = 0;
        for (int s = 0; s < b; ++s)
          for (int t = 0; t < b; ++t) {
            const double outer = std::fabs(inv[i * bb + r * b + s] * inv[i * bb + t * b + c]);
            size += outer * std::fabs(F.values[d * bb + s * b + t]);
            inherited += outer * tol;
          }
        const double gamma = 2 * b * unit_roundoff / (1 - 2 * b * unit_roundoff);
        CAPTURE(i, r, c);
        CHECK(std::fabs(inv[i * bb + r * b + c] - global_inv[i * bb + r * b + c]) <=
              2 * gamma * size + 2 * inherited);
      }
  }

  // z = M⁻¹ r meets the substitution backward-error bound; in place gives the same bits; the
  // sweeps are deterministic.
  const Offset n = A.num_rows();
  const auto r = reference::random_vector(n, 9u);
  Vector z("z", n);
  ilu.apply(ExecSpace(), reference::to_device(r), z);
  const auto z_host = reference::to_host(z);
  const double gamma = reference::substitution_gamma(F, inv);
  const double ratio = apply_ratio(F, gamma, r, z_host);
  CAPTURE(ratio);
  CHECK(ratio <= 1);
  Vector in_place = reference::to_device(r);
  ilu.apply(ExecSpace(), in_place, in_place);
  CHECK(reference::unequal_entries(reference::to_host(in_place), z_host) == "");
  // The two sweeps one at a time are the apply.
  Vector y("y", n), z2("z2", n);
  ilu.solve_lower(ExecSpace(), reference::to_device(r), y);
  ilu.solve_upper(ExecSpace(), y, z2);
  CHECK(reference::unequal_entries(reference::to_host(z2), z_host) == "");
  // Against the general exact solves on the same factors: both solve M z = r to their backward
  // errors; with the factors equal within tol, the applies agree to the same order. Checked
  // through the backward error of the global z against the struct factors, with γ widened by the
  // factor difference relative to the factor magnitudes.
  const GlobalTrsv trsv(ExecSpace(), global);
  Vector zg("zg", n);
  trsv.apply(ExecSpace(), reference::to_device(r), zg);
  const auto zg_host = reference::to_host(zg);
  double smallest_factor = std::numeric_limits<double>::max();
  for (const double v : F.values)
    if (v != 0) smallest_factor = std::min(smallest_factor, std::fabs(v));
  // |L_s U_s − L_g U_g| ≤ (2e + e²)|L_s||U_s| and |L_g||U_g| ≤ (1 + e)²|L_s||U_s| entrywise with
  // e = tol / (smallest stored |factor|).
  const double e = tol / smallest_factor;
  const double widened = gamma * (1 + e) * (1 + e) + 2 * e + e * e;
  CHECK(apply_ratio(F, widened, r, zg_host) <= 1);

  // The one-launch schedules run each point's very same operations: the same bits.
  for (const StructSchedule schedule : one_launch_schedules) {
    INFO("schedule " << int(schedule));
    const StructIlu0 one_launch(ExecSpace(), S, ilu0_options(), schedule);
    CHECK(one_launch.schedule() == schedule);
    CHECK(reference::unequal_entries(reference::host_vector(one_launch.factors().values()),
                                     reference::host_vector(ilu.factors().values())) == "");
    CHECK(reference::unequal_entries(reference::host_vector(one_launch.inv_diag()),
                                     reference::host_vector(ilu.inv_diag())) == "");
    for (int repeat = 0; repeat < 2; ++repeat) {  // flags and counters are reused
      Vector z_one("z_one", n);
      one_launch.apply(ExecSpace(), reference::to_device(r), z_one);
      CHECK(reference::unequal_entries(reference::to_host(z_one), z_host) == "");
    }
  }

  Vector short_vector("short", n + 1);
  CHECK_THROWS_AS(ilu.apply(ExecSpace(), short_vector, z), DimensionMismatch);
  CHECK_THROWS_AS(ilu.apply(ExecSpace(), reference::to_device(r), short_vector), DimensionMismatch);
}

TEST_CASE("struct IC0 equals struct ILU0 on symmetric problems", "[struct]") {
  const std::string name = GENERATE(from_range(std::begin(stencil_names), std::end(stencil_names)));
  const int b = GENERATE(1, 2, 4);
  CAPTURE(name, b);
  const GridInfo grid{5, 3, 7};
  const StructuredMatrix S = structured_problem(ExecSpace(), grid, Stencil::named(name), b,
                                                StructuredValues::Symmetric, 55);
  const StructIlu0 ilu(ExecSpace(), S, ilu0_options(IluForm::Ilu0));
  const StructIlu0 ic(ExecSpace(), S, ilu0_options(IluForm::Ildlt));
  CHECK(ic.form() == IluForm::Ildlt);
  for (const StructSchedule schedule : one_launch_schedules) {
    INFO("schedule " << int(schedule));
    const StructIlu0 one_launch(ExecSpace(), S, ilu0_options(IluForm::Ildlt), schedule);
    CHECK(reference::unequal_entries(reference::host_vector(one_launch.factors().values()),
                                     reference::host_vector(ic.factors().values())) == "");
  }
  const auto F_ilu = reference::to_host_csr(to_sparse(ExecSpace(), ilu.factors()));
  const auto F_ic = reference::to_host_csr(to_sparse(ExecSpace(), ic.factors()));
  // For symmetric A, ILU0's U is D Lᵀ exactly in exact arithmetic: both are roundings of the
  // same factors (the IC0 upper adds one b-term product, γ_b |D||L|, within the same bound).
  const double tol = factor_tolerance(F_ilu);
  const double worst = max_difference(F_ic.values, F_ilu.values);
  CAPTURE(worst, tol);
  CHECK(worst <= tol);
  const Offset n = S.num_rows();
  const auto r = reference::random_vector(n, 4u);
  Vector z("z", n);
  ic.apply(ExecSpace(), reference::to_device(r), z);
  CHECK(apply_ratio(F_ic, reference::substitution_gamma(F_ic, point_major_inv_diag(ic)), r,
                    reference::to_host(z)) <= 1);

  const StructuredMatrix one_sided = structured_problem(
      ExecSpace(), grid, Stencil::from_offsets({{0, 0, 0}, {-1, 0, 0}, {0, 1, 0}}), b);
  CHECK_THROWS_AS(StructIlu0(ExecSpace(), one_sided, ilu0_options(IluForm::Ildlt)), InvalidInput);
}

TEST_CASE("struct factorization: every launch shape gives the same bits", "[struct]") {
  // Lanes split a lower entry's updates without changing any scalar's arithmetic, and a team's
  // points are independent: any lanes and team threads (StructFactorLaunch), in a launch per
  // level or in tiles (more than 8 lanes factor tiles per level), give the chosen shape's bits.
  // ILU0 and IC0 (its own update path), block sizes 1-3, an odd grid and a single point.
  const auto [name, b, form] = GENERATE(
      std::make_tuple("box27", 1, IluForm::Ilu0), std::make_tuple("box27", 3, IluForm::Ilu0),
      std::make_tuple("diamond25", 2, IluForm::Ilu0), std::make_tuple("star13", 1, IluForm::Ildlt),
      std::make_tuple("box27", 2, IluForm::Ildlt));
  const GridInfo grid = GENERATE(GridInfo{5, 4, 7}, GridInfo{1, 1, 1});
  CAPTURE(name, b, int(form), grid.nx, grid.ny, grid.nz);
  const StructuredMatrix S = structured_problem(
      ExecSpace(), grid, Stencil::named(name), b,
      form == IluForm::Ildlt ? StructuredValues::Symmetric : StructuredValues::Nonsymmetric,
      70 + b);
  const StructIlu0 chosen(ExecSpace(), S, ilu0_options(form), StructSchedule::Levels);
  CHECK(chosen.factor_launch().lanes >= 1);
  CHECK(chosen.factor_launch().team_threads * chosen.factor_launch().lanes == 256);
  const auto values = reference::host_vector(chosen.factors().values());
  const auto inv_diag = reference::host_vector(chosen.inv_diag());
  for (const StructSchedule schedule : {StructSchedule::Levels, StructSchedule::Tiles})
    for (const int lanes : {1, 2, 4, 8, 16, 32})
      for (const int threads : {0, 1, 3}) {
        CAPTURE(int(schedule), lanes, threads);
        const StructIlu0 ilu(ExecSpace(), S, ilu0_options(form), schedule, {}, StructLayout::Auto,
                             {lanes, threads});
        CHECK(ilu.factor_launch().lanes == lanes);
        CHECK(ilu.factor_launch().team_threads == (threads > 0 ? threads : 256 / lanes));
        CHECK(ilu.factor_schedule() ==
              (schedule == StructSchedule::Tiles && lanes > 8 ? StructSchedule::Levels : schedule));
        CHECK(reference::unequal_entries(reference::host_vector(ilu.factors().values()), values) ==
              "");
        CHECK(reference::unequal_entries(reference::host_vector(ilu.inv_diag()), inv_diag) == "");
      }
}

TEST_CASE("struct ILU0 on a user-defined one-sided stencil and a larger grid", "[struct]") {
  // Lower and upper halves differ (no symmetry), so both sweeps' level orders are exercised.
  const Stencil stencil = Stencil::from_offsets(
      {{0, 0, 0}, {-1, 0, 0}, {2, -1, 0}, {0, 0, -1}, {1, 0, 0}, {0, 1, 1}, {-1, 1, 0}}, "odd");
  const GridInfo grid{11, 6, 5};
  const StructuredMatrix S = structured_problem(ExecSpace(), grid, stencil, 2);
  const SparseMatrix A = to_sparse(ExecSpace(), S);
  const StructIlu0 ilu(ExecSpace(), S, ilu0_options());
  const auto F = reference::to_host_csr(to_sparse(ExecSpace(), ilu.factors()));
  const auto reference = reference::ilu0(reference::to_host_csr(A));
  CHECK(max_difference(F.values, reference.values) <= factor_tolerance(reference));
  const auto r = reference::random_vector(A.num_rows(), 2u);
  Vector z("z", A.num_rows());
  ilu.apply(ExecSpace(), reference::to_device(r), z);
  CHECK(apply_ratio(F, reference::substitution_gamma(F, point_major_inv_diag(ilu)), r,
                    reference::to_host(z)) <= 1);
  // Refactor with new values of the same structure: same as a fresh factorization.
  const StructuredMatrix S2 =
      structured_problem(ExecSpace(), grid, stencil, 2, StructuredValues::Nonsymmetric, 99);
  StructIlu0 refactored(ExecSpace(), S, ilu0_options());
  refactored.numeric(ExecSpace(), S2);
  const StructIlu0 fresh(ExecSpace(), S2, ilu0_options());
  CHECK(reference::unequal_entries(reference::host_vector(refactored.factors().values()),
                                   reference::host_vector(fresh.factors().values())) == "");
}

TEST_CASE("struct ILU0 with more entries a side than a DoF-1 sweep batch holds", "[struct]") {
  // A radius-2 stencil of 57 points (|o|∞ ≤ 2, |o|₁ ≤ 3): 28 entries a side take two of the
  // DoF-1 sweeps' 16-entry batches (the named stencils take one), and the interior points that
  // skip inside() in the factorization lie 2 from every face. Every schedule and layout gives
  // the level-per-launch bits; those factors meet the reference's rounding bound.
  std::vector<StencilOffset> offsets{{0, 0, 0}};
  for (int dz = -2; dz <= 2; ++dz)
    for (int dy = -2; dy <= 2; ++dy)
      for (int dx = -2; dx <= 2; ++dx)
        if ((dx || dy || dz) && std::abs(dx) + std::abs(dy) + std::abs(dz) <= 3)
          offsets.push_back({dx, dy, dz});
  const Stencil stencil = Stencil::from_offsets(offsets, "radius2");
  REQUIRE(stencil.size() == 57);
  REQUIRE(stencil.num_lower() == 28);
  const int b = GENERATE(1, 2);
  CAPTURE(b);
  const GridInfo grid{9, 7, 6};  // 5·3·2 interior points
  const StructuredMatrix S =
      structured_problem(ExecSpace(), grid, stencil, b, StructuredValues::Nonsymmetric, 7);
  const SparseMatrix A = to_sparse(ExecSpace(), S);
  const StructIlu0 levels(ExecSpace(), S, ilu0_options(), StructSchedule::Levels);
  const auto F = reference::to_host_csr(to_sparse(ExecSpace(), levels.factors()));
  const auto reference = reference::ilu0(reference::to_host_csr(A));
  CHECK(max_difference(F.values, reference.values) <= factor_tolerance(reference));
  const auto r = reference::random_vector(A.num_rows(), 5u);
  Vector z_levels("z_levels", A.num_rows()), z("z", A.num_rows());
  levels.apply(ExecSpace(), reference::to_device(r), z_levels);
  CHECK(apply_ratio(F, reference::substitution_gamma(F, point_major_inv_diag(levels)), r,
                    reference::to_host(z_levels)) <= 1);
  const auto expected_values = reference::host_vector(levels.factors().values());
  const auto expected_z = reference::to_host(z_levels);
  for (const StructSchedule schedule : one_launch_schedules)
    for (const StructLayout layout : {StructLayout::Grid, StructLayout::Level}) {
      if (schedule != StructSchedule::Tiles && layout == StructLayout::Level) continue;
      INFO("schedule " << int(schedule) << ", layout " << int(layout));
      const StructIlu0 one_launch(ExecSpace(), S, ilu0_options(), schedule, {}, layout);
      CHECK(one_launch.schedule() == schedule);
      CHECK(reference::unequal_entries(reference::host_vector(one_launch.factors().values()),
                                       expected_values) == "");
      one_launch.apply(ExecSpace(), reference::to_device(r), z);
      CHECK(reference::unequal_entries(reference::to_host(z), expected_z) == "");
    }
}

TEST_CASE("struct preconditioner in the solver's permuted ordering", "[struct]") {
  const std::string spec =
      GENERATE(as<std::string>{}, "gen:lap7:6:5:4", "gen:convdiff:6", "gen:bsr3:4", "gen:lap27:5");
  CAPTURE(spec);
  const GeneratedProblem problem = generate_problem(spec);
  const SparseMatrix& A = problem.matrix;
  // Any permutation of the grid points: the apply equals the grid-order apply, permuted, bitwise.
  const Ordinal n = A.num_block_rows();
  std::vector<Ordinal> perm(n);
  for (Ordinal p = 0; p < n; ++p) perm[p] = Ordinal((Offset(p) * 7 + 3) % Offset(n));
  if (n % 7 == 0)
    for (Ordinal p = 0; p < n; ++p) perm[p] = n - 1 - p;
  SparseMatrix A_p;
  {
    const auto host = reference::to_host_csr(A);
    HostMatrixArrays m;
    m.num_block_rows = m.num_block_cols = n;
    m.block_size = host.b;
    std::vector<Ordinal> iperm(n);
    for (Ordinal p = 0; p < n; ++p) iperm[perm[p]] = p;
    m.row_map.push_back(0);
    const int bb = host.b * host.b;
    for (Ordinal i = 0; i < n; ++i) {
      const Ordinal p = iperm[i];
      for (Offset k = host.row_map[p]; k < host.row_map[p + 1]; ++k) {
        m.col_ind.push_back(perm[host.col_ind[k]]);
        for (int e = 0; e < bb; ++e) m.values.push_back(host.values[k * bb + e]);
      }
      m.row_map.push_back(m.col_ind.size());
    }
    A_p = make_matrix(m);
  }
  const StructIlu0Preconditioner natural(ExecSpace(), A, problem.grid, StructIluOptions{});
  const StructIlu0Preconditioner permuted(ExecSpace(), A_p, problem.grid, StructIluOptions{},
                                          reference::to_device(perm));
  CHECK(natural.name() == "struct-ilu0");
  CHECK(permuted.matrix().stencil().name() == natural.matrix().stencil().name());
  const int b = A.block_size();
  const auto r = reference::random_vector(A.num_rows(), 8u);
  std::vector<double> r_p(r.size());
  for (Ordinal p = 0; p < n; ++p)
    for (int c = 0; c < b; ++c) r_p[Offset(perm[p]) * b + c] = r[Offset(p) * b + c];
  Vector z("z", A.num_rows()), z_p("z_p", A.num_rows());
  natural.apply(ExecSpace(), reference::to_device(r), z);
  permuted.apply(ExecSpace(), reference::to_device(r_p), z_p);
  const auto z_host = reference::to_host(z), z_p_host = reference::to_host(z_p);
  for (Ordinal p = 0; p < n; ++p)
    for (int c = 0; c < b; ++c)
      CHECK(z_p_host[Offset(perm[p]) * b + c] == z_host[Offset(p) * b + c]);
  // The tile schedule moves the permuted vectors straight into its level layout: the same bits.
  StructIluOptions tile_options;
  tile_options.schedule = StructSchedule::Tiles;
  tile_options.layout = StructLayout::Level;
  const StructIlu0Preconditioner tiles(ExecSpace(), A_p, problem.grid, tile_options,
                                       reference::to_device(perm));
  Vector z_tiles("z_tiles", A.num_rows());
  tiles.apply(ExecSpace(), reference::to_device(r_p), z_tiles);
  CHECK(reference::unequal_entries(reference::to_host(z_tiles), z_p_host) == "");

  // In the Solver: the same M as the exact global ILU0, so the same iteration count up to the
  // rounding differences of the factors (at most one iteration either way).
  const bool spd = spec.find("lap") != std::string::npos;
  SolverOptions struct_options, global_options;
  struct_options.set_all({"method=gmres", "preconditioner=struct-ilu0", "tol=1e-10"});
  global_options.set_all({"method=gmres", "preconditioner=ilu0", "tol=1e-10"});
  Solver struct_solver(struct_options), global_solver(global_options);
  struct_solver.setup(ExecSpace(), A, problem.grid);
  global_solver.setup(ExecSpace(), A, problem.grid);
  CHECK(struct_solver.preconditioner().name() == "struct-ilu0");
  Vector rhs("rhs", A.num_rows()), x1("x1", A.num_rows()), x2("x2", A.num_rows());
  Kokkos::deep_copy(rhs, 1.0);
  const SolveResult r1 = struct_solver.solve(ExecSpace(), rhs, x1);
  const SolveResult r2 = global_solver.solve(ExecSpace(), rhs, x2);
  REQUIRE(r1.converged());
  REQUIRE(r2.converged());
  CHECK(std::abs(r1.iterations - r2.iterations) <= 1);
  CHECK(r1.relative_true_residual <= 1e-8);
  // Every schedule through the solver's option (the default is auto): the same M, the same
  // iterations.
  const std::pair<const char*, const char*> one_launch_options[] = {
      {"levels", "auto"},         {"auto", "auto"},  {"sync_free", "auto"},
      {"level_counters", "auto"}, {"tiles", "grid"}, {"tiles", "level"}};
  for (const auto& [schedule, layout] : one_launch_options) {
    SolverOptions one_launch = struct_options;
    one_launch.set("struct_schedule", schedule);
    one_launch.set("struct_layout", layout);
    Solver one_launch_solver(one_launch);
    one_launch_solver.setup(ExecSpace(), A, problem.grid);
    Vector x3("x3", A.num_rows());
    CHECK(one_launch_solver.solve(ExecSpace(), rhs, x3).iterations == r1.iterations);
  }
  // The factorization's launch shape through the solver's options reaches StructIlu0 and keeps
  // the iterations; lanes that are not a power of two are refused at setup.
  {
    SolverOptions shaped = struct_options;
    shaped.set_all({"struct_schedule=levels", "struct_factor_lanes=2", "struct_factor_threads=5"});
    Solver shaped_solver(shaped);
    shaped_solver.setup(ExecSpace(), A, problem.grid);
    const auto& pre = dynamic_cast<const StructIlu0Preconditioner&>(shaped_solver.preconditioner());
    CHECK(pre.factorization().factor_launch().lanes == 2);
    CHECK(pre.factorization().factor_launch().team_threads == 5);
    Vector x4("x4", A.num_rows());
    CHECK(shaped_solver.solve(ExecSpace(), rhs, x4).iterations == r1.iterations);
    shaped.set("struct_factor_lanes", "6");
    Solver refused(shaped);
    CHECK_THROWS_AS(refused.setup(ExecSpace(), A, problem.grid), InvalidInput);
  }
  // New values of the same pattern through update_values.
  struct_solver.update_values(ExecSpace(), A);
  Kokkos::deep_copy(x1, 0.0);
  CHECK(struct_solver.solve(ExecSpace(), rhs, x1).iterations == r1.iterations);
  if (spd) {
    SolverOptions cg;
    cg.set_all({"method=cg", "preconditioner=struct-ic0", "tol=1e-10"});
    Solver cg_solver(cg);
    cg_solver.setup(ExecSpace(), A, problem.grid);
    Kokkos::deep_copy(x1, 0.0);
    const SolveResult r3 = cg_solver.solve(ExecSpace(), rhs, x1);
    REQUIRE(r3.converged());
    CHECK(r3.relative_true_residual <= 1e-8);
    CHECK(cg_solver.preconditioner().name() == "struct-ic0");
  }
}

TEST_CASE("struct: bad input gives typed errors naming the row and column", "[struct]") {
  const GridInfo grid{4, 3, 2};
  // A 27-point matrix does not fit the 7-point stencil: row 0's first non-star block is the
  // coupling to (1,1,0), column nx + 1.
  const GeneratedProblem lap27 = generate_problem("gen:lap27:4:3:2");
  try {
    to_structured(ExecSpace(), lap27.matrix, grid, Stencil::star7());
    FAIL("expected InvalidMatrix");
  } catch (const InvalidMatrix& error) {
    CHECK(error.row() == 0);
    CHECK(error.column() == 4 + 1);
    CHECK_THAT(std::string(error.what()), FGDD_CONTAINS("star7"));
  }
  // A 1-D chain numbered across grid lines wraps around: (3,0,0) couples to (0,1,0).
  HostMatrixArrays chain;
  chain.num_block_rows = chain.num_block_cols = 24;
  chain.row_map.push_back(0);
  for (Ordinal i = 0; i < 24; ++i) {
    for (Ordinal j = std::max(i - 1, 0); j <= std::min(i + 1, 23); ++j) {
      chain.col_ind.push_back(j);
      chain.values.push_back(i == j ? 4.0 : -1.0);
    }
    chain.row_map.push_back(chain.col_ind.size());
  }
  const SparseMatrix chain_matrix = make_matrix(chain);
  try {
    detect_stencil(ExecSpace(), chain_matrix, grid);
    FAIL("expected InvalidMatrix");
  } catch (const InvalidMatrix& error) {
    CHECK(error.row() == 3);
    CHECK(error.column() == 4);
  }
  CHECK_NOTHROW(detect_stencil(ExecSpace(), chain_matrix, grid, 3));  // (−3, 1, 0) is allowed
  CHECK_THROWS_AS(detect_stencil(ExecSpace(), chain_matrix, GridInfo{5, 5, 1}), DimensionMismatch);
  CHECK_THROWS_AS(to_structured(ExecSpace(), chain_matrix, GridInfo{5, 5, 1}, Stencil::star7()),
                  DimensionMismatch);
  CHECK_THROWS_AS(detect_stencil(ExecSpace(), chain_matrix, grid, Stencil::max_radius + 1),
                  InvalidInput);
  CHECK_THROWS_AS(StructuredMatrix(GridInfo{0, 3, 2}, Stencil::star7(), 1), InvalidInput);
  CHECK_THROWS_AS(StructuredMatrix(grid, Stencil::star7(), 17), InvalidInput);
  CHECK_THROWS_AS(
      structured_problem(ExecSpace(), grid, Stencil::from_offsets({{0, 0, 0}, {-1, 0, 0}}), 1,
                         StructuredValues::Symmetric),
      InvalidInput);

  // Options and structure.
  const StructuredMatrix S = structured_problem(ExecSpace(), grid, Stencil::star7(), 2);
  CHECK_THROWS_AS(StructIlu0(ExecSpace(), S, ilu0_options(IluForm::Ildu0)), InvalidInput);
  FactorOptions fill = ilu0_options();
  fill.level_of_fill = 1;
  CHECK_THROWS_AS(StructIlu0(ExecSpace(), S, fill), InvalidInput);
  // The factorization's launch shape: lanes 0 or a power of two up to 32, threads not negative.
  for (const int lanes : {-1, 3, 12, 64}) {
    CAPTURE(lanes);
    CHECK_THROWS_WITH(StructIlu0(ExecSpace(), S, ilu0_options(), StructSchedule::Auto, {},
                                 StructLayout::Auto, {lanes, 0}),
                      FGDD_CONTAINS("lanes") && FGDD_CONTAINS("not " + std::to_string(lanes)));
  }
  CHECK_THROWS_WITH(StructIlu0(ExecSpace(), S, ilu0_options(), StructSchedule::Auto, {},
                               StructLayout::Auto, {0, -2}),
                    FGDD_CONTAINS("team_threads") && FGDD_CONTAINS("not -2"));
  // The kernels hold a stencil's entries in their launch (StructEntryTable, 128 entries): a
  // radius-2 box (125) is factored, a radius-3 box (343) refused by name and size.
  const auto box = [](int r, const std::string& name) {
    std::vector<StencilOffset> offsets;
    for (int dz = -r; dz <= r; ++dz)
      for (int dy = -r; dy <= r; ++dy)
        for (int dx = -r; dx <= r; ++dx) offsets.push_back({dx, dy, dz});
    return Stencil::from_offsets(offsets, name);
  };
  CHECK_NOTHROW(StructIlu0(ExecSpace(), structured_problem(ExecSpace(), grid, box(2, "box125"), 1),
                           ilu0_options()));
  try {
    StructIlu0(ExecSpace(), structured_problem(ExecSpace(), grid, box(3, "box343"), 1),
               ilu0_options());
    FAIL("expected InvalidInput");
  } catch (const InvalidInput& error) {
    CHECK_THAT(std::string(error.what()), FGDD_CONTAINS("box343 has 343"));
  }
  StructIlu0 ilu(ExecSpace(), S, ilu0_options());
  CHECK_THROWS_AS(
      ilu.numeric(ExecSpace(), structured_problem(ExecSpace(), grid, Stencil::box27(), 2)),
      InvalidInput);
  CHECK_THROWS_AS(
      ilu.numeric(ExecSpace(), structured_problem(ExecSpace(), grid, Stencil::star7(), 1)),
      InvalidInput);

  // A zero row at grid point 5 gives a zero pivot there, named by its first scalar row.
  StructuredMatrix singular = structured_problem(ExecSpace(), grid, Stencil::star7(), 2);
  {
    auto values = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), singular.values());
    for (int e = 0; e < 7; ++e)
      for (int rc = 0; rc < 4; ++rc) values(singular.value_index(e, rc / 2, rc % 2, 5)) = 0;
    Kokkos::deep_copy(singular.values(), values);
  }
  try {
    StructIlu0(ExecSpace(), singular, ilu0_options());
    FAIL("expected ZeroPivot");
  } catch (const ZeroPivot& error) {
    CHECK(error.row() == 5 * 2);
  }
  FactorOptions shift = ilu0_options();
  shift.shift_tiny_pivots = true;
  const StructIlu0 shifted(ExecSpace(), singular, shift);
  CHECK(shifted.report().shifted_pivots == 2);

  // The solver needs grid metadata for the structured ILU, and offers no transpose or Jacobi.
  SolverOptions options;
  options.set("preconditioner", "struct-ilu0");
  Solver solver(options);
  CHECK_THROWS_AS(solver.setup(ExecSpace(), lap27.matrix), InvalidInput);
  SolverOptions bicg;
  bicg.set_all({"preconditioner=struct-ilu0", "method=bicg"});
  CHECK_THROWS_AS(bicg.validate(), InvalidInput);
  CHECK_THROWS_AS(options.set("struct_schedule", "flags"), InvalidInput);
  CHECK_THROWS_AS(options.set("struct_factor_lanes", "-4"), InvalidInput);
  CHECK_THROWS_AS(options.set("struct_factor_threads", "many"), InvalidInput);
  SolverOptions jacobi;
  jacobi.set_all({"preconditioner=struct-ic0", "trsv=jacobi"});
  CHECK_THROWS_AS(jacobi.validate(), InvalidInput);
  // IC(0) of a nonsymmetric matrix (3x3 nonsymmetric blocks) is refused, as ic0-dd refuses it.
  const GeneratedProblem bsr3 = generate_problem("gen:bsr3:5");
  SolverOptions ic0;
  ic0.set_all({"method=cg", "preconditioner=struct-ic0"});
  Solver ic0_solver(ic0);
  try {
    ic0_solver.setup(ExecSpace(), bsr3.matrix, bsr3.grid);
    FAIL("expected InvalidInput");
  } catch (const InvalidInput& error) {
    CHECK_THAT(std::string(error.what()), FGDD_CONTAINS("needs a symmetric matrix: block row"));
  }
}

TEST_CASE("struct one-launch schedules: far more teams than a device holds at once", "[struct]") {
  // 96³ points in chunks of at most 64: about 14,000 teams, several times what a GPU keeps
  // resident, all waiting on flags or counters; the ticket order keeps them deadlock-free, and
  // each point runs the very same operations as in the level-per-launch schedule, so the bits
  // agree.
  const std::pair<GridInfo, const char*> cases[] = {{{96, 96, 96}, "star7"},
                                                    {{48, 40, 56}, "box27"}};
  for (const auto& [grid, name] : cases) {
    INFO(name);
    const StructuredMatrix S = structured_problem(ExecSpace(), grid, Stencil::named(name), 1);
    const StructIlu0 levels(ExecSpace(), S, ilu0_options());
    const Offset n = S.num_rows();
    const Vector r = reference::to_device(reference::random_vector(n, 3u));
    Vector z_levels("z_levels", n), z_one("z_one", n);
    levels.apply(ExecSpace(), r, z_levels);
    for (const StructSchedule schedule : one_launch_schedules) {
      INFO("schedule " << int(schedule));
      const StructIlu0 one_launch(ExecSpace(), S, ilu0_options(), schedule);
      CHECK(reference::unequal_entries(reference::host_vector(one_launch.factors().values()),
                                       reference::host_vector(levels.factors().values())) == "");
      for (int repeat = 0; repeat < 3; ++repeat) {
        one_launch.apply(ExecSpace(), r, z_one);
        CHECK(reference::unequal_entries(reference::to_host(z_one), reference::to_host(z_levels)) ==
              "");
      }
    }
    // Tiles of one and of six columns: 9,216 and 1,632 one- or six-thread teams for star7.
    for (const StructTileShape shape : {StructTileShape{1, 1}, StructTileShape{3, 2}})
      for (const StructLayout layout : {StructLayout::Grid, StructLayout::Level}) {
        INFO("tile " << shape.u << "x" << shape.v << ", layout " << int(layout));
        const StructIlu0 tiles(ExecSpace(), S, ilu0_options(), StructSchedule::Tiles, shape,
                               layout);
        CHECK(reference::unequal_entries(reference::host_vector(tiles.factors().values()),
                                         reference::host_vector(levels.factors().values())) == "");
        tiles.apply(ExecSpace(), r, z_one);
        CHECK(reference::unequal_entries(reference::to_host(z_one), reference::to_host(z_levels)) ==
              "");
      }
  }
}

TEST_CASE("struct IC0 / ILU0: the positive-definite shift and the symmetric part", "[struct]") {
  // The 6×6 9-point grid whose IC(0) meets the pivot −0.378: the structured factorization shifts
  // the whole grid (α = 2⁻⁹ after 2⁻¹⁰) and equals the serial ILU(0) of A + α·S (for IC(0), of
  // the symmetric A, the same factors in the Ilu0 layout).
  const IluForm form = GENERATE(IluForm::Ilu0, IluForm::Ildlt);
  CAPTURE(int(form));
  const int side = reference::ic0_breakdown_grid_side;
  const GridInfo grid{side, side, 1};
  HostMatrixArrays arrays = reference::ic0_breakdown_grid();
  const SparseMatrix A = make_matrix(arrays);
  StructIluOptions options;
  options.factor.form = form;
  const StructIlu0Preconditioner plain(ExecSpace(), A, grid, options);
  const auto pivots_of = [](const reference::HostBlockCsr& F) {
    std::vector<double> pivots;
    for (Ordinal i = 0; i < F.num_block_rows(); ++i)
      for (Offset k = F.row_map[i]; k < F.row_map[i + 1]; ++k)
        if (F.col_ind[k] == i) pivots.push_back(F.values[k]);
    return *std::min_element(pivots.begin(), pivots.end());
  };
  CHECK(pivots_of(reference::to_host_csr(to_sparse(ExecSpace(), plain.factorization().factors()))) <
        0);

  options.factor.shift = PivotShift::PositiveDefinite;
  const StructIlu0Preconditioner shifted(ExecSpace(), A, grid, options);
  const FactorReport& report = shifted.factorization().report();
  CHECK(report.shift == 1.0 / 512);
  CHECK(report.shift_attempts == 2);
  CHECK(report.shifted_rows == Offset(side * side));
  const auto host = reference::to_host_csr(to_sparse(ExecSpace(), shifted.matrix()));
  const auto reference = reference::ilu0(reference::shifted(
      host, std::vector<double>(host.num_block_rows(), 1.0 / 512), form == IluForm::Ildlt));
  const auto F = reference::to_host_csr(to_sparse(ExecSpace(), shifted.factorization().factors()));
  REQUIRE(F.values.size() == reference.values.size());
  // O(1) entries, multipliers below 1 once shifted: rounding of a few updates.
  CHECK(max_difference(F.values, reference.values) <= 1e-13);
  CHECK(pivots_of(F) > 0);

  if (form == IluForm::Ildlt) {
    // Cancellation noise in a mirror pair (−6.0e-17 against −6.5e-17, rows of O(1)) is symmetric
    // up to rounding: accepted, and IC(0) factors ½(A + Aᵀ), bit for bit.
    Offset k = arrays.row_map[0];
    while (arrays.col_ind[k] != 1) ++k;
    Offset m = arrays.row_map[1];
    while (arrays.col_ind[m] != 0) ++m;
    arrays.values[k] = -6.0e-17;
    arrays.values[m] = -6.5e-17;
    options.factor.shift = PivotShift::None;
    const StructIlu0Preconditioner noisy(ExecSpace(), make_matrix(arrays), grid, options);
    arrays.values[k] = arrays.values[m] = 0.5 * (-6.0e-17 + -6.5e-17);
    const StructIlu0Preconditioner symmetric(ExecSpace(), make_matrix(arrays), grid, options);
    CHECK(reference::host_vector(noisy.factorization().factors().values()) ==
          reference::host_vector(symmetric.factorization().factors().values()));
    // A real asymmetry is refused with the measured value.
    arrays.values[k] = 0.1;
    CHECK_THROWS_WITH(StructIlu0Preconditioner(ExecSpace(), make_matrix(arrays), grid, options),
                      FGDD_CONTAINS("block row 0, column 1 differs from its mirror") &&
                          FGDD_CONTAINS("exceeds the rounding tolerance"));
  }
}
