// Frontier peeling (Kahn's algorithm, one level per step) on the device. Each row's remaining
// in-degree counts the dependencies not yet placed; a row joins the next level when the last
// of them is placed. Which thread places that last dependency is a race, so the thread that
// brings the count to zero records the releasing row's position, and the next level is
// compacted by a scan in which every row of the current level emits the rows it released.
#include "schedule/global_levels.hpp"

#include "core/errors.hpp"
#include "core/exclusive_scan.hpp"
#include "core/host_copy.hpp"
#include "core/kokkos_compat.hpp"

#include <algorithm>
#include <string>

namespace fgdd {

namespace detail {

// The dependencies of block row i are the blocks begin(i) .. end(i) - 1 of its row, and, once
// transposed, the rows that depend on row j are dependents(dependents_ptr(j) ..
// dependents_ptr(j + 1) - 1).
struct GlobalPeelState {
  SparseMatrix::RowMap row_map;
  SparseMatrix::ColumnIndices col_ind;
  Kokkos::View<Offset*, DeviceType> diag;
  bool lower;
  Kokkos::View<Ordinal*, DeviceType> remaining;  // dependencies not yet placed
  Kokkos::View<Offset*, DeviceType> dependents_ptr;
  Kokkos::View<Ordinal*, DeviceType> dependents;
  Kokkos::View<Ordinal*, DeviceType> released_by;  // position (in rows) of the releasing row
  Kokkos::View<Ordinal*, DeviceType> rows;

  KOKKOS_INLINE_FUNCTION Offset begin(Ordinal i) const { return lower ? row_map(i) : diag(i) + 1; }
  KOKKOS_INLINE_FUNCTION Offset end(Ordinal i) const { return lower ? diag(i) : row_map(i + 1); }

