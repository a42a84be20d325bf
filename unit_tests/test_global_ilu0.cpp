// The exact global ILU0 / ILDU0 and its level-scheduled solves against serial references:
// device-built level sets are the longest-path levels of each triangle; the factors equal the
// serial IKJ ILU0 within a rounding bound derived from the problem; z = M⁻¹ r satisfies the
// componentwise backward-error bound of triangular substitution; refactor, zero pivots, shifts;
// the preconditioner beats none and is never worse than the DD preconditioner in BiCGSTAB.
#include "catch_compat.hpp"
#include "core/generators.hpp"
#include "factor/global_ilu0.hpp"
#include "krylov/bicgstab.hpp"
#include "partition/partition_matrix.hpp"
#include "precond/dd_ilu_preconditioner.hpp"
#include "precond/global_ilu_preconditioner.hpp"
#include "reference/dense.hpp"
#include "reference/factor_bounds.hpp"
#include "reference/ic0_breakdown.hpp"
#include "reference/random_matrix.hpp"
#include "reference/reference_ilu0.hpp"
#include "schedule/global_levels.hpp"
#include "trsv/global_trsv.hpp"
#include "trsv/split_triangles.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

using namespace fgdd;

namespace {

constexpr double unit_roundoff = std::numeric_limits<double>::epsilon() / 2;

// The test matrices: random diagonally dominant CSR/BSR, structural corner cases, generators.
SparseMatrix tridiagonal(Ordinal n) {
  HostMatrixArrays m;
  m.num_block_rows = m.num_block_cols = n;
  m.row_map.push_back(0);
  for (Ordinal i = 0; i < n; ++i) {
    for (Ordinal j = std::max(i - 1, 0); j <= std::min(i + 1, n - 1); ++j) {
      m.col_ind.push_back(j);
      m.values.push_back(i == j ? 4.0 : -1.0 - 0.01 * i);
    }
    m.row_map.push_back(m.col_ind.size());
  }
  return make_matrix(m);
}

SparseMatrix diagonal(Ordinal n, int b) {
  HostMatrixArrays m;
  m.num_block_rows = m.num_block_cols = n;
  m.block_size = b;
  m.row_map.push_back(0);
  for (Ordinal i = 0; i < n; ++i) {
    m.col_ind.push_back(i);
    for (int e = 0; e < b * b; ++e) m.values.push_back(e / b == e % b ? 2.0 + i : 0.25);
    m.row_map.push_back(m.col_ind.size());
  }
  return make_matrix(m);
}

struct NamedMatrix {
  std::string name;
  SparseMatrix A;
};

NamedMatrix make_case(const std::string& name) {
  if (name == "csr-57") return {name, make_matrix(reference::random_matrix(57, 1, 5, 11u))};
  if (name == "csr-131") return {name, make_matrix(reference::random_matrix(131, 1, 3, 7u))};
  if (name == "bsr2-41") return {name, make_matrix(reference::random_matrix(41, 2, 4, 12u))};
  if (name == "bsr3-33") return {name, make_matrix(reference::random_matrix(33, 3, 5, 13u))};
  if (name == "bsr4-25") return {name, make_matrix(reference::random_matrix(25, 4, 3, 14u))};
  if (name == "one-row") return {name, make_matrix(reference::random_matrix(1, 1, 2, 15u))};
  if (name == "one-block-row-b3")
    return {name, make_matrix(reference::random_matrix(1, 3, 2, 16u))};
  if (name == "diagonal-7") return {name, diagonal(7, 1)};
  if (name == "diagonal-5-b2") return {name, diagonal(5, 2)};
  if (name == "tridiagonal-9") return {name, tridiagonal(9)};
  return {name, generate_problem(name).matrix};
}

const char* const all_cases[] = {
    "csr-57",     "csr-131",          "bsr2-41",    "bsr3-33",       "bsr4-25",
    "one-row",    "one-block-row-b3", "diagonal-7", "diagonal-5-b2", "tridiagonal-9",
    "gen:lap7:5", "gen:convdiff:6",   "gen:bsr3:3", "gen:lap27:4"};

// ---- level sets ----------------------------------------------------------------------------

std::vector<Ordinal> dependencies(const reference::HostBlockCsr& A, Ordinal i, Triangle t) {
  std::vector<Ordinal> deps;
  for (Offset k = A.row_map[i]; k < A.row_map[i + 1]; ++k)
    if (t == Triangle::Lower ? A.col_ind[k] < i : A.col_ind[k] > i) deps.push_back(A.col_ind[k]);
  return deps;
}

// Every row exactly once, ascending inside a level, no empty level, and each row's level is
// exactly 1 + the highest level of its dependencies (0 without any): so a level only reads
// earlier levels, and there are as few levels as the DAG's longest path allows.
void check_levels(const GlobalLevels& levels, const reference::HostBlockCsr& A, Triangle t) {
  const Ordinal n = A.num_block_rows();
  const auto rows = reference::host_vector(levels.rows);
  const auto level_ptr = reference::host_vector(levels.level_ptr);
  REQUIRE(levels.triangle == t);
  REQUIRE(level_ptr == levels.host_level_ptr);
  REQUIRE(Ordinal(level_ptr.size()) == levels.num_levels + 1);
  REQUIRE(Ordinal(rows.size()) == n);
  REQUIRE(level_ptr.front() == 0);
  REQUIRE(level_ptr.back() == n);
  std::vector<Ordinal> level_of(n, -1);
  Ordinal widest = 0;
  for (Ordinal l = 0; l < levels.num_levels; ++l) {
    REQUIRE(level_ptr[l + 1] > level_ptr[l]);
    widest = std::max(widest, level_ptr[l + 1] - level_ptr[l]);
    for (Ordinal p = level_ptr[l]; p < level_ptr[l + 1]; ++p) {
      REQUIRE(rows[p] >= 0);
      REQUIRE(rows[p] < n);
      REQUIRE(level_of[rows[p]] == -1);
      level_of[rows[p]] = l;
      if (p > level_ptr[l]) CHECK(rows[p] > rows[p - 1]);
    }
  }
  CHECK(levels.max_level_rows == widest);
  Offset num_dependencies = 0;
  for (Ordinal i = 0; i < n; ++i) {
    const auto deps = dependencies(A, i, t);
    num_dependencies += deps.size();
    Ordinal expected = 0;
    for (const Ordinal j : deps) {
      CHECK(level_of[i] > level_of[j]);
      expected = std::max(expected, level_of[j] + 1);
    }
    if (level_of[i] == 0) CHECK(deps.empty());
    CHECK(level_of[i] == expected);
  }
  CHECK(levels.num_dependencies == num_dependencies);
}

// ---- host algebra on the device factors ------------------------------------------------------

using reference::FactorPart;
using reference::LongVector;
using reference::magnitudes;
using reference::multiply_m;
using reference::multiply_part;
using reference::plus;
using reference::widen;

// T v for one triangle with its pivots or a unit diagonal.
LongVector multiply_triangle(const reference::HostBlockCsr& F, Triangle t, Diagonal d,
                             const LongVector& v, bool absolute) {
  const FactorPart part = t == Triangle::Lower ? FactorPart::StrictLower : FactorPart::StrictUpper;
  const LongVector strict = multiply_part(F, part, v, absolute);
  return plus(strict,
              d == Diagonal::Pivots ? multiply_part(F, FactorPart::Diagonal, v, absolute) : v);
}

// ‖M⁻¹‖∞ by dense Gauss-Jordan on the host (the test matrices are small).
double inverse_norm(const reference::HostBlockCsr& F, IluForm form) {
  const std::size_t n = std::size_t(F.num_block_rows()) * F.b;
  std::vector<long double> a(n * n), inv(n * n, 0.0L);
  for (std::size_t j = 0; j < n; ++j) {
    LongVector e(n, 0.0L);
    e[j] = 1;
    const LongVector column = multiply_m(F, form, e, false);
    for (std::size_t i = 0; i < n; ++i) a[i * n + j] = column[i];
    inv[j * n + j] = 1;
  }
  for (std::size_t c = 0; c < n; ++c) {
    std::size_t p = c;
    for (std::size_t r = c + 1; r < n; ++r)
      if (std::fabs(a[r * n + c]) > std::fabs(a[p * n + c])) p = r;
    for (std::size_t j = 0; j < n; ++j)
      std::swap(a[c * n + j], a[p * n + j]), std::swap(inv[c * n + j], inv[p * n + j]);
    const long double d = a[c * n + c];
    for (std::size_t j = 0; j < n; ++j) a[c * n + j] /= d, inv[c * n + j] /= d;
    for (std::size_t r = 0; r < n; ++r) {
      if (r == c || a[r * n + c] == 0) continue;
      const long double f = a[r * n + c];
      for (std::size_t j = 0; j < n; ++j)
        a[r * n + j] -= f * a[c * n + j], inv[r * n + j] -= f * inv[c * n + j];
    }
  }
  double norm = 0;
  for (std::size_t i = 0; i < n; ++i) {
    long double sum = 0;
    for (std::size_t j = 0; j < n; ++j) sum += std::fabs(inv[i * n + j]);
    norm = std::max(norm, double(sum));
  }
  return norm;
}

// ---- factors against the reference ----------------------------------------------------------

using reference::factor_tolerance;

void check_close(const std::vector<double>& got, const std::vector<double>& expected, double tol) {
  REQUIRE(got.size() == expected.size());
  double worst = 0;
  for (std::size_t e = 0; e < got.size(); ++e)
    worst = std::max(worst, std::fabs(got[e] - expected[e]));
  CAPTURE(worst, tol);
  CHECK(worst <= tol);
}

GlobalIlu0 factor(const SparseMatrix& A, IluForm form) {
  FactorOptions options;
  options.form = form;
  return GlobalIlu0(ExecSpace(), A, options);
}

}  // namespace

