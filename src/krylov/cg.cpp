#include "krylov/cg.hpp"

#include "krylov/solve_tracker.hpp"
#include "krylov/vector_ops.hpp"

#include <cmath>
#include <string>

namespace fgdd {

SolveResult cg(const ExecSpace& space, const Operator& A, const Preconditioner& M, ConstVector b,
               Vector x, const KrylovOptions& options, KrylovWorkspace* workspace) {
  const Offset n = b.extent(0);
  KrylovWorkspace own;
  KrylovWorkspace& work = workspace != nullptr ? *workspace : own;
  Vector r = work.vector("fgdd::krylov::r", n), z = work.vector("fgdd::krylov::z", n),
         p = work.vector("fgdd::krylov::p", n), q = work.vector("fgdd::krylov::q", n);
  detail::SolveTracker tracker(space, A, b, x, options, r, work, /*method_is_cg=*/true);
  SolveStatus status = SolveStatus::MaxIterations;
  std::string reason;
  const auto finish = [&](SolveStatus st, std::string why) {
    return tracker.finish(st, std::move(why), x, q);
  };
  if (tracker.finished_at_start(status, reason)) return finish(status, reason);

  double rho = 0;
  // (Re)starts the recurrence from the residual in r (b − A x after a residual replacement).
  const auto start_recurrence = [&] {
    M.apply(space, r, z);
    detail::copy(space, z, p);
    rho = A.global_sum(detail::dot(space, r, z));
  };
  start_recurrence();
  using Step = detail::SolveTracker::Step;
  for (int iteration = 1; iteration <= options.max_iterations; ++iteration) {
    if (!std::isfinite(rho)) return finish(SolveStatus::NanOrInf, "<r, M⁻¹ r> is NaN or Inf");
    if (rho <= 0)
      return finish(SolveStatus::Breakdown, "<r, M⁻¹ r> <= 0: M is not positive definite");
    const double p_q = A.global_sum(A.apply_dots(space, p, q, p)[0]);
    if (!std::isfinite(p_q)) return finish(SolveStatus::NanOrInf, "<p, A p> is NaN or Inf");
    if (p_q <= 0)
      return finish(SolveStatus::Breakdown, "<p, A p> <= 0: A is not positive definite");
    const double alpha = rho / p_q;
    const double r_norm =
        tracker.norm(r, A.global_sum(detail::cg_update(space, alpha, p, q, x, r)));
    const Step step = tracker.record(iteration, r_norm, x, r, status, reason);
    if (step == Step::Stop) return finish(status, reason);
    if (step == Step::Restart) {
      start_recurrence();
      continue;
    }
    M.apply(space, r, z);
    const double rho_new = A.global_sum(detail::dot(space, r, z));
    detail::xpby(space, z, rho_new / rho, p);
    rho = rho_new;
  }
  return finish(SolveStatus::MaxIterations,
                "no convergence in " + std::to_string(options.max_iterations) + " iterations");
}

SolveResult cg(const ExecSpace& space, const SparseMatrix& A, const Preconditioner& M,
               ConstVector b, Vector x, const KrylovOptions& options) {
  return cg(space, MatrixOperator(A), M, b, x, options);
}

}  // namespace fgdd
