// Paper Figs. 7 / 9 / 10 analog (structilu-structured-grid.txt §5.2, §5.4): the structured-grid
// exact ILU(0) factorization and triangular solves per (stencil, DoF) against general ILU(0) on
// the same matrix: fgdd's global ILU0 (level sets found by analysis), Kokkos-Kernels spiluk(0) +
// sptrsv and its cuSPARSE variant on the scalar CSR. One JSON line per case on stdout.
//
// Times are min / median / max over the repeats after warm-up, each fenced. GB/s and GFLOP/s
// divide the models below by the best time; % of copy compares with the copy bandwidth this
// program measures first. N grid points, b = DoF, n = N·b rows, V = 8-byte values, I = 4-byte
// column indices, O = 8-byte row offsets; "lower" / "upper" blocks are the in-grid stencil
// neighbours of all points before / after the centre.
//  - struct solve (apply(): the lower then the upper sweep, the preconditioner apply): every
//    off-diagonal factor block read once, D⁻¹ (b×b per point) read once, r read, z written:
//    ((lower + upper)·b² + N·b²)·V + 2nV. No indices: offsets come from the stencil. The lower
//    solve alone (solve_lower()): lower·b²·V + 2nV. The tile schedule's apply also moves r into
//    its level layout and z out of it (2nV more, not in the model), as does its solve_lower.
//  - --schedule, --layout (the tiles schedule's), --factor-lanes and --factor-threads
//    (StructFactorLaunch, 0: the library's choice) take lists: each combination is timed on the
//    same matrix, one JSON line each, with the same baselines.
//  - struct factor (numeric(): the copy of A into the factors, then the in-place elimination):
//    the copy reads and writes every stored value (s·b²·N, out-of-grid zeros included), the
//    elimination reads and writes every in-grid value once and writes D⁻¹:
//    (2·s·b²·N + 2·blocks·b² + N·b²)·V. Neighbours' U blocks and D⁻¹ read again are taken as
//    cache hits.
//  - fgdd global ILU0 (BSR): the same plus a column index per block and two row maps read.
//    Kokkos-Kernels / cuSPARSE (scalar CSR): solve reads L and U (unit diagonal of L stored)
//    with their indices and row maps, r, z; factor reads A (values, indices, row map) and writes
//    L and U values, reading their indices.
//  - flops, the same count for every implementation (so GFLOP/s ratios are speedups): a solve
//    does 2b² per off-diagonal block and 2b² per D⁻¹ product; the factorization 2b³ per L-block
//    scaling (A_pa·D⁻¹_q), 2b³ per elimination update (L_pa·U_qu subtracted) and 2b³ per pivot
//    inversion (1 for b = 1), counted exactly from the stencil and the grid.
#include "core/errors.hpp"
#include "factor/global_ilu0.hpp"
#include "struct/struct_ilu0.hpp"
#include "trsv/global_trsv.hpp"

#include "bench_common.hpp"
#include "kk_ilu0_baseline.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

