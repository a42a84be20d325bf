#include "krylov/solve_tracker.hpp"

#include "krylov/vector_ops.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace fgdd::detail {

namespace {

// A residual replacement must at least halve the true residual of the one before it; beyond
// that the recurrence and the true residual disagree by rounding in A x (an ill-conditioned A),
// and more iterations cannot close the gap.
constexpr double replacement_gain = 0.5;
// A stagnation window "made progress" when its residuals' trend shrinks the residual below this
// fraction over the window.
constexpr double window_progress = 0.999;
// A window that made no progress and ends this far above the best residual is divergence.
constexpr double window_growth = 1e3;
// Sums of squares below this may have lost entries to underflow (entries below ~1e-154).
constexpr double underflow_risk = 1e-280;

// ln of the factor by which the least-squares line through ln ‖r‖ of iterations
// iteration−window+1..iteration changes the residual over one window: below 0 the residual
// trends down, whatever the oscillation around the trend.
double window_trend(const std::vector<double>& history, long long iteration, long long window) {
  const auto log_at = [&](long long j) {
    return std::log(
        std::max(history[iteration - window + 1 + j], std::numeric_limits<double>::min()));
  };
  const double middle = 0.5 * double(window - 1);
  double mean = 0;
  for (long long j = 0; j < window; ++j) mean += log_at(j);
  mean /= double(window);
  double covariance = 0, variance = 0;
  for (long long j = 0; j < window; ++j) {
    const double offset = double(j) - middle;
    covariance += offset * (log_at(j) - mean);
    variance += offset * offset;
  }
  return variance > 0 ? covariance / variance * double(window) : 0.0;
}

std::string scientific(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3e", value);
  return text;
}

// 2^k that brings b's largest entry near 1 when it lies beyond 2^±scaling_threshold, else 1.
double exact_scale(double largest) {
  constexpr int scaling_threshold = 400;
  if (largest == 0 || !std::isfinite(largest)) return 1;
  const int exponent = std::ilogb(largest);
  return std::abs(exponent) > scaling_threshold ? std::ldexp(1.0, -exponent) : 1.0;
}

}  // namespace

bool negligible(double value, double scale) {
  return std::abs(value) <= std::numeric_limits<double>::epsilon() * 1e-6 * scale;
}

SolveTracker::SolveTracker(const ExecSpace& space, const Operator& A, ConstVector b, Vector x,
                           const KrylovOptions& options, Vector r, KrylovWorkspace& workspace,
                           bool method_is_cg)
    : space_(space), A_(A), b_(b), options_(options) {
  options.validate();
  method_is_cg_ = method_is_cg;
  check_vector_size(A, b.extent(0), "b");
  check_vector_size(A, x.extent(0), "x");
  scale_ = exact_scale(A.max_over_ranks(max_abs(space, b)));
  if (scale_ != 1) {
    Vector scaled = workspace.vector("fgdd::krylov::scaled_b", b.extent(0));
    scale_into(space, scale_, b, scaled);
    scale_into(space, scale_, x, x);
    b_ = scaled;
  }
  b_norm_ = norm(b_, A.global_sum(norm2_squared(space, b_)));
  // x₀ = 0, the usual start: r₀ = b, without the product (a pass over A).
  if (A.global_sum(double(count_nonzero(space, x))) == 0) {
    copy(space, b_, r);
    residual_ = b_norm_;
  } else {
    residual_ = residual_norm(x, r);
  }
  smallest_ = residual_;
  best_x_ = workspace.vector("fgdd::krylov::best_x", x.extent(0));
  copy(space, x, best_x_);
  best_x_residual_ = residual_;
  result_.initial_residual = residual_;
  result_.residual_history.push_back(residual_);
  target_ = std::max(options.relative_tolerance * b_norm_, options.absolute_tolerance);
}

double SolveTracker::norm(ConstVector v, double fast_squared) const {
  if (std::isnan(fast_squared)) return fast_squared;
  if (std::isfinite(fast_squared) && fast_squared >= underflow_risk) return std::sqrt(fast_squared);
  const double largest = A_.max_over_ranks(max_abs(space_, v));
  if (largest == 0 || !std::isfinite(largest)) return largest;
  return largest * std::sqrt(A_.global_sum(scaled_norm2_squared(space_, v, largest)));
}

