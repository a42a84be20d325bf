// The top-level Solver: options from key=value text, setup / solve in the caller's ordering,
// update_values reusing the setup, the exact global ILU in the caller's order, the
// positive-definite shift with CG, and typed errors for misuse.
#include "catch_compat.hpp"
#include "core/generators.hpp"
#include "precond/global_ilu_preconditioner.hpp"
#include "reference/dense.hpp"
#include "reference/ic0_breakdown.hpp"
#include "reference/random_matrix.hpp"
#include "reference/reference_ilu0.hpp"
#include "solver/solver.hpp"
#include "solver/solver_steps.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <utility>

using namespace fgdd;

TEST_CASE("SolverOptions from key=value text", "[solver]") {
  SolverOptions options;
  options.set_all({"method=gmres", "preconditioner=ic0-dd", "partitioner=natural",
                   "subdomain_rows=64", "apply=dag_vc_ILDU0_fused", "fill=1", "shift_pivots=true",
                   "tol=1e-10", "abs_tol=1e-14", "max_iters=77", "restart=12", "ortho=mgs",
                   "team_size=64", "stagnation=0", "pivot_threshold=1e-12",
                   "global_kernel=sync_free"});
  CHECK(options.global_kernel == GlobalRowKernel::SyncFree);
  CHECK(options.method == KrylovMethod::Gmres);
  CHECK(options.preconditioner == PreconditionerKind::Ic0Dd);
  CHECK(options.partition.partitioner == Partitioner::Natural);
  CHECK(options.partition.subdomain_rows == 64);
  CHECK(options.dd.apply == ApplyKernel::DagVcIlduFused);
  CHECK(options.dd.factor.level_of_fill == 1);
  CHECK(options.dd.factor.shift_tiny_pivots);
  CHECK(options.dd.factor.pivot_threshold == 1e-12);
  CHECK(options.dd.team_size == 64);
  CHECK(options.krylov.relative_tolerance == 1e-10);
  CHECK(options.krylov.absolute_tolerance == 1e-14);
  CHECK(options.krylov.max_iterations == 77);
  CHECK(options.krylov.restart == 12);
  CHECK(options.krylov.orthogonalization == Orthogonalization::Mgs);
  CHECK(options.krylov.stagnation_iterations == 0);
  CHECK_NOTHROW(options.validate());

  CHECK_THROWS_WITH(options.set("colour", "red"), FGDD_CONTAINS("unknown option 'colour'"));
  CHECK_THROWS_WITH(options.set("method", "minres"), FGDD_CONTAINS("bicgstab|gmres|cg|bicg"));
  CHECK_THROWS_WITH(options.set("tol", "tiny"), FGDD_CONTAINS("'tiny'"));
  CHECK_THROWS_WITH(options.set("max_iters", "-1"), FGDD_CONTAINS("max_iters"));
  CHECK_THROWS_WITH(options.set("shift_pivots", "maybe"), FGDD_CONTAINS("true|false"));
  CHECK_THROWS_WITH(options.set_all({"method"}), FGDD_CONTAINS("not key=value"));
  SolverOptions bad;
  bad.set_all({"method=bicg", "preconditioner=ilu0"});
  CHECK_THROWS_WITH(Solver(bad), FGDD_CONTAINS("transpose"));
  bad.set_all({"method=bicgstab", "fill=9"});
  CHECK_THROWS_AS(Solver(bad), InvalidInput);
}

TEST_CASE("Solver solves in the caller's ordering with every method and preconditioner",
          "[solver]") {
  const auto [method, preconditioner] =
      GENERATE(table<std::string, std::string>({{"bicgstab", "ildu0-dd"},
                                                {"bicgstab", "ilu0-dd"},
                                                {"bicgstab", "ilu0"},
                                                {"gmres", "ildu0"},
                                                {"gmres", "ildu0-dd"},
                                                {"bicg", "ildu0-dd"},
                                                {"bicg", "jacobi"},
                                                {"bicgstab", "none"}}));
  const int block_size = GENERATE(1, 2);
  CAPTURE(method, preconditioner, block_size);
  const SparseMatrix A = make_matrix(reference::random_matrix(70, block_size, 4, 31u));
  SolverOptions options;
  options.set_all({"method=" + method, "preconditioner=" + preconditioner, "partitioner=natural",
                   "subdomain_rows=" + std::to_string(16 * block_size), "tol=1e-10"});
  Solver solver(options);
  solver.setup(ExecSpace(), A);
  CHECK(solver.partition_report().num_subdomains == 5);
  const auto b = reference::random_vector(A.num_rows(), 3u);
  Vector x("x", A.num_rows());
  const SolveResult result = solver.solve(ExecSpace(), reference::to_device(b), x);
  REQUIRE(result.converged());
  // x is in the caller's ordering: its residual against the original A is small.
  CHECK(reference::relative_residual(A, reference::to_host(x), b) <= 1e-8);
}

