// Exact triangular solves and the preconditioner apply z = M⁻¹ r on the factors of a GlobalIlu0
// (no subdomains): level-set scheduling over the whole matrix, a launch per level (or one per run
// of small levels), rows of a level in parallel (vertex-centric, deterministic), or
// synchronization-free in one launch.
// CSR and BSR.
#pragma once

#include "core/enum_names.hpp"
#include "factor/global_ilu0.hpp"
#include "schedule/global_levels.hpp"
#include "schedule/subdomain_levels.hpp"
#include "trsv/split_triangles.hpp"
#include "trsv/subdomain_trsv.hpp"

#include <cstdint>

namespace fgdd {

// How the rows of one level are spread over the device.
enum class GlobalRowKernel {
  Auto,          // RowOrder on CPU backends; on GPUs LanesPerRow when a row holds 16 or more
                 // strictly triangular blocks on average in the triangle solved, else Merged
  ThreadPerRow,  // one thread per row, the row's blocks in column order
  Merged,        // each run of consecutive levels of at most 512 rows goes to one team in one
                 // launch, a team barrier between its levels (a launch costs more than a small
                 // level's work); a row gets as many lanes as the level leaves it (up to 32, the
                 // shares added in lane order), and larger levels are launched as ThreadPerRow's
  LanesPerRow,   // one team thread per row, its vector lanes over the row's blocks (long rows)
  SyncFree,      // no levels: one launch, rows wait on done flags of the rows they read
                 // (ilupack-gpu-data-parallel.txt §6); teams take rows in dependency order
  RowOrder,      // no levels: one thread sweeps the rows in order (the serial substitution)
                 // over a copy of the factors split into their two triangles, each stored in
                 // the order the sweep reads it; the CPU default
};

inline const auto global_kernel_names =
    make_enum_names<GlobalRowKernel>("global kernel", {{GlobalRowKernel::Auto, "auto"},
                                                       {GlobalRowKernel::ThreadPerRow, "thread"},
                                                       {GlobalRowKernel::Merged, "merged"},
                                                       {GlobalRowKernel::LanesPerRow, "lanes"},
                                                       {GlobalRowKernel::SyncFree, "sync_free"},
                                                       {GlobalRowKernel::RowOrder, "row_order"}});

namespace detail {
// Threads of a Merged team, and the most rows a level of a merged run holds: of 128 to 1,024 the
// fastest on an H200 (docs/PERFORMANCE.md, "Runs of small levels in one launch"). Backends whose
// teams hold fewer threads loop, so that the lanes below are the same on every backend.
inline constexpr Ordinal merged_team_rows = 512;

// A shared row's lane takes at least this many products on average. On an H200 one product a
// lane beat four by 13-32 % in the multilevel apply and left the global ILU(0) apply unchanged
// (docs/PERFORMANCE.md, "Rows shared among lanes"). A tuning constant, overridable at build time.
#ifndef FGDD_MERGED_ENTRIES_PER_LANE
#define FGDD_MERGED_ENTRIES_PER_LANE 1
#endif
inline constexpr Offset merged_entries_per_lane = FGDD_MERGED_ENTRIES_PER_LANE;

// The most lanes a scalar row of a merged level gets in a triangle of `dependencies` strictly
// triangular entries over `rows` rows: a power of two, at most 32 and at most the average row's
// entries over merged_entries_per_lane.
constexpr int merged_lanes_cap(Offset dependencies, Ordinal rows) {
  const Offset per_lane = rows > 0 ? dependencies / rows / merged_entries_per_lane : 0;
  int cap = 1;
  while (cap < 32 && Offset(2 * cap) <= per_lane) cap *= 2;
  return cap;
}

// The vector lanes each scalar row of a merged level of level_rows rows gets: a power of two, as
// many as the team's threads leave per row, at most cap (merged_lanes_cap; block rows: 1).
KOKKOS_INLINE_FUNCTION constexpr int merged_row_lanes(Ordinal level_rows, int cap) {
  int lanes = 1;
  while (lanes < cap && 2 * lanes * level_rows <= merged_team_rows) lanes *= 2;
  return lanes;
}

// Whether Merged runs scalar rows on the pipelined kernel where the backend allows it
// (global_pipelined_kernel.hpp). Tests clear it to compare the two kernels' bits, the multilevel
// bench to time both.
inline bool merged_pipelining = true;

struct GlobalSolveData;  // what one sweep reads and writes (global_solve_row.hpp)

// Done flags and the ticket counter of the synchronization-free sweeps; a sweep bumps epoch
// instead of clearing the flags.
struct SyncFreeState {
  Kokkos::View<unsigned*, DeviceType> done;
  Kokkos::View<Ordinal, DeviceType> tickets;
  mutable unsigned epoch = 0;
};
}  // namespace detail

class GlobalTrsv {
 public:
  // The level kernels take the lower level sets from the factorization, build the upper ones on
  // the device and share the factors; RowOrder needs no level sets and keeps the factors split
  // into two triangles (split_triangles.hpp). Either way, after factorization.numeric(...) the
  // solves use the new values with no further call (RowOrder's next solve notices numeric_count
  // and gathers them). The factorization must outlive this object.
  GlobalTrsv(const ExecSpace& space, const GlobalIlu0& factorization,
             GlobalRowKernel kernel = GlobalRowKernel::Auto);
  // The same for factors computed elsewhere: the level kernels build both triangles' level sets.
  GlobalTrsv(const ExecSpace& space, const GlobalFactors& factors,
             GlobalRowKernel kernel = GlobalRowKernel::Auto);

