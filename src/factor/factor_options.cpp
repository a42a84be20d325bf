#include "factor/factor_options.hpp"

#include "core/errors.hpp"

#include <cmath>
#include <string>

namespace fgdd {

void FactorOptions::validate() const {
  if (!(pivot_threshold >= 0) || !std::isfinite(pivot_threshold))
    throw InvalidInput("pivot_threshold must be finite and >= 0, got " +
                       std::to_string(pivot_threshold));
  if (level_of_fill < 0 || level_of_fill > 8)
    throw InvalidInput("level_of_fill must be in [0, 8], got " + std::to_string(level_of_fill));
  if (shift_tiny_pivots) {
    if (!(absolute_shift > 0) || !std::isfinite(absolute_shift))
      throw InvalidInput("absolute_shift must be finite and > 0 when shifting pivots, got " +
                         std::to_string(absolute_shift));
    if (!std::isfinite(relative_shift))
      throw InvalidInput("relative_shift must be finite, got " + std::to_string(relative_shift));
  }
}

}  // namespace fgdd