double SolveTracker::residual_norm(ConstVector x, Vector r) const {
  A_.apply(space_, x, r);
  return norm(r, A_.global_sum(axpby_norm2(space_, 1.0, b_, -1.0, r)));
}

std::string SolveTracker::shown(double residual) const { return scientific(residual / scale_); }

bool SolveTracker::finished_at_start(SolveStatus& status, std::string& reason) {
  if (!std::isfinite(residual_) || !std::isfinite(b_norm_)) {
    status = SolveStatus::NanOrInf;
    reason = "b or the initial guess x holds NaN or Inf";
    return true;
  }
  if (residual_ <= target_) {
    status = SolveStatus::Converged;
    reason = "initial guess already converged";
    final_true_ = residual_;
    return true;
  }
  return false;
}

bool SolveTracker::check_progress(int iteration, double residual, SolveStatus& status,
                                  std::string& reason) {
  result_.iterations = iteration;
  if (!std::isfinite(residual)) {
    status = SolveStatus::NanOrInf;
    reason = "residual became NaN or Inf";
    return true;
  }
  residual_ = residual;
  smallest_ = std::min(smallest_, residual);
  std::vector<double>& history = result_.residual_history;
  history.push_back(residual);
  if (options_.monitor) options_.monitor(iteration, residual / scale_);
  if (residual <= target_) {
    status = SolveStatus::Converged;
    reason = "residual below tolerance";
    return true;
  }
  if (residual > options_.divergence_factor * result_.initial_residual) {
    status = SolveStatus::Diverged;
    reason = "residual " + shown(residual) + " grew beyond divergence_factor (" +
             scientific(options_.divergence_factor) + ") × the initial " +
             shown(result_.initial_residual);
    return true;
  }
  // Judged from twice the first window on (2W fixed, 200 automatic). A fixed window W is
  // compared with the W iterations before it; the automatic one with every iteration before it,
  // judged every 1/64 of its length, so a long solve spends O(64) a step on it, not O(window).
  const bool automatic = options_.stagnation_iterations < 0;
  const long long window = options_.stagnation_window(method_is_cg_, iteration);
  if (window == 0 || iteration < 2 * options_.stagnation_window(method_is_cg_, 0)) return false;
  if (automatic && iteration % std::max(1LL, window / 64) != 0) return false;
  const long long compared = automatic ? iteration - window : window;
  const double trend = window_trend(history, iteration, window);
  if (trend < std::log(window_progress)) return false;
  const auto at = [&](long long k) { return history.begin() + k; };
  const double last = *std::min_element(at(iteration - window + 1), at(iteration + 1));
  const double before =
      *std::min_element(at(iteration - window - compared + 1), at(iteration - window + 1));
  if (last < window_progress * before) return false;
  const std::string span =
      "iterations " + std::to_string(iteration - window + 1) + ".." + std::to_string(iteration);
  if (residual > window_growth * smallest_) {
    status = SolveStatus::Diverged;
    reason = "residual " + shown(residual) + " is " + scientific(residual / smallest_) +
             " × its best " + shown(smallest_) + " and did not decrease over " + span;
  } else {
    status = SolveStatus::Stagnated;
    reason = "no progress over " + span + ": their residuals' trend changes the residual by a " +
             "factor " + scientific(std::exp(trend)) + " a window, and their smallest (" +
             shown(last) + ") is not below that of the " + std::to_string(compared) +
             " iterations before (" + shown(before) + ")";
  }
  return true;
}

void SolveTracker::keep_if_best(int iteration, double residual, ConstVector x) {
  // Copies only when the residual halved since the last copy: O(log(r₀ / r)) copies a solve.
  if (!(residual < 0.5 * best_x_residual_)) return;
  copy(space_, x, best_x_);
  best_x_residual_ = residual;
  best_x_iteration_ = iteration;
}