TEST_CASE("Solver with the synchronization-free exact ILU0", "[solver]") {
  const SparseMatrix A = make_matrix(reference::random_matrix(90, 2, 4, 13u));
  SolverOptions options;
  options.set_all({"method=gmres", "preconditioner=ildu0", "global_kernel=sync_free", "tol=1e-10"});
  Solver solver(options);
  solver.setup(ExecSpace(), A);
  const auto b = reference::random_vector(A.num_rows(), 4u);
  Vector x("x", A.num_rows());
  REQUIRE(solver.solve(ExecSpace(), reference::to_device(b), x).converged());
  CHECK(reference::relative_residual(A, reference::to_host(x), b) <= 1e-8);
}

TEST_CASE("Solver with CG and ic0-dd on a generated SPD problem with grid metadata", "[solver]") {
  const GeneratedProblem problem = generate_problem("gen:lap7:9");
  SolverOptions options;
  options.set_all({"method=cg", "preconditioner=ic0-dd", "subdomain_rows=100"});
  Solver solver(options);
  solver.setup(ExecSpace(), problem.matrix, problem.grid);
  CHECK(solver.partition_report().partitioner == Partitioner::Geometric);
  Vector b("b", problem.matrix.num_rows()), x("x", problem.matrix.num_rows());
  Kokkos::deep_copy(b, 1.0);
  const SolveResult result = solver.solve(ExecSpace(), b, x);
  REQUIRE(result.converged());
  CHECK(result.relative_true_residual <= 1e-8);
  CHECK(solver.preconditioner().name().find("ic0-dd") == 0);
}

TEST_CASE("Solver with float factors converges like double factors", "[solver][float]") {
  // Only the apply's copy of the factors is rounded (relative 6e-8), far below what ILU(0)
  // leaves out, so the Krylov method sees nearly the same preconditioner: issue 35 asks for
  // iterations within 5 % and the same true residual.
  for (const char* spec :
       {"gen:lap7:11:9:8", "gen:bsr3:6", "gen:convdiff:10", "gen:reservoir:9:8:7"}) {
    for (const char* method : {"method=bicgstab", "method=gmres"}) {
      INFO(spec << " " << method);
      const GeneratedProblem problem = generate_problem(spec);
      const auto solve = [&](const char* precision) {
        SolverOptions options;
        options.set_all({method, "subdomain_rows=150", "tol=1e-8",
                         std::string("factor_precision=") + precision});
        Solver solver(options);
        solver.setup(ExecSpace(), problem.matrix, problem.grid);
        Vector b("b", problem.matrix.num_rows()), x("x", problem.matrix.num_rows());
        Kokkos::deep_copy(b, 1.0);
        const SolveResult result = solver.solve(ExecSpace(), b, x);
        return std::make_pair(result, solver.preconditioner().name());
      };
      const auto [twice, twice_name] = solve("double");
      const auto [single, single_name] = solve("float");
      REQUIRE(twice.converged());
      REQUIRE(single.converged());
      CHECK(single.relative_true_residual <= 1e-8);
      CHECK(std::abs(single.iterations - twice.iterations) <= 1 + twice.iterations / 20);
      CHECK(single_name.find("float factors") != std::string::npos);
      CHECK(twice_name.find("float") == std::string::npos);
    }
  }
}

TEST_CASE("factor_precision float is refused where only double factors are applied",
          "[solver][float]") {
  for (const char* preconditioner : {"ildu0-dd", "ilu0-dd", "ic0-dd"}) {
    SolverOptions options;
    options.set_all({std::string("preconditioner=") + preconditioner, "factor_precision=float"});
    CHECK_NOTHROW(options.validate());
    options.set("trsv", "jacobi");
    CHECK_THROWS_WITH(options.validate(), FGDD_CONTAINS("with trsv jacobi reads its factors"));
  }
  for (const char* preconditioner : {"ilu0", "ildu0", "struct-ilu0", "struct-ic0", "jacobi"}) {
    SolverOptions options;
    options.set_all({std::string("preconditioner=") + preconditioner, "factor_precision=float"});
    CHECK_THROWS_WITH(options.validate(), FGDD_CONTAINS(std::string(preconditioner) +
                                                        " reads its factors in double"));
    options.set("factor_precision", "auto");  // auto picks double there
    CHECK_NOTHROW(options.validate());
  }
}

