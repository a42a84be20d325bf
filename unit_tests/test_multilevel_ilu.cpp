// The inverse-based multilevel ILU (issue 36): the Crout factorization with deferral against the
// block relations of eq. (4), the device apply against a serial reference of eq. (5), an exact
// solver when nothing is dropped, and convergence where ILU(0) struggles.
#include "catch_compat.hpp"
#include "core/matrix_build.hpp"
#include "multilevel/crout_ildu.hpp"
#include "multilevel/multilevel_ilu.hpp"
#include "precond/multilevel_ilu_preconditioner.hpp"
#include "reference/dense.hpp"
#include "reference/random_matrix.hpp"
#include "reference/reference_generators.hpp"
#include "solver/solver.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace fgdd;
using detail::HostCsr;

namespace {

constexpr double eps = std::numeric_limits<double>::epsilon();

std::vector<double> dense_of(const HostCsr& M) {
  std::vector<double> dense(std::size_t(M.rows) * M.cols, 0.0);
  for (Ordinal i = 0; i < M.rows; ++i)
    for (Offset k = M.ptr[i]; k < M.ptr[i + 1]; ++k) dense[std::size_t(i) * M.cols + M.col[k]] = M.val[k];
  return dense;
}

// y = M x on the host, in long double.
std::vector<double> host_multiply(const HostCsr& M, const std::vector<double>& x) {
  std::vector<double> y(M.rows, 0.0);
  for (Ordinal i = 0; i < M.rows; ++i) {
    long double sum = 0;
    for (Offset k = M.ptr[i]; k < M.ptr[i + 1]; ++k) sum += (long double)M.val[k] * x[M.col[k]];
    y[i] = double(sum);
  }
  return y;
}

// v ← (L_B D_B U_B)⁻¹ v with the level's factors, in place.
void solve_ldu(const detail::HostLevel& level, std::vector<double>& v) {
  const HostCsr& F = level.factors;
  const Ordinal nb = level.nb;
  for (Ordinal i = 0; i < nb; ++i)  // L_B unit lower
    for (Offset k = F.ptr[i]; k < F.ptr[i + 1]; ++k)
      if (F.col[k] < i) v[i] -= F.val[k] * v[F.col[k]];
  for (Ordinal i = 0; i < nb; ++i) v[i] *= level.inv_d[i];
  for (Ordinal i = nb; i-- > 0;)  // U_B unit upper
    for (Offset k = F.ptr[i]; k < F.ptr[i + 1]; ++k)
      if (F.col[k] > i) v[i] -= F.val[k] * v[F.col[k]];
}

// The serial reference of eq. (5) on the host levels: gather and scale, forward with L_B, y_C −=
// L_C y_B, D_B⁻¹, the next level, x_B −= U_F x_C, backward with U_B, scale and scatter. With
// A's own coupling blocks (Original), eq. (5) as written: y_B = (L_B D_B U_B)⁻¹ r_B, y_C = r_C −
// A_CB y_B, the next level, x_B = (L_B D_B U_B)⁻¹ (r_B − A_BC x_C).
std::vector<double> reference_apply(const detail::MultilevelHostSetup& setup, std::size_t index,
                                    const std::vector<double>& r) {
  if (index == setup.levels.size()) {
    const Ordinal n = setup.dense_n;
    std::vector<double> z(n, 0.0);
    for (Ordinal i = 0; i < n; ++i)
      for (Ordinal j = 0; j < n; ++j) z[i] += setup.dense_inverse[std::size_t(i) * n + j] * r[j];
    return z;
  }
  const detail::HostLevel& level = setup.levels[index];
  const Ordinal n = level.n, nb = level.nb;
  std::vector<double> x(n);
  for (Ordinal q = 0; q < n; ++q) x[q] = level.row_scale[q] * r[level.perm[q]];
  if (level.couplings == MultilevelCouplings::Original) {
    const std::vector<double> r_b(x.begin(), x.begin() + nb);
    std::vector<double> x_b = r_b, x_c(x.begin() + nb, x.end());
    solve_ldu(level, x_b);
    if (nb < n) {
      const std::vector<double> acb_y = host_multiply(level.LC, x_b);
      for (Ordinal i = 0; i < n - nb; ++i) x_c[i] -= acb_y[i];
      x_c = reference_apply(setup, index + 1, x_c);
      const std::vector<double> abc_x = host_multiply(level.UF, x_c);
      for (Ordinal i = 0; i < nb; ++i) x_b[i] = r_b[i] - abc_x[i];
      solve_ldu(level, x_b);
    }
    std::vector<double> z(n);
    for (Ordinal q = 0; q < n; ++q)
      z[level.perm[q]] = level.col_scale[q] * (q < nb ? x_b[q] : x_c[q - nb]);
    return z;
  }
  const HostCsr& F = level.factors;
  for (Ordinal i = 0; i < nb; ++i)  // L_B unit lower
    for (Offset k = F.ptr[i]; k < F.ptr[i + 1]; ++k)
      if (F.col[k] < i) x[i] -= F.val[k] * x[F.col[k]];
  std::vector<double> x_b(x.begin(), x.begin() + nb), x_c(x.begin() + nb, x.end());
  const std::vector<double> lc_y = host_multiply(level.LC, x_b);
  for (Ordinal i = 0; i < n - nb; ++i) x_c[i] -= lc_y[i];
  for (Ordinal i = 0; i < nb; ++i) x_b[i] *= level.inv_d[i];
  if (nb < n) {
    const std::vector<double> w = reference_apply(setup, index + 1, x_c);
    const std::vector<double> uf_w = host_multiply(level.UF, w);
    for (Ordinal i = 0; i < nb; ++i) x_b[i] -= uf_w[i];
    x_c = w;
  }
  for (Ordinal i = nb; i-- > 0;)  // U_B unit upper
    for (Offset k = F.ptr[i]; k < F.ptr[i + 1]; ++k)
      if (F.col[k] > i) x_b[i] -= F.val[k] * x_b[F.col[k]];
  std::vector<double> z(n);
  for (Ordinal q = 0; q < n; ++q)
    z[level.perm[q]] = level.col_scale[q] * (q < nb ? x_b[q] : x_c[q - nb]);
  return z;
}

SparseMatrix convection(int n, double peclet) {
  return make_matrix(reference::convection_diffusion(n, peclet));
}

double relative_residual(const SparseMatrix& A, const std::vector<double>& z,
                         const std::vector<double>& r) {
  const HostCsr host = detail::scalar_host_csr(A);
  const std::vector<double> Az = host_multiply(host, z);
  double worst = 0, scale = 0;
  for (std::size_t i = 0; i < r.size(); ++i) {
    worst = std::max(worst, std::fabs(Az[i] - r[i]));
    scale = std::max(scale, std::fabs(r[i]));
  }
  return worst / scale;
}

}  // namespace