TEST_CASE("global levels: longest-path level sets of both triangles, built on the device",
          "[global]") {
  const std::string name = GENERATE(from_range(std::begin(all_cases), std::end(all_cases)));
  CAPTURE(name);
  const SparseMatrix A = make_case(name).A;
  const auto host = reference::to_host_csr(A);
  const auto diag = diagonal_positions(ExecSpace(), A);
  const auto host_diag = reference::host_vector(diag);
  for (Ordinal i = 0; i < A.num_block_rows(); ++i) CHECK(host.col_ind[host_diag[i]] == i);
  for (const Triangle t : {Triangle::Lower, Triangle::Upper}) {
    const GlobalLevels levels = build_global_levels(ExecSpace(), A, diag, t);
    check_levels(levels, host, t);
    const Ordinal n = A.num_block_rows();
    if (name == "one-row" || name.rfind("diagonal", 0) == 0 || name == "one-block-row-b3")
      CHECK(levels.num_levels == 1);
    if (name == "tridiagonal-9") CHECK(levels.num_levels == n);
    if (name == "gen:lap7:5") CHECK(levels.num_levels == 5 + 5 + 5 - 2);  // wavefronts x+y+z
    // Built twice, identical: the lists are deterministic.
    const GlobalLevels again = build_global_levels(ExecSpace(), A, diag, t);
    CHECK(reference::host_vector(again.rows) == reference::host_vector(levels.rows));
  }
  CHECK_THROWS_AS(build_global_levels(ExecSpace(), A, Kokkos::View<Offset*, DeviceType>("d", 0),
                                      Triangle::Lower),
                  InvalidInput);
}

