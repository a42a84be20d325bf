#include "krylov/krylov_options.hpp"

#include "core/errors.hpp"

#include <cmath>
#include <string>

namespace fgdd {

void KrylovOptions::validate() const {
  if (!(relative_tolerance >= 0) || !std::isfinite(relative_tolerance))
    throw InvalidInput("relative_tolerance must be finite and >= 0, got " +
                       std::to_string(relative_tolerance));
  if (!(absolute_tolerance >= 0) || !std::isfinite(absolute_tolerance))
    throw InvalidInput("absolute_tolerance must be finite and >= 0, got " +
                       std::to_string(absolute_tolerance));
  if (relative_tolerance == 0 && absolute_tolerance == 0)
    throw InvalidInput("relative_tolerance and absolute_tolerance cannot both be 0");
  if (max_iterations < 0)
    throw InvalidInput("max_iterations must be >= 0, got " + std::to_string(max_iterations));
  if (restart < 1) throw InvalidInput("restart must be >= 1, got " + std::to_string(restart));
  if (stagnation_iterations < -1)
    throw InvalidInput("stagnation_iterations must be >= 0 (or -1: auto), got " +
                       std::to_string(stagnation_iterations));
  if (!(divergence_factor > 1))
    throw InvalidInput("divergence_factor must be > 1, got " + std::to_string(divergence_factor));
}

}  // namespace fgdd
