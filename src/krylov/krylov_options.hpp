// Stopping rules and monitoring shared by every Krylov solver.
#pragma once

#include <functional>

namespace fgdd {

// How GMRES orthogonalizes a new Krylov vector against the basis (both on the device).
enum class Orthogonalization {
  Cgs2,  // classical Gram-Schmidt twice: two matrix-vector products per pass, stable
  Mgs,   // modified Gram-Schmidt: one dot and one update per basis vector
};

struct KrylovOptions {
  // Converged when ‖b − A x‖₂ ≤ max(relative_tolerance · ‖b‖₂, absolute_tolerance).
  double relative_tolerance = 1e-8;
  double absolute_tolerance = 0;
  int max_iterations = 1000;
  // Diverged when the residual exceeds divergence_factor × the initial residual.
  double divergence_factor = 1e8;
  // Stagnated when the residual has not dropped below 0.999 × its best value for this many
  // iterations (0: never declare stagnation).
  int stagnation_iterations = 200;
  // GMRES: restart length m and the orthogonalization.
  int restart = 30;
  Orthogonalization orthogonalization = Orthogonalization::Cgs2;
  // Called after every iteration with (iteration, recurrence residual norm).
  std::function<void(int, double)> monitor;

  // Throws InvalidInput naming the offending field.
  void validate() const;
};

}  // namespace fgdd