TEST_CASE("global ILU0 equals the serial reference ILU0", "[global]") {
  const std::string name = GENERATE(from_range(std::begin(all_cases), std::end(all_cases)));
  CAPTURE(name);
  const SparseMatrix A = make_case(name).A;
  const GlobalIlu0 ilu = factor(A, IluForm::Ilu0);
  const auto reference = reference::ilu0(reference::to_host_csr(A));
  const double tol = factor_tolerance(reference);
  check_close(reference::host_vector(ilu.factors().values()), reference.values, tol);
  CHECK(ilu.report().shifted_pivots == 0);
  CHECK(ilu.form() == IluForm::Ilu0);
  check_levels(ilu.lower_levels(), reference::to_host_csr(A), Triangle::Lower);
  // The factors keep A's pattern (shared, not copied).
  CHECK(ilu.factors().row_map().data() == A.row_map().data());
  CHECK(ilu.factors().col_ind().data() == A.col_ind().data());

  // D⁻¹ inverts the device's own pivots (their distance to the reference's is checked above):
  // both run Gauss-Jordan with the same partial pivoting, differing only in dividing versus
  // multiplying by the reciprocal, so they agree to the inversion's rounding: Gauss-Jordan's
  // forward error is ≤ γ_2b (|D⁻¹||D||D⁻¹|) entrywise (b eliminations of b-term updates plus the
  // scaling), twice that for the difference of two such computations.
  const int b = A.block_size(), bb = b * b;
  const auto inv_diag = reference::host_vector(ilu.inv_diag());
  const auto F = reference::to_host_csr(ilu.factors());
  for (Ordinal i = 0; i < F.num_block_rows(); ++i) {
    Offset d = F.row_map[i];
    while (F.col_ind[d] != i) ++d;
    const double* pivot = &F.values[d * bb];
    const double* inverse = &inv_diag[Offset(i) * bb];
    const auto expected = reference::block_inverse(pivot, b);
    for (int r = 0; r < b; ++r)
      for (int c = 0; c < b; ++c) {
        double size = 0;  // (|D⁻¹||D||D⁻¹|)_rc
        for (int s = 0; s < b; ++s)
          for (int t = 0; t < b; ++t)
            size += std::fabs(inverse[r * b + s] * pivot[s * b + t] * inverse[t * b + c]);
        const double gamma = 2 * b * unit_roundoff / (1 - 2 * b * unit_roundoff);
        CAPTURE(i, r, c);
        CHECK(std::fabs(inverse[r * b + c] - expected[r * b + c]) <= 2 * gamma * size);
      }
  }

  SECTION("ILDU0 is ILU0 with U scaled by D⁻¹ and the same D⁻¹") {
    const GlobalIlu0 ildu = factor(A, IluForm::Ildu0);
    CHECK(reference::host_vector(ildu.inv_diag()) == inv_diag);
    const auto scaled = reference::host_vector(ildu.factors().values());
    const auto unscaled = reference::host_vector(ilu.factors().values());
    // L and D are the very same computation (bitwise); U is D⁻¹ times Ilu0's U (one b×b product
    // with b terms: error ≤ γ_b |D⁻¹||U|).
    for (Ordinal i = 0; i < reference.num_block_rows(); ++i)
      for (Offset k = reference.row_map[i]; k < reference.row_map[i + 1]; ++k) {
        std::vector<double> expected(unscaled.begin() + k * bb, unscaled.begin() + (k + 1) * bb);
        double magnitude = 0;
        if (reference.col_ind[k] > i) {
          const std::vector<double> u = expected;
          for (int r = 0; r < b; ++r)
            for (int c = 0; c < b; ++c) {
              double sum = 0, size = 0;
              for (int t = 0; t < b; ++t) {
                sum += inv_diag[i * bb + r * b + t] * u[t * b + c];
                size += std::fabs(inv_diag[i * bb + r * b + t] * u[t * b + c]);
              }
              expected[r * b + c] = sum;
              magnitude = std::max(magnitude, size);
            }
        }
        const std::vector<double> got(scaled.begin() + k * bb, scaled.begin() + (k + 1) * bb);
        if (reference.col_ind[k] <= i) {
          CHECK(got == expected);
        } else {
          check_close(got, expected, 2 * b * unit_roundoff * magnitude);
        }
      }
  }
}

