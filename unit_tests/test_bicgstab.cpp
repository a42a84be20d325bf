// BiCGSTAB with none / block Jacobi: converges to the dense reference solution, and every failure
// comes back as a status with x finite.
#include "catch_compat.hpp"
#include "core/spmv.hpp"
#include "krylov/bicgstab.hpp"
#include "precond/block_jacobi.hpp"
#include "reference/dense.hpp"
#include "reference/random_matrix.hpp"

#include <cmath>

using namespace fgdd;

TEST_CASE("bicgstab converges on diagonally dominant CSR and BSR matrices", "[krylov][bicgstab]") {
  const auto [block_rows, block_size] =
      GENERATE(table<Ordinal, int>({{1, 1}, {157, 1}, {1, 3}, {61, 2}, {45, 3}, {33, 4}}));
  const bool use_jacobi = GENERATE(false, true);
  CAPTURE(block_rows, block_size, use_jacobi);
  const SparseMatrix A = make_matrix(reference::random_matrix(block_rows, block_size, 5, 99u));
  const auto b = reference::random_vector(A.num_rows(), 3u);
  Vector x("x", A.num_rows());
  KrylovOptions options;
  options.relative_tolerance = 1e-10;
  options.max_iterations = 500;
  const IdentityPreconditioner none;
  const BlockJacobi jacobi(A);
  const Preconditioner& M = use_jacobi ? static_cast<const Preconditioner&>(jacobi) : none;
  const SolveResult result = bicgstab(ExecSpace(), A, M, reference::to_device(b), x, options);
  REQUIRE(result.status == SolveStatus::Converged);
  CHECK(result.iterations <= 500);
  CHECK(result.residual_history.size() == std::size_t(result.iterations) + 1);
  // The recomputed residual may exceed the recurrence one by rounding, a few orders at most.
  CHECK(result.relative_true_residual < 1e-8);
  CHECK(reference::relative_residual(A, reference::to_host(x), b) < 1e-8);
}

TEST_CASE("bicgstab reports failures as statuses", "[krylov][bicgstab]") {
  const SparseMatrix A = make_matrix(reference::random_matrix(40, 1, 4, 5u));
  const IdentityPreconditioner none;
  KrylovOptions options;
  SECTION("max iterations") {
    options.max_iterations = 2;
    options.relative_tolerance = 1e-14;
    Vector x("x", 40), b("b", 40);
    Kokkos::deep_copy(b, 1.0);
    const SolveResult result = bicgstab(ExecSpace(), A, none, b, x, options);
    CHECK(result.status == SolveStatus::MaxIterations);
    CHECK(result.iterations == 2);
    CHECK(reference::all_finite(reference::to_host(x)));
  }
  SECTION("NaN in b") {
    auto host_b = reference::random_vector(40, 1u);
    host_b[17] = std::nan("");
    Vector x("x", 40);
    const SolveResult result = bicgstab(ExecSpace(), A, none, reference::to_device(host_b), x, options);
    CHECK(result.status == SolveStatus::NanOrInf);
    CHECK(reference::all_finite(reference::to_host(x)));
  }
  SECTION("zero right-hand side converges at once with x = 0") {
    Vector x("x", 40), b("b", 40);
    const SolveResult result = bicgstab(ExecSpace(), A, none, b, x, options);
    CHECK(result.status == SolveStatus::Converged);
    CHECK(result.iterations == 0);
  }
  SECTION("a preconditioner that produces NaN") {
    struct NanPreconditioner final : Preconditioner {
      void apply(const ExecSpace& space, ConstVector, Vector z) const override {
        Kokkos::deep_copy(space, z, std::nan(""));
      }
      std::string name() const override { return "nan"; }
    } broken;
    Vector x("x", 40), b("b", 40);
    Kokkos::deep_copy(b, 1.0);
    const SolveResult result = bicgstab(ExecSpace(), A, broken, b, x, options);
    CHECK(result.status == SolveStatus::NanOrInf);
    CHECK(reference::all_finite(reference::to_host(x)));
    CHECK(std::isfinite(result.true_residual));
  }
  SECTION("breakdown on a skew-symmetric system") {
    // A = [[1, 1], [-1, 1]] - I = skew: r̂ᵀ A r̂ = 0 makes <r̂, v> vanish with M = I.
    HostMatrixArrays skew;
    skew.num_block_rows = skew.num_block_cols = 2;
    skew.row_map = {0, 2, 4};
    skew.col_ind = {0, 1, 0, 1};
    skew.values = {0, 1, -1, 0};
    const SparseMatrix S = make_matrix(skew);
    Vector x("x", 2), b("b", 2);
    Kokkos::deep_copy(b, 1.0);
    const SolveResult result = bicgstab(ExecSpace(), S, none, b, x, options);
    CHECK(result.status == SolveStatus::Breakdown);
    CHECK(reference::all_finite(reference::to_host(x)));
  }
  SECTION("invalid options and sizes throw") {
    Vector x("x", 40), b("b", 39);
    CHECK_THROWS_AS(bicgstab(ExecSpace(), A, none, b, x, options), DimensionMismatch);
    options.max_iterations = -1;
    Vector b40("b", 40);
    CHECK_THROWS_AS(bicgstab(ExecSpace(), A, none, b40, x, options), InvalidInput);
  }
}

TEST_CASE("block Jacobi applies the inverse diagonal blocks", "[krylov][jacobi]") {
  const int block_size = GENERATE(1, 2, 3, 4);
  const SparseMatrix A = make_matrix(reference::random_matrix(23, block_size, 3, 17u));
  const auto r = reference::random_vector(A.num_rows(), 2u);
  Vector z("z", A.num_rows());
  BlockJacobi(A).apply(ExecSpace(), reference::to_device(r), z);
  // D z must give back r, with D the block diagonal of A.
  const auto dense = reference::to_dense(A);
  const auto zh = reference::to_host(z);
  for (std::size_t i = 0; i < r.size(); ++i) {
    double sum = 0;
    const std::size_t block = i / block_size;
    for (int j = 0; j < block_size; ++j) sum += dense(i, block * block_size + j) * zh[block * block_size + j];
    CHECK(sum == FGDD_CATCH_APPROX(r[i]).margin(1e-12));
  }
}

TEST_CASE("block Jacobi names the row of a singular diagonal", "[krylov][jacobi]") {
  HostMatrixArrays m;
  m.num_block_rows = m.num_block_cols = 3;
  m.row_map = {0, 1, 3, 4};
  m.col_ind = {0, 0, 1, 2};
  m.values = {2, 1, 0, 3};
  try {
    BlockJacobi jacobi(make_matrix(m));
    FAIL("expected ZeroPivot");
  } catch (const ZeroPivot& pivot) {
    CHECK(pivot.row() == 1);
    CHECK(pivot.value() == 0);
  }
}
