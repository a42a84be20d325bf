#include "struct/struct_ilu0.hpp"

#include "core/block_size_dispatch.hpp"
#include "core/errors.hpp"
#include "core/host_copy.hpp"
#include "core/team_size.hpp"
#include "factor/whole_matrix_shift.hpp"
#include "struct/level_layout.hpp"
#include "struct/struct_schedules.hpp"

#include <Kokkos_Sort.hpp>

#include <algorithm>
#include <limits>
#include <string>

namespace fgdd {

namespace detail {

void make_level_chunks(const std::vector<Ordinal>& level_ptr, StructSyncState& state) {
  std::vector<Ordinal> chunks, chunk_step, step_chunks;
  for (std::size_t l = 0; l + 1 < level_ptr.size(); ++l) {
    if (level_ptr[l + 1] == level_ptr[l]) continue;
    step_chunks.push_back(0);
    for (Ordinal k = level_ptr[l]; k < level_ptr[l + 1]; k += state.chunk_points) {
      chunks.push_back(k);
      chunk_step.push_back(Ordinal(step_chunks.size()) - 1);
      ++step_chunks.back();
    }
  }
  chunks.push_back(level_ptr.empty() ? 0 : level_ptr.back());
  state.chunk_ptr = to_device(chunks, "fgdd::struct::chunk_ptr");
  state.chunk_step = to_device(chunk_step, "fgdd::struct::chunk_step");
  state.step_chunks = to_device(step_chunks, "fgdd::struct::step_chunks");
  state.step_done =
      Kokkos::View<Ordinal*, DeviceType>("fgdd::struct::step_done", step_chunks.size());
  state.levels_done = Kokkos::View<Ordinal, DeviceType>("fgdd::struct::levels_done");
  state.tickets = Kokkos::View<Ordinal, DeviceType>("fgdd::struct::tickets");
}

// The launches' data for the factors' shape, with their values and D⁻¹ in the schedule's
// layout.
StructData make_data(const StructuredMatrix& shape, const StructIlu0Storage& storage) {
  StructData data;
  data.g = GridCoordinates{shape.grid().nx, shape.grid().ny, shape.grid().nz};
  data.entries = make_entry_table(shape.stencil(), shape.grid());
  data.s = shape.stencil().size();
  data.num_lower = shape.stencil().num_lower();
  data.center = shape.stencil().center();
  data.margin = shape.stencil().radius();
  data.runtime_b = shape.block_size();
  data.np = shape.num_points();
  data.stride = storage.stride(data.np);
  data.level_layout = storage.level_layout();
  data.level = storage.layout;
  data.lu = storage.values;
  data.inv_diag = storage.inv_diag;
  return data;
}

void build_levels(const ExecSpace& space, const GridInfo& grid, const LevelWeights& w,
                  StructLevels& levels) {
  const Offset np = grid.num_points();
  const Ordinal num_levels = w.num_levels(grid);
  const GridCoordinates g{grid.nx, grid.ny, grid.nz};
  Kokkos::View<long long*, DeviceType> keys(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::struct::level_keys"), np);
  Kokkos::parallel_for(
      "fgdd::struct::level_keys", Kokkos::RangePolicy<ExecSpace>(space, 0, np),
      KOKKOS_LAMBDA(const Offset p) {
        Ordinal x, y, z;
        g.of(p, x, y, z);
        const long long level = (long long)w.x * x + (long long)w.y * y + (long long)w.z * z;
        keys(p) = level * (long long)np + (long long)p;
      });
  space.fence();
  Kokkos::sort(keys);  // (level, point): ascending points inside each level
  levels.weights = w;
  levels.num_levels = num_levels;
  levels.points = Kokkos::View<Ordinal*, DeviceType>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::struct::level_points"), np);
  levels.level_ptr = Kokkos::View<Ordinal*, DeviceType>("fgdd::struct::level_ptr", num_levels + 1);
  const auto points = levels.points;
  const auto level_ptr = levels.level_ptr;
  Kokkos::parallel_for(
      "fgdd::struct::level_ptr", Kokkos::RangePolicy<ExecSpace>(space, 0, np),
      KOKKOS_LAMBDA(const Offset k) {
        const long long level = keys(k) / (long long)np;
        points(k) = Ordinal(keys(k) % (long long)np);
        // Level boundaries between the previous key's level and this one start at k.
        const long long previous = k == 0 ? -1 : keys(k - 1) / (long long)np;
        for (long long l = previous + 1; l <= level; ++l) level_ptr(l) = Ordinal(k);
        if (k + 1 == np)
          for (long long l = level + 1; l <= num_levels; ++l) level_ptr(l) = Ordinal(np);
      });
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), levels.level_ptr);
  levels.host_level_ptr.assign(host.data(), host.data() + host.extent(0));
  levels.max_level_points = 0;
  for (Ordinal l = 0; l < num_levels; ++l)
    levels.max_level_points =
        std::max(levels.max_level_points, levels.host_level_ptr[l + 1] - levels.host_level_ptr[l]);
}

void struct_shift_scale(const ExecSpace& space, const StructuredMatrix& A, bool positive,
                        const Kokkos::View<Scalar*, DeviceType>& shift_scale) {
  const auto values = A.values();
  const Offset np = A.num_points();
  const int b = A.block_size(), entries = A.stencil().size(), center = A.stencil().center();
  // Entries whose neighbour lies outside the grid hold zero (StructuredMatrix), so a row's
  // 1-norm sums every entry.
  Kokkos::parallel_for(
      "fgdd::struct::shift_scale", Kokkos::RangePolicy<ExecSpace>(space, 0, np),
      KOKKOS_LAMBDA(const Offset p) {
        for (int r = 0; r < b; ++r) {
          Scalar norm = 0;
          for (int e = 0; e < entries; ++e)
            for (int c = 0; c < b; ++c)
              norm += fabs(values(((Offset(e) * b + r) * b + c) * np + p));
          const bool negative =
              !positive && values(((Offset(center) * b + r) * b + r) * np + p) < 0;
          shift_scale(p * b + r) = negative ? -norm : norm;
        }
      });
}

void check_vector(const StructIlu0& M, Offset size, const char* name) {
  if (size != M.num_rows())
    throw DimensionMismatch(std::string(name) + " has " + std::to_string(size) +
                            " entries; the structured factors have " +
                            std::to_string(M.num_rows()) + " rows");
}

// Each tile's level range [first, last] (first > last: the tile has no grid point), from its
// columns' ranges. Built on the device.
void build_tile_ranges(const ExecSpace& space, StructSyncState& state) {
  const StructTileGrid tiles = state.tile_grid;
  const StructColumnMap map = state.column_map;
  state.tile_first = Kokkos::View<Ordinal*, DeviceType>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::struct::tile_first"),
      tiles.num_tiles());
  state.tile_last = Kokkos::View<Ordinal*, DeviceType>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::struct::tile_last"),
      tiles.num_tiles());
  const auto first = state.tile_first, last = state.tile_last;
  Kokkos::deep_copy(space, first, std::numeric_limits<Ordinal>::max());
  Kokkos::deep_copy(space, last, Ordinal(-1));
  const Offset columns_u = Offset(tiles.tiles_u) * tiles.shape.u;
  const Offset columns = columns_u * Offset(tiles.tiles_v) * tiles.shape.v;
  Kokkos::parallel_for(
      "fgdd::struct::tile_ranges", Kokkos::RangePolicy<ExecSpace>(space, 0, columns),
      KOKKOS_LAMBDA(const Offset c) {
        const long long iu = c % columns_u, iv = c / columns_u;
        long long lo = 0, hi = 0;
        if (!map.levels(tiles.u_min + iu, tiles.v_min + iv, lo, hi)) return;
        const Ordinal tile =
            Ordinal(iu / tiles.shape.u) * tiles.tiles_v + Ordinal(iv / tiles.shape.v);
        Kokkos::atomic_fetch_min(&first(tile), Ordinal(lo));
        Kokkos::atomic_fetch_max(&last(tile), Ordinal(hi));
      });
  state.tile_order =
      to_device(tile_ticket_order(tiles.tiles_u, tiles.tiles_v), "fgdd::struct::tile_order");
  state.tile_progress =
      Kokkos::View<Ordinal*, DeviceType>("fgdd::struct::tile_progress", tiles.num_tiles());
  state.tickets = Kokkos::View<Ordinal, DeviceType>("fgdd::struct::tickets");
}

}  // namespace detail