TEST_CASE("global trsv: apply and solves meet the backward-error bound; Ildu0 and Ilu0 agree",
          "[global]") {
  const std::string name = GENERATE(from_range(std::begin(all_cases), std::end(all_cases)));
  const GlobalRowKernel kernel =
      GENERATE(GlobalRowKernel::Auto, GlobalRowKernel::ThreadPerRow, GlobalRowKernel::Merged,
               GlobalRowKernel::LanesPerRow, GlobalRowKernel::SyncFree, GlobalRowKernel::RowOrder);
  CAPTURE(name, int(kernel));
  const SparseMatrix A = make_case(name).A;
  const Offset n = A.num_rows();
  const auto r = reference::random_vector(n, 5u);
  const Vector r_device = reference::to_device(r);

  std::vector<double> z_of[2];
  reference::HostBlockCsr factors_of[2];
  double gamma_of[2];
  const IluForm forms[2] = {IluForm::Ildu0, IluForm::Ilu0};
  for (int f = 0; f < 2; ++f) {
    const IluForm form = forms[f];
    CAPTURE(form == IluForm::Ildu0 ? "ildu0" : "ilu0");
    const GlobalIlu0 ilu = factor(A, form);
    const GlobalTrsv trsv(ExecSpace(), ilu, kernel);
    if (kernel != GlobalRowKernel::Auto) {
      CHECK(trsv.row_kernel(Triangle::Lower) == kernel);
      CHECK(trsv.row_kernel(Triangle::Upper) == kernel);
    }
    check_levels(trsv.levels(Triangle::Upper), reference::to_host_csr(A), Triangle::Upper);
    const auto F = reference::to_host_csr(ilu.factors());
    const auto inv_diag = reference::host_vector(ilu.inv_diag());
    const double gamma = reference::substitution_gamma(F, inv_diag);

    Vector z("z", n);
    trsv.apply(ExecSpace(), r_device, z);
    const auto z_host = reference::to_host(z);
    for (const double v : z_host) REQUIRE(std::isfinite(v));
    const double ratio = reference::apply_ratio(F, form, gamma, r, z_host);
    CAPTURE(ratio);
    CHECK(ratio <= 1);
    z_of[f] = z_host;
    factors_of[f] = F;
    gamma_of[f] = gamma;

    // Vertex-centric: bitwise reproducible, and in place gives the same bits.
    Vector again("again", n);
    trsv.apply(ExecSpace(), r_device, again);
    CHECK(reference::to_host(again) == z_host);
    Vector in_place = reference::to_device(r);
    trsv.apply(ExecSpace(), in_place, in_place);
    CHECK(reference::to_host(in_place) == z_host);

    for (const Triangle t : {Triangle::Lower, Triangle::Upper})
      for (const Diagonal d : {Diagonal::Unit, Diagonal::Pivots}) {
        CAPTURE(t == Triangle::Lower ? "lower" : "upper", d == Diagonal::Unit ? "unit" : "pivots");
        Vector x("x", n);
        trsv.solve(ExecSpace(), t, d, r_device, x);
        const auto x_host = reference::to_host(x);
        const LongVector Tx = multiply_triangle(F, t, d, widen(x_host), false);
        LongVector residual(n);
        for (Offset e = 0; e < n; ++e) residual[e] = r[e] - Tx[e];
        // One sweep: half the apply's γ would do; the apply's γ is used for simplicity.
        const double solve_ratio = reference::backward_error_ratio(
            residual, multiply_triangle(F, t, d, magnitudes(x_host), true), F.b, gamma);
        CAPTURE(solve_ratio);
        CHECK(solve_ratio <= 1);
      }

    Vector short_vector("short", n + 1);
    CHECK_THROWS_AS(trsv.apply(ExecSpace(), short_vector, z), DimensionMismatch);
    CHECK_THROWS_AS(trsv.apply(ExecSpace(), r_device, short_vector), DimensionMismatch);
    CHECK_THROWS_AS(trsv.solve(ExecSpace(), Triangle::Lower, Diagonal::Unit, short_vector, z),
                    DimensionMismatch);
    CHECK_THROWS_AS(
        trsv.solve(ExecSpace(), Triangle::Upper, Diagonal::Pivots, r_device, short_vector),
        DimensionMismatch);
  }

  // Ildu0 and Ilu0 store the same M = L D U: both z solve M z = r up to their backward errors
  // e_f (|e_f| ≤ γ |L||D||U||z_f| blockwise), so ‖z_ildu − z_ilu‖∞ ≤ ‖M⁻¹‖∞ (‖e_1‖∞ + ‖e_2‖∞).
  double allowed = 0;
  for (int f = 0; f < 2; ++f) {
    const LongVector scale = multiply_m(factors_of[f], forms[f], magnitudes(z_of[f]), true);
    allowed += gamma_of[f] * double(*std::max_element(scale.begin(), scale.end()));
  }
  allowed *= inverse_norm(factors_of[1], IluForm::Ilu0);
  double difference = 0;
  for (Offset e = 0; e < n; ++e)
    difference = std::max(difference, std::fabs(z_of[0][e] - z_of[1][e]));
  CAPTURE(difference, allowed);
  CHECK(difference <= allowed);
}

