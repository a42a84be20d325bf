#include "krylov/solve_tracker.hpp"

#include "krylov/vector_ops.hpp"

#include <cmath>
#include <limits>

namespace fgdd::detail {

namespace {

// ‖b − A x‖₂, leaving the residual in r.
double residual_norm(const ExecSpace& space, const Operator& A, ConstVector b, ConstVector x,
                     Vector r) {
  A.apply(space, x, r);
  return std::sqrt(A.global_sum(axpby_norm2(space, 1.0, b, -1.0, r)));
}

}  // namespace

bool negligible(double value, double scale) {
  return std::abs(value) <= std::numeric_limits<double>::epsilon() * 1e-6 * scale;
}

SolveTracker::SolveTracker(const ExecSpace& space, const Operator& A, ConstVector b, ConstVector x,
                           const KrylovOptions& options, Vector r)
    : space_(space), A_(A), b_(b), options_(options) {
  options.validate();
  check_vector_size(A, b.extent(0), "b");
  check_vector_size(A, x.extent(0), "x");
  b_norm_ = std::sqrt(A.global_sum(norm2_squared(space, b)));
  residual_ = residual_norm(space, A, b, x, r);
  best_ = residual_;
  result_.initial_residual = residual_;
  result_.residual_history.push_back(residual_);
  target_ = std::max(options.relative_tolerance * b_norm_, options.absolute_tolerance);
}

bool SolveTracker::finished_at_start(SolveStatus& status, std::string& reason) const {
  if (!std::isfinite(residual_) || !std::isfinite(b_norm_)) {
    status = SolveStatus::NanOrInf;
    reason = "b or the initial guess x holds NaN or Inf";
    return true;
  }
  if (residual_ <= target_) {
    status = SolveStatus::Converged;
    reason = "initial guess already converged";
    return true;
  }
  return false;
}

bool SolveTracker::record(int iteration, double residual, SolveStatus& status,
                          std::string& reason) {
  result_.iterations = iteration;
  if (!std::isfinite(residual)) {
    status = SolveStatus::NanOrInf;
    reason = "residual became NaN or Inf";
    return true;
  }
  residual_ = residual;
  result_.residual_history.push_back(residual);
  if (options_.monitor) options_.monitor(iteration, residual);
  if (residual <= target_) {
    status = SolveStatus::Converged;
    reason = "residual below tolerance";
    return true;
  }
  if (residual > options_.divergence_factor * result_.initial_residual) {
    status = SolveStatus::Diverged;
    reason = "residual grew beyond divergence_factor × initial";
    return true;
  }
  if (residual < 0.999 * best_) {
    best_ = residual;
    best_iteration_ = iteration;
  } else if (options_.stagnation_iterations > 0 &&
             iteration - best_iteration_ >= options_.stagnation_iterations) {
    status = SolveStatus::Stagnated;
    reason = "no progress in " + std::to_string(options_.stagnation_iterations) + " iterations";
    return true;
  }
  return false;
}

SolveResult SolveTracker::finish(SolveStatus status, std::string reason, ConstVector x,
                                 Vector scratch) {
  result_.status = status;
  result_.reason = std::move(reason);
  result_.final_residual = residual_;
  result_.true_residual = residual_norm(space_, A_, b_, x, scratch);
  result_.relative_true_residual =
      b_norm_ > 0 ? result_.true_residual / b_norm_ : result_.true_residual;
  space_.fence();
  result_.solve_seconds = timer_.seconds();
  return result_;
}

}  // namespace fgdd::detail