StructLevels build_struct_levels(const ExecSpace& space, const GridInfo& grid,
                                 const LevelWeights& weights) {
  if (grid.nx < 1 || grid.ny < 1 || grid.nz < 1)
    throw InvalidInput("structured levels need a grid with every dimension >= 1");
  if (weights.x < 0 || weights.y < 0 || weights.z < 0)
    throw InvalidInput("level weights must be >= 0");
  const long long count = (long long)weights.x * (grid.nx - 1) +
                          (long long)weights.y * (grid.ny - 1) +
                          (long long)weights.z * (grid.nz - 1) + 1;
  if (count > (long long)std::numeric_limits<Ordinal>::max())
    throw InvalidInput("the grid has " + std::to_string(count) +
                       " levels under these weights, more than Ordinal holds");
  StructLevels levels;
  detail::build_levels(space, grid, weights, levels);
  return levels;
}

StructSchedule resolve_struct_schedule(StructSchedule schedule) {
  if (schedule != StructSchedule::Auto) return schedule;
  return host_memory ? StructSchedule::Levels : StructSchedule::Tiles;
}

StructSchedule resolve_struct_schedule(StructSchedule schedule, const Stencil& stencil,
                                       const GridInfo& grid) {
  const StructSchedule resolved = resolve_struct_schedule(schedule);
  if (schedule != StructSchedule::Auto || resolved != StructSchedule::Tiles) return resolved;
  const bool mapped = search_tile_mapping(stencil, stencil.level_weights(grid), grid).has_value();
  return mapped ? resolved : StructSchedule::Levels;
}