SolveTracker::Step SolveTracker::judge_claim(int iteration, double true_residual,
                                             SolveStatus& status, std::string& reason) {
  if (!std::isfinite(true_residual)) {
    status = SolveStatus::NanOrInf;
    reason = "b − A x became NaN or Inf";
    return Step::Stop;
  }
  if (true_residual <= target_) {
    final_true_ = true_residual;
    status = SolveStatus::Converged;
    reason = result_.residual_replacements == 0
                 ? "residual below tolerance"
                 : "residual below tolerance after " +
                       std::to_string(result_.residual_replacements) + " residual replacement(s)";
    return Step::Stop;
  }
  claimed_at_ = iteration;
  claimed_true_ = true_residual;
  const bool helped =
      result_.residual_replacements == 0 || true_residual < replacement_gain * last_replaced_true_;
  if (helped && iteration < options_.max_iterations) {
    ++result_.residual_replacements;
    last_replaced_true_ = true_residual;
    residual_ = true_residual;
    return Step::Restart;
  }
  final_true_ = true_residual;
  status = SolveStatus::Inaccurate;
  reason = "the recurrence residual met the tolerance at iteration " + std::to_string(iteration) +
           " but ‖b − A x‖ = " + shown(true_residual) + " misses the target " + shown(target_) +
           " after " + std::to_string(result_.residual_replacements) + " residual replacement(s)";
  return Step::Stop;
}

SolveTracker::Step SolveTracker::record(int iteration, double residual, ConstVector x, Vector r,
                                        SolveStatus& status, std::string& reason) {
  if (!check_progress(iteration, residual, status, reason)) {
    keep_if_best(iteration, residual, x);
    return Step::Continue;
  }
  if (status != SolveStatus::Converged) return Step::Stop;
  return judge_claim(iteration, residual_norm(x, r), status, reason);
}

bool SolveTracker::record_estimate(int iteration, double residual, SolveStatus& status,
                                   std::string& reason) {
  return check_progress(iteration, residual, status, reason);
}

SolveTracker::Step SolveTracker::record_true(int iteration, double true_residual, ConstVector x,
                                             bool claimed, SolveStatus& status,
                                             std::string& reason) {
  if (claimed || true_residual <= target_ || !std::isfinite(true_residual))
    return judge_claim(iteration, true_residual, status, reason);
  keep_if_best(iteration, true_residual, x);
  return Step::Continue;
}

SolveResult SolveTracker::finish(SolveStatus status, std::string reason, Vector x, Vector scratch) {
  double true_residual = final_true_ >= 0 ? final_true_ : residual_norm(x, scratch);
  if (status == SolveStatus::Converged && !(true_residual <= target_)) {
    status = SolveStatus::Inaccurate;  // a safety net: every claim was already checked
    reason = "‖b − A x‖ = " + shown(true_residual) + " misses the target " + shown(target_);
  }
  if (status == SolveStatus::MaxIterations && claimed_at_ > 0) {
    status = SolveStatus::Inaccurate;
    reason = "the recurrence residual met the tolerance at iteration " +
             std::to_string(claimed_at_) + " but ‖b − A x‖ = " + shown(claimed_true_) +
             " misses the target " + shown(target_) + "; residual replacement ran out of " +
             "iterations";
  }
  result_.returned_iteration = result_.iterations;
  if (status != SolveStatus::Converged) {
    const double kept =
        best_x_iteration_ == 0 ? result_.initial_residual : residual_norm(best_x_, scratch);
    if (kept < true_residual || !std::isfinite(true_residual)) {
      copy(space_, best_x_, x);
      true_residual = kept;
      result_.returned_iterate =
          best_x_iteration_ == 0 ? ReturnedIterate::Initial : ReturnedIterate::Best;
      result_.returned_iteration = best_x_iteration_;
    }
  }
  result_.status = status;
  result_.reason = std::move(reason);
  result_.relative_true_residual = b_norm_ > 0 ? true_residual / b_norm_ : true_residual;
  if (scale_ != 1) {
    scale_into(space_, 1 / scale_, x, x);
    true_residual /= scale_;
    residual_ /= scale_;
    result_.initial_residual /= scale_;
    for (double& value : result_.residual_history) value /= scale_;
  }
  result_.final_residual = residual_;
  result_.true_residual = true_residual;
  result_.true_residual_computed = true;
  space_.fence();
  result_.solve_seconds = timer_.seconds();
  return result_;
}

}  // namespace fgdd::detail
