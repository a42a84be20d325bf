#include "kron/merged_layout.hpp"

#include "core/errors.hpp"

#include <string>

namespace fgdd {

namespace {

Offset spatial_rows(int stages, Offset from, Offset to) {
  if (stages < 1 || from != to || from % Offset(stages) != 0)
    throw DimensionMismatch("converting between stacked and merged layouts: lengths " +
                            std::to_string(from) + " and " + std::to_string(to) + " with " +
                            std::to_string(stages) + " stages");
  return from / Offset(stages);
}

}  // namespace

void stacked_to_merged(const ExecSpace& space, int stages, ConstVector stacked, Vector merged) {
  const Offset n = spatial_rows(stages, stacked.extent(0), merged.extent(0));
  const Offset s = stages;
  // One thread per merged entry: the writes are contiguous, each group of s threads reads s
  // columns at the same row.
  Kokkos::parallel_for(
      "fgdd::kron::stacked_to_merged", Kokkos::RangePolicy<ExecSpace>(space, 0, n * s),
      KOKKOS_LAMBDA(const Offset e) { merged(e) = stacked((e % s) * n + e / s); });
}

void merged_to_stacked(const ExecSpace& space, int stages, ConstVector merged, Vector stacked) {
  const Offset n = spatial_rows(stages, merged.extent(0), stacked.extent(0));
  const Offset s = stages;
  Kokkos::parallel_for(
      "fgdd::kron::merged_to_stacked", Kokkos::RangePolicy<ExecSpace>(space, 0, n * s),
      KOKKOS_LAMBDA(const Offset e) { stacked(e) = merged((e % n) * s + e / n); });
}

}  // namespace fgdd
