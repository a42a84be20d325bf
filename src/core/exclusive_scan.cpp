// Defined here, not inline in the header: see the note on device lambdas in core/types.hpp.
#include "core/exclusive_scan.hpp"

namespace fgdd::detail {

namespace {

struct ExclusiveScan {
  Kokkos::View<Offset*, DeviceType> counts;

  KOKKOS_INLINE_FUNCTION void operator()(const Offset i, Offset& partial, const bool final) const {
    const Offset count = counts(i);
    if (final) counts(i) = partial;
    partial += count;
  }
};

}  // namespace

Offset exclusive_scan_in_place(const ExecSpace& space, const std::string& label,
                               const Kokkos::View<Offset*, DeviceType>& counts) {
  Offset total = 0;
  Kokkos::parallel_scan(
      label, Kokkos::RangePolicy<ExecSpace>(space, 0, counts.extent(0)), ExclusiveScan{counts},
      total);
  return total;
}

void exclusive_scan_on(const ExecSpace& space, const std::string& label,
                       const Kokkos::View<Offset*, DeviceType>& counts) {
  Kokkos::parallel_scan(label, Kokkos::RangePolicy<ExecSpace>(space, 0, counts.extent(0)),
                        ExclusiveScan{counts});
}

}  // namespace fgdd::detail
