// Exact (dependency-preserving) ILU(0) and IC(0) of a StructuredMatrix with wavefront-parallel
// factorization and triangular solves (structilu-structured-grid.txt Algorithms 1-2, §4.1): the
// levels are hyperplanes w·(x, y, z) = l known analytically from the stencil, so there is no
// level analysis; a launch per level, or one launch per sweep whose teams wait on counters or
// flags (StructSchedule), on the default execution space. Same factors as the general
// GlobalIlu0 on the stencil's pattern, up to rounding.
#pragma once

#include "core/enum_names.hpp"
#include "factor/factor_options.hpp"
#include "factor/factor_report.hpp"
#include "factor/pivot_status.hpp"
#include "struct/level_layout.hpp"
#include "struct/structured_matrix.hpp"
#include "struct/tile_mapping.hpp"

#include <vector>

namespace fgdd {

// The grid points ordered by level: level l holds points(level_ptr(l)) .. points(level_ptr(l+1)
// - 1), ascending. A level may be empty when a weight exceeds 1.
struct StructLevels {
  LevelWeights weights;
  Ordinal num_levels = 0;
  Kokkos::View<Ordinal*, DeviceType> level_ptr;  // num_levels + 1
  std::vector<Ordinal> host_level_ptr;           // the same on the host: one launch per level
  Kokkos::View<Ordinal*, DeviceType> points;
  Ordinal max_level_points = 0;
};

// Sorts the grid points by their level w·(x, y, z) on the device (the only setup the wavefront
// needs). Throws InvalidInput for an empty grid.
StructLevels build_struct_levels(const ExecSpace& space, const GridInfo& grid,
                                 const LevelWeights& weights);

// How the factorization and the sweeps walk the levels. Every schedule runs each point's same
// operations on the same values, so all give the same bits. On GPUs the counter and flag
// schedules lose to Levels (their chunk teams spin more than the launches they save) and Tiles
// wins the solves by waiting only on neighbour tiles; on CPUs Levels wins (docs/PERFORMANCE.md).
enum class StructSchedule {
  Auto,           // resolve_struct_schedule: Tiles on GPU backends (for a stencil with a tile
                  // mapping), Levels on CPU ones
  Levels,         // one launch per level (a global barrier between levels)
  LevelCounters,  // one launch per sweep: teams take chunks of a level from a ticket counter in
                  // level order; one thread per team waits on a counter of completed levels
  SyncFree,       // the same launch, but each point waits on done flags of the neighbours it
                  // reads (flags per point instead of per tile)
  Tiles,          // one launch per sweep, a team per tile of columns (tile_mapping.hpp) walking
                  // all its levels; before a level it waits only on the progress counters of
                  // the neighbouring tiles it reads (structilu-structured-grid.txt §4.1); the
                  // factors and the sweeps' vector where StructLayout says
};

// Where the tile schedule keeps the factors and the sweeps' vector (the other schedules always
// use Grid). Level: the level-based layout (level_layout.hpp), coalesced loads on one level;
// Grid: grid order, where a column's successive levels share cache lines instead. Auto: Level,
// whose coalesced loads serve both factorization and sweeps better
// (measured: docs/PERFORMANCE_HISTORY.md, "Measurements behind code choices").
enum class StructLayout { Auto, Grid, Level };

inline const auto struct_schedule_names = make_enum_names<StructSchedule>(
    "struct schedule", {{StructSchedule::Auto, "auto"},
                        {StructSchedule::Levels, "levels"},
                        {StructSchedule::LevelCounters, "level_counters"},
                        {StructSchedule::SyncFree, "sync_free"},
                        {StructSchedule::Tiles, "tiles"}});
inline const auto struct_layout_names = make_enum_names<StructLayout>(
    "struct layout",
    {{StructLayout::Auto, "auto"}, {StructLayout::Grid, "grid"}, {StructLayout::Level, "level"}});

// How the factorization spreads its work, for tuning to a device (as Kokkos-Kernels' handles
// take a team and vector size). 0 takes StructIlu0's choice; every choice gives the same bits.
struct StructFactorLaunch {
  // Vector lanes per point, sharing its (upper entry, block column) updates: 0, or a power of
  // two up to 32 that the backend allows (CPU backends run lanes as a loop). More than 8 factor
  // a tiles schedule with a launch per level (factor_schedule()). Chosen: the most updates of
  // one lower entry rounded up to a power of two, and 32 where that is more than 8.
  int lanes = 0;
  // Points per team in a launch per level (the tiles schedule's teams hold a tile's columns);
  // GPU backends only, capped by what the backend allows for the kernel (CPU backends take one).
  // Chosen: 256 threads a team, lanes included.
  int team_threads = 0;
};

// Auto as Tiles on GPU backends (memory the host cannot read) and Levels on CPU backends; any
// other schedule as itself.
StructSchedule resolve_struct_schedule(StructSchedule schedule);
// The same for a stencil on a grid: Auto is Levels where the stencil has no tile mapping
// (search_tile_mapping; every built-in stencil has one), so auto takes every stencil that Levels
// takes.
StructSchedule resolve_struct_schedule(StructSchedule schedule, const Stencil& stencil,
                                       const GridInfo& grid);

namespace detail {
// Chunks, tickets, counters and flags of the one-launch schedules; a SyncFree sweep bumps epoch
// instead of clearing the flags.
struct StructSyncState {
  Kokkos::View<Ordinal*, DeviceType> chunk_ptr;    // chunk c: level positions [c, c + 1)
  Kokkos::View<Ordinal*, DeviceType> chunk_step;   // chunk c: its non-empty level's index
  Kokkos::View<Ordinal*, DeviceType> step_chunks;  // per non-empty level: its chunks
  Kokkos::View<Ordinal*, DeviceType> step_done;    // per non-empty level: chunks finished
  Kokkos::View<Ordinal, DeviceType> levels_done;   // non-empty levels finished (LevelCounters)
  Kokkos::View<unsigned*, DeviceType> done;        // per point: the epoch of its last sweep
  Kokkos::View<Ordinal, DeviceType> tickets;
  int chunk_points = 64;
  // Tiles: the mapping, the tile grid, ticket → tile (by tu + tv), each tile's level range
  // (first > last: no point) and, during a sweep, the key of the next level it will do.
  StructTileMapping mapping;
  StructColumnMap column_map;
  StructTileGrid tile_grid;
  Kokkos::View<Ordinal*, DeviceType> tile_order, tile_first, tile_last, tile_progress;
  mutable unsigned epoch = 0;
};

// s_r = sign_r·‖row r‖₁ for every scalar row of A in grid order (pivot_shift.hpp; positive: every
// sign +1, for IC(0)), on space.
void struct_shift_scale(const ExecSpace& space, const StructuredMatrix& A, bool positive,
                        const Kokkos::View<Scalar*, DeviceType>& shift_scale);

// Chunks of at most state.chunk_points points, never across a level (from the level offsets: an
// entry per chunk, no per-point host work), the non-empty levels ("steps") they belong to, and
// zeroed counters: the state of the sync-free and level-counter launches.
void make_level_chunks(const std::vector<Ordinal>& level_ptr, StructSyncState& state);

// The factor values and D⁻¹ as the kernels hold them: in grid order or in the tile schedule's
// level layout.
struct StructIlu0Storage {
  StructuredMatrix::Values values;
  Kokkos::View<Scalar*, DeviceType> inv_diag;
  StructLevelLayout layout;  // the level layout only (else num_slots = 0)