TEST_CASE("multilevel: the Crout factors with deferral satisfy eq. (4) when nothing is dropped",
          "[mlilu]") {
  const double kappa = GENERATE(1.5, 3.0, 1e30);
  CAPTURE(kappa);
  const SparseMatrix A = convection(6, 200.0);  // 216 rows, nonsymmetric
  HostCsr host = detail::scalar_host_csr(A);
  detail::CroutOptions options;
  options.drop_tolerance = 0;
  options.schur_drop = 0;
  options.inverse_bound = kappa;
  const detail::CroutFactors f = detail::crout_ildu(host, options);
  const Ordinal n = host.rows, nb = Ordinal(f.accepted.size()), nc = Ordinal(f.deferred.size());
  REQUIRE(nb + nc == n);
  if (kappa == 1e30) CHECK(nc == 0);
  if (kappa == 1.5) CHECK(nc > 0);
  // Every accepted pivot's estimates stayed within κ, so its columns of L and rows of U did too.
  for (const double v : f.L.val) CHECK(std::fabs(v) <= kappa);
  for (const double v : f.U.val) CHECK(std::fabs(v) <= kappa);

  // [L_B 0; L_C I] [D_B 0; 0 S] [U_B U_F; 0 I] = P A Pᵀ entry by entry.
  std::vector<Ordinal> order(f.accepted);
  order.insert(order.end(), f.deferred.begin(), f.deferred.end());
  const std::vector<double> a = dense_of(host);
  const std::vector<double> L = dense_of(f.L), U = dense_of(f.U), LC = dense_of(f.LC),
                            UF = dense_of(f.UF), S = dense_of(f.S);
  const auto lower = [&](Ordinal i, Ordinal p) {  // [L_B; L_C](i, p), p < nb
    if (i < nb) return i == p ? 1.0 : L[std::size_t(i) * nb + p];
    return LC[std::size_t(i - nb) * nb + p];
  };
  const auto upper = [&](Ordinal p, Ordinal j) {  // [U_B U_F](p, j)
    if (j < nb) return j == p ? 1.0 : U[std::size_t(p) * nb + j];
    return UF[std::size_t(p) * nc + (j - nb)];
  };
  double worst = 0, largest = 0;
  for (Ordinal i = 0; i < n; ++i)
    for (Ordinal j = 0; j < n; ++j) {
      long double sum = 0, magnitude = 0;
      for (Ordinal p = 0; p < std::min({i, j, nb - 1}) + 1 && p < nb; ++p) {
        const long double term = (long double)lower(i, p) * f.d[p] * upper(p, j);
        sum += term;
        magnitude += std::fabs(term);
      }
      if (i >= nb && j >= nb) sum += S[std::size_t(i - nb) * nc + (j - nb)];
      const double expected = a[std::size_t(order[i]) * n + order[j]];
      worst = std::max(worst, double(std::fabs(sum - expected) / (magnitude + std::fabs(expected) + 1e-300)));
      largest = std::max(largest, double(magnitude));
    }
  CAPTURE(nb, nc, worst);
  // Each entry is a sum of at most n products computed with as many roundings.
  CHECK(worst <= 4 * n * eps);
}

