#include "factor/pivot_status.hpp"

#include "core/errors.hpp"

#include <cmath>
#include <sstream>

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
  if (out.failed_row < rows())
    Kokkos::deep_copy(out.pivot, Kokkos::subview(pivot_value, out.failed_row));
  return out;
}

void throw_pivot_failure(std::int64_t row, double value, PivotShift shift, double alpha) {
  if (std::isinf(value)) throw PivotOverflow(row, value);
  if (shift != PivotShift::PositiveDefinite || std::isnan(value)) throw ZeroPivot(row, value);
  std::ostringstream out;
  out << "pivot " << value << " at row " << row
      << " (0-based) is tiny or of the wrong sign (IC0: not positive) with the diagonal shifted "
         "by up to "
      << alpha << "·‖row‖₁ (shift positive_definite)";
  throw ZeroPivot(row, value, out.str());
}

}  // namespace fgdd::detail
