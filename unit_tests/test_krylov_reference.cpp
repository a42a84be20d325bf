// Device BiCGSTAB and CG with the DD preconditioner against the same methods written plainly on
// the host (dense A, host substitutions with the same factors): the iteration counts agree.
// Both run the same recurrences; only rounding differs (summation order in dots, SpMV and the
// apply), which can move the step where the residual crosses the tolerance by one iteration.
#include "catch_compat.hpp"
#include "core/generators.hpp"
#include "krylov/bicgstab.hpp"
#include "krylov/cg.hpp"
#include "precond/dd_ilu_preconditioner.hpp"
#include "partition/partition_matrix.hpp"
#include "reference/dense.hpp"
#include "reference/reference_trsv.hpp"

#include <cmath>
#include <functional>

using namespace fgdd;

namespace {

using HostVector = std::vector<double>;

double dot(const HostVector& a, const HostVector& b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += a[i] * b[i];
  return sum;
}

// y = x + a·z
HostVector plus(const HostVector& x, double a, const HostVector& z) {
  HostVector y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = x[i] + a * z[i];
  return y;
}

struct HostProblem {
  reference::DenseMatrix A;
  std::function<HostVector(const HostVector&)> precondition;
  HostVector b;
  double target;
};

// Right-preconditioned BiCGSTAB as in src/krylov/bicgstab.cpp, from x = 0.
int host_bicgstab(const HostProblem& p, int max_iterations) {
  const std::size_t n = p.b.size();
  HostVector x(n, 0.0), r = p.b, r_hat = p.b, v(n, 0.0), q(n, 0.0);
  double rho = 1, alpha = 1, omega = 1;
  for (int it = 1; it <= max_iterations; ++it) {
    const double rho_new = dot(r_hat, r);
    const double beta = (rho_new / rho) * (alpha / omega);
    rho = rho_new;
    for (std::size_t i = 0; i < n; ++i) q[i] = r[i] + beta * (q[i] - omega * v[i]);
    const HostVector q_hat = p.precondition(q);
    v = reference::multiply(p.A, q_hat);
    alpha = rho / dot(r_hat, v);
    const HostVector s = plus(r, -alpha, v);
    if (std::sqrt(dot(s, s)) <= p.target) return it;
    const HostVector s_hat = p.precondition(s);
    const HostVector t = reference::multiply(p.A, s_hat);
    omega = dot(t, s) / dot(t, t);
    x = plus(plus(x, alpha, q_hat), omega, s_hat);
    r = plus(s, -omega, t);
    if (std::sqrt(dot(r, r)) <= p.target) return it;
  }
  return -1;
}

// Preconditioned CG as in src/krylov/cg.cpp, from x = 0.
int host_cg(const HostProblem& p, int max_iterations) {
  HostVector r = p.b, z = p.precondition(r), d = z;
  double rho = dot(r, z);
  for (int it = 1; it <= max_iterations; ++it) {
    const HostVector q = reference::multiply(p.A, d);
    const double alpha = rho / dot(d, q);
    r = plus(r, -alpha, q);
    if (std::sqrt(dot(r, r)) <= p.target) return it;
    z = p.precondition(r);
    const double rho_new = dot(r, z);
    d = plus(z, rho_new / rho, d);
    rho = rho_new;
  }
  return -1;
}

}  // namespace

TEST_CASE("device Krylov iteration counts match a plain host reference", "[krylov][reference]") {
  const auto [spec, form] =
      GENERATE(table<std::string, IluForm>({{"gen:convdiff:7", IluForm::Ildu0},
                                            {"gen:bsr3:4", IluForm::Ilu0},
                                            {"gen:reservoir:8:7:5", IluForm::Ildlt},
                                            {"gen:lap7:8", IluForm::Ildlt}}));
  CAPTURE(spec, int(form));
  const GeneratedProblem problem = generate_problem(spec);
  PartitionOptions partition_options;
  partition_options.subdomain_rows = 90;
  const PartitionedMatrix dd =
      partition_matrix(ExecSpace(), problem.matrix, problem.grid, partition_options);
  DdIluOptions options;
  options.factor.form = form;
  options.apply = ApplyKernel::DagVcIlduFused;  // deterministic on the device
  const DdIluPreconditioner M(ExecSpace(), dd.system.dropped, dd.partition, options);
  const auto h = reference::host_factors(M.factorization());

  const SparseMatrix& A = dd.system.permuted;
  const HostVector b = reference::random_vector(A.num_rows(), 21u);
  KrylovOptions krylov;
  krylov.relative_tolerance = 1e-8;
  const HostProblem host{reference::to_dense(A),
                         [&](const HostVector& v) { return reference::preconditioner_solve(h, v); },
                         b, krylov.relative_tolerance * std::sqrt(dot(b, b))};
  const bool symmetric = form == IluForm::Ildlt;
  Vector x("x", A.num_rows());
  const SolveResult device = symmetric
                                 ? cg(ExecSpace(), A, M, reference::to_device(b), x, krylov)
                                 : bicgstab(ExecSpace(), A, M, reference::to_device(b), x, krylov);
  const int reference_iterations =
      symmetric ? host_cg(host, krylov.max_iterations) : host_bicgstab(host, krylov.max_iterations);
  REQUIRE(device.converged());
  REQUIRE(reference_iterations > 0);
  CHECK(std::abs(device.iterations - reference_iterations) <= 1);
}
