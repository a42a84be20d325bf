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
  // Converged when ‖b − A x‖₂ ≤ max(relative_tolerance · ‖b‖₂, absolute_tolerance), recomputed
  // from x: when the recurrence residual claims convergence and b − A x misses the target, the
  // recurrence restarts from the true residual (residual replacement) while that keeps halving
  // the true residual, within max_iterations; otherwise the status is Inaccurate.
  double relative_tolerance = 1e-8;
  double absolute_tolerance = 0;
  int max_iterations = 1000;
  // Diverged when the residual exceeds divergence_factor × the initial residual. 1e4 is PETSc's
  // dtol: a Krylov residual 10⁴ above where it started does not come back in practice, while
  // transients of 10–100× (CG on nearly incompressible elasticity) do and must not stop a solve.
  double divergence_factor = 1e4;
  // Stagnation window W (0: never declare stagnation). From iteration 2W on, the solve stops
  // when the least-squares trend of log ‖r‖ over the last W iterations does not shrink the
  // residual by 0.1 % over the window: progress is judged on the method's own recent iterates,
  // not against r₀ or the best residual, so a residual that overshoots early (CG on nearly
  // incompressible elasticity: 19 × r₀ by iteration 10) and then falls steadily keeps going.
  // If the residual then stands more than 1e3 × above the best one seen, the status is Diverged.
  int stagnation_iterations = 100;
  // GMRES: restart length m and the orthogonalization.
  int restart = 30;
  Orthogonalization orthogonalization = Orthogonalization::Cgs2;
  // Called after every iteration with (iteration, recurrence residual norm).
  std::function<void(int, double)> monitor;

  // Throws InvalidInput naming the offending field.
  void validate() const;
};

}  // namespace fgdd