TEST_CASE("Solver::update_values reuses the setup and matches a fresh solver", "[solver]") {
  const std::string preconditioner = GENERATE(as<std::string>(), "ildu0-dd", "ilu0", "jacobi");
  CAPTURE(preconditioner);
  auto arrays = reference::random_matrix(60, 1, 4, 8u);
  SolverOptions options;
  options.set_all({"preconditioner=" + preconditioner, "partitioner=natural", "subdomain_rows=20",
                   "tol=1e-12", "apply=dag_vc_ILDU0_fused"});
  Solver solver(options);
  solver.setup(ExecSpace(), make_matrix(arrays));
  for (auto& v : arrays.values) v *= 2;
  const SparseMatrix doubled = make_matrix(arrays);
  solver.update_values(ExecSpace(), doubled);
  Solver fresh(options);
  fresh.setup(ExecSpace(), doubled);
  const auto b = reference::to_device(reference::random_vector(60, 5u));
  Vector x("x", 60), y("y", 60);
  const SolveResult updated = solver.solve(ExecSpace(), b, x);
  const SolveResult rebuilt = fresh.solve(ExecSpace(), b, y);
  REQUIRE(updated.converged());
  CHECK(updated.iterations == rebuilt.iterations);
  CHECK(reference::to_host(x) == reference::to_host(y));

  auto other = reference::random_matrix(60, 1, 4, 9u);  // another pattern
  CHECK_THROWS_AS(solver.update_values(ExecSpace(), make_matrix(other)), InvalidInput);
}

namespace {

// A nonsymmetric tridiagonal matrix with its rows and columns shuffled: row path[k] couples to
// rows path[k - 1] and path[k + 1]. RCM lines the path up again, so ILU(0) in RCM order is the
// exact LU, while the permutation is no involution (a test that swapped P and Pᵀ would fail).
SparseMatrix shuffled_path(Ordinal n) {
  std::vector<Ordinal> path(n);
  std::iota(path.begin(), path.end(), 0);
  std::shuffle(path.begin(), path.end(), std::mt19937(2026u));
  std::vector<std::vector<std::pair<Ordinal, double>>> rows(n);
  for (Ordinal k = 0; k < n; ++k) {
    rows[path[k]].push_back({path[k], 4.0});
    if (k > 0) rows[path[k]].push_back({path[k - 1], -1.0 - 0.1 * (k % 3)});
    if (k + 1 < n) rows[path[k]].push_back({path[k + 1], -0.5});
  }
  HostMatrixArrays arrays;
  arrays.num_block_rows = arrays.num_block_cols = n;
  arrays.row_map.push_back(0);
  for (const auto& row : rows) {
    for (const auto& [column, value] : row) {
      arrays.col_ind.push_back(column);
      arrays.values.push_back(value);
    }
    arrays.row_map.push_back(arrays.col_ind.size());
  }
  return make_matrix(arrays);
}

// ‖A z − r‖∞ (or ‖Aᵀ z − r‖∞) on the host.
double residual_norm(const SparseMatrix& A, const std::vector<double>& z,
                     const std::vector<double>& r, bool transposed) {
  const reference::DenseMatrix dense = reference::to_dense(A);
  double most = 0;
  for (std::size_t i = 0; i < dense.n; ++i) {
    double sum = -r[i];
    for (std::size_t j = 0; j < dense.n; ++j)
      sum += (transposed ? dense(j, i) : dense(i, j)) * z[j];
    most = std::max(most, std::abs(sum));
  }
  return most;
}

}  // namespace

