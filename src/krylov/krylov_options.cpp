#include "krylov/krylov_options.hpp"

#include "core/errors.hpp"

#include <cmath>
#include <cstdio>
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

std::string describe_stopping(const KrylovOptions& options, bool method_is_cg) {
  char divergence[32];
  std::snprintf(divergence, sizeof divergence, "%.0e", options.divergence_factor);
  const long long window = options.stagnation_window(method_is_cg, 0);
  std::string stagnation;
  if (window == 0)
    stagnation = "off";
  else if (options.stagnation_iterations < 0)
    stagnation = "the last 2/3 of the iterations (at least " + std::to_string(window) +
                 ") against the first 1/3, from iteration " + std::to_string(2 * window);
  else
    stagnation = "the last " + std::to_string(window) + " iterations against the " +
                 std::to_string(window) + " before them";
  return "at most " + std::to_string(options.max_iterations) + " iterations; stagnation: " +
         stagnation + "; divergence: above " + divergence + " × ‖r₀‖";
}

}  // namespace fgdd