StructIlu0::StructIlu0(const ExecSpace& space, const StructuredMatrix& A,
                       const FactorOptions& options, StructSchedule schedule,
                       StructTileShape tile_shape, StructLayout layout,
                       StructFactorLaunch factor_launch)
    : options_(options), schedule_(resolve_struct_schedule(schedule, A.stencil(), A.grid())) {
  const int lanes_max = detail::max_vector_lanes();
  if (factor_launch.lanes < 0 || factor_launch.lanes > lanes_max ||
      (factor_launch.lanes & (factor_launch.lanes - 1)) != 0)
    throw InvalidInput("StructFactorLaunch::lanes takes 0 (chosen) or a power of two up to " +
                       std::to_string(lanes_max) + " on this backend, not " +
                       std::to_string(factor_launch.lanes));
  if (factor_launch.team_threads < 0)
    throw InvalidInput(
        "StructFactorLaunch::team_threads takes 0 (chosen) or a positive count, not " +
        std::to_string(factor_launch.team_threads));
  if (layout == StructLayout::Level && schedule_ != StructSchedule::Tiles)
    throw InvalidInput(std::string("the level layout of the structured ILU needs the tiles "
                                   "schedule") +
                       (schedule == StructSchedule::Auto
                            ? " (auto chose levels: a CPU backend, or a stencil without a tile "
                              "mapping)"
                            : ""));
  options_.validate();
  if (options_.form != IluForm::Ilu0 && options_.form != IluForm::Ildlt)
    throw InvalidInput("StructIlu0 computes IluForm::Ilu0 (ILU(0)) or IluForm::Ildlt (IC(0))");
  if (options_.level_of_fill != 0)
    throw InvalidInput("StructIlu0 is ILU(0): level_of_fill must be 0, not " +
                       std::to_string(options_.level_of_fill));
  const Stencil& stencil = A.stencil();
  detail::check_entry_capacity(stencil);
  const bool ic0 = options_.form == IluForm::Ildlt;
  if (ic0 && !stencil.is_symmetric())
    throw InvalidInput("IC(0) needs a symmetric stencil; " + stencil.name() + " is not");
  Kokkos::Timer timer;
  levels_ = build_struct_levels(space, A.grid(), stencil.level_weights(A.grid()));
  // The elimination table of Algorithm 1, LOOP3.
  std::vector<int> ptr{0}, upper, target, mirror(stencil.size(), -1);
  const auto& o = stencil.offsets();
  for (int e = 0; e < stencil.size(); ++e)
    mirror[e] = stencil.index_of({-o[e].dx, -o[e].dy, -o[e].dz});
  for (int a = 0; a < stencil.num_lower(); ++a) {
    for (int u = stencil.center() + 1; u < stencil.size(); ++u) {
      const int t = stencil.index_of({o[a].dx + o[u].dx, o[a].dy + o[u].dy, o[a].dz + o[u].dz});
      if (t < 0 || (ic0 && t > stencil.center())) continue;
      upper.push_back(u);
      target.push_back(t);
    }
    ptr.push_back(int(upper.size()));
  }
  elim_ptr_ = detail::to_device(ptr, "fgdd::struct::elim_ptr");
  elim_upper_ = detail::to_device(upper, "fgdd::struct::elim_upper");
  elim_target_ = detail::to_device(target, "fgdd::struct::elim_target");
  mirror_ = detail::to_device(mirror, "fgdd::struct::mirror");
  const int b = A.block_size();
  // Factorization lanes per point: a power of two covering the most (u, block column) updates of
  // one lower entry, at most 32 (and what the backend allows; CPU backends run lanes as a loop).
  // A tiles team (a thread per column) with more than 8 lanes fits fewer columns and fewer tiles
  // at once, so a point that wants more is factored with a launch per level instead. Per level,
  // every point takes the most lanes: spare lanes cost less than a second round of updates
  // (measured: docs/PERFORMANCE_HISTORY.md, "Measurements behind code choices").
  int updates = 0;
  for (std::size_t a = 0; a + 1 < ptr.size(); ++a)
    updates = std::max(updates, (ptr[a + 1] - ptr[a]) * b);
  int& lanes = factor_launch_.lanes;
  lanes = factor_launch.lanes;
  if (lanes == 0) {
    lanes = detail::lanes_covering(updates);
    if (lanes > 8) lanes = lanes_max;
  }
  factor_launch_.team_threads = factor_launch.team_threads > 0
                                    ? factor_launch.team_threads
                                    : detail::default_level_team_threads(lanes);
  factor_schedule_ =
      schedule_ == StructSchedule::Tiles && lanes > 8 ? StructSchedule::Levels : schedule_;
  if (schedule_ == StructSchedule::Tiles) {
    sync_.mapping = find_tile_mapping(stencil, levels_.weights, A.grid());
    sync_.column_map = column_map(sync_.mapping, A.grid(), levels_.num_levels);
    sync_.tile_grid = make_tile_grid(sync_.mapping, A.grid(), tile_shape);
    detail::build_tile_ranges(space, sync_);
  }
  if (schedule_ == StructSchedule::Tiles && layout != StructLayout::Grid) {
    storage_.layout =
        detail::make_level_layout(space, sync_.mapping, A.grid(), stencil, levels_.num_levels);
    storage_.values =
        StructuredMatrix::Values("fgdd::struct::level_values",
                                 Offset(stencil.size()) * b * b * storage_.stride(A.num_points()));
    factors_ = A.shape();
  } else {
    factors_ = StructuredMatrix(A.grid(), stencil, b);
    storage_.values = factors_.values();
  }
  storage_.inv_diag = Kokkos::View<Scalar*, DeviceType>(
      "fgdd::struct::inv_diag", Offset(b) * b * storage_.stride(A.num_points()));
  if (!level_layout()) inv_diag_ = storage_.inv_diag;
  if (schedule_ == StructSchedule::LevelCounters || schedule_ == StructSchedule::SyncFree) {
    detail::make_level_chunks(levels_.host_level_ptr, sync_);
    sync_.done = Kokkos::View<unsigned*, DeviceType>("fgdd::struct::done", A.num_points());
  }
  pivots_ = detail::PivotStatus("fgdd::struct", Ordinal(A.num_points()));
  space.fence();
  const double symbolic = timer.seconds();
  numeric(space, A);
  report_.symbolic_seconds = symbolic;
}

