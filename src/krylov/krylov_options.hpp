// Stopping rules and monitoring shared by every Krylov solver.
#pragma once

#include <functional>

namespace fgdd {

struct KrylovOptions {
  // Converged when ‖b − A x‖₂ ≤ max(relative_tolerance · ‖b‖₂, absolute_tolerance).
  double relative_tolerance = 1e-8;
  double absolute_tolerance = 0;
  int max_iterations = 1000;
  // Diverged when the residual exceeds divergence_factor × the initial residual.
  double divergence_factor = 1e8;
  // Called after every iteration with (iteration, recurrence residual norm).
  std::function<void(int, double)> monitor;

  // Throws InvalidInput naming the offending field.
  void validate() const;
};

}  // namespace fgdd