  bool level_layout() const noexcept { return layout.num_slots != 0; }
  // Values per element array: the grid's points, or the layout's slots.
  Offset stride(Offset points) const noexcept { return level_layout() ? layout.num_slots : points; }
};
}  // namespace detail

class StructIlu0 {
 public:
  // options.form: IluForm::Ilu0 (ILU(0), U unscaled) or IluForm::Ildlt (IC(0) as L D Lᵀ for a
  // symmetric A with a symmetric stencil: only the lower triangle and the pivots are eliminated,
  // then U = D Lᵀ is written, so factors() has the Ilu0 layout and the same solves apply; the
  // upper triangle of A is not read). Pivot options as for GlobalIlu0. Throws InvalidInput for
  // Ildu0, level_of_fill > 0, or Ildlt with a non-symmetric stencil; ZeroPivot as numeric().
  // tile_shape: columns per tile for StructSchedule::Tiles (else unused); InvalidInput for a
  // side < 1 or a stencil without a tile mapping (find_tile_mapping).
  // schedule: Auto is resolved (resolve_struct_schedule for A's stencil and grid). layout: for
  // StructSchedule::Tiles; InvalidInput for Level with another schedule. factor_launch:
  // InvalidInput for lanes that are not 0 or an allowed power of two, or negative team_threads.
  StructIlu0(const ExecSpace& space, const StructuredMatrix& A, const FactorOptions& options,
             StructSchedule schedule = StructSchedule::Auto, StructTileShape tile_shape = {},
             StructLayout layout = StructLayout::Auto, StructFactorLaunch factor_launch = {});

  // Refactors with new values on the same grid, stencil and block size (else InvalidInput).
  // Throws ZeroPivot naming the scalar row (grid order, first row of the smallest failing
  // point) when a pivot is tiny and shifting is off, or fails at every shift (PivotOverflow for
  // a pivot that overflowed). Shift positive_definite refactors the whole grid with a growing
  // shift while a pivot fails.
  const FactorReport& numeric(const ExecSpace& space, const StructuredMatrix& A);