TEST_CASE("Solver::apply_preconditioner applies M⁻¹ and M⁻ᵀ in the caller's ordering",
          "[solver]") {
  const Ordinal n = 41;
  const SparseMatrix A = shuffled_path(n);
  const auto r = reference::random_vector(n, 12u);
  // The result is right only if r goes in and z comes out through RCM's permutation. The factors
  // are exact (the path in path order, one subdomain), so z = A⁻¹ r up to rounding: A is diagonally dominant with ‖A‖∞‖A⁻¹‖∞ < 3, and
  // the LU's backward error is a few units of roundoff per row.
  const double tolerance = 64 * std::numeric_limits<double>::epsilon();
  const std::string preconditioner = GENERATE(as<std::string>(), "ildu0", "ildu0-dd");
  CAPTURE(preconditioner);
  SolverOptions options;
  // Double factors: exact to double's rounding (the CPU default reads float ones).
  options.set_all({"preconditioner=" + preconditioner, "partitioner=rcm",
                   "subdomain_rows=" + std::to_string(n), "factor_precision=double"});
  Solver solver(options);
  Vector z("z", n);
  CHECK_THROWS_WITH(solver.apply_preconditioner(ExecSpace(), reference::to_device(r), z),
                    FGDD_CONTAINS("before setup"));
  solver.setup(ExecSpace(), A);
  solver.apply_preconditioner(ExecSpace(), reference::to_device(r), z);
  const auto z_host = reference::to_host(z);
  CHECK(residual_norm(A, z_host, r, false) <= tolerance);
  // In place (r and z the same vector): the same bits.
  Vector w = reference::to_device(r);
  solver.apply_preconditioner(ExecSpace(), w, w);
  CHECK(reference::unequal_entries(reference::to_host(w), z_host).empty());
  Vector wrong("wrong", n + 1);
  CHECK_THROWS_AS(solver.apply_preconditioner(ExecSpace(), wrong, z), DimensionMismatch);
  if (preconditioner_names.has(options.preconditioner, transpose_apply)) {
    solver.apply_preconditioner(ExecSpace(), reference::to_device(r), z, true);
    CHECK(residual_norm(A, reference::to_host(z), r, true) <= tolerance);
  } else {
    CHECK_THROWS_WITH(solver.apply_preconditioner(ExecSpace(), reference::to_device(r), z, true),
                      FGDD_CONTAINS("no transpose apply"));
  }
}

TEST_CASE("Solver: one subdomain leaves the operator's matrix unfactored", "[solver]") {
  // Nothing is dropped, so the dropped matrix is the operator's matrix A_p itself: the
  // factorization must copy it (factor_in_place only applies to a separate dropped copy).
  auto arrays = reference::random_matrix(50, 1, 4, 21u);
  SolverOptions options;
  options.set_all({"preconditioner=ildu0-dd", "partitioner=natural", "subdomain_rows=50",
                   "tol=1e-10"});
  Solver solver(options);
  solver.setup(ExecSpace(), make_matrix(arrays));
  REQUIRE(solver.partition_report().num_subdomains == 1);
  const auto b = reference::random_vector(50, 22u);
  for (int step = 0; step < 2; ++step) {
    if (step == 1) {
      for (auto& v : arrays.values) v *= 1.5;
      solver.update_values(ExecSpace(), make_matrix(arrays));
    }
    Vector x("x", 50);
    REQUIRE(solver.solve(ExecSpace(), reference::to_device(b), x).converged());
    CHECK(reference::relative_residual(make_matrix(arrays), reference::to_host(x), b) <= 1e-9);
  }
}