// The row-order sweeps store a row's columns as 16-bit distances j − i up to 32,767 and as 32-bit
// columns beyond (split_triangles.hpp): tridiagonal, the last row coupled to the row `distance`
// before it, both ways.
TEST_CASE("global trsv: row order with couplings at and beyond 16-bit distances", "[global]") {
  for (const Ordinal distance : {max_short_distance, max_short_distance + 1}) {
    CAPTURE(distance);
    const Ordinal n = distance + 2;
    HostMatrixArrays m;
    m.num_block_rows = m.num_block_cols = n;
    m.row_map.push_back(0);
    const auto add = [&](Ordinal j, double value) {
      m.col_ind.push_back(j);
      m.values.push_back(value);
    };
    for (Ordinal i = 0; i < n; ++i) {
      if (i == n - 1) add(i - distance, -0.75);
      for (Ordinal j = std::max(i - 1, 0); j <= std::min(i + 1, n - 1); ++j)
        add(j, i == j ? 4.0 : -1.0 - 1e-5 * i);
      if (i == n - 1 - distance) add(n - 1, -0.5);
      m.row_map.push_back(m.col_ind.size());
    }
    const SparseMatrix A = make_matrix(m);
    const auto r = reference::random_vector(A.num_rows(), 9u);
    const GlobalIlu0 ilu = factor(A, IluForm::Ildu0);
    const GlobalTrsv trsv(ExecSpace(), ilu, GlobalRowKernel::RowOrder);
    Vector z("z", A.num_rows());
    trsv.apply(ExecSpace(), reference::to_device(r), z);
    const auto F = reference::to_host_csr(ilu.factors());
    const double gamma = reference::substitution_gamma(F, reference::host_vector(ilu.inv_diag()));
    CHECK(reference::apply_ratio(F, IluForm::Ildu0, gamma, r, reference::to_host(z)) <= 1);
  }
}

