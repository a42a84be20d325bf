#include "multilevel/multilevel_options.hpp"

#include "core/errors.hpp"

#include <string>

namespace fgdd {

void MultilevelIluOptions::validate() const {
  if (!(drop_tolerance >= 0 && drop_tolerance < 1))
    throw InvalidInput("multilevel drop tolerance must be in [0, 1), got " +
                       std::to_string(drop_tolerance));
  if (!(inverse_bound >= 1))
    throw InvalidInput("multilevel inverse bound must be >= 1, got " +
                       std::to_string(inverse_bound));
  if (coarsest_size < 1 || coarsest_size > 4096)
    throw InvalidInput("multilevel coarsest size must be in 1..4096, got " +
                       std::to_string(coarsest_size));
  if (max_levels < 1 || max_levels > 64)
    throw InvalidInput("multilevel max levels must be in 1..64, got " +
                       std::to_string(max_levels));
}

}  // namespace fgdd