  // z = (L U)⁻¹ r. r and z have num_rows() entries (point-major, b per point) and may alias;
  // in grid order, or in the ordering perm gives (perm(grid point) = the vectors' block row).
  // Throws DimensionMismatch. Not for concurrent calls on one object (the one-launch schedules
  // share their counters and flags, and every schedule may share a work vector).
  void apply(const ExecSpace& space, ConstVector r, Vector z,
             const Kokkos::View<const Ordinal*, DeviceType>& perm = {}) const;
  // y = L⁻¹ r (L unit lower) and z = U⁻¹ y in grid order; in place when the vectors alias. In
  // the level layout each also moves its vectors into the layout and back, which apply does
  // once for both sweeps.
  void solve_lower(const ExecSpace& space, ConstVector r, Vector y) const;
  void solve_upper(const ExecSpace& space, ConstVector y, Vector z) const;

  // The factors in A's layout: lower entries L (unit diagonal implicit), the centre U's
  // diagonal blocks (the pivots D), upper entries U (unscaled). In the level layout the first
  // call after a factorization copies them out of it (memory for a second copy, kept until the
  // object goes).
  const StructuredMatrix& factors() const;
  // D⁻¹: element (r, c) of point p at (r·b + c)·num_points + p (copied out as factors()).
  const Kokkos::View<Scalar*, DeviceType>& inv_diag() const;
  const StructLevels& levels() const noexcept { return levels_; }
  const FactorReport& report() const noexcept { return report_; }
  IluForm form() const noexcept { return options_.form; }
  StructSchedule schedule() const noexcept { return schedule_; }
  // How the factorization runs: schedule(), or Levels (a launch per level) for the tiles
  // schedule where a point wants more than 8 vector lanes, one per update of a lower entry (more
  // than a tiles team should hold: box27, diamond25 at any DoF). The sweeps take schedule().
  StructSchedule factor_schedule() const noexcept { return factor_schedule_; }
  // The factorization's launch shape in use (StructFactorLaunch, 0s resolved); team_threads is
  // what a launch per level asks for, before the backend's cap.
  StructFactorLaunch factor_launch() const noexcept { return factor_launch_; }
  // The layout in use: Grid or Level (Auto resolved).
  StructLayout layout() const noexcept {
    return level_layout() ? StructLayout::Level : StructLayout::Grid;
  }
  Offset num_rows() const noexcept { return factors_.num_rows(); }

 private:
  bool level_layout() const noexcept { return storage_.level_layout(); }
  // One sweep in place on v, which is in the storage's layout.
  void sweep(const ExecSpace& space, const Vector& v, bool lower) const;
  // out = the lower and/or upper sweep of in, both in the ordering perm gives (grid order when
  // empty), through the work vector when the storage's layout or perm differ from it; perm's
  // size is checked first.
  void sweeps(const ExecSpace& space, ConstVector in, Vector out,
              const Kokkos::View<const Ordinal*, DeviceType>& perm, bool lower, bool upper) const;
  // The work vector for perm's or the level layout's copy of a vector (allocated once).
  const Vector& work() const;
  // Level layout: the grid-order factors_ values and inv_diag_ from storage_, once per
  // factorization.
  void copy_out_factors() const;

  FactorOptions options_;
  StructSchedule schedule_ = StructSchedule::Levels;
  detail::StructSyncState sync_;
  // Grid order. Grid layout: the factors themselves (storage_ shares them). Level layout: the
  // shape, with values and inv_diag_ copied out of storage_ on request.
  mutable StructuredMatrix factors_;
  mutable Kokkos::View<Scalar*, DeviceType> inv_diag_;
  mutable bool factors_copied_ = false;
  detail::StructIlu0Storage storage_;
  mutable Vector work_;
  StructLevels levels_;
  FactorReport report_;
  // Elimination table (paper Algorithm 1 LOOP3, resolved once): for lower entry a, the pairs
  // (upper entry u of row p + o_a, target entry t = index(o_a + o_u)) in
  // [elim_ptr(a), elim_ptr(a + 1)); for Ildlt only targets up to the centre, with mirror =
  // index(−o_u).
  Kokkos::View<int*, DeviceType> elim_ptr_, elim_upper_, elim_target_;
  Kokkos::View<int*, DeviceType> mirror_;          // per entry e: index of −o_e, -1 if absent
  detail::PivotStatus pivots_;                     // per grid point
  Kokkos::View<Scalar*, DeviceType> shift_scale_;  // shift positive_definite: s_r, grid order
  StructFactorLaunch factor_launch_;  // resolved by the constructor: see factor_launch()
  StructSchedule factor_schedule_ = StructSchedule::Levels;  // see factor_schedule()
};

}  // namespace fgdd