const FactorReport& StructIlu0::numeric(const ExecSpace& space, const StructuredMatrix& A) {
  if (!factors_.same_structure(A))
    throw InvalidInput("numeric: the structured matrix (stencil " + A.stencil().name() +
                       ", block size " + std::to_string(A.block_size()) +
                       ") is not the grid, stencil and block size the factorization was set up "
                       "with (stencil " +
                       factors_.stencil().name() + ", block size " +
                       std::to_string(factors_.block_size()) + ")");
  Kokkos::Timer timer;
  const Ordinal np = Ordinal(A.num_points());
  const int b = A.block_size();
  const bool ic0 = options_.form == IluForm::Ildlt;
  const bool positive_definite = options_.shift == PivotShift::PositiveDefinite;
  if (positive_definite) {
    if (shift_scale_.extent(0) == 0)
      shift_scale_ = Kokkos::View<Scalar*, DeviceType>("fgdd::struct::shift_scale", Offset(np) * b);
    detail::struct_shift_scale(space, A, ic0, shift_scale_);
  }
  detail::StructData data = detail::make_data(factors_, storage_);
  data.points = levels_.points;
  data.elim_ptr = elim_ptr_;
  data.elim_upper = elim_upper_;
  data.elim_target = elim_target_;
  data.mirror = mirror_;
  data.failed_point = pivots_.failed_row;
  data.pivot_value = pivots_.pivot_value;
  data.shifted = pivots_.shifted;
  data.pivot.rule = options_.pivot_rule();
  data.pivot.positive_definite = positive_definite;
  data.pivot.shift_scale = shift_scale_;
  data.lanes = factor_launch_.lanes;
  data.level_team_threads = factor_launch_.team_threads;
  const auto& level_ptr = levels_.host_level_ptr;
  detail::factor_shifting_whole_matrix(space, options_, pivots_, np, b, report_, [&](Scalar alpha) {
    if (level_layout()) {
      detail::values_to_layout(space, storage_.layout, A.grid(), A.stencil().size() * b * b,
                               A.values(), storage_.values);
      factors_copied_ = false;
    } else {
      Kokkos::deep_copy(space, factors_.values(), A.values());
    }
    data.pivot.alpha = alpha;
    detail::with_block_size(b, [&](auto block) {
      detail::factor_points<decltype(block)::value>(space, data, level_ptr, ic0, factor_schedule_,
                                                    sync_);
    });
  });
  report_.numeric_seconds = timer.seconds();
  return report_;
}

