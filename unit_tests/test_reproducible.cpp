// Issue 34: the default solve gives the same bits run to run on one device, build and options.
// Each problem is set up and solved ten times from scratch (partition, reorder, factor, level
// sets, apply, SpMV, dot products, BiCGSTAB, GMRES) and every x, iteration count and residual
// history must equal the first; on GPUs this is what catches atomics and order-dependent
// reductions. The default apply (auto) and the lanes kernel are checked, float factors, the
// structured preconditioners, and GMRES on the Kronecker operator with the stage
// preconditioner. (The distributed solve: unit_tests/mpi/test_distributed.cpp.)
#include "catch_compat.hpp"
#include "core/generators.hpp"
#include "kron/kronecker_operator.hpp"
#include "kron/kronecker_problem.hpp"
#include "kron/stage_preconditioner.hpp"
#include "krylov/gmres.hpp"
#include "reference/dense.hpp"
#include "reference/random_matrix.hpp"
#include "solver/solver.hpp"

#include <cstring>

using namespace fgdd;

namespace {

struct Run {
  std::vector<double> x;
  int iterations;
  std::vector<double> history;
};

Run solve_once(const GeneratedProblem& problem, const std::vector<std::string>& keys) {
  SolverOptions options;
  options.set_all(keys);
  Solver solver(options);
  solver.setup(ExecSpace(), problem.matrix, problem.grid);
  const Offset n = problem.matrix.num_rows();
  Vector b("b", n), x("x", n);
  Kokkos::deep_copy(b, 1.0);
  const SolveResult result = solver.solve(ExecSpace(), b, x);
  return {reference::to_host(x), result.iterations, result.residual_history};
}

// Bitwise: NaN-safe and −0 ≠ +0, as a user diffing two output files would see it.
bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

}  // namespace

TEST_CASE("default solves and the lanes apply are bitwise reproducible run to run",
          "[reproducible][solver]") {
  std::vector<GeneratedProblem> problems;
  problems.push_back(generate_problem("gen:lap7:17:13:11"));
  problems.push_back(generate_problem("gen:lap27:9:11:7"));
  problems.push_back(generate_problem("gen:bsr3:7"));
  problems.push_back(generate_problem("gen:convdiff:13"));
  problems.push_back(generate_problem("gen:reservoir:12:10:9"));
  // No grid: partitioned by METIS (or RCM chunks), irregular subdomains.
  problems.push_back(
      {make_matrix(reference::random_matrix(301, 1, 6, 17u)), GridInfo{}, "random 301"});
  problems.push_back(
      {make_matrix(reference::random_matrix(97, 3, 4, 5u)), GridInfo{}, "random BSR3 97"});
  const std::vector<std::vector<std::string>> configurations = {
      {"subdomain_rows=200", "tol=1e-10"},
      {"subdomain_rows=200", "tol=1e-10", "method=gmres", "restart=20"},
      {"subdomain_rows=200", "tol=1e-10", "apply=dag_lanes_ILDU0_fused"},
      {"subdomain_rows=200", "tol=1e-10", "factor_precision=float"},
      {"tol=1e-10", "preconditioner=struct-ilu0"}};
  for (const auto& problem : problems) {
    for (const auto& keys : configurations) {
      // The structured preconditioners need the grid the generators give.
      if (keys.back() == "preconditioner=struct-ilu0" && problem.grid.empty()) continue;
      CAPTURE(problem.description, keys.size());
      const Run first = solve_once(problem, keys);
      CHECK(first.iterations > 0);
      for (int run = 1; run < 10; ++run) {
        const Run again = solve_once(problem, keys);
        CHECK(again.iterations == first.iterations);
        CHECK(same_bits(again.history, first.history));
        CHECK(same_bits(again.x, first.x));
      }
    }
  }
}

TEST_CASE("GMRES on the Kronecker operator with the stage preconditioner is bitwise reproducible",
          "[reproducible][kronecker]") {
  const KroneckerProblem p = make_irk_problem(ExecSpace(), generate_problem("gen:convdiff:9"),
                                              IrkScheme::RadauIIA, 3, MassKind::Consistent, 0.4);
  const int s = p.coefficients.stages;
  const Offset length = p.M.num_rows() * s;
  const auto once = [&] {
    const KroneckerOperator op(p.M, p.L, p.coefficients, p.tau);
    StagePreconditionerOptions options;
    options.partition.subdomain_rows = 150;
    const KroneckerStagePreconditioner P(ExecSpace(), p.M, p.L, p.coefficients, p.tau, p.grid,
                                         options);
    Vector f("f", length), u("u", length);
    Kokkos::deep_copy(f, 1.0);
    KrylovOptions krylov;
    krylov.relative_tolerance = 1e-10;
    const SolveResult result = gmres(ExecSpace(), op, P, f, u, krylov);
    return Run{reference::to_host(u), result.iterations, result.residual_history};
  };
  const Run first = once();
  CHECK(first.iterations > 0);
  for (int run = 1; run < 10; ++run) {
    const Run again = once();
    CHECK(again.iterations == first.iterations);
    CHECK(same_bits(again.history, first.history));
    CHECK(same_bits(again.x, first.x));
  }
}