TEST_CASE("Solver: in the caller's order the operator is the caller's matrix, never written",
          "[solver]") {
  // Under the identity order A_p shares A's arrays instead of copying them: no preconditioner
  // may write into them, update_values takes the new matrix's values, and values changed in
  // place are what the next solve multiplies with (its preconditioner stays that of the values
  // last given).
  const std::string preconditioner =
      GENERATE(as<std::string>(), "ildu0-dd", "ic0-dd", "ilu0", "jacobi", "multilevel-ilu");
  const int subdomain_rows = GENERATE(216, 72);  // nothing dropped, or three subdomains
  CAPTURE(preconditioner, subdomain_rows);
  SolverOptions options;
  // Rows of each chunk in the partitioner's order: the GPU default would order them by levels,
  // and then the operator is the solver's own reordered copy.
  options.set_all({"preconditioner=" + preconditioner, "partitioner=natural",
                   "subdomain_order=partitioner",
                   "subdomain_rows=" + std::to_string(subdomain_rows), "tol=1e-10"});
  const SparseMatrix A = generate_problem("gen:lap7:6").matrix;
  const Ordinal n = A.num_rows();
  const auto values = reference::host_vector(A.values());
  // A second matrix of the same pattern in arrays of its own, with values 2A.
  SparseMatrix::Values doubled_values("doubled", values.size());
  Kokkos::deep_copy(doubled_values, A.values());
  const SparseMatrix doubled = make_matrix(A.num_block_rows(), A.num_block_rows(), 1, A.row_map(),
                                           A.col_ind(), doubled_values, false);
  Kokkos::parallel_for(
      "scale", Kokkos::RangePolicy<ExecSpace>(0, values.size()),
      KOKKOS_LAMBDA(const Offset k) { doubled_values(k) *= 2; });
  const auto b = reference::random_vector(n, 3u);
  Solver solver(options);
  solver.setup(ExecSpace(), A);
  Vector x("x", n);
  REQUIRE(solver.solve(ExecSpace(), reference::to_device(b), x).converged());
  CHECK(reference::relative_residual(A, reference::to_host(x), b) <= 1e-9);
  solver.update_values(ExecSpace(), doubled);
  Kokkos::deep_copy(x, 0.0);
  REQUIRE(solver.solve(ExecSpace(), reference::to_device(b), x).converged());
  CHECK(reference::relative_residual(doubled, reference::to_host(x), b) <= 1e-9);
  // 6A in place, without update_values: the products follow, so the solve converges to 6A's x.
  Kokkos::parallel_for(
      "scale", Kokkos::RangePolicy<ExecSpace>(0, values.size()),
      KOKKOS_LAMBDA(const Offset k) { doubled_values(k) *= 3; });
  Kokkos::deep_copy(x, 0.0);
  REQUIRE(solver.solve(ExecSpace(), reference::to_device(b), x).converged());
  CHECK(reference::relative_residual(doubled, reference::to_host(x), b) <= 1e-9);
  CHECK(reference::host_vector(A.values()) == values);
  std::vector<double> six_a = values;
  for (double& v : six_a) v *= 6;
  CHECK(reference::host_vector(doubled_values) == six_a);
}

TEST_CASE("Solver: b and x may be one vector, in the caller's order or another", "[solver]") {
  // In the caller's order the method works on the caller's b and x directly; where they are one
  // array it must not, and the answer is the one of distinct vectors with x₀ = b, bit for bit.
  const std::string partitioner = GENERATE(as<std::string>(), "natural", "rcm");
  CAPTURE(partitioner);
  SolverOptions options;
  options.set_all({"partitioner=" + partitioner, "subdomain_order=partitioner",
                   "subdomain_rows=100", "tol=1e-10"});
  const SparseMatrix A = generate_problem("gen:convdiff:7").matrix;
  const Ordinal n = A.num_rows();
  const auto b = reference::random_vector(n, 5u);
  Solver solver(options);
  solver.setup(ExecSpace(), A);
  Vector x = reference::to_device(b);  // x₀ = b
  const SolveResult distinct = solver.solve(ExecSpace(), reference::to_device(b), x);
  Vector one = reference::to_device(b);
  const SolveResult shared = solver.solve(ExecSpace(), one, one);
  REQUIRE(distinct.converged());
  REQUIRE(shared.converged());
  CHECK(shared.iterations == distinct.iterations);
  CHECK(reference::unequal_entries(reference::to_host(one), reference::to_host(x)).empty());
  CHECK(reference::relative_residual(A, reference::to_host(x), b) <= 1e-9);
}

TEST_CASE("Solver misuse throws typed errors", "[solver]") {
  Solver solver;
  Vector b("b", 4), x("x", 4);
  CHECK_THROWS_WITH(solver.solve(ExecSpace(), b, x), FGDD_CONTAINS("before setup"));
  CHECK_THROWS_AS(
      solver.update_values(ExecSpace(), make_matrix(reference::random_matrix(4, 1, 2, 1u))),
      InvalidInput);
  solver.setup(ExecSpace(), make_matrix(reference::random_matrix(4, 1, 2, 1u)));
  Vector wrong("wrong", 5);
  CHECK_THROWS_AS(solver.solve(ExecSpace(), wrong, x), DimensionMismatch);
}