TEST_CASE("global ILU0: numeric refactor equals a fresh factorization; levels are reused",
          "[global]") {
  const int b = GENERATE(1, 2, 3);
  // RowOrder reads a split copy of the factors, which must follow the refactorization.
  const GlobalRowKernel kernel = GENERATE(GlobalRowKernel::ThreadPerRow, GlobalRowKernel::RowOrder);
  CAPTURE(b, int(kernel));
  auto arrays = reference::random_matrix(45, b, 4, 21u);
  const SparseMatrix A = make_matrix(arrays);
  GlobalIlu0 ilu(ExecSpace(), A, FactorOptions{});
  const GlobalTrsv trsv(ExecSpace(), ilu, kernel);
  const Ordinal* levels_before = ilu.lower_levels().rows.data();
  const Vector r = reference::to_device(reference::random_vector(A.num_rows(), 8u));
  Vector z("z", A.num_rows()), z_fresh("z_fresh", A.num_rows());
  trsv.apply(ExecSpace(), r, z);  // with the old values

  for (std::size_t e = 0; e < arrays.values.size(); ++e) arrays.values[e] *= 1.5 + 0.01 * (e % 7);
  const SparseMatrix A_new = make_matrix(arrays);  // same pattern, other arrays
  ilu.numeric(ExecSpace(), A_new);
  const GlobalIlu0 fresh(ExecSpace(), A_new, FactorOptions{});
  CHECK(reference::host_vector(ilu.factors().values()) ==
        reference::host_vector(fresh.factors().values()));
  CHECK(reference::host_vector(ilu.inv_diag()) == reference::host_vector(fresh.inv_diag()));
  CHECK(ilu.lower_levels().rows.data() == levels_before);

  // The solves see the new values with no further setup.
  const GlobalTrsv fresh_trsv(ExecSpace(), fresh, kernel);
  trsv.apply(ExecSpace(), r, z);
  fresh_trsv.apply(ExecSpace(), r, z_fresh);
  CHECK(reference::to_host(z) == reference::to_host(z_fresh));

  const SparseMatrix other = make_matrix(reference::random_matrix(45, b, 4, 22u));
  CHECK_THROWS_WITH(ilu.numeric(ExecSpace(), other), FGDD_CONTAINS("pattern"));
  const SparseMatrix smaller = make_matrix(reference::random_matrix(44, b, 4, 21u));
  CHECK_THROWS_WITH(ilu.numeric(ExecSpace(), smaller), FGDD_CONTAINS("pattern"));
}

