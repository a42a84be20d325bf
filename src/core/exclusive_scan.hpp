// The count-then-offsets step every CSR-building kernel shares, written once.
#pragma once

#include "core/types.hpp"

#include <string>

namespace fgdd::detail {

// In place, on space: counts(i) becomes counts(0) + ... + counts(i-1). Returns the total of all
// entries, so a row map laid out as counts(0..n-1) with counts(n) = 0 ends with its entry count.
Offset exclusive_scan_in_place(const ExecSpace& space, const std::string& label,
                               const Kokkos::View<Offset*, DeviceType>& counts);

// The same without returning the total (so nothing waits for space on GPUs): with counts(n) = 0
// the total is left in counts(n).
void exclusive_scan_on(const ExecSpace& space, const std::string& label,
                       const Kokkos::View<Offset*, DeviceType>& counts);

}  // namespace fgdd::detail