  // x = T⁻¹ r with T the lower (or upper) triangle of the factors: the strictly triangular blocks
  // plus D (Diagonal::Pivots) or I (Diagonal::Unit). One launch per level of that triangle. r and
  // x may be the same vector (each row reads its own entry of r before writing x). Throws
  // DimensionMismatch unless both have the factors' row count.
  void solve(const ExecSpace& space, Triangle triangle, Diagonal diagonal, ConstVector r,
             Vector x) const;

  // z = M⁻¹ r: M = L D U for Ildu0 factors (L unit, D⁻¹, U unit), M = L U for Ilu0 factors (L
  // unit, U with the pivots): one launch per lower level, then one per upper level (D⁻¹ is folded
  // into the upper launches). r and z may be the same vector. Throws DimensionMismatch.
  void apply(const ExecSpace& space, ConstVector r, Vector z) const;

  // The level sets of a triangle. The level kernels build both with the solver; RowOrder needs
  // none, and they are built on the first call here.
  const GlobalLevels& levels(Triangle triangle) const {
    build_levels(ExecSpace());
    return triangle == Triangle::Lower ? lower_ : upper_;
  }
  // The kernel each triangle's solves use (Auto resolved).
  GlobalRowKernel row_kernel(Triangle triangle) const noexcept {
    return triangle == Triangle::Lower ? lower_kernel_ : upper_kernel_;
  }

 private:
  // source: the factorization whose lower level sets to reuse, or null (both built here).
  GlobalTrsv(const ExecSpace& space, const GlobalFactors& factors, const GlobalIlu0* source,
             GlobalRowKernel kernel);

  GlobalFactors factorization_;
  const GlobalIlu0* source_ = nullptr;
  void build_levels(const ExecSpace& space) const;
  mutable bool has_levels_ = false;
  mutable GlobalLevels lower_;
  mutable GlobalLevels upper_;
  GlobalRowKernel lower_kernel_ = GlobalRowKernel::ThreadPerRow;
  GlobalRowKernel upper_kernel_ = GlobalRowKernel::ThreadPerRow;
  int lower_lanes_ = 1;  // vector lanes per row for LanesPerRow
  int upper_lanes_ = 1;
  // What a sweep of the triangle reads (no diagonal scaling yet), from r into x.
  detail::GlobalSolveData sweep_data(Triangle triangle, ConstVector r, Vector x) const;
  detail::SyncFreeState sync_free_;  // allocated for GlobalRowKernel::SyncFree only
  // RowOrder: the factors' triangles, refreshed when the factorization's numeric_count moves,
  // and the one "subdomain" [0, n) the row-order kernel sweeps.
  const SplitTriangles& split(const ExecSpace& space) const;
  mutable SplitTriangles split_;
  mutable std::uint64_t split_count_ = 0;
  Kokkos::View<Ordinal*, DeviceType> whole_range_;
};

}  // namespace fgdd
