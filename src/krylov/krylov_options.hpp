// Stopping rules and monitoring shared by every Krylov solver.
#pragma once

#include "core/enum_names.hpp"

#include <functional>
#include <string>

namespace fgdd {

// How GMRES orthogonalizes a new Krylov vector against the basis (both on the device).
enum class Orthogonalization {
  Cgs2,  // classical Gram-Schmidt twice: two matrix-vector products per pass, stable
  Mgs,   // modified Gram-Schmidt: one dot and one update per basis vector
};

inline const auto orthogonalization_names = make_enum_names<Orthogonalization>(
    "orthogonalization", {{Orthogonalization::Cgs2, "cgs2"}, {Orthogonalization::Mgs, "mgs"}});

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
  // Stagnation window W (0: never declare stagnation; -1, the default: automatic, see below).
  // From iteration 2W on, the solve stops when the last W iterations made no progress by either
  // measure: the least-squares trend of log ‖r‖ over them does not shrink the residual by 0.1 %,
  // and their smallest residual is not below 0.999 × the smallest of the W iterations before
  // them. Progress is judged on the method's own recent iterates, not against r₀: a residual that
  // overshoots early and then falls steadily shows a falling trend, one that plateaus and
  // oscillates before falling further shows a new minimum. If the residual then stands more than
  // 1e3 × above the best one seen, the status is Diverged.
  // The automatic window grows with the solve: from iteration 200 on, the last two thirds of
  // the iterations so far (at least 100) against the first third, so a solve stops as
  // stagnated only when it found no new minimum in twice the iterations its last one took.
  // A fixed 100 stopped BiCGSTAB on an indefinite Helmholtz system after a plateau of about 150
  // iterations, although it converges at iteration 1,312 with the multilevel ILU and 2,531 with
  // the DD default; half the iterations still stopped it with other κ, whose plateaus ran from
  // iteration 140 to 307 and from 184 to 393 (docs/PERFORMANCE.md). A solve that stalls for good
  // still stops, at three times the iteration of its last progress. CG is exempt by default:
  // its progress is in the A-norm of the error, and its residual norm may plateau and oscillate
  // for hundreds of iterations on a solve that converges (nearly incompressible elasticity with
  // Jacobi); PETSc has no stagnation test at all.
  int stagnation_iterations = -1;
  // The window judged at an iteration: the chosen one, else 0 for CG, else
  // max(100, 2 · iteration / 3) (compared with all the iterations before it).
  long long stagnation_window(bool method_is_cg, long long iteration) const {
    if (stagnation_iterations >= 0) return stagnation_iterations;
    if (method_is_cg) return 0;
    const long long two_thirds = 2 * iteration / 3;
    return two_thirds > 100 ? two_thirds : 100;
  }
  // GMRES: restart length m and the orthogonalization.
  int restart = 30;
  Orthogonalization orthogonalization = Orthogonalization::Cgs2;
  // Called after every iteration with (iteration, recurrence residual norm).
  std::function<void(int, double)> monitor;

  // Throws InvalidInput naming the offending field.
  void validate() const;
};

// The stopping rules a solve runs under, for reports: "at most 1000 iterations; stagnation:
// the last 2/3 of the iterations (at least 100) against the first 1/3, from iteration 200;
// divergence: above 1e+04 × ‖r₀‖".
std::string describe_stopping(const KrylovOptions& options, bool method_is_cg);

}  // namespace fgdd
