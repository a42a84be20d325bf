// The bookkeeping every Krylov solver shares: argument checks, the initial and true residual,
// the stopping test with residual replacement, the residual history and monitor, divergence
// and stagnation over a moving window, the best iterate kept for a failed solve, and the
// SolveResult a solve ends with (always a status, never an exception, never NaN in x).
#pragma once

#include "krylov/krylov_options.hpp"
#include "krylov/krylov_workspace.hpp"
#include "krylov/operator.hpp"
#include "krylov/solve_result.hpp"

#include <string>

namespace fgdd::detail {

class SolveTracker {
 public:
  // What the method does after an iteration was recorded.
  enum class Step {
    Continue,
    Stop,     // status and reason are set
    Restart,  // r holds b − A x: rebuild the recurrence from it (residual replacement)
  };

  // Checks sizes and options, computes ‖b‖ and ‖b − A x₀‖ into r (r holds the residual), and
  // keeps a copy of x₀ as the best iterate so far. When b's entries are beyond 2^±400, where
  // dot products would overflow or underflow, the solve runs on 2^k b and 2^k x (exact
  // scalings): x is scaled here and back in finish, and the method must use b() for b.
  // method_is_cg: the stagnation window's automatic value is 0 (see KrylovOptions).
  SolveTracker(const ExecSpace& space, const Operator& A, ConstVector b, Vector x,
               const KrylovOptions& options, Vector r, KrylovWorkspace& workspace,
               bool method_is_cg = false);

  // The right-hand side the method works with (b, or its scaled copy).
  ConstVector b() const noexcept { return b_; }

  double initial_residual() const noexcept { return result_.initial_residual; }
  double residual() const noexcept { return residual_; }
  // The status the start already decides (NaN in b or x₀, or x₀ good enough), else nothing.
  bool finished_at_start(SolveStatus& status, std::string& reason);

  // Records an iteration's recurrence residual, x being the iterate it belongs to. A residual
  // at the target is checked against b − A x, computed into r: Stop (Converged or Inaccurate)
  // or Restart. Also Stop for divergence, stagnation and NaN.
  Step record(int iteration, double residual, ConstVector x, Vector r, SolveStatus& status,
              std::string& reason);
  // GMRES inside a cycle, where x is not formed yet: a residual estimate at the target stops
  // the cycle with status Converged, to be confirmed by record_true at the cycle's end.
  bool record_estimate(int iteration, double residual, SolveStatus& status, std::string& reason);
  // GMRES at a cycle's end: true_residual = ‖b − A x‖ of the x formed there; claimed: the cycle
  // stopped on a converged estimate. Stop (converged, inaccurate, NaN), Restart or Continue.
  Step record_true(int iteration, double true_residual, ConstVector x, bool claimed,
                   SolveStatus& status, std::string& reason);
  bool below_target(double residual) const noexcept { return residual <= target_; }

  // ‖v‖₂ over every rank from a fused kernel's fast sum of squares; recomputed with scaling
  // when that sum overflowed or may have underflowed (entries beyond 1e154 or below 1e-154).
  double norm(ConstVector v, double fast_squared) const;

  // Ends the solve: ‖b − A x‖ (computed with scratch as work space unless the stop was judged on
  // it) and the result. A
  // solve that did not converge leaves in x the iterate with the smallest true residual among
  // the last one, the best kept one and x₀, and says which.
  SolveResult finish(SolveStatus status, std::string reason, Vector x, Vector scratch);

 private:
  bool check_progress(int iteration, double residual, SolveStatus& status, std::string& reason);
  Step judge_claim(int iteration, double true_residual, SolveStatus& status, std::string& reason);
  void keep_if_best(int iteration, double residual, ConstVector x);
  double residual_norm(ConstVector x, Vector r) const;
  std::string shown(double residual) const;  // for reasons: in the caller's (unscaled) units

  ExecSpace space_;
  const Operator& A_;
  ConstVector b_;
  const KrylovOptions& options_;
  Kokkos::Timer timer_;
  bool method_is_cg_ = false;  // the automatic stagnation window is 0 for CG
  double scale_ = 1;      // the power of two b and x were multiplied by
  double b_norm_ = 0;
  double target_ = 0;
  double residual_ = 0;
  double smallest_ = 0;         // smallest recurrence residual so far (r₀ included)
  Vector best_x_;               // x₀, then iterates whose residual halved since the last
  double best_x_residual_ = 0;  // its recurrence residual
  int best_x_iteration_ = 0;
  double last_replaced_true_ = 0;  // ‖b − A x‖ at the last residual replacement
  int claimed_at_ = 0;             // last iteration whose recurrence claimed convergence
  double claimed_true_ = 0;        // and the true residual then
  // ‖b − A x‖ of the x the solve stops with, where the stop was judged on it (judge_claim's
  // Stop, or x₀ already converged): finish need not compute it again. −1: not known.
  double final_true_ = -1;
  SolveResult result_;
};

// Breakdown when |value| is negligible against the product of the norms it was formed from.
bool negligible(double value, double scale);

}  // namespace fgdd::detail
