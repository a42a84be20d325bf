#include "factor/factor_options.hpp"

#include "core/errors.hpp"
#include "core/types.hpp"

#include <cmath>
#include <string>

namespace fgdd {

void FactorOptions::validate() const {
  if (!(pivot_threshold >= 0) || !std::isfinite(pivot_threshold))
    throw InvalidInput("pivot_threshold must be finite and >= 0, got " +
                       std::to_string(pivot_threshold));
  if (level_of_fill < 0 || level_of_fill > 8)
    throw InvalidInput("level_of_fill must be in [0, 8], got " + std::to_string(level_of_fill));
  if (shift_tiny_pivots && shift == PivotShift::PositiveDefinite)
    throw InvalidInput(
        "shift_tiny_pivots (shift nonzero) contradicts shift positive_definite: choose one");
  if (effective_shift() == PivotShift::Nonzero) {
    if (!(absolute_shift > 0) || !std::isfinite(absolute_shift))
      throw InvalidInput("absolute_shift must be finite and > 0 when shifting pivots, got " +
                         std::to_string(absolute_shift));
    if (!std::isfinite(relative_shift))
      throw InvalidInput("relative_shift must be finite, got " + std::to_string(relative_shift));
  }
  if (shift == PivotShift::PositiveDefinite &&
      (!(shift_amount > 0) || !std::isfinite(shift_amount)))
    throw InvalidInput("shift_amount must be finite and > 0, got " + std::to_string(shift_amount));
}

FactorOrder resolve_auto(FactorOrder order) {
  if (order != FactorOrder::Auto) return order;
  return host_memory ? FactorOrder::Rows : FactorOrder::Levels;
}

int FactorOptions::shift_attempts() const noexcept {
  if (shift != PivotShift::PositiveDefinite || !(shift_amount > 0)) return 0;
  int attempts = 1;
  for (double alpha = shift_amount; alpha < 2 && attempts < 64; alpha *= 2) ++attempts;
  return attempts;
}

}  // namespace fgdd
