// The bookkeeping every Krylov solver shares: argument checks, the initial and true residual,
// the stopping test, the residual history and monitor, divergence and stagnation, and the
// SolveResult a solve ends with (always a status, never an exception, never NaN in x).
#pragma once

#include "krylov/operator.hpp"
#include "krylov/krylov_options.hpp"
#include "krylov/solve_result.hpp"

#include <string>

namespace fgdd::detail {

class SolveTracker {
 public:
  // Checks sizes and options, computes ‖b‖ and ‖b − A x₀‖ into r (r holds the residual).
  SolveTracker(const ExecSpace& space, const Operator& A, ConstVector b, ConstVector x,
               const KrylovOptions& options, Vector r);

  double initial_residual() const noexcept { return result_.initial_residual; }
  double residual() const noexcept { return residual_; }
  // The status the start already decides (NaN in b or x₀, or x₀ good enough), else nothing.
  bool finished_at_start(SolveStatus& status, std::string& reason) const;

  // Records an iteration's recurrence residual; returns true when the solve must stop, with
  // the status and reason set (converged, diverged, stagnated, NaN).
  bool record(int iteration, double residual, SolveStatus& status, std::string& reason);
  bool below_target(double residual) const noexcept { return residual <= target_; }

  // Ends the solve: recomputes ‖b − A x‖ with scratch as work space and fills the result.
  SolveResult finish(SolveStatus status, std::string reason, ConstVector x, Vector scratch);

 private:
  ExecSpace space_;
  const Operator& A_;
  ConstVector b_;
  const KrylovOptions& options_;
  Kokkos::Timer timer_;
  double b_norm_ = 0;
  double target_ = 0;
  double residual_ = 0;
  double best_ = 0;         // smallest residual so far
  int best_iteration_ = 0;  // when it was reached
  SolveResult result_;
};

// Breakdown when |value| is negligible against the product of the norms it was formed from.
bool negligible(double value, double scale);

}  // namespace fgdd::detail
