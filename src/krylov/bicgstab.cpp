#include "krylov/bicgstab.hpp"

#include "core/matrix_build.hpp"
#include "core/spmv.hpp"
#include "krylov/vector_ops.hpp"

#include <cmath>
#include <limits>
#include <string>

namespace fgdd {

namespace {

// Zero-initialized: BiCGSTAB's p and v start at 0.
Vector work_vector(const char* label, Offset n) { return Vector(std::string(label), n); }

// ‖b − A x‖₂, using r as scratch (r ends holding the residual).
double residual_norm(const ExecSpace& space, const SparseMatrix& A, ConstVector b, ConstVector x,
                     Vector r) {
  spmv(space, A, x, r);
  return std::sqrt(detail::axpby_norm2(space, 1.0, b, -1.0, r));
}

// Breakdown when |value| is negligible against the product of the norms it was formed from.
bool negligible(double value, double scale) {
  return std::abs(value) <= std::numeric_limits<double>::epsilon() * 1e-6 * scale;
}

}  // namespace

SolveResult bicgstab(const ExecSpace& space, const SparseMatrix& A, const Preconditioner& M,
                     ConstVector b, Vector x, const KrylovOptions& options) {
  options.validate();
  check_vector_size(A, b.extent(0), "b");
  check_vector_size(A, x.extent(0), "x");
  Kokkos::Timer timer;
  const Offset n = A.num_rows();
  Vector r = work_vector("fgdd::krylov::r", n), r_hat = work_vector("fgdd::krylov::r_hat", n),
         p = work_vector("fgdd::krylov::p", n), v = work_vector("fgdd::krylov::v", n),
         s = work_vector("fgdd::krylov::s", n), t = work_vector("fgdd::krylov::t", n),
         p_hat = work_vector("fgdd::krylov::p_hat", n),
         s_hat = work_vector("fgdd::krylov::s_hat", n);

  SolveResult result;
  const double b_norm = std::sqrt(detail::norm2_squared(space, b));
  double r_norm = residual_norm(space, A, b, x, r);
  result.initial_residual = r_norm;
  result.residual_history.push_back(r_norm);
  const double target = std::max(options.relative_tolerance * b_norm, options.absolute_tolerance);
  const auto finish = [&](SolveStatus status, std::string reason) {
    result.status = status;
    result.reason = std::move(reason);
    result.final_residual = r_norm;
    result.true_residual = residual_norm(space, A, b, x, t);
    result.relative_true_residual = b_norm > 0 ? result.true_residual / b_norm : result.true_residual;
    space.fence();
    result.solve_seconds = timer.seconds();
    return result;
  };
  if (!std::isfinite(r_norm) || !std::isfinite(b_norm))
    return finish(SolveStatus::NanOrInf, "b or the initial guess x holds NaN or Inf");
  if (r_norm <= target) return finish(SolveStatus::Converged, "initial guess already converged");

  detail::copy(space, r, r_hat);
  const double r_hat_norm = r_norm;
  double rho = 1, alpha = 1, omega = 1;
  for (int iteration = 1; iteration <= options.max_iterations; ++iteration) {
    result.iterations = iteration;
    const double rho_new = detail::dot(space, r_hat, r);
    if (negligible(rho_new, r_hat_norm * r_norm))
      return finish(SolveStatus::Breakdown, "rho = <r_hat, r> vanished");
    const double beta = (rho_new / rho) * (alpha / omega);
    rho = rho_new;
    detail::bicgstab_direction(space, r, beta, omega, v, p);
    M.apply(space, p, p_hat);
    spmv(space, A, p_hat, v);
    const double r_hat_v = detail::dot(space, r_hat, v);
    if (!std::isfinite(r_hat_v))
      return finish(SolveStatus::NanOrInf, "preconditioned direction holds NaN or Inf");
    if (negligible(r_hat_v, r_hat_norm * std::sqrt(detail::norm2_squared(space, v))))
      return finish(SolveStatus::Breakdown, "<r_hat, v> vanished");
    alpha = rho / r_hat_v;
    const double s_norm = std::sqrt(detail::xpay_into_norm2(space, r, -alpha, v, s));
    if (s_norm <= target) {
      detail::axpy(space, alpha, p_hat, x);
      r_norm = s_norm;
      result.residual_history.push_back(r_norm);
      if (options.monitor) options.monitor(iteration, r_norm);
      return finish(SolveStatus::Converged, "residual below tolerance");
    }
    M.apply(space, s, s_hat);
    spmv(space, A, s_hat, t);
    const double t_s = detail::dot(space, t, s);
    const double t_t = detail::norm2_squared(space, t);
    if (!std::isfinite(t_s) || !std::isfinite(t_t))
      return finish(SolveStatus::NanOrInf, "preconditioned residual holds NaN or Inf");
    if (t_t == 0 || negligible(t_s, std::sqrt(t_t) * s_norm))
      return finish(SolveStatus::Breakdown, "omega = <t, s> / <t, t> vanished");
    omega = t_s / t_t;
    const double new_r_norm = std::sqrt(detail::xpay_into_norm2(space, s, -omega, t, r));
    if (!std::isfinite(new_r_norm))
      return finish(SolveStatus::NanOrInf, "residual became NaN or Inf");
    // x is updated only after every scalar proved finite, so a failure keeps the last iterate.
    detail::add_two_scaled(space, alpha, p_hat, omega, s_hat, x);
    r_norm = new_r_norm;
    result.residual_history.push_back(r_norm);
    if (options.monitor) options.monitor(iteration, r_norm);
    if (r_norm <= target) return finish(SolveStatus::Converged, "residual below tolerance");
    if (r_norm > options.divergence_factor * result.initial_residual)
      return finish(SolveStatus::Diverged, "residual grew beyond divergence_factor × initial");
  }
  return finish(SolveStatus::MaxIterations,
                "no convergence in " + std::to_string(options.max_iterations) + " iterations");
}

}  // namespace fgdd
