// What a Krylov solve returns. A failure is a status with its reason, never an exception, and
// "converged" always means the true residual ‖b − A x‖ met the tolerance.
#pragma once

#include <limits>
#include <string>
#include <vector>

namespace fgdd {

enum class SolveStatus {
  Converged,  // ‖b − A x‖₂ recomputed from x met the tolerance
  MaxIterations,
  Breakdown,             // a scalar the method divides by became (near) zero
  Diverged,              // the residual grew beyond divergence_factor × the initial one, or
                         // far above its best and stayed there for a stagnation window
  Stagnated,             // a stagnation window made no progress over the window before it
  NanOrInf,              // a non-finite value appeared; x holds a finite iterate
  PreconditionerFailed,  // the preconditioner could not be set up or applied
  Inaccurate,            // the recurrence converged, the true residual did not, and replacing
                         // the recurrence residual by the true one stopped helping
};

const char* to_string(SolveStatus status) noexcept;

// Which iterate a solve left in x: a failed solve returns its best iterate, not its last.
enum class ReturnedIterate {
  Last,     // the iterate the method ended with (always so when converged)
  Best,     // an earlier iterate whose true residual was smaller than the last one's
  Initial,  // x₀: every later iterate had a larger true residual
};

const char* to_string(ReturnedIterate iterate) noexcept;

struct SolveResult {
  SolveStatus status = SolveStatus::MaxIterations;
  std::string reason;  // one sentence explaining the status
  int iterations = 0;
  double initial_residual = 0;  // ‖b − A x₀‖₂
  double final_residual = 0;    // the method's recurrence residual at the end
  // ‖b − A x‖₂ recomputed from the returned x, and over ‖b‖₂ (‖b‖₂ = 0: not divided). NaN and
  // true_residual_computed false when no solve ran (a preconditioner that failed in setup).
  double true_residual = std::numeric_limits<double>::quiet_NaN();
  double relative_true_residual = std::numeric_limits<double>::quiet_NaN();
  bool true_residual_computed = false;
  ReturnedIterate returned_iterate = ReturnedIterate::Last;
  int returned_iteration = 0;            // the iteration that produced the returned x
  int residual_replacements = 0;         // times the recurrence residual was replaced by b − A x
  std::vector<double> residual_history;  // recurrence residual, entry 0 = initial
  double solve_seconds = 0;
  bool converged() const noexcept { return status == SolveStatus::Converged; }
};

}  // namespace fgdd
