// Defined here, not inline in the header: see the note on device lambdas in core/types.hpp.
#include "core/exclusive_scan.hpp"

namespace fgdd::detail {

Offset exclusive_scan_in_place(const ExecSpace& space, const std::string& label,
                               const Kokkos::View<Offset*, DeviceType>& counts) {
  Offset total = 0;
  Kokkos::parallel_scan(
      label, Kokkos::RangePolicy<ExecSpace>(space, 0, counts.extent(0)),
      KOKKOS_LAMBDA(const Offset i, Offset& partial, const bool final) {
        const Offset count = counts(i);
        if (final) counts(i) = partial;
        partial += count;
      },
      total);
  return total;
}

}  // namespace fgdd::detail