TEST_CASE("multilevel: the device apply equals the serial reference of eq. (5)", "[mlilu]") {
  struct Case {
    const char* name;
    SparseMatrix A;
  };
  const Case cases[] = {
      {"convection 8^3, Péclet 500", convection(8, 500.0)},
      {"reservoir 10x10x6", make_matrix(reference::reservoir_pressure(10, 10, 6, 3u))},
      {"random 1x1, odd size", make_matrix(reference::random_matrix(97, 1, 6, 11u))},
      {"bsr3 (scalar entries)", make_matrix(reference::multicomponent_bsr3(5))},
      {"one row", make_matrix(reference::random_matrix(1, 1, 1, 2u))},
  };
  const MultilevelOrdering ordering = GENERATE(MultilevelOrdering::Auto, MultilevelOrdering::Rcm,
                                               MultilevelOrdering::Natural);
  const MultilevelCouplings couplings =
      GENERATE(MultilevelCouplings::Factored, MultilevelCouplings::Original);
  for (const Case& c : cases) {
    CAPTURE(c.name, int(ordering), int(couplings));
    MultilevelIluOptions options;
    options.couplings = couplings;
    options.inverse_bound = 2;  // defers pivots, so there are several levels
    options.coarsest_size = 40;
    options.max_levels = 4;
    options.ordering = ordering;
    const detail::MultilevelHostSetup setup =
        detail::multilevel_setup(ExecSpace(), detail::scalar_host_csr(c.A), options);
    const MultilevelIlu ilu(ExecSpace(), c.A, options);
    REQUIRE(ilu.report().levels.size() == setup.levels.size());
    const Offset n = c.A.num_rows();
    const std::vector<double> r = reference::random_vector(n, 7u);
    const std::vector<double> expected = reference_apply(setup, 0, r);
    Vector z("z", n);
    ilu.apply(ExecSpace(), reference::to_device(r), z);
    const std::vector<double> got = reference::to_host(z);
    double largest = 0, worst = 0;
    for (Offset i = 0; i < n; ++i) {
      largest = std::max(largest, std::fabs(expected[i]));
      worst = std::max(worst, std::fabs(got[i] - expected[i]));
    }
    CAPTURE(ilu.report().summary(), worst, largest);
    REQUIRE(reference::all_finite(got));
    // Both sides do the same operations in other summation orders; the levels amplify rounding
    // by at most their inverse bounds.
    CHECK(worst <= 1e-9 * largest);
    // Run to run: the same bits.
    Vector again("again", n);
    ilu.apply(ExecSpace(), reference::to_device(r), again);
    CHECK(reference::to_host(again) == got);
  }
}