namespace {

using namespace fgdd;

struct Options {
  GridInfo grid;  // empty: the per-DoF default of default_grid
  std::vector<std::string> stencils = {"star7", "star13", "diamond13", "diamond25", "box27"};
  std::vector<int> dofs = {1, 2, 3, 4};
  int repeats = 10;
  int warmup = 2;
  double copy_mb = 1024;
  std::vector<StructSchedule> schedules = {resolve_struct_schedule(StructSchedule::Auto)};
  std::vector<StructLayout> layouts = {StructLayout::Auto};  // each, for the tiles schedule
  StructTileShape tile;
  // Each combination, for every schedule and layout (StructFactorLaunch; 0: StructIlu0's choice).
  std::vector<int> factor_lanes = {0}, factor_threads = {0};
};

const char* to_string(StructSchedule schedule) { return struct_schedule_names.name(schedule); }
const char* to_string(StructLayout layout) { return struct_layout_names.name(layout); }

// A name from table, or a usage error (exit 2) naming the flag.
template <class Table>
auto parse_flag(const Table& table, const char* flag, const std::string& name) {
  try {
    return table.parse(name);
  } catch (const InvalidInput& error) {
    throw bench::UsageError(std::string(flag) + ": " + error.what());
  }
}

StructLayout parse_layout(const std::string& name) {
  return parse_flag(struct_layout_names, "--layout", name);
}

// A schedule with a layout (for tiles; the other schedules have one layout, grid order) and a
// factorization launch shape.
struct Variant {
  StructSchedule schedule;
  StructLayout layout;
  StructFactorLaunch factor;
};

std::vector<Variant> variants(const Options& options) {
  std::vector<Variant> out;
  const auto add = [&](StructSchedule schedule, StructLayout layout) {
    for (const int lanes : options.factor_lanes)
      for (const int threads : options.factor_threads)
        out.push_back({schedule, layout, {lanes, threads}});
  };
  for (const StructSchedule schedule : options.schedules) {
    if (schedule != StructSchedule::Tiles) {
      add(schedule, StructLayout::Auto);
      continue;
    }
    for (const StructLayout layout : options.layouts) add(schedule, layout);
  }
  return out;
}

// auto: the schedule it resolves to on this backend.
StructSchedule parse_schedule(const std::string& name) {
  return resolve_struct_schedule(parse_flag(struct_schedule_names, "--schedule", name));
}

int parse_positive(const std::string& text, const char* what) {
  char* end = nullptr;
  const long value = std::strtol(text.c_str(), &end, 10);
  if (end == text.c_str() || *end != '\0' || value < 1 ||
      value > std::numeric_limits<Ordinal>::max())
    throw bench::UsageError(std::string(what) + " takes positive integers, got '" + text + "'");
  return int(value);
}

std::vector<int> parse_counts(const std::string& list, const char* what) {
  std::vector<int> out;
  for (const std::string& text : bench::split_list(list))
    out.push_back(text == "0" ? 0 : parse_positive(text, what));
  return out;
}

// "NX:NY:NZ", or "N" for a cube.
GridInfo parse_grid(const std::string& text) {
  std::vector<std::string> parts;
  std::string::size_type start = 0;
  for (std::string::size_type colon; (colon = text.find(':', start)) != std::string::npos;
       start = colon + 1)
    parts.push_back(text.substr(start, colon - start));
  parts.push_back(text.substr(start));
  if (parts.size() == 1) parts.assign(3, parts[0]);
  if (parts.size() != 3) throw bench::UsageError("--grid takes NX:NY:NZ or N, got '" + text + "'");
  return {parse_positive(parts[0], "--grid"), parse_positive(parts[1], "--grid"),
          parse_positive(parts[2], "--grid")};
}

// --tile UxV.
StructTileShape parse_tile(const std::string& text) {
  const auto x = text.find('x');
  if (x == std::string::npos) throw bench::UsageError("--tile takes UxV, got '" + text + "'");
  return {parse_positive(text.substr(0, x), "--tile"),
          parse_positive(text.substr(x + 1), "--tile")};
}

template <class T>
std::vector<T> parse_each(const std::string& list, T (*parse)(const std::string&)) {
  std::vector<T> out;
  for (const std::string& name : bench::split_list(list)) out.push_back(parse(name));
  return out;
}

std::string stencil_name(const std::string& name) {
  return Stencil::named(name).name();  // throws for unknown names
}

int parse_dof(const std::string& text) { return parse_positive(text, "--dof"); }

Options parse_options(int argc, char* argv[]) {
  Options options;
  const auto names = [](const auto& values) {
    std::string text;
    for (const auto& value : values)
      text += (text.empty() ? "" : ",") + std::string(to_string(value));
    return text;
  };
  bench::CommandLine("fgdd_struct_bench",
                     "Structured-grid ILU(0) factor and solves per stencil and DoF against general "
                     "ILU(0) (structilu §5.2, §5.4).")
      .custom("--grid", "NX:NY:NZ|N", "per DoF, 128^3 points at DoF 1", "the grid",
              [&](const std::string& text) { options.grid = parse_grid(text); })
      .custom("--stencil", "NAME,NAME,...", bench::default_text(options.stencils), "stencils",
              [&](const std::string& list) { options.stencils = parse_each(list, stencil_name); })
      .custom("--dof", "B,B,...", bench::default_text(options.dofs), "degrees of freedom per point",
              [&](const std::string& list) { options.dofs = parse_each(list, parse_dof); })
      .at_least("--repeats", &options.repeats, 1, "R", "timed runs per phase")
      .at_least("--warmup", &options.warmup, 0, "W", "untimed runs before them")
      .at_least("--copy-mb", &options.copy_mb, 1.0, "MB", "size of the copy-bandwidth reference")
      .custom(
          "--schedule", struct_schedule_names.joined(","), names(options.schedules),
          "struct schedules (auto: the backend's)",
          [&](const std::string& list) { options.schedules = parse_each(list, parse_schedule); })
      .custom("--tile", "UxV",
              std::to_string(options.tile.u) + "x" + std::to_string(options.tile.v),
              "the tiles schedule's tile",
              [&](const std::string& text) { options.tile = parse_tile(text); })
      .custom("--layout", struct_layout_names.joined(","), names(options.layouts),
              "the tiles schedule's layouts",
              [&](const std::string& list) { options.layouts = parse_each(list, parse_layout); })
      .custom("--factor-lanes", "0,8,16,32", bench::default_text(options.factor_lanes),
              "factorization lanes (0: the library's choice)",
              [&](const std::string& list) {
                options.factor_lanes = parse_counts(list, "--factor-lanes");
              })
      .custom("--factor-threads", "0,1,2,4,8", bench::default_text(options.factor_threads),
              "factorization threads a team (0: the library's choice)",
              [&](const std::string& list) {
                options.factor_threads = parse_counts(list, "--factor-threads");
              })
      .parse(argc, argv);
  if (options.stencils.empty() || options.dofs.empty() || options.schedules.empty() ||
      options.layouts.empty() || options.factor_lanes.empty() || options.factor_threads.empty())
    throw bench::UsageError("each list option needs at least one value");
  return options;
}

// Sized for one H100 (80 GB): 128³ ≈ 2.1M points at DoF 1, the edge shrunk as b^(-1/5) so that
// rows grow to ≈ 3.7M at DoF 4 (97³ points) while the box27 DoF 4 case with its baselines'
// copies (structured matrix and factors, BSR, global factors, scalar CSR, Kokkos-Kernels L and
// U) stays near 25 GB of device memory.
GridInfo default_grid(int b) {
  const Ordinal edge = Ordinal(std::lround(128.0 * std::pow(double(b), -0.2)));
  return {edge, edge, edge};
}

struct Cost {
  double bytes = 0, flops = 0;
};

// Grid points p with p + o inside the grid for every o of offsets (p itself always is): per
// axis, the positions whose shifts by 0 and every offset component stay in [0, n).
double points_with(const GridInfo& grid, std::initializer_list<StencilOffset> offsets) {
  int lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  for (const StencilOffset& o : offsets) {
    const int d[3] = {o.dx, o.dy, o.dz};
    for (int axis = 0; axis < 3; ++axis) {
      lo[axis] = std::min(lo[axis], d[axis]);
      hi[axis] = std::max(hi[axis], d[axis]);
    }
  }
  const Ordinal n[3] = {grid.nx, grid.ny, grid.nz};
  double count = 1;
  for (int axis = 0; axis < 3; ++axis) count *= std::max(0, n[axis] - (hi[axis] - lo[axis]));
  return count;
}

// The model quantities of one case (see the file's head).
struct CaseModel {
  double lower_blocks = 0, upper_blocks = 0;  // in-grid off-diagonal blocks of each triangle
  Cost struct_factor, struct_lower, struct_solve, global_factor, global_solve;
};

CaseModel case_model(const StructuredMatrix& S) {
  const GridInfo& grid = S.grid();
  const Stencil& stencil = S.stencil();
  const auto& o = stencil.offsets();
  const double N = double(S.num_points()), b = S.block_size(), bb = b * b, b3 = bb * b;
  const double n = N * b, V = sizeof(Scalar), I = sizeof(Ordinal), O = sizeof(Offset);
  CaseModel m;
  double factor_flops = N * (b == 1 ? 1 : 2 * b3);  // the pivot inversions
  for (int e = 0; e < stencil.size(); ++e) {
    if (e == stencil.center()) continue;
    const double count = points_with(grid, {o[e]});
    (e < stencil.center() ? m.lower_blocks : m.upper_blocks) += count;
    if (e > stencil.center()) continue;
    factor_flops += 2 * b3 * count;  // L_pa = A_pa·D⁻¹_q
    // The elimination table of StructIlu0 (paper Algorithm 1, LOOP3): upper entry u of row
    // q = p + o_a updates target t = o_a + o_u of row p when t is in the stencil and p + o_t is
    // in the grid (then q + o_u is).
    for (int u = stencil.center() + 1; u < stencil.size(); ++u) {
      const StencilOffset target{o[e].dx + o[u].dx, o[e].dy + o[u].dy, o[e].dz + o[u].dz};
      if (stencil.index_of(target) >= 0) factor_flops += 2 * b3 * points_with(grid, {o[e], target});
    }
  }
  const double blocks = N + m.lower_blocks + m.upper_blocks;
  const double stored = double(stencil.size()) * bb * N;
  const double solve_flops = 2 * bb * (m.lower_blocks + m.upper_blocks) + 2 * bb * N;
  m.struct_solve = {((m.lower_blocks + m.upper_blocks) * bb + N * bb) * V + 2 * n * V, solve_flops};
  m.struct_lower = {m.lower_blocks * bb * V + 2 * n * V, 2 * bb * m.lower_blocks};
  m.struct_factor = {(2 * stored + 2 * blocks * bb + N * bb) * V, factor_flops};
  m.global_solve = {m.struct_solve.bytes + (blocks - N) * I + 2 * (N + 1) * O, solve_flops};
  m.global_factor = {(4 * blocks * bb + N * bb) * V + blocks * I + (N + 1) * O, factor_flops};
  return m;
}

// {"min_s":...,"median_s":...,"max_s":...,"gb_per_s":...,"percent_of_copy":...,"gflops":...}
bench::JsonObject phase_json(const bench::Timing& t, const Cost& cost, double copy_gbs) {
  const double gbs = cost.bytes / t.min / 1e9;
  using bench::fixed;
  using bench::scientific;
  bench::JsonObject json;
  json.add("min_s", t.min, scientific(6))
      .add("median_s", t.median, scientific(6))
      .add("max_s", t.max, scientific(6))
      .add("gb_per_s", gbs, fixed(1))
      .add("percent_of_copy", 100 * gbs / copy_gbs, fixed(1))
      .add("gflops", cost.flops / t.min / 1e9, fixed(2))
      .add("model_bytes", cost.bytes, scientific(6))
      .add("model_flops", cost.flops, scientific(6));
  return json;
}

void progress(const char* name, const bench::Timing& t, const Cost& cost) {
  std::fprintf(stderr, "  %-24s %10.3f ms %8.1f GB/s %8.2f GFLOP/s\n", name, 1e3 * t.min,
               cost.bytes / t.min / 1e9, cost.flops / t.min / 1e9);
}

// The apply difference struct vs global ILU0 that still verifies (max |Δz| / max |z_global|).
// Both compute z = (LU)⁻¹r for the same M up to rounding: each row of each sweep (and of the
// factorization) is an inner product of at most s·b terms, relative error ≤ γ_{sb} ≈ s·b·u; an
// error propagates along a dependency chain of at most `levels` rows per sweep, and the
// generator's strictly diagonally dominant rows give multipliers below one, so it grows at most
// linearly in the chain length. Three chains (factor, two sweeps) in each of two computations,
// with u = eps/2: 3·s·b·eps·levels; 10·s·b·eps·levels leaves a margin. Orders of magnitude
// above the differences seen (≈ 1e-15), far below what a wrong dependency would give (≈ 1e-2).
double verify_tolerance(const StructuredMatrix& S, Ordinal levels) {
  return 10.0 * S.stencil().size() * S.block_size() * std::numeric_limits<double>::epsilon() *
         double(levels);
}

FactorOptions ilu0_options() {
  FactorOptions options;
  options.form = IluForm::Ilu0;
  return options;
}

// One (stencil, DoF) case: per schedule, the JSON fields after the context block; every schedule
// is timed on the same matrix against the same baselines.
std::vector<bench::JsonObject> run_case(const ExecSpace& space, const Options& options,
                                        double copy_gbs, const Stencil& stencil, int b) {
  const GridInfo grid = options.grid.empty() ? default_grid(b) : options.grid;
  const auto timed = [&](const std::function<void()>& run) {
    return bench::time_it(space, options.warmup, options.repeats, run);
  };
  std::fprintf(stderr, "%s, DoF %d, grid %dx%dx%d: setup ...\n", stencil.name().c_str(), b, grid.nx,
               grid.ny, grid.nz);
  const StructuredMatrix S =
      structured_problem(space, grid, stencil, b, StructuredValues::Nonsymmetric);
  const SparseMatrix A = to_sparse(space, S);  // BSR (CSR for b = 1) in grid order
  const Offset n = S.num_rows();
  const CaseModel model = case_model(S);
  const Vector r = bench::pattern_vector(n);
  Vector work("fgdd::bench::work", n);

  bench::JsonObject baselines;
  std::vector<bench::JsonObject> phases;
  std::vector<std::string> layouts, factor_schedules;
  std::vector<StructFactorLaunch> factor_launches;
  std::vector<Vector> z_schedules;
  Ordinal levels = 0, nonempty_levels = 0;
  const std::vector<Variant> runs = variants(options);
  for (const Variant& run : runs) {
    StructIlu0 ilu(space, S, ilu0_options(), run.schedule, options.tile, run.layout, run.factor);
    layouts.push_back(to_string(ilu.layout()));
    factor_schedules.push_back(to_string(ilu.factor_schedule()));
    factor_launches.push_back(ilu.factor_launch());
    std::fprintf(stderr, "  schedule %s, layout %s, factor %s with %d lanes, %d threads a team\n",
                 to_string(run.schedule), layouts.back().c_str(), factor_schedules.back().c_str(),
                 factor_launches.back().lanes, factor_launches.back().team_threads);
    levels = ilu.levels().num_levels;
    const auto& level_ptr = ilu.levels().host_level_ptr;
    nonempty_levels = 0;
    for (Ordinal l = 0; l < levels; ++l) nonempty_levels += level_ptr[l + 1] > level_ptr[l];
    Vector z("fgdd::bench::z_struct", n);
    const bench::Timing factor = timed([&] { ilu.numeric(space, S); });
    progress("struct factor", factor, model.struct_factor);
    const bench::Timing lower = timed([&] { ilu.solve_lower(space, r, work); });
    progress("struct lower", lower, model.struct_lower);
    const bench::Timing solve = timed([&] { ilu.apply(space, r, z); });
    progress("struct solve", solve, model.struct_solve);
    phases.emplace_back()
        .add("factor", phase_json(factor, model.struct_factor, copy_gbs))
        .add("lower", phase_json(lower, model.struct_lower, copy_gbs))
        .add("solve", phase_json(solve, model.struct_solve, copy_gbs));
    ilu.apply(space, r, z);
    space.fence();
    z_schedules.push_back(z);
  }
  const Vector& z_struct = z_schedules.front();

  // A baseline's factor and solve, its result's difference from the struct apply; a failure
  // (does not fit, refused) is recorded as skipped with the reason.
  Vector z_baseline("fgdd::bench::z_baseline", n);
  const auto baseline = [&](const char* name, const std::function<void()>& body) {
    try {
      body();
    } catch (const std::exception& error) {
      std::fprintf(stderr, "  baseline %s skipped: %s\n", name, error.what());
      baselines.add(name, bench::JsonObject().add("skipped", error.what()));
    }
  };
  const auto record = [&](const char* name, const bench::Timing& factor, const Cost& factor_cost,
                          const bench::Timing& solve, const Cost& solve_cost, double difference) {
    progress((std::string(name) + " factor").c_str(), factor, factor_cost);
    progress((std::string(name) + " solve").c_str(), solve, solve_cost);
    baselines.add(name, bench::JsonObject()
                            .add("factor", phase_json(factor, factor_cost, copy_gbs))
                            .add("solve", phase_json(solve, solve_cost, copy_gbs))
                            .add("difference", difference, bench::scientific(3)));
  };

  // fgdd's general exact global ILU0 on the same (block) matrix: the reference of "verified".
  std::vector<double> differences;  // per schedule; empty (unverified) without the reference
  const double tolerance = verify_tolerance(S, levels);
  Ordinal global_lower_levels = 0, global_upper_levels = 0;
  baseline("global_ilu0", [&] {
    GlobalIlu0 global(space, A, ilu0_options());
    const GlobalTrsv trsv(space, global);
    global_lower_levels = global.lower_levels().num_levels;
    global_upper_levels = trsv.levels(Triangle::Upper).num_levels;
    const bench::Timing factor = timed([&] { global.numeric(space, A); });
    const bench::Timing solve = timed([&] { trsv.apply(space, r, z_baseline); });
    trsv.apply(space, r, z_baseline);
    for (const Vector& z : z_schedules)
      differences.push_back(bench::max_relative_difference(z, z_baseline));
    record("global_ilu0", factor, model.global_factor, solve, model.global_solve,
           differences.front());
  });
  if (differences.empty())
    std::fprintf(stderr, "  not verified: the global ILU0 reference did not run\n");

  // The vendor baselines on the scalar CSR expansion (scalar ILU(0) of the expanded pattern, its
  // blocks dense, is the block ILU(0) M in exact arithmetic: `difference` shows it).
  SparseMatrix point;
  baseline("point_csr", [&] { point = bench::point_csr(A); });
  const auto vendor = [&](const char* name, bench::VendorTrsv kind) {
    baseline(name, [&] {
      if (point.num_rows() != n) throw std::runtime_error("the scalar CSR was not built");
      bench::KkIlu0 kk(point, kind);
      const double V = sizeof(Scalar), I = sizeof(Ordinal), O = sizeof(Offset);
      const double nnz = double(point.num_entries()), factors = double(kk.factor_entries());
      const Cost factor_cost{nnz * (V + I) + (n + 1) * O + factors * (V + I) + 2 * (n + 1) * O,
                             model.struct_factor.flops};
      const Cost solve_cost{factors * (V + I) + 2 * (n + 1) * O + 2.0 * n * V,
                            model.struct_solve.flops};
      const bench::Timing factor = timed([&] { kk.numeric(); });
      const bench::Timing solve = timed([&] { kk.apply(r, work, z_baseline); });
      kk.apply(r, work, z_baseline);
      space.fence();
      record(name, factor, factor_cost, solve, solve_cost,
             bench::max_relative_difference(z_baseline, z_struct));
    });
  };
  vendor("kk_sptrsv", bench::VendorTrsv::LevelSets);
  if (bench::kk_cusparse_available) {
    vendor("kk_cusparse", bench::VendorTrsv::CuSparse);
  } else {
    baselines.add("kk_cusparse",
                  bench::JsonObject().add(
                      "skipped", "Kokkos-Kernels without the cuSPARSE TPL or not a Cuda build"));
  }

  const LevelWeights weights = stencil.level_weights(grid);
  bench::JsonObject head;
  head.add("grid",
           std::to_string(grid.nx) + "x" + std::to_string(grid.ny) + "x" + std::to_string(grid.nz))
      .add("stencil", stencil.name())
      .add("dof", b)
      .add("points", std::size_t(S.num_points()))
      .add("rows", std::size_t(n))
      .add("entries", std::size_t(A.num_entries()))
      .add("stored_values", std::size_t(S.values().extent(0)))
      .add("levels", int(levels))
      .add("nonempty_levels", int(nonempty_levels))
      .add("level_weights", std::vector<int>{weights.x, weights.y, weights.z})
      .add("global_levels", bench::JsonObject()
                                .add("lower", int(global_lower_levels))
                                .add("upper", int(global_upper_levels)));
  std::vector<bench::JsonObject> lines;
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const double difference = differences.empty() ? -1 : differences[k];
    const bool verified = difference >= 0 && difference <= tolerance;
    if (difference > tolerance)
      std::fprintf(stderr, "  %s apply differs from the global ILU0 apply by %.3e > %.3e\n",
                   to_string(runs[k].schedule), difference, tolerance);
    lines.push_back(head);
    lines.back()
        .add("phases", phases[k])
        .add("baselines", baselines)
        .add("schedule", to_string(runs[k].schedule))
        .add("factor_schedule", factor_schedules[k])
        .add("factor_lanes", factor_launches[k].lanes)
        .add("factor_team_threads", factor_launches[k].team_threads)
        .add("tile", std::to_string(options.tile.u) + "x" + std::to_string(options.tile.v))
        .add("layout", layouts[k])
        .add("difference", difference, bench::scientific(3))
        .add("tolerance", tolerance, bench::scientific(3))
        .add("verified", verified);
  }
  return lines;
}

