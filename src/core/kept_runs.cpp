#include "core/kept_runs.hpp"

namespace fgdd {

void copy_kept_runs(const ExecSpace& space, const KeptRuns& runs,
                    const SparseMatrix::RowMap& row_map, int b, const SparseMatrix::Values& to) {
  const Offset block_entries = Offset(b) * Offset(b);
  const auto start = runs.start;
  const auto from = runs.values;
  Kokkos::parallel_for(
      "fgdd::partition::copy_kept_values",
      Kokkos::RangePolicy<ExecSpace>(space, 0, Ordinal(start.extent(0))),
      KOKKOS_LAMBDA(const Ordinal r) {
        const Offset count = (row_map(r + 1) - row_map(r)) * block_entries;
        const Offset source = start(r) * block_entries;
        const Offset target = row_map(r) * block_entries;
        for (Offset e = 0; e < count; ++e) to(target + e) = from(source + e);
      });
}

}  // namespace fgdd