TEST_CASE("multilevel: with nothing dropped, the multilevel ILU solves A exactly", "[mlilu]") {
  const int levels = GENERATE(1, 2, 4);
  const MultilevelCouplings couplings =
      GENERATE(MultilevelCouplings::Factored, MultilevelCouplings::Original);
  CAPTURE(levels, int(couplings));
  const SparseMatrix A = convection(7, 100.0);
  MultilevelIluOptions options;
  options.couplings = couplings;
  options.drop_tolerance = 0;
  options.inverse_bound = 1.5;
  options.coarsest_size = 30;
  options.max_levels = levels;
  const MultilevelIlu ilu(ExecSpace(), A, options);
  CAPTURE(ilu.report().summary());
  CHECK(int(ilu.report().levels.size()) <= levels);
  const std::vector<double> r = reference::random_vector(A.num_rows(), 3u);
  Vector z("z", A.num_rows());
  ilu.apply(ExecSpace(), reference::to_device(r), z);
  // Nothing dropped (τ = 0 drops no Schur complement entry either): M = A up to rounding, so
  // the residual is rounding amplified by the condition of the pieces (κ bounds the factors').
  CHECK(relative_residual(A, reference::to_host(z), r) <= 1e-10);
}

TEST_CASE("multilevel: converges where ILU(0) needs many iterations; reports its levels",
          "[mlilu]") {
  const SparseMatrix A = make_matrix(reference::reservoir_pressure(24, 24, 8, 5u));
  const std::vector<double> b(A.num_rows(), 1.0);
  const auto run = [&](const char* precond) {
    SolverOptions options;
    options.set("method", "gmres");
    options.set("preconditioner", precond);
    options.set("max_iters", "2000");
    Solver solver(options);
    solver.setup(ExecSpace(), A);
    Vector x("x", A.num_rows());
    return solver.solve(ExecSpace(), reference::to_device(b), x);
  };
  const SolveResult multilevel = run("multilevel-ilu");
  const SolveResult ilu0 = run("ilu0");
  CAPTURE(multilevel.iterations, ilu0.iterations);
  REQUIRE(multilevel.converged());
  CHECK(multilevel.relative_true_residual <= 1e-8);
  CHECK(multilevel.iterations * 3 <= ilu0.iterations);
}

// Row-order sweeps (CPU backends) build no level sets, so the report counts none there; the
// level kernels (GPUs) count each triangle's.
TEST_CASE("multilevel: level sets are counted where the sweeps launch by level", "[mlilu]") {
  MultilevelIluOptions options;
  options.coarsest_size = 20;  // two levels or more on 512 rows
  const MultilevelIlu multilevel(ExecSpace(), convection(8, 500.0), options);
  REQUIRE(multilevel.report().levels.size() >= 2);
  for (const MultilevelLevelReport& level : multilevel.report().levels) {
    CAPTURE(level.rows);
    CHECK((level.lower_levels > 0) == !host_memory);
    CHECK((level.upper_levels > 0) == !host_memory);
  }
}

TEST_CASE("multilevel: options are validated; new values set up again", "[mlilu]") {
  const SparseMatrix A = convection(5, 50.0);
  MultilevelIluOptions bad;
  bad.drop_tolerance = 1.5;
  CHECK_THROWS_WITH(MultilevelIlu(ExecSpace(), A, bad), FGDD_CONTAINS("drop tolerance"));
  bad = {};
  bad.inverse_bound = 0.5;
  CHECK_THROWS_WITH(MultilevelIlu(ExecSpace(), A, bad), FGDD_CONTAINS("inverse bound"));
  bad = {};
  bad.coarsest_size = 5000;
  CHECK_THROWS_WITH(MultilevelIlu(ExecSpace(), A, bad), FGDD_CONTAINS("coarsest size"));
  SolverOptions options;
  CHECK_THROWS_WITH(options.set("multilevel_ordering", "amd"), FGDD_CONTAINS("nd|rcm"));
  CHECK_THROWS_WITH(options.set("multilevel_couplings", "dropped"),
                    FGDD_CONTAINS("factored|original"));
  options.set("preconditioner", "multilevel-ilu");
  options.set("trsv", "jacobi");
  CHECK_THROWS_WITH(options.validate(), FGDD_CONTAINS("ILU preconditioner"));

  MultilevelIluPreconditioner M(ExecSpace(), A, MultilevelIluOptions{});
  const std::vector<double> r = reference::random_vector(A.num_rows(), 9u);
  Vector z("z", A.num_rows()), z_fresh("z_fresh", A.num_rows());
  const SparseMatrix twice = convection(5, 50.0);  // same pattern; values below
  auto arrays = reference::convection_diffusion(5, 80.0);
  const SparseMatrix other_values = make_matrix(arrays);
  // The same values again: the same pivots are deferred (and the orders were reused).
  M.update_values(ExecSpace(), twice, twice);
  CHECK(M.multilevel().report().from_previous);
  CHECK(M.multilevel().report().pivots_held);
  CHECK(M.pivot_sets_held() == 1);
  M.update_values(ExecSpace(), other_values, other_values);
  CHECK(M.setups() == 3);
  CHECK_THAT(M.name(), FGDD_CONTAINS("setups 3"));
  const MultilevelIlu fresh(ExecSpace(), other_values, MultilevelIluOptions{});
  M.apply(ExecSpace(), reference::to_device(r), z);
  fresh.apply(ExecSpace(), reference::to_device(r), z_fresh);
  CHECK(reference::to_host(z) == reference::to_host(z_fresh));
  Vector short_vector("short", A.num_rows() - 1);
  CHECK_THROWS_AS(M.apply(ExecSpace(), reference::to_device(r), short_vector), DimensionMismatch);
  CHECK_FALSE(M.has_transpose());
  CHECK_THROWS_WITH(M.apply_transpose(ExecSpace(), reference::to_device(r), z),
                    FGDD_CONTAINS("with_transpose"));
}