TEST_CASE("global ILU0: zero pivots name the matrix's row; shifts are opt-in and counted",
          "[global]") {
  // Rows 3 and 4 are equal on columns {3, 4}: elimination leaves a zero pivot in row 4 (in the
  // matrix's own numbering; there is no partition). With b = 2 the same pattern of blocks has
  // a singular pivot block in block row 2, reported as scalar row 4.
  const int b = GENERATE(1, 2);
  CAPTURE(b);
  HostMatrixArrays m;
  m.block_size = b;
  if (b == 1) {
    m.num_block_rows = m.num_block_cols = 6;
    m.row_map = {0, 1, 2, 3, 5, 7, 8};
    m.col_ind = {0, 1, 2, 3, 4, 3, 4, 5};
    m.values = {2, 2, 2, 1, 1, 1, 1, 3};
  } else {
    m.num_block_rows = m.num_block_cols = 4;
    m.row_map = {0, 1, 3, 5, 6};
    m.col_ind = {0, 1, 2, 1, 2, 3};
    const std::vector<double> identity = {1, 0, 0, 1}, twice = {2, 0, 0, 2};
    for (const auto* block : {&twice, &identity, &identity, &identity, &identity, &twice})
      m.values.insert(m.values.end(), block->begin(), block->end());
  }
  const SparseMatrix A = make_matrix(m);
  for (const IluForm form : {IluForm::Ildu0, IluForm::Ilu0}) {
    FactorOptions options;
    options.form = form;
    try {
      GlobalIlu0 ilu(ExecSpace(), A, options);
      FAIL("expected ZeroPivot");
    } catch (const ZeroPivot& pivot) {
      CHECK(pivot.row() == 4);
      CHECK(pivot.value() == 0);
    }
  }
  FactorOptions shifting;
  shifting.shift_tiny_pivots = true;
  shifting.absolute_shift = 1e-3;
  const GlobalIlu0 shifted(ExecSpace(), A, shifting);
  CHECK(shifted.report().shifted_pivots == Offset(b));
  for (const double v : reference::host_vector(shifted.inv_diag())) CHECK(std::isfinite(v));
  for (const double v : reference::host_vector(shifted.factors().values())) CHECK(std::isfinite(v));
  // The shifted pivot is the one used: D = (D⁻¹)⁻¹ holds ±1e-3 on its diagonal.
  const auto values = reference::host_vector(shifted.factors().values());
  const Offset pivot_block = b == 1 ? 6 : 4;
  CHECK(std::fabs(values[pivot_block * b * b]) == FGDD_CATCH_APPROX(1e-3));
  GlobalTrsv trsv(ExecSpace(), shifted);
  Vector z("z", A.num_rows());
  trsv.apply(ExecSpace(), reference::to_device(std::vector<double>(A.num_rows(), 1.0)), z);
  for (const double v : reference::to_host(z)) CHECK(std::isfinite(v));

  FactorOptions bad;
  bad.pivot_threshold = -1;
  CHECK_THROWS_AS(GlobalIlu0(ExecSpace(), A, bad), InvalidInput);
  FactorOptions ildlt;
  ildlt.form = IluForm::Ildlt;
  CHECK_THROWS_AS(GlobalIlu0(ExecSpace(), A, ildlt), InvalidInput);
  FactorOptions fill;
  fill.level_of_fill = 1;
  CHECK_THROWS_AS(GlobalIlu0(ExecSpace(), A, fill), InvalidInput);
}

TEST_CASE("global ILU0 preconditioner in BiCGSTAB: fewer iterations than none, no more than DD",
          "[global]") {
  const GeneratedProblem problem = generate_problem("gen:convdiff:12");
  PartitionOptions partition_options;
  partition_options.partitioner = Partitioner::Geometric;
  partition_options.subdomain_rows = 216;  // 8 subdomains: the DD preconditioner drops couplings
  const PartitionedMatrix dd =
      partition_matrix(ExecSpace(), problem.matrix, problem.grid, partition_options);
  REQUIRE(dd.report.num_subdomains > 1);
  REQUIRE(dd.report.dropped_fraction > 0);
  const SparseMatrix& A = dd.system.permuted;
  const Vector b = reference::to_device(reference::random_vector(A.num_rows(), 17u));
  KrylovOptions options;
  options.relative_tolerance = 1e-8;
  options.max_iterations = 1000;
  const auto run = [&](const Preconditioner& M) {
    Vector x("x", A.num_rows());
    return bicgstab(ExecSpace(), A, M, b, x, options);
  };

  const IdentityPreconditioner none;
  const IluForm form = GENERATE(IluForm::Ildu0, IluForm::Ilu0);
  GlobalIluOptions global_options;
  global_options.factor.form = form;
  GlobalIluPreconditioner global(ExecSpace(), A, global_options);
  CHECK(global.name() == (form == IluForm::Ildu0 ? "ildu0" : "ilu0"));
  DdIluOptions dd_options;
  dd_options.factor.form = form;
  const DdIluPreconditioner local(ExecSpace(), dd.system.dropped, dd.partition, dd_options);

  const SolveResult with_none = run(none);
  const SolveResult with_global = run(global);
  const SolveResult with_dd = run(local);
  CAPTURE(with_none.iterations, with_global.iterations, with_dd.iterations);
  REQUIRE(with_global.converged());
  REQUIRE(with_dd.converged());
  CHECK(with_global.relative_true_residual < 1e-7);
  CHECK((!with_none.converged() || with_global.iterations < with_none.iterations));
  // Exact ILU0 keeps every coupling DD ILU0 keeps, and more.
  CHECK(with_global.iterations <= with_dd.iterations);

  // update_values: the same values refactored give the same preconditioner.
  global.update_values(ExecSpace(), A);
  const SolveResult refactored = run(global);
  CHECK(refactored.iterations == with_global.iterations);
  CHECK(refactored.residual_history == with_global.residual_history);
  CHECK_THROWS_AS(global.update_values(ExecSpace(), dd.system.dropped), InvalidInput);
}