void StructIlu0::sweep(const ExecSpace& space, const Vector& v, bool lower) const {
  detail::StructData data = detail::make_data(factors_, storage_);
  data.points = levels_.points;
  detail::with_block_size(factors_.block_size(), [&](auto block) {
    constexpr int B = decltype(block)::value;
    if (lower)
      detail::sweep_points<B, true>(space, data, levels_.host_level_ptr, v, schedule_, sync_);
    else
      detail::sweep_points<B, false>(space, data, levels_.host_level_ptr, v, schedule_, sync_);
  });
}

const Vector& StructIlu0::work() const {
  if (work_.extent(0) == 0)
    work_ = Vector(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::struct::work"),
                   Offset(factors_.block_size()) * storage_.stride(factors_.num_points()));
  return work_;
}

void StructIlu0::sweeps(const ExecSpace& space, ConstVector in, Vector out,
                        const Kokkos::View<const Ordinal*, DeviceType>& perm, bool lower,
                        bool upper) const {
  if (perm.extent(0) != 0 && perm.extent(0) != factors_.num_points())
    throw DimensionMismatch("the permutation has " + std::to_string(perm.extent(0)) +
                            " entries; the grid has " + std::to_string(factors_.num_points()) +
                            " points");
  const int b = factors_.block_size();
  const bool permuted = perm.extent(0) != 0;
  Vector v = out;  // the sweeps' vector, in the storage's layout and grid order
  if (level_layout()) {
    v = work();
    detail::gather_to_layout(space, storage_.layout, factors_.grid(), perm, b, in, v);
  } else if (permuted) {
    v = work();
    detail::gather_to_grid(space, perm, b, in, v);
  } else if (in.data() != out.data()) {
    Kokkos::deep_copy(space, out, in);
  }
  if (lower) sweep(space, v, true);
  if (upper) sweep(space, v, false);
  if (level_layout())
    detail::scatter_from_layout(space, storage_.layout, factors_.grid(), perm, b, v, out);
  else if (permuted)
    detail::scatter_from_grid(space, perm, b, v, out);
}

void StructIlu0::solve_lower(const ExecSpace& space, ConstVector r, Vector y) const {
  detail::check_vector(*this, r.extent(0), "r");
  detail::check_vector(*this, y.extent(0), "y");
  sweeps(space, r, y, {}, true, false);
}

void StructIlu0::solve_upper(const ExecSpace& space, ConstVector y, Vector z) const {
  detail::check_vector(*this, y.extent(0), "y");
  detail::check_vector(*this, z.extent(0), "z");
  sweeps(space, y, z, {}, false, true);
}

void StructIlu0::apply(const ExecSpace& space, ConstVector r, Vector z,
                       const Kokkos::View<const Ordinal*, DeviceType>& perm) const {
  detail::check_vector(*this, r.extent(0), "r");
  detail::check_vector(*this, z.extent(0), "z");
  sweeps(space, r, z, perm, true, true);
}

void StructIlu0::copy_out_factors() const {
  if (!level_layout() || factors_copied_) return;
  const ExecSpace space;
  const int b = factors_.block_size();
  factors_.allocate_values();
  detail::values_from_layout(space, storage_.layout, factors_.grid(),
                             factors_.stencil().size() * b * b, storage_.values, factors_.values());
  if (inv_diag_.extent(0) == 0)
    inv_diag_ = Kokkos::View<Scalar*, DeviceType>("fgdd::struct::inv_diag",
                                                  Offset(b) * b * factors_.num_points());
  detail::values_from_layout(space, storage_.layout, factors_.grid(), b * b, storage_.inv_diag,
                             inv_diag_);
  space.fence();
  factors_copied_ = true;
}

const StructuredMatrix& StructIlu0::factors() const {
  copy_out_factors();
  return factors_;
}

const Kokkos::View<Scalar*, DeviceType>& StructIlu0::inv_diag() const {
  copy_out_factors();
  return inv_diag_;
}

}  // namespace fgdd
