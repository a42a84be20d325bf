// What a Krylov solve returns. A failure is a status with its reason, never an exception.
#pragma once

#include <string>
#include <vector>

namespace fgdd {

enum class SolveStatus {
  Converged,
  MaxIterations,
  Breakdown,             // a scalar the method divides by became (near) zero
  Diverged,              // the residual grew beyond divergence_factor × the initial one
  Stagnated,             // no progress for KrylovOptions::stagnation_iterations iterations
  NanOrInf,              // a non-finite value appeared; x holds the last finite iterate
  PreconditionerFailed,  // the preconditioner could not be applied
};

const char* to_string(SolveStatus status) noexcept;

struct SolveResult {
  SolveStatus status = SolveStatus::MaxIterations;
  std::string reason;  // one sentence explaining the status
  int iterations = 0;
  double initial_residual = 0;     // ‖b − A x₀‖₂
  double final_residual = 0;       // the method's recurrence residual at the end
  double true_residual = 0;        // ‖b − A x‖₂ recomputed at the end
  double relative_true_residual = 0;  // true_residual / ‖b‖₂ (‖b‖₂ = 0: true_residual)
  std::vector<double> residual_history;  // recurrence residual, entry 0 = initial
  double solve_seconds = 0;
  bool converged() const noexcept { return status == SolveStatus::Converged; }
};

}  // namespace fgdd