  // Row j was just placed at position: one dependency fewer for each of its dependents, and the
  // dependents it completes remember that position. Exactly one thread sees a count drop to 0.
  KOKKOS_INLINE_FUNCTION void release(Ordinal j, Ordinal position) const {
    for (Offset e = dependents_ptr(j); e < dependents_ptr(j + 1); ++e) {
      const Ordinal d = dependents(e);
      if (Kokkos::atomic_fetch_sub(&remaining(d), Ordinal(1)) == 1)
        atomic_store(&released_by(d), position);
    }
  }
};

}  // namespace detail

Kokkos::View<Offset*, DeviceType> diagonal_positions(const ExecSpace& space,
                                                     const SparseMatrix& A) {
  const Ordinal n = A.num_block_rows();
  Kokkos::View<Offset*, DeviceType> diag(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::factor::global_diag_position"), n);
  const auto row_map = A.row_map();
  const auto col_ind = A.col_ind();
  Kokkos::parallel_for(
      "fgdd::factor::global_diagonals", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const Ordinal i) {
        Offset lo = row_map(i), hi = row_map(i + 1) - 1;
        while (lo < hi) {
          const Offset mid = lo + (hi - lo) / 2;
          if (col_ind(mid) < i)
            lo = mid + 1;
          else
            hi = mid;
        }
        diag(i) = lo;
      });
  return diag;
}

GlobalLevels build_global_levels(const ExecSpace& space, const SparseMatrix& A,
                                 const Kokkos::View<Offset*, DeviceType>& diag_position,
                                 Triangle triangle) {
  Kokkos::Timer timer;
  const Ordinal n = A.num_block_rows();
  if (Ordinal(diag_position.extent(0)) != n)
    throw InvalidInput("build_global_levels: diag_position has " +
                       std::to_string(diag_position.extent(0)) + " entries but the matrix has " +
                       std::to_string(n) + " block rows");
  const char* const lower_or_upper = triangle == Triangle::Lower ? "lower" : "upper";
  GlobalLevels levels;
  levels.triangle = triangle;
  levels.host_level_ptr.assign(1, 0);
  levels.rows = Kokkos::View<Ordinal*, DeviceType>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::factor::global_level_rows"), n);
  if (n == 0) {
    levels.level_ptr = Kokkos::View<Ordinal*, DeviceType>("fgdd::factor::global_level_ptr", 1);
    return levels;
  }

  detail::GlobalPeelState peel;
  peel.row_map = A.row_map();
  peel.col_ind = A.col_ind();
  peel.diag = diag_position;
  peel.lower = triangle == Triangle::Lower;
  peel.remaining = Kokkos::View<Ordinal*, DeviceType>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::factor::global_remaining"), n);
  peel.dependents_ptr =
      Kokkos::View<Offset*, DeviceType>("fgdd::factor::global_dependents_ptr", Offset(n) + 1);
  peel.released_by = Kokkos::View<Ordinal*, DeviceType>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::factor::global_released_by"), n);
  peel.rows = levels.rows;

  // Transpose the dependency graph: count, scan, scatter (the order inside each list does not
  // matter; the levels are sorted at the end).
  Kokkos::parallel_for(
      "fgdd::factor::global_count_dependents", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const Ordinal i) {
        peel.remaining(i) = Ordinal(peel.end(i) - peel.begin(i));
        for (Offset k = peel.begin(i); k < peel.end(i); ++k)
          Kokkos::atomic_add(&peel.dependents_ptr(peel.col_ind(k)), Offset(1));
      });
  const Offset num_dependencies = detail::exclusive_scan_in_place(
      space, "fgdd::factor::global_dependents_scan", peel.dependents_ptr);
  Kokkos::View<Offset*, DeviceType> cursor(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::factor::global_dependents_cursor"), n);
  Kokkos::deep_copy(space, cursor,
                    Kokkos::subview(peel.dependents_ptr, std::make_pair(Offset(0), Offset(n))));
  peel.dependents = Kokkos::View<Ordinal*, DeviceType>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::factor::global_dependents"),
      num_dependencies);
  Kokkos::parallel_for(
      "fgdd::factor::global_scatter_dependents", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const Ordinal i) {
        for (Offset k = peel.begin(i); k < peel.end(i); ++k)
          peel.dependents(Kokkos::atomic_fetch_add(&cursor(peel.col_ind(k)), Offset(1))) = i;
      });
  Kokkos::deep_copy(space, peel.released_by, Ordinal(-1));

  // Level 0: the rows without dependencies, found from the pattern (not from remaining, which
  // the final pass of this very scan already decrements).
  Ordinal count = 0;
  Kokkos::parallel_scan(
      "fgdd::factor::global_first_level", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const Ordinal i, Ordinal& position, const bool final) {
        if (peel.end(i) != peel.begin(i)) return;
        if (final) {
          peel.rows(position) = i;
          peel.release(i, position);
        }
        ++position;
      },
      count);
  levels.host_level_ptr.push_back(count);

  // Level l + 1: every row of level l emits the dependents it released (released_by equals its
  // position), in one scan. The final pass also releases the new rows' dependents for the
  // next step; that only ever writes released_by of rows two levels down, whose values can
  // never equal a position of level l, so both passes of the scan count alike.
  while (levels.host_level_ptr.back() < n) {
    const Ordinal begin = levels.host_level_ptr[levels.host_level_ptr.size() - 2];
    const Ordinal end = levels.host_level_ptr.back();
    Ordinal next = 0;
    Kokkos::parallel_scan(
        "fgdd::factor::global_next_level", Kokkos::RangePolicy<ExecSpace>(space, 0, end - begin),
        KOKKOS_LAMBDA(const Ordinal t, Ordinal& offset, const bool final) {
          const Ordinal p = begin + t, j = peel.rows(p);
          for (Offset e = peel.dependents_ptr(j); e < peel.dependents_ptr(j + 1); ++e) {
            const Ordinal d = peel.dependents(e);
            if (detail::atomic_load(&peel.released_by(d)) != p) continue;
            if (final) {
              peel.rows(end + offset) = d;
              peel.release(d, end + offset);
            }
            ++offset;
          }
        },
        next);
    if (next == 0)
      throw Error(std::string("build_global_levels: the ") + lower_or_upper +
                  " triangle's dependencies form a cycle after " + std::to_string(end) +
                  " rows (internal error: a triangle has none)");
    levels.host_level_ptr.push_back(end + next);
  }

  levels.num_levels = Ordinal(levels.host_level_ptr.size()) - 1;
  levels.level_ptr = detail::to_device(levels.host_level_ptr, "fgdd::factor::global_level_ptr");
  for (Ordinal l = 0; l < levels.num_levels; ++l)
    levels.max_level_rows =
        std::max(levels.max_level_rows, levels.host_level_ptr[l + 1] - levels.host_level_ptr[l]);
  levels.num_dependencies = num_dependencies;

  // Ascending rows inside each level: deterministic lists and neighbouring rows side by side.
  // The sort runs on the default instance, so order it after space's work and before the
  // caller's next launch on space.
  space.fence();
  Kokkos::View<Ordinal*, DeviceType> unused(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::factor::global_sort_payload"), n);
  detail::sort_crs_rows<ExecSpace>(levels.level_ptr, levels.rows, unused);
  ExecSpace().fence();
  levels.seconds = timer.seconds();
  return levels;
}

}  // namespace fgdd