TEST_CASE("multilevel: the transpose apply is the transpose of the apply; BiCG converges",
          "[mlilu]") {
  const MultilevelCouplings couplings =
      GENERATE(MultilevelCouplings::Factored, MultilevelCouplings::Original);
  CAPTURE(int(couplings));
  const SparseMatrix A = convection(4, 300.0);  // 64 rows, nonsymmetric
  const Offset n = A.num_rows();
  MultilevelIluOptions options;
  options.couplings = couplings;
  options.inverse_bound = 1.5;
  options.coarsest_size = 8;
  options.max_levels = 5;
  const MultilevelIlu ilu(ExecSpace(), A, options, true);
  CAPTURE(ilu.report().summary());
  REQUIRE(ilu.report().levels.size() >= 2);
  REQUIRE(ilu.has_transpose());
  // Column j of M⁻¹ and of M⁻ᵀ from unit vectors: (M⁻ᵀ)_ij must equal (M⁻¹)_ji.
  std::vector<double> inverse(n * n), inverse_transposed(n * n);
  double largest = 0;
  for (Offset j = 0; j < n; ++j) {
    std::vector<double> e(n, 0.0);
    e[j] = 1;
    Vector z("z", n), zt("zt", n);
    ilu.apply(ExecSpace(), reference::to_device(e), z);
    ilu.apply_transpose(ExecSpace(), reference::to_device(e), zt);
    const auto z_host = reference::to_host(z), zt_host = reference::to_host(zt);
    for (Offset i = 0; i < n; ++i) {
      inverse[i * n + j] = z_host[i];
      inverse_transposed[i * n + j] = zt_host[i];
      largest = std::max(largest, std::fabs(z_host[i]));
    }
  }
  double worst = 0;
  for (Offset i = 0; i < n; ++i)
    for (Offset j = 0; j < n; ++j)
      worst = std::max(worst, std::fabs(inverse_transposed[i * n + j] - inverse[j * n + i]));
  CAPTURE(worst, largest);
  // The same products in another order per level: rounding, times the levels' growth.
  CHECK(worst <= 1e-10 * largest);

  SolverOptions solver_options;
  solver_options.set("method", "bicg");
  solver_options.set("preconditioner", "multilevel-ilu");
  solver_options.set("multilevel_couplings", multilevel_couplings_names.name(couplings));
  Solver solver(solver_options);
  const SparseMatrix B = make_matrix(reference::reservoir_pressure(12, 12, 6, 4u));
  solver.setup(ExecSpace(), B);
  Vector x("x", B.num_rows());
  const SolveResult result =
      solver.solve(ExecSpace(), reference::to_device(std::vector<double>(B.num_rows(), 1.0)), x);
  CAPTURE(result.iterations, result.reason);
  CHECK(result.converged());
  CHECK(result.relative_true_residual <= 1e-8);
}