TEST_CASE("SolverOptions::key_values reads back to the same options", "[solver]") {
  SolverOptions options;
  options.set_all({"method=gmres",
                   "preconditioner=ic0-dd",
                   "partitioner=natural",
                   "subdomain_rows=64",
                   "apply=dag_vc_ILDU0_fused",
                   "fill=1",
                   "shift_pivots=true",
                   "pivot_threshold=1e-12",
                   "team_size=64",
                   "factor_order=levels",
                   "global_kernel=sync_free",
                   "struct_schedule=tiles",
                   "struct_layout=grid",
                   "struct_factor_lanes=4",
                   "struct_factor_threads=8",
                   "tol=0.1234567890123456789",
                   "abs_tol=1e-14",
                   "max_iters=77",
                   "restart=12",
                   "ortho=mgs",
                   "stagnation=0",
                   "trsv=jacobi",
                   "jacobi_sweeps=3",
                   "jacobi_iters=5",
                   "overlap=0.25",
                   "jacobi_block_rows=100"});
  const std::vector<std::string> items = options.key_values();
  const std::vector<std::string> keys = SolverOptions::keys();
  REQUIRE(items.size() == keys.size());
  for (std::size_t k = 0; k < keys.size(); ++k) CHECK(items[k].rfind(keys[k] + "=", 0) == 0);
  SolverOptions copy;
  copy.set_all(items);
  CHECK(copy.key_values() == items);
  CHECK(copy.krylov.relative_tolerance == options.krylov.relative_tolerance);
  CHECK(SolverOptions{}.key_values() != items);
}

TEST_CASE("Solver refuses options the problem or the backend cannot take", "[solver]") {
  const ExecSpace space;
  const GeneratedProblem problem = generate_problem("gen:lap7:4");  // 64 rows
  Vector b("b", 64), x("x", 64);
  Kokkos::deep_copy(b, 1.0);
  SolverOptions options;
  SECTION("a team size above the backend's maximum for the apply kernels") {
    options.set("team_size", "100000");
    Solver solver(options);
    CHECK_THROWS_WITH(
        solver.setup(space, problem.matrix, problem.grid),
        FGDD_CONTAINS("team_size 100000 exceeds the") &&
            FGDD_CONTAINS(std::string("threads per team that ") + ExecSpace::name()) &&
            FGDD_CONTAINS("allowed: 0, Kokkos chooses, or 1 to"));
  }
  SECTION("a GMRES restart above the rows") {
    options.set_all({"method=gmres", "restart=65"});
    Solver solver(options);
    CHECK_THROWS_WITH(
        solver.setup(space, problem.matrix),
        FGDD_CONTAINS("restart 65 exceeds the 64 rows") && FGDD_CONTAINS("allowed: 1 to 64"));
    options.set("restart", "64");
    Solver longest(options);
    longest.setup(space, problem.matrix);
    CHECK(longest.solve(space, b, x).converged());
  }
  SECTION("the default restart on a problem smaller than it runs with a basis of n vectors") {
    const GeneratedProblem tiny = generate_problem("gen:lap7:2");  // 8 rows < restart 30
    options.set_all({"method=gmres", "preconditioner=none"});
    Solver solver(options);
    solver.setup(space, tiny.matrix);
    Vector b8("b8", 8), x8("x8", 8);
    Kokkos::deep_copy(b8, 1.0);
    CHECK(solver.solve(space, b8, x8).converged());
  }
}

TEST_CASE("SolverOptions: the pivot shift", "[solver]") {
  SolverOptions options;
  CHECK(options.dd.factor.effective_shift() == PivotShift::None);
  options.set("shift", "positive-definite");
  CHECK(options.dd.factor.shift == PivotShift::PositiveDefinite);
  options.set("shift", "positive_definite");
  CHECK(options.dd.factor.shift == PivotShift::PositiveDefinite);
  options.set("shift_amount", "0.01");
  CHECK(options.dd.factor.shift_amount == 0.01);
  CHECK(options.dd.factor.shift_attempts() == 9);  // 0.01·2⁸ = 2.56 is the first α ≥ 2
  CHECK_NOTHROW(options.validate());
  CHECK_THROWS_WITH(options.set("shift", "huge"), FGDD_CONTAINS("none|nonzero|positive-definite"));
  // shift_pivots is shift nonzero; with positive_definite it is a contradiction.
  options.set("shift_pivots", "true");
  CHECK_THROWS_WITH(options.validate(), FGDD_CONTAINS("contradicts"));
  options.set("shift", "none");
  CHECK(options.dd.factor.effective_shift() == PivotShift::Nonzero);
  options.set("shift", "nonzero");
  CHECK(options.dd.factor.effective_shift() == PivotShift::Nonzero);
  options.set("shift_amount", "0");
  options.set("shift", "positive_definite");
  options.set("shift_pivots", "false");
  CHECK_THROWS_WITH(options.validate(), FGDD_CONTAINS("shift_amount"));
}

