#include "krylov/bicg.hpp"

#include "core/errors.hpp"
#include "krylov/solve_tracker.hpp"
#include "krylov/vector_ops.hpp"

#include <cmath>
#include <string>

namespace fgdd {

SolveResult bicg(const ExecSpace& space, const Operator& A, const Preconditioner& M, ConstVector b,
                 Vector x, const KrylovOptions& options, KrylovWorkspace* workspace) {
  if (!M.has_transpose())
    throw InvalidInput("BiCG needs M⁻ᵀ, and preconditioner '" + M.name() + "' has none");
  if (!A.has_transpose())
    throw InvalidInput("BiCG needs Aᵀ, and operator '" + A.name() + "' has none");
  const Offset n = b.extent(0);
  KrylovWorkspace own;
  KrylovWorkspace& work = workspace != nullptr ? *workspace : own;
  Vector r = work.vector("fgdd::krylov::r", n), r_shadow = work.vector("fgdd::krylov::r_shadow", n),
         z = work.vector("fgdd::krylov::z", n), z_shadow = work.vector("fgdd::krylov::z_shadow", n),
         p = work.vector("fgdd::krylov::p", n), p_shadow = work.vector("fgdd::krylov::p_shadow", n),
         q = work.vector("fgdd::krylov::q", n), q_shadow = work.vector("fgdd::krylov::q_shadow", n);
  detail::SolveTracker tracker(space, A, b, x, options, r, work);
  SolveStatus status = SolveStatus::MaxIterations;
  std::string reason;
  const auto finish = [&](SolveStatus st, std::string why) {
    return tracker.finish(st, std::move(why), x, q);
  };
  if (tracker.finished_at_start(status, reason)) return finish(status, reason);

  double rho = 0, z_z = 0, shadow_shadow = 0;
  // (Re)starts both recurrences from the residual in r (b − A x after a residual replacement).
  const auto start_recurrence = [&] {
    detail::copy(space, r, r_shadow);
    M.apply(space, r, z);
    M.apply_transpose(space, r_shadow, z_shadow);
    detail::copy(space, z, p);
    detail::copy(space, z_shadow, p_shadow);
    // rho with the norms its breakdown test needs, one pass.
    const auto [rho0, z_norm2, r_shadow_norm2] =
        A.global_sum(detail::dots(space, z, r_shadow, z, z, r_shadow, r_shadow));
    rho = rho0;
    z_z = z_norm2;
    shadow_shadow = r_shadow_norm2;
  };
  start_recurrence();
  using Step = detail::SolveTracker::Step;
  for (int iteration = 1; iteration <= options.max_iterations; ++iteration) {
    if (!std::isfinite(rho)) return finish(SolveStatus::NanOrInf, "rho is NaN or Inf");
    if (detail::negligible(rho, std::sqrt(z_z * shadow_shadow)))
      return finish(SolveStatus::Breakdown, "rho = <M⁻¹ r, r_shadow> vanished");
    A.apply(space, p, q);
    A.apply_transpose(space, p_shadow, q_shadow);
    const auto [sigma, shadow_norm2, q_norm2] =
        A.global_sum(detail::dots(space, p_shadow, q, p_shadow, p_shadow, q, q));
    if (!std::isfinite(sigma))
      return finish(SolveStatus::NanOrInf, "<p_shadow, A p> is NaN or Inf");
    if (detail::negligible(sigma, std::sqrt(shadow_norm2 * q_norm2)))
      return finish(SolveStatus::Breakdown, "<p_shadow, A p> vanished");
    const double alpha = rho / sigma;
    const double r_norm = tracker.norm(
        r, A.global_sum(detail::bicg_update(space, alpha, p, q, q_shadow, x, r, r_shadow)));
    const Step step = tracker.record(iteration, r_norm, x, r, status, reason);
    if (step == Step::Stop) return finish(status, reason);
    if (step == Step::Restart) {
      start_recurrence();
      continue;
    }
    M.apply(space, r, z);
    M.apply_transpose(space, r_shadow, z_shadow);
    const auto [rho_new, z_norm2, r_shadow_norm2] =
        A.global_sum(detail::dots(space, z, r_shadow, z, z, r_shadow, r_shadow));
    detail::bicg_directions(space, z, z_shadow, rho_new / rho, p, p_shadow);
    rho = rho_new;
    z_z = z_norm2;
    shadow_shadow = r_shadow_norm2;
  }
  return finish(SolveStatus::MaxIterations,
                "no convergence in " + std::to_string(options.max_iterations) + " iterations");
}

SolveResult bicg(const ExecSpace& space, const SparseMatrix& A, const Preconditioner& M,
                 ConstVector b, Vector x, const KrylovOptions& options) {
  return bicg(space, MatrixOperator(A), M, b, x, options);
}

}  // namespace fgdd
