// Matrix-free operators: the Krylov methods run on any Operator. A 1-D Laplacian applied by a
// kernel, with no matrix, gives the same iterates as the same matrix through MatrixOperator.
#include "catch_compat.hpp"
#include "core/errors.hpp"
#include "core/matrix_build.hpp"
#include "krylov/bicg.hpp"
#include "krylov/cg.hpp"
#include "krylov/gmres.hpp"
#include "reference/dense.hpp"

#include <cfloat>
#include <cmath>

using namespace fgdd;

namespace {

// y_i = 2 x_i − x_{i−1} − x_{i+1} (Dirichlet ends).
void apply_laplacian_1d(const ExecSpace& space, ConstVector x, Vector y) {
  const Offset n = x.extent(0);
  Kokkos::parallel_for(
      "test::laplacian_1d", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const Offset i) {
        Scalar v = 2 * x(i);
        if (i > 0) v -= x(i - 1);
        if (i + 1 < n) v -= x(i + 1);
        y(i) = v;
      });
}

class Laplacian1d final : public Operator {
 public:
  explicit Laplacian1d(Offset n) : n_(n) {}
  Offset num_rows() const override { return n_; }
  void apply(const ExecSpace& space, ConstVector x, Vector y) const override {
    check_vector_size(*this, x.extent(0), "x");
    apply_laplacian_1d(space, x, y);
  }
  std::string name() const override { return "laplacian-1d"; }

 private:
  Offset n_;
};

SparseMatrix laplacian_matrix(Ordinal n) {
  HostMatrixArrays m;
  m.num_block_rows = m.num_block_cols = n;
  m.row_map.push_back(0);
  for (Ordinal i = 0; i < n; ++i) {
    for (Ordinal j = std::max(0, i - 1); j <= std::min(n - 1, i + 1); ++j) {
      m.col_ind.push_back(j);
      m.values.push_back(i == j ? 2.0 : -1.0);
    }
    m.row_map.push_back(m.col_ind.size());
  }
  return make_matrix(m);
}

}  // namespace

TEST_CASE("Krylov methods run on a matrix-free operator", "[krylov][operator]") {
  const Ordinal n = 57;
  const Laplacian1d free_form(n);
  const MatrixOperator assembled(laplacian_matrix(n));
  const auto b = reference::random_vector(n, 8u);
  const IdentityPreconditioner none;
  KrylovOptions options;
  options.relative_tolerance = 1e-10;
  for (const bool use_gmres : {false, true}) {
    CAPTURE(use_gmres);
    Vector x_free("x_free", n), x_matrix("x_matrix", n);
    const auto solve = [&](const Operator& A, Vector x) {
      return use_gmres ? gmres(ExecSpace(), A, none, reference::to_device(b), x, options)
                       : cg(ExecSpace(), A, none, reference::to_device(b), x, options);
    };
    const SolveResult free_result = solve(free_form, x_free);
    const SolveResult matrix_result = solve(assembled, x_matrix);
    REQUIRE(free_result.converged());
    // Same operator, same arithmetic order per row (CG's <p, A p> summed in another order, fused
    // into the matrix's product on CPUs): the same iteration count.
    CHECK(free_result.iterations == matrix_result.iterations);
    CHECK(reference::relative_residual(assembled.matrix(), reference::to_host(x_free), b) <= 1e-9);
  }
}

TEST_CASE("apply_dots: the product with <w, y> and <y, y>, fused or not", "[krylov][operator]") {
  // MatrixOperator fuses the sums into its product on CPU backends; the matrix-free operator
  // takes the default (apply, then the dot products). Same y, sums equal to rounding.
  const Ordinal n = 301;
  const Laplacian1d free_form(n);
  const MatrixOperator assembled(laplacian_matrix(n));
  const auto x = reference::to_device(reference::random_vector(n, 21u));
  const auto w = reference::random_vector(n, 22u);
  Vector y_free("y_free", n), y_matrix("y_matrix", n);
  const auto free_dots = free_form.apply_dots(ExecSpace(), x, y_free, reference::to_device(w));
  const auto matrix_dots = assembled.apply_dots(ExecSpace(), x, y_matrix, reference::to_device(w));
  const auto y = reference::to_host(y_free), y_of_matrix = reference::to_host(y_matrix);
  for (Ordinal i = 0; i < n; ++i) {
    CAPTURE(i);
    if constexpr (host_memory)  // three terms a row, summed in the same order
      CHECK(y[i] == y_of_matrix[i]);
    else  // Kokkos-Kernels' product on GPUs
      CHECK(y[i] == FGDD_CATCH_APPROX(y_of_matrix[i]).margin(1e-14));
  }
  double w_y = 0, y_y = 0, magnitude = 0;
  for (Ordinal i = 0; i < n; ++i) {
    w_y += w[i] * y[i];
    y_y += y[i] * y[i];
    magnitude += std::fabs(w[i] * y[i]);
  }
  const double bound = 2.0 * n * DBL_EPSILON;  // two orders of n additions each
  for (const auto& dots : {free_dots, matrix_dots}) {
    CHECK(std::fabs(dots[0] - w_y) <= bound * magnitude);
    CHECK(std::fabs(dots[1] - y_y) <= bound * y_y);
  }
}

TEST_CASE("operators check sizes and transposes", "[krylov][operator]") {
  const Laplacian1d A(10);
  CHECK_FALSE(A.has_transpose());
  Vector x("x", 10), y("y", 10), wrong("wrong", 11);
  CHECK_THROWS_WITH(A.apply_transpose(ExecSpace(), x, y), FGDD_CONTAINS("laplacian-1d"));
  CHECK_THROWS_AS(check_vector_size(A, 11, "b"), DimensionMismatch);
  CHECK_THROWS_WITH(bicg(ExecSpace(), A, IdentityPreconditioner(), x, y, KrylovOptions{}),
                    FGDD_CONTAINS("needs Aᵀ"));
  CHECK_THROWS_AS(cg(ExecSpace(), A, IdentityPreconditioner(), wrong, y, KrylovOptions{}),
                  DimensionMismatch);
  const MatrixOperator M(laplacian_matrix(10));
  CHECK(M.has_transpose());
  CHECK(M.num_rows() == 10);
}