TEST_CASE("Solver: ilu0 and ildu0 factor in the caller's order unless a partitioner is asked for",
          "[solver][global]") {
  // No grid: the default partitioner would be METIS (or RCM); the exact global ILU(0) must be
  // ILU(0) of the matrix as given.
  const std::string preconditioner = GENERATE("ilu0", "ildu0");
  CAPTURE(preconditioner);
  const SparseMatrix A = make_matrix(reference::random_matrix(200, 1, 5, 17u));
  SolverOptions options;
  options.set_all({"preconditioner=" + preconditioner, "tol=1e-10"});
  Solver solver(options);
  solver.setup(ExecSpace(), A);
  CHECK(solver.partition_report().partitioner == Partitioner::Natural);
  CHECK(solver.partition_report().reason == "auto: the global factorization keeps the caller's order");
  const auto& global = dynamic_cast<const GlobalIluPreconditioner&>(solver.preconditioner());
  const auto reference = reference::ilu0(reference::to_host_csr(A));
  const auto values = reference::host_vector(global.factorization().factors().values());
  const auto host = reference::to_host_csr(A);
  REQUIRE(values.size() == reference.values.size());
  for (Ordinal i = 0; i < host.num_block_rows(); ++i)
    for (Offset k = host.row_map[i]; k < host.row_map[i + 1]; ++k) {
      if (preconditioner == "ildu0" && host.col_ind[k] > i) continue;  // U scaled there
      CAPTURE(i, k);
      // Diagonally dominant rows of O(1) entries: rounding of a few updates.
      CHECK(values[k] == FGDD_CATCH_APPROX(reference.values[k]).margin(1e-12));
    }
  const auto b = reference::random_vector(A.num_rows(), 7u);
  Vector x("x", A.num_rows());
  REQUIRE(solver.solve(ExecSpace(), reference::to_device(b), x).converged());
  CHECK(reference::relative_residual(A, reference::to_host(x), b) <= 1e-8);

  // An explicit partitioner is kept (its ordering is the user's choice).
  SolverOptions rcm = options;
  rcm.set("partitioner", "rcm");
  CHECK(detail::partition_options_for(rcm).partitioner == Partitioner::Rcm);
  // The DD preconditioners keep auto.
  SolverOptions dd;
  CHECK(detail::partition_options_for(dd).partitioner == Partitioner::Auto);
}

TEST_CASE("Solver: CG with IC(0) breaks down on an SPD matrix unless shifted positive definite",
          "[solver]") {
  // IC(0) of the 6×6 grid matrix has the pivot −0.378 at its last row, so for b = e_last,
  // <b, M⁻¹ b> = 1/D_last < 0 and CG stops at once with breakdown; the positive-definite shift
  // makes M positive definite and CG converges.
  const std::string preconditioner = GENERATE("ic0-dd", "struct-ic0");
  CAPTURE(preconditioner);
  const int side = reference::ic0_breakdown_grid_side;
  const GridInfo grid{side, side, 1};
  const SparseMatrix A = make_matrix(reference::ic0_breakdown_grid());
  std::vector<double> b(A.num_rows(), 0.0);
  b.back() = 1;
  for (const std::string shift : {"none", "positive-definite"}) {
    CAPTURE(shift);
    SolverOptions options;
    options.set_all({"method=cg", "preconditioner=" + preconditioner, "partitioner=natural",
                     "subdomain_rows=36", "shift=" + shift, "tol=1e-10"});
    Solver solver(options);
    solver.setup(ExecSpace(), A, grid);
    Vector x("x", A.num_rows());
    const SolveResult result = solver.solve(ExecSpace(), reference::to_device(b), x);
    const FactorReport* report = solver.preconditioner().factor_report();
    REQUIRE(report != nullptr);
    if (shift == "none") {
      CHECK(result.status == SolveStatus::Breakdown);
      CHECK(report->shift == 0);
    } else {
      CHECK(result.converged());
      CHECK(reference::relative_residual(A, reference::to_host(x), b) <= 1e-8);
      CHECK(report->shift == 1.0 / 512);
      CHECK(report->shifted_rows == Offset(36));
    }
  }
}
