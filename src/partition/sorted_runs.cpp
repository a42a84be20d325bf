#include "partition/sorted_runs.hpp"

#include "core/device_arena.hpp"
#include "core/exclusive_scan.hpp"

namespace fgdd::detail {

namespace {

// Pair k of row r starts a run when it is kept and its key differs from the pair before it.
KOKKOS_INLINE_FUNCTION bool starts_run(const Kokkos::View<Offset*, DeviceType>& offsets,
                                       const Kokkos::View<Ordinal*, DeviceType>& keys,
                                       bool skip_diagonal, Ordinal r, Offset k) {
  if (skip_diagonal && keys(k) == r) return false;
  return k == offsets(r) || keys(k) != keys(k - 1);
}

}  // namespace

SortedRuns merge_sorted_runs(const ExecSpace& space, const std::string& label,
                             const Kokkos::View<Offset*, DeviceType>& offsets,
                             const Kokkos::View<Ordinal*, DeviceType>& keys,
                             const Kokkos::View<Ordinal*, DeviceType>& weights, bool skip_diagonal,
                             DeviceArena* arena) {
  using Policy = Kokkos::RangePolicy<ExecSpace>;
  const Ordinal rows = Ordinal(offsets.extent(0)) - 1;
  SortedRuns runs;
  runs.offsets = take_or_allocate<Offset>(arena, label + "_offsets", std::size_t(rows) + 1);
  const auto run_offsets = runs.offsets;
  Kokkos::parallel_for(
      label + "_count", Policy(space, 0, rows + 1), KOKKOS_LAMBDA(const Ordinal r) {
        Offset count = 0;
        if (r < rows)
          for (Offset k = offsets(r); k < offsets(r + 1); ++k)
            if (starts_run(offsets, keys, skip_diagonal, r, k)) ++count;
        run_offsets(r) = count;
      });
  const Offset total = exclusive_scan_in_place(space, label + "_scan", run_offsets);
  runs.keys = take_or_allocate<Ordinal>(arena, label + "_keys", std::size_t(total));
  runs.weights = take_or_allocate<Ordinal>(arena, label + "_weights", std::size_t(total));
  const auto run_keys = runs.keys;
  const auto run_weights = runs.weights;
  Kokkos::parallel_for(
      label + "_write", Policy(space, 0, rows), KOKKOS_LAMBDA(const Ordinal r) {
        Offset out = run_offsets(r);
        for (Offset k = offsets(r); k < offsets(r + 1); ++k) {
          if (skip_diagonal && keys(k) == r) continue;
          if (starts_run(offsets, keys, skip_diagonal, r, k)) {
            run_keys(out) = keys(k);
            run_weights(out) = weights(k);
            ++out;
          } else {
            run_weights(out - 1) += weights(k);
          }
        }
      });
  return runs;
}

}  // namespace fgdd::detail
