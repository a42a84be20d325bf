// KrylovWorkspace: a solve in a reused workspace, even one whose vectors hold NaN, gives the bits
// of a solve in fresh vectors, for every method of the table (BiCG, whose Aᵀ product adds with
// atomics, to a tolerance); the Solver keeps its workspace.
#include "catch_compat.hpp"
#include "core/generators.hpp"
#include "krylov/krylov_method.hpp"
#include "precond/dd_ilu_preconditioner.hpp"
#include "reference/dense.hpp"
#include "solver/solver.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace fgdd;

TEST_CASE("Krylov methods in a reused workspace give the bits of fresh vectors", "[krylov]") {
  const GeneratedProblem problem = laplace7(7, 6, 5);  // SPD: every method applies
  const SparseMatrix& A = problem.matrix;
  const Offset n = A.num_rows();
  const MatrixOperator op(A);
  const IdentityPreconditioner M;
  KrylovOptions options;
  options.relative_tolerance = 1e-10;
  options.restart = 12;  // GMRES restarts within the solve
  const Vector b = reference::to_device(reference::random_vector(n, 4u));
  const Vector other_b = reference::to_device(reference::random_vector(n, 5u));
  for (const KrylovMethod method : method_names.values()) {
    CAPTURE(to_string(method));
    Vector fresh_x("fresh_x", n);
    const SolveResult fresh = solve_with(method, ExecSpace(), op, M, b, fresh_x, options);
    REQUIRE(fresh.converged());
    KrylovWorkspace workspace;
    Vector x("x", n);
    solve_with(method, ExecSpace(), op, M, other_b, x, options, &workspace);
    CHECK(workspace.bytes() >= 4 * n * sizeof(Scalar));
    workspace.fill(ExecSpace(), std::numeric_limits<Scalar>::quiet_NaN());
    Kokkos::deep_copy(x, 0.0);
    const SolveResult reused = solve_with(method, ExecSpace(), op, M, b, x, options, &workspace);
    REQUIRE(reused.converged());
    if (method_names.has(method, needs_transpose)) {
      // Aᵀ p adds into its rows with atomics on parallel backends, so BiCG's last bits vary run
      // to run with fresh vectors too: a NaN read would still show, as a failed solve or here.
      const auto got = reference::to_host(x), want = reference::to_host(fresh_x);
      double most = 0, scale = 0;
      for (std::size_t i = 0; i < got.size(); ++i) {
        most = std::max(most, std::abs(got[i] - want[i]));
        scale = std::max(scale, std::abs(want[i]));
      }
      // Each is within κ(A)·1e-10 of the solution (κ ≈ 40 here): 1e-7 leaves room for norms.
      CHECK(most <= 1e-7 * scale);
      continue;
    }
    CHECK(reused.iterations == fresh.iterations);
    CHECK(reused.residual_history == fresh.residual_history);
    CHECK(reference::unequal_entries(reference::to_host(x), reference::to_host(fresh_x)).empty());
  }
}

TEST_CASE("Solver solves again with the vectors of its first solve", "[krylov][solver]") {
  const GeneratedProblem problem = laplace7(9, 8, 7);
  SolverOptions options;
  options.set_all({"partitioner=natural", "subdomain_rows=64", "tol=1e-9"});
  Solver solver(options);
  solver.setup(ExecSpace(), problem.matrix);
  const Offset n = problem.matrix.num_rows();
  const Vector b = reference::to_device(reference::random_vector(n, 6u));
  Vector first("first", n), second("second", n);
  const SolveResult one = solver.solve(ExecSpace(), b, first);
  const SolveResult two = solver.solve(ExecSpace(), b, second);
  CHECK(one.iterations == two.iterations);
  CHECK(reference::unequal_entries(reference::to_host(first), reference::to_host(second)).empty());
}

TEST_CASE("Workspace vectors never share memory, and keep their length", "[krylov]") {
  KrylovWorkspace workspace;
  // 17 labels fill more than one slab of host slices; odd lengths leave padding between them.
  for (const Offset n : {Offset(1), Offset(37), Offset(300001)}) {
    CAPTURE(n);
    std::vector<Vector> vectors;
    for (int k = 0; k < 17; ++k) {
      vectors.push_back(workspace.vector("v" + std::to_string(k), n));
      REQUIRE(vectors.back().extent(0) == n);
      Kokkos::deep_copy(vectors.back(), Scalar(k));
    }
    for (int k = 0; k < 17; ++k) {
      const auto host = reference::to_host(vectors[k]);
      CHECK(std::all_of(host.begin(), host.end(), [&](Scalar v) { return v == Scalar(k); }));
      // Asking again for a label of the same length returns the same memory.
      CHECK(workspace.vector("v" + std::to_string(k), n).data() == vectors[k].data());
    }
  }
}