int benchmark_main(int argc, char* argv[]) {
  const Options options = parse_options(argc, argv);
  const ExecSpace space;
  const std::string device = bench::device_name();
  const double copy_gbs =
      bench::copy_bandwidth(space, options.copy_mb, options.warmup, options.repeats);
  std::fprintf(stderr, "copy bandwidth %.0f GB/s on %s\n", copy_gbs, device.c_str());
  bench::JsonObject context = bench::report_header("struct_ilu");
  context.add("copy_gb_per_s", copy_gbs, bench::fixed(1))
      .add("repeats", options.repeats)
      .add("warmup", options.warmup);
  for (const std::string& name : options.stencils)
    for (const int b : options.dofs) {
      const Stencil stencil = Stencil::named(name);
      std::vector<bench::JsonObject> lines;
      try {
        lines = run_case(space, options, copy_gbs, stencil, b);
      } catch (const std::exception& error) {  // the struct problem itself does not fit
        std::fprintf(stderr, "  %s DoF %d skipped: %s\n", name.c_str(), b, error.what());
        lines = {bench::JsonObject()
                     .add("stencil", name)
                     .add("dof", b)
                     .add("status", "skipped")
                     .add("skipped", error.what())};
      }
      for (const bench::JsonObject& fields : lines)
        bench::print_line(bench::JsonObject(context).append(fields));
    }
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) { return fgdd::bench::run_benchmark(argc, argv, benchmark_main); }
