#include "krylov/bicgstab.hpp"

#include "krylov/solve_tracker.hpp"
#include "krylov/vector_ops.hpp"

#include <array>
#include <cmath>
#include <string>

namespace fgdd {

SolveResult bicgstab(const ExecSpace& space, const Operator& A, const Preconditioner& M,
                     ConstVector b, Vector x, const KrylovOptions& options,
                     KrylovWorkspace* workspace) {
  const Offset n = b.extent(0);
  KrylovWorkspace own;
  KrylovWorkspace& work = workspace != nullptr ? *workspace : own;
  // Each written before it is read (p and v are zeroed when the recurrence starts).
  Vector r = work.vector("fgdd::krylov::r", n), r_hat = work.vector("fgdd::krylov::r_hat", n),
         p = work.vector("fgdd::krylov::p", n), v = work.vector("fgdd::krylov::v", n),
         s = work.vector("fgdd::krylov::s", n), t = work.vector("fgdd::krylov::t", n),
         p_hat = work.vector("fgdd::krylov::p_hat", n),
         s_hat = work.vector("fgdd::krylov::s_hat", n);
  detail::SolveTracker tracker(space, A, b, x, options, r, work);
  SolveStatus status = SolveStatus::MaxIterations;
  std::string reason;
  const auto finish = [&](SolveStatus st, std::string why) {
    return tracker.finish(st, std::move(why), x, t);
  };
  if (tracker.finished_at_start(status, reason)) return finish(status, reason);

  double rho = 1, alpha = 1, omega = 1, r_hat_norm = 0, rho_new = 0;
  // (Re)starts the recurrence from the residual in r: at the start and after a residual
  // replacement, when r holds b − A x.
  const auto start_recurrence = [&] {
    detail::copy(space, r, r_hat);
    Kokkos::deep_copy(space, p, 0.0);
    Kokkos::deep_copy(space, v, 0.0);
    rho = alpha = omega = 1;
    r_hat_norm = tracker.residual();
    rho_new = A.global_sum(detail::dot(space, r_hat, r));  // later fused into the update
  };
  start_recurrence();
  using Step = detail::SolveTracker::Step;
  for (int iteration = 1; iteration <= options.max_iterations; ++iteration) {
    const double r_norm = tracker.residual();
    if (detail::negligible(rho_new, r_hat_norm * r_norm))
      return finish(SolveStatus::Breakdown, "rho = <r_hat, r> vanished");
    const double beta = (rho_new / rho) * (alpha / omega);
    rho = rho_new;
    detail::bicgstab_direction(space, r, beta, omega, v, p);
    M.apply(space, p, p_hat);
    const auto [r_hat_v, v_v] = A.global_sum(A.apply_dots(space, p_hat, v, r_hat));
    if (!std::isfinite(r_hat_v))
      return finish(SolveStatus::NanOrInf, "preconditioned direction holds NaN or Inf");
    if (detail::negligible(r_hat_v, r_hat_norm * std::sqrt(v_v)))
      return finish(SolveStatus::Breakdown, "<r_hat, v> vanished");
    alpha = rho / r_hat_v;
    const double s_s_local = detail::xpay_into_norm2(space, r, -alpha, v, s);
    // ‖s‖ travels with the t dots: three global sums an iteration instead of four, for one
    // apply and product too many in the iteration that converges at its half step.
    M.apply(space, s, s_hat);
    const auto [t_s_local, t_t_local] = A.apply_dots(space, s_hat, t, s);
    const auto [t_s, t_t, s_s] =
        A.global_sum(std::array<double, 3>{t_s_local, t_t_local, s_s_local});
    const double s_norm = tracker.norm(s, s_s);
    if (tracker.below_target(s_norm)) {
      // Half a step suffices; r receives b − A x to confirm it.
      detail::axpy(space, alpha, p_hat, x);
      const Step step = tracker.record(iteration, s_norm, x, r, status, reason);
      if (step == Step::Stop) return finish(status, reason);
      if (step == Step::Restart) start_recurrence();
      continue;
    }
    if (!std::isfinite(t_s) || !std::isfinite(t_t))
      return finish(SolveStatus::NanOrInf, "preconditioned residual holds NaN or Inf");
    if (t_t == 0 || detail::negligible(t_s, std::sqrt(t_t) * s_norm))
      return finish(SolveStatus::Breakdown, "omega = <t, s> / <t, t> vanished");
    omega = t_s / t_t;
    const auto [new_r_norm2, r_hat_r] =
        A.global_sum(detail::xpay_into_norm2_dot(space, s, -omega, t, r, r_hat));
    const double new_r_norm = tracker.norm(r, new_r_norm2);
    rho_new = r_hat_r;
    if (!std::isfinite(new_r_norm))
      return finish(SolveStatus::NanOrInf, "residual became NaN or Inf");
    // x is updated only after every scalar proved finite, so a failure keeps the last iterate.
    detail::add_two_scaled(space, alpha, p_hat, omega, s_hat, x);
    const Step step = tracker.record(iteration, new_r_norm, x, r, status, reason);
    if (step == Step::Stop) return finish(status, reason);
    if (step == Step::Restart) start_recurrence();
  }
  return finish(SolveStatus::MaxIterations,
                "no convergence in " + std::to_string(options.max_iterations) + " iterations");
}

SolveResult bicgstab(const ExecSpace& space, const SparseMatrix& A, const Preconditioner& M,
                     ConstVector b, Vector x, const KrylovOptions& options) {
  return bicgstab(space, MatrixOperator(A), M, b, x, options);
}

}  // namespace fgdd
