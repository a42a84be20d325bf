#include "factor/pivot_status.hpp"

namespace fgdd::detail {

PivotStatus::PivotStatus(const std::string& prefix, Ordinal rows)
    : failed_row(prefix + "_failed_row"),
      pivot_value(prefix + "_pivot_value", rows),
      shifted(prefix + "_shifted") {}

void PivotStatus::reset(const ExecSpace& space) const {
  Kokkos::deep_copy(space, failed_row, rows());
  Kokkos::deep_copy(space, shifted, Offset(0));
}

PivotReadback PivotStatus::read(const ExecSpace& space) const {
  PivotReadback out;
  Kokkos::deep_copy(space, out.failed_row, failed_row);
  Kokkos::deep_copy(space, out.shifted, shifted);
  space.fence();
  if (out.failed_row < rows()) Kokkos::deep_copy(out.pivot, Kokkos::subview(pivot_value, out.failed_row));
  return out;
}

}  // namespace fgdd::detail