TEST_CASE("global ILU0: the positive-definite shift refactors the whole matrix; overflow named",
          "[global]") {
  // The 6×6 grid whose ILU(0) meets the pivot −0.378 (SPD, so a wrong-signed pivot is a
  // breakdown, not a tiny one): none keeps it; positive_definite refactors A + α·S with α = 2⁻¹⁰
  // (still a negative pivot), then 2⁻⁹, and must equal the serial ILU(0) of A + 2⁻⁹·S.
  const IluForm form = GENERATE(IluForm::Ilu0, IluForm::Ildu0);
  CAPTURE(int(form));
  const SparseMatrix A = make_matrix(reference::ic0_breakdown_grid());
  const auto host = reference::to_host_csr(A);
  const auto pivots_of = [&](const std::vector<double>& values) {
    std::vector<double> pivots;
    for (Ordinal i = 0; i < host.num_block_rows(); ++i)
      for (Offset k = host.row_map[i]; k < host.row_map[i + 1]; ++k)
        if (host.col_ind[k] == i) pivots.push_back(values[k]);
    return pivots;
  };
  FactorOptions options;
  options.form = form;
  const GlobalIlu0 plain(ExecSpace(), A, options);
  const auto plain_pivots = pivots_of(reference::host_vector(plain.factors().values()));
  CHECK(*std::min_element(plain_pivots.begin(), plain_pivots.end()) < 0);
  CHECK(plain.report().shift == 0);

  options.shift = PivotShift::PositiveDefinite;
  const GlobalIlu0 shifted(ExecSpace(), A, options);
  CHECK(shifted.report().shift == 1.0 / 512);
  CHECK(shifted.report().shift_attempts == 2);
  CHECK(shifted.report().shifted_rows == Offset(36));
  const auto reference = reference::ilu0(
      reference::shifted(host, std::vector<double>(host.num_block_rows(), 1.0 / 512), false));
  const auto values = reference::host_vector(shifted.factors().values());
  for (Ordinal i = 0; i < host.num_block_rows(); ++i)
    for (Offset k = host.row_map[i]; k < host.row_map[i + 1]; ++k) {
      if (form == IluForm::Ildu0 && host.col_ind[k] > i) continue;  // U scaled there
      CAPTURE(i, k);
      // O(1) entries, multipliers below 1: rounding of a few updates.
      CHECK(values[k] == FGDD_CATCH_APPROX(reference.values[k]).margin(1e-13));
    }
  const auto pivots = pivots_of(values);
  CHECK(*std::min_element(pivots.begin(), pivots.end()) > 0);

  // A pivot that overflows is an overflow, not a zero pivot: U_11 = 1e308 + 1e8·1e300 = inf.
  HostMatrixArrays big;
  big.num_block_rows = big.num_block_cols = 2;
  big.row_map = {0, 2, 4};
  big.col_ind = {0, 1, 0, 1};
  big.values = {1e300, 1e300, -1e308, 1e308};
  try {
    GlobalIlu0(ExecSpace(), make_matrix(big), FactorOptions{});
    FAIL("expected PivotOverflow");
  } catch (const PivotOverflow& pivot) {
    CHECK(pivot.row() == 1);
    CHECK_THAT(std::string(pivot.what()), FGDD_CONTAINS("overflowed (inf)"));
  }
}
