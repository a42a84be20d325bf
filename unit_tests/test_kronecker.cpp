// Kronecker-form systems (A ⊗ M + τ B ⊗ L) vec(X) = vec(F): the operator equals the explicitly
// formed matrix (built on the host) on merged vectors, in both combination orders and
// transposed; GMRES on it finds the explicit system's solution; the stage preconditioner equals
// its per-stage ILUs and cuts iterations; tableaus, layouts, patterns and readers.
#include "catch_compat.hpp"
#include "core/errors.hpp"
#include "core/generators.hpp"
#include "core/matrix_build.hpp"
#include "core/matrix_market.hpp"
#include "core/spmv.hpp"
#include "kron/kronecker_kernel.hpp"
#include "kron/kronecker_operator.hpp"
#include "kron/kronecker_problem.hpp"
#include "kron/merged_layout.hpp"
#include "kron/stage_coefficients.hpp"
#include "kron/stage_preconditioner.hpp"
#include "kron/union_pattern.hpp"
#include "krylov/gmres.hpp"
#include "partition/partition_matrix.hpp"
#include "partition/reorder.hpp"
#include "precond/global_ilu_preconditioner.hpp"
#include "reference/dense.hpp"
#include "reference/random_matrix.hpp"
#include "scratch_dir.hpp"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace fgdd;
using testing::ScratchDir;

namespace {

constexpr double eps = std::numeric_limits<double>::epsilon();

// The explicit matrix A ⊗ M + τ B ⊗ L in the stacked ordering (row k·N + i), as CSR on the host:
// entry (k·N + i, l·N + j) wherever M or L has (i, j), and every diagonal.
HostMatrixArrays explicit_kronecker(const SparseMatrix& M, const SparseMatrix& L,
                                    const StageCoefficients& c, double tau) {
  const reference::DenseMatrix m = reference::to_dense(M), l = reference::to_dense(L);
  const std::size_t n = m.n, s = c.stages;
  HostMatrixArrays K;
  K.num_block_rows = K.num_block_cols = Ordinal(n * s);
  K.row_map.push_back(0);
  for (std::size_t k = 0; k < s; ++k)
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t l_ = 0; l_ < s; ++l_)
        for (std::size_t j = 0; j < n; ++j) {
          if (m(i, j) == 0 && l(i, j) == 0 && !(k == l_ && i == j)) continue;
          K.col_ind.push_back(Ordinal(l_ * n + j));
          K.values.push_back(c.a(int(k), int(l_)) * m(i, j) + tau * c.b(int(k), int(l_)) * l(i, j));
        }
      K.row_map.push_back(K.col_ind.size());
    }
  return K;
}

// y = K x (or Kᵀ x) and the row magnitudes Σ_j |k_ij x_j| that bound the rounding of any order.
void host_product(const HostMatrixArrays& K, bool transpose, const std::vector<double>& x,
                  std::vector<double>& y, std::vector<double>& magnitude) {
  y.assign(x.size(), 0.0);
  magnitude.assign(x.size(), 0.0);
  for (std::size_t i = 0; i + 1 < K.row_map.size(); ++i)
    for (Offset e = K.row_map[i]; e < K.row_map[i + 1]; ++e) {
      const std::size_t j = K.col_ind[e];
      const std::size_t out = transpose ? j : i, in = transpose ? i : j;
      y[out] += K.values[e] * x[in];
      magnitude[out] += std::abs(K.values[e] * x[in]);
    }
}

StageCoefficients random_coefficients(int s, unsigned seed) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  StageCoefficients c;
  c.stages = s;
  for (int e = 0; e < s * s; ++e) {
    c.A.push_back(value(engine));
    c.B.push_back(value(engine));
  }
  c.A[0] += 2.0;  // a nonzero diagonal, and one zero coupling when there is one
  if (s > 1) c.B[1] = 0.0;
  return c;
}

std::vector<double> to_merged(const std::vector<double>& stacked, int s) {
  const Vector merged("merged", stacked.size());
  stacked_to_merged(ExecSpace(), s, reference::to_device(stacked), merged);
  return reference::to_host(merged);
}

std::vector<double> to_stacked(ConstVector merged, int s) {
  const Vector stacked("stacked", merged.extent(0));
  merged_to_stacked(ExecSpace(), s, merged, stacked);
  return reference::to_host(stacked);
}

void check_close(const std::vector<double>& got, const std::vector<double>& expected,
                 const std::vector<double>& magnitude, double terms) {
  REQUIRE(got.size() == expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    // Two summation orders of at most `terms` products: 2 γ_terms Σ|k_ij x_j|.
    CHECK(std::abs(got[i] - expected[i]) <= 2.0 * terms * eps * magnitude[i] + 1e-300);
  }
}

struct MatrixPair {
  std::string name;
  SparseMatrix M, L;
};

std::vector<MatrixPair> small_pairs() {
  // Different random patterns (CSR, BSR 2 and 3, odd sizes), and a pair sharing its arrays.
  const SparseMatrix L_csr = make_matrix(reference::random_matrix(7, 1, 3, 21u, false));
  const SparseMatrix L_bsr2 = make_matrix(reference::random_matrix(5, 2, 2, 23u, false));
  const SparseMatrix L_bsr3 = make_matrix(reference::random_matrix(3, 3, 2, 25u, false));
  const SparseMatrix L_shared = make_matrix(reference::random_matrix(9, 2, 3, 27u, false));
  // Rows of 20+ entries: on GPUs s = 1 then takes the lanes-per-row kernel.
  const SparseMatrix L_long = make_matrix(reference::random_matrix(61, 1, 24, 29u, false));
  const SparseMatrix L_long_shared = make_matrix(reference::random_matrix(45, 1, 30, 31u, false));
  return {
      {"CSR n=7", make_matrix(reference::random_matrix(7, 1, 2, 22u, false)), L_csr},
      {"BSR b=2 n=5", make_matrix(reference::random_matrix(5, 2, 1, 24u, false)), L_bsr2},
      {"BSR b=3 n=3, lumped M", mass_matrix(ExecSpace(), L_bsr3, MassKind::Lumped), L_bsr3},
      {"BSR b=2 shared pattern", mass_matrix(ExecSpace(), L_shared, MassKind::Consistent),
       L_shared},
      {"CSR n=61 long rows", make_matrix(reference::random_matrix(61, 1, 20, 30u, false)), L_long},
      {"CSR n=45 long rows shared pattern",
       mass_matrix(ExecSpace(), L_long_shared, MassKind::Consistent), L_long_shared}};
}

}  // namespace

TEST_CASE("collocation tableaus match the closed forms", "[kronecker]") {
  const double r6 = std::sqrt(6.0), r3 = std::sqrt(3.0), r15 = std::sqrt(15.0);
  const std::vector<std::vector<double>> radau = {
      {1.0},
      {5.0 / 12, -1.0 / 12, 3.0 / 4, 1.0 / 4},
      {(88 - 7 * r6) / 360, (296 - 169 * r6) / 1800, (-2 + 3 * r6) / 225, (296 + 169 * r6) / 1800,
       (88 + 7 * r6) / 360, (-2 - 3 * r6) / 225, (16 - r6) / 36, (16 + r6) / 36, 1.0 / 9}};
  const std::vector<std::vector<double>> gauss = {
      {0.5},
      {0.25, 0.25 - r3 / 6, 0.25 + r3 / 6, 0.25},
      {5.0 / 36, 2.0 / 9 - r15 / 15, 5.0 / 36 - r15 / 30, 5.0 / 36 + r15 / 24, 2.0 / 9,
       5.0 / 36 - r15 / 24, 5.0 / 36 + r15 / 30, 2.0 / 9 + r15 / 15, 5.0 / 36}};
  for (int s = 1; s <= 3; ++s) {
    CAPTURE(s);
    const auto a = butcher_matrix(IrkScheme::RadauIIA, s);
    const auto g = butcher_matrix(IrkScheme::Gauss, s);
    for (int e = 0; e < s * s; ++e) {
      CHECK(a[e] == FGDD_CATCH_APPROX(radau[s - 1][e]).margin(1e-13));
      CHECK(g[e] == FGDD_CATCH_APPROX(gauss[s - 1][e]).margin(1e-13));
    }
  }
  // Any s up to 8: the collocation conditions Σ_j a_ij c_j^(q−1) = c_i^q / q, q = 1..s.
  for (const IrkScheme scheme : {IrkScheme::RadauIIA, IrkScheme::Gauss})
    for (int s = 1; s <= 8; ++s) {
      CAPTURE(to_string(scheme), s);
      const auto c = collocation_nodes(scheme, s);
      const auto a = butcher_matrix(scheme, s);
      for (int i = 0; i + 1 < s; ++i) CHECK(c[i] < c[i + 1]);
      if (scheme == IrkScheme::RadauIIA) CHECK(c[s - 1] == 1.0);
      for (int i = 0; i < s; ++i)
        for (int q = 1; q <= s; ++q) {
          double sum = 0;
          for (int j = 0; j < s; ++j) sum += a[i * s + j] * std::pow(c[j], q - 1);
          CHECK(sum == FGDD_CATCH_APPROX(std::pow(c[i], q) / q).margin(1e-9));
        }
    }
  const StageCoefficients stage = irk_stage_coefficients(IrkScheme::RadauIIA, 3);
  CHECK(stage.a(1, 1) == 1.0);
  CHECK(stage.a(0, 2) == 0.0);
  CHECK(stage.b(2, 2) == FGDD_CATCH_APPROX(1.0 / 9));
  CHECK_THROWS_AS(butcher_matrix(IrkScheme::Gauss, 0), InvalidInput);
  CHECK_THROWS_AS(butcher_matrix(IrkScheme::Gauss, 9), InvalidInput);
  CHECK(parse_irk_scheme("radau") == IrkScheme::RadauIIA);
  CHECK_THROWS_WITH(parse_irk_scheme("lobatto"), FGDD_CONTAINS("radau"));
}

TEST_CASE("dense stage matrices from Matrix Market files", "[kronecker]") {
  const ScratchDir dir;
  int size = 0;
  // Array files list values column by column.
  const auto array = read_dense_matrix_market(
      dir.file("a.mtx", "%%MatrixMarket matrix array real general\n% comment\n2 2\n1\n3\n2\n4\n"),
      size);
  CHECK(size == 2);
  CHECK(array == std::vector<double>{1, 2, 3, 4});
  const auto coordinate = read_dense_matrix_market(
      dir.file("b.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n1 1 5\n3 1 -2\n"),
      size);
  CHECK(size == 3);
  CHECK(coordinate == std::vector<double>{5, 0, -2, 0, 0, 0, -2, 0, 0});
  CHECK_THROWS_AS(
      read_dense_matrix_market(
          dir.file("c.mtx", "%%MatrixMarket matrix array real general\n2 3\n1\n"), size),
      FileError);
  CHECK_THROWS_WITH(
      read_dense_matrix_market(
          dir.file("d.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n"), size),
      FGDD_CONTAINS("truncated"));
  CHECK_THROWS_AS(read_dense_matrix_market(dir.path + "/missing.mtx", size), FileError);
}

TEST_CASE("stacked and merged layouts convert both ways", "[kronecker]") {
  const int s = 3;
  const Offset n = 11;
  const auto stacked = reference::random_vector(n * s, 5u);
  const auto merged = to_merged(stacked, s);
  for (Offset i = 0; i < n; ++i)
    for (int k = 0; k < s; ++k) CHECK(merged[i * s + k] == stacked[k * n + i]);
  CHECK(to_stacked(reference::to_device(merged), s) == stacked);
  Vector wrong("wrong", n * s + 1);
  CHECK_THROWS_AS(stacked_to_merged(ExecSpace(), s, reference::to_device(stacked), wrong),
                  DimensionMismatch);
}

TEST_CASE("M and L on their union pattern", "[kronecker]") {
  const SparseMatrix M = make_matrix(reference::random_matrix(13, 2, 2, 31u, false));
  const SparseMatrix L = make_matrix(reference::random_matrix(13, 2, 3, 32u, false));
  CHECK_FALSE(shares_pattern(M, L));
  const SharedPatternPair pair = on_union_pattern(ExecSpace(), M, L);
  CHECK(shares_pattern(pair.M, pair.L));
  CHECK(reference::to_dense(pair.M).a == reference::to_dense(M).a);
  CHECK(reference::to_dense(pair.L).a == reference::to_dense(L).a);
  const auto combined = reference::to_dense(combine_shared(ExecSpace(), 0.5, pair.M, -2.0, pair.L));
  const auto m = reference::to_dense(M), l = reference::to_dense(L);
  for (std::size_t e = 0; e < combined.a.size(); ++e)
    CHECK(combined.a[e] == 0.5 * m.a[e] - 2.0 * l.a[e]);
  CHECK_THROWS_AS(combine_shared(ExecSpace(), 1, M, 1, L), InvalidInput);
  const SharedPatternPair again = on_union_pattern(ExecSpace(), pair.M, pair.L);
  CHECK(again.M.values().data() == pair.M.values().data());
  CHECK_THROWS_AS(
      on_union_pattern(ExecSpace(), M, make_matrix(reference::random_matrix(13, 1, 2, 1u))),
      DimensionMismatch);
}

TEST_CASE("mass matrices: lumped is block diagonal, consistent shares L's pattern", "[kronecker]") {
  const GeneratedProblem problem = generate_problem("gen:bsr3:3");
  const SparseMatrix lumped = mass_matrix(ExecSpace(), problem.matrix, MassKind::Lumped);
  const SparseMatrix consistent = mass_matrix(ExecSpace(), problem.matrix, MassKind::Consistent);
  CHECK(lumped.num_block_entries() == Offset(lumped.num_block_rows()));
  CHECK(shares_pattern(consistent, problem.matrix));
  const auto d = reference::to_dense(consistent);
  for (std::size_t i = 0; i < d.n; ++i) {
    double off = 0;
    for (std::size_t j = 0; j < d.n; ++j) {
      CHECK(d(i, j) == d(j, i));
      if (j != i) off += std::abs(d(i, j));
    }
    CHECK(d(i, i) > off);  // diagonally dominant, so SPD
  }
  CHECK(parse_mass_kind("lumped") == MassKind::Lumped);
  CHECK_THROWS_AS(parse_mass_kind("heavy"), InvalidInput);
}

TEST_CASE("the Kronecker operator equals the explicit matrix", "[kronecker]") {
  const double tau = 0.7;
  for (const MatrixPair& pair : small_pairs()) {
    for (int s = 1; s <= 4; ++s) {
      const StageCoefficients c = random_coefficients(s, 40u + s);
      const HostMatrixArrays K = explicit_kronecker(pair.M, pair.L, c, tau);
      const Offset n = pair.M.num_rows();
      const auto x = reference::random_vector(n * s, 50u + s);
      const double terms = double(s) * double(n);
      for (const KroneckerOrder order :
           {KroneckerOrder::CombineAfter, KroneckerOrder::CombineBefore}) {
        CAPTURE(pair.name, s, to_string(order));
        const KroneckerOperator op(pair.M, pair.L, c, tau, order);
        REQUIRE(op.num_rows() == n * s);
        std::vector<double> expected, magnitude;
        host_product(K, false, x, expected, magnitude);
        Vector y("y", n * s);
        op.apply(ExecSpace(), reference::to_device(to_merged(x, s)), y);
        check_close(to_stacked(y, s), expected, magnitude, terms);

        host_product(K, true, x, expected, magnitude);
        op.apply_transpose(ExecSpace(), reference::to_device(to_merged(x, s)), y);
        check_close(to_stacked(y, s), expected, magnitude, terms);
      }
      // The explicit matrix through fgdd itself agrees too (it is what the GMRES test uses).
      std::vector<double> expected, magnitude;
      host_product(K, false, x, expected, magnitude);
      Vector y("y", n * s);
      spmv(ExecSpace(), make_matrix(K), reference::to_device(x), y);
      check_close(reference::to_host(y), expected, magnitude, terms);
    }
  }
}

TEST_CASE("the Kronecker product over a list of block rows leaves the others alone",
          "[kronecker]") {
  const double tau = 0.7;
  for (const MatrixPair& pair : small_pairs()) {
    const Ordinal blocks = pair.M.num_block_rows();
    const Offset b = pair.M.block_size(), n = pair.M.num_rows();
    // Every third block row and the last (none repeated), and the single first row.
    std::vector<Ordinal> every_third;
    for (Ordinal i = 0; i < blocks; i += 3) every_third.push_back(i);
    if (every_third.back() != blocks - 1) every_third.push_back(blocks - 1);
    for (const std::vector<Ordinal>& listed : {every_third, std::vector<Ordinal>{0}}) {
      for (int s = 1; s <= 4; s += 3) {
        CAPTURE(pair.name, s, listed.size());
        const StageCoefficients c = random_coefficients(s, 60u + s);
        const HostMatrixArrays K = explicit_kronecker(pair.M, pair.L, c, tau);
        const auto x = reference::random_vector(n * s, 70u + s);
        const auto y0 = reference::random_vector(n * s, 80u + s);
        std::vector<double> product, magnitude;
        host_product(K, false, x, product, magnitude);
        // Expected (stacked): y0 + K x on the listed rows, y0 bit for bit elsewhere.
        std::vector<bool> in_list(std::size_t(blocks), false);
        for (const Ordinal i : listed) in_list[std::size_t(i)] = true;
        std::vector<double> expected = y0, bound(y0.size(), 0.0);
        std::vector<bool> computed(y0.size(), false);
        for (Offset k = 0; k < Offset(s); ++k)
          for (Offset row = 0; row < n; ++row) {
            const Offset at = k * n + row;
            if (!in_list[std::size_t(row / b)]) continue;
            expected[at] += product[at];
            bound[at] = magnitude[at] + std::abs(y0[at]);
            computed[at] = true;
          }
        const Vector y = reference::to_device(to_merged(y0, s));
        detail::kronecker_rows(ExecSpace(), blocks, int(b), s, detail::block_rows(pair.M),
                               reference::to_device(to_merged(x, s)), detail::block_rows(pair.L),
                               reference::to_device(to_merged(x, s)),
                               detail::stage_coefficients_on_device(c, tau), true, y,
                               reference::to_device(listed));
        const std::vector<double> got = to_stacked(y, s);
        check_close(got, expected, bound, double(s) * double(n) + 1);
        for (std::size_t at = 0; at < got.size(); ++at)
          if (!computed[at]) CHECK(got[at] == y0[at]);
      }
    }
  }
}

TEST_CASE("the Kronecker operator checks its inputs", "[kronecker]") {
  const SparseMatrix M = make_matrix(reference::random_matrix(6, 1, 2, 1u));
  const SparseMatrix L2 = make_matrix(reference::random_matrix(6, 2, 2, 2u));
  const StageCoefficients c = irk_stage_coefficients(IrkScheme::Gauss, 2);
  CHECK_THROWS_AS(KroneckerOperator(M, L2, c, 1.0), DimensionMismatch);
  StageCoefficients bad = c;
  bad.B.pop_back();
  CHECK_THROWS_AS(KroneckerOperator(M, M, bad, 1.0), InvalidInput);
  CHECK_THROWS_AS(KroneckerOperator(M, M, c, std::nan("")), InvalidInput);
  const KroneckerOperator op(M, M, c, 1.0);
  Vector x("x", 12), wrong("wrong", 6);
  CHECK_THROWS_AS(op.apply(ExecSpace(), x, wrong), DimensionMismatch);
  CHECK(op.name() == "kronecker (s=2, combine-after)");
}

TEST_CASE("GMRES on the Kronecker operator solves the explicit system", "[kronecker]") {
  struct Case {
    std::string name;
    KroneckerProblem problem;
  };
  const SparseMatrix L = make_matrix(reference::random_matrix(21, 2, 3, 61u, true));
  KroneckerProblem random_problem;
  random_problem.M = mass_matrix(ExecSpace(), L, MassKind::Lumped);
  random_problem.L = L;
  random_problem.coefficients = irk_stage_coefficients(IrkScheme::Gauss, 3);
  random_problem.tau = 0.3;
  const std::vector<Case> cases = {
      {"radau s=2 lap7 5^3 consistent",
       make_irk_problem(ExecSpace(), generate_problem("gen:lap7:5"), IrkScheme::RadauIIA, 2,
                        MassKind::Consistent, 0.5)},
      {"gauss s=3 random BSR b=2", random_problem}};
  for (const Case& test : cases) {
    CAPTURE(test.name);
    const KroneckerProblem& p = test.problem;
    const int s = p.coefficients.stages;
    const Offset length = p.M.num_rows() * s;
    const auto f = reference::random_vector(length, 71u);
    KrylovOptions options;
    options.relative_tolerance = 1e-10;
    options.restart = 30;
    const IdentityPreconditioner none;

    const SparseMatrix K = make_matrix(explicit_kronecker(p.M, p.L, p.coefficients, p.tau));
    Vector u_explicit("u_explicit", length);
    const SolveResult explicit_result =
        gmres(ExecSpace(), K, none, reference::to_device(f), u_explicit, options);
    REQUIRE(explicit_result.converged());

    const KroneckerOperator op(p.M, p.L, p.coefficients, p.tau);
    Vector u("u", length);
    const SolveResult result =
        gmres(ExecSpace(), op, none, reference::to_device(to_merged(f, s)), u, options);
    REQUIRE(result.converged());
    // The merged system is the explicit one permuted: the same Krylov iterates up to rounding.
    CHECK(std::abs(result.iterations - explicit_result.iterations) <= 1);
    const auto u_stacked = to_stacked(u, s), expected = reference::to_host(u_explicit);
    double scale = 0;
    for (double v : expected) scale = std::max(scale, std::abs(v));
    for (std::size_t i = 0; i < expected.size(); ++i)
      CHECK(u_stacked[i] == FGDD_CATCH_APPROX(expected[i]).margin(1e-7 * scale));
    CHECK(reference::relative_residual(K, u_stacked, f) <= 1e-9);
  }
}

TEST_CASE("the stage preconditioner applies each stage's ILU", "[kronecker]") {
  const KroneckerProblem p = make_irk_problem(ExecSpace(), generate_problem("gen:bsr3:4"),
                                              IrkScheme::RadauIIA, 3, MassKind::Lumped, 0.8);
  const int s = 3;
  const Offset n = p.M.num_rows();
  const auto r = reference::random_vector(n * s, 81u);
  const auto r_merged = reference::to_device(to_merged(r, s));
  const SharedPatternPair pair = on_union_pattern(ExecSpace(), p.M, p.L);
  StagePreconditionerOptions options;
  options.partition.subdomain_rows = 12 * 3;
  for (const StageSolver solver : {StageSolver::GlobalIlu, StageSolver::DdIlu}) {
    CAPTURE(to_string(solver));
    options.solver = solver;
    const KroneckerStagePreconditioner P(ExecSpace(), p.M, p.L, p.coefficients, p.tau, p.grid,
                                         options);
    REQUIRE(P.stages() == s);
    Vector z("z", n * s);
    P.apply(ExecSpace(), r_merged, z);
    const auto z_stacked = to_stacked(z, s);
    for (int k = 0; k < s; ++k) {
      CAPTURE(k);
      // Stage k on its own: K_k = a_kk M + τ b_kk L and an independently built ILU of it.
      const SparseMatrix K_k = combine_shared(ExecSpace(), p.coefficients.a(k, k), pair.M,
                                              p.tau * p.coefficients.b(k, k), pair.L);
      const std::vector<double> r_k(r.begin() + k * n, r.begin() + (k + 1) * n);
      Vector z_k("z_k", n);
      if (solver == StageSolver::GlobalIlu) {
        GlobalIluPreconditioner(ExecSpace(), K_k, options.global)
            .apply(ExecSpace(), reference::to_device(r_k), z_k);
      } else {
        const PartitionedMatrix dd = partition_matrix(ExecSpace(), K_k, p.grid, options.partition);
        const DdIluPreconditioner ilu(ExecSpace(), dd.system.dropped, dd.partition, options.dd);
        Vector r_p("r_p", n), z_p("z_p", n);
        permute_vector(ExecSpace(), dd.partition, 3, reference::to_device(r_k), r_p);
        ilu.apply(ExecSpace(), r_p, z_p);
        unpermute_vector(ExecSpace(), dd.partition, 3, z_p, z_k);
      }
      const auto expected = reference::to_host(z_k);
      for (Offset i = 0; i < n; ++i)
        CHECK(z_stacked[k * n + i] == FGDD_CATCH_APPROX(expected[i]).margin(1e-12));
    }
  }
  StageCoefficients zero_stage = p.coefficients;
  zero_stage.A[0] = 0;
  zero_stage.B[0] = 0;
  CHECK_THROWS_WITH(
      KroneckerStagePreconditioner(ExecSpace(), p.M, p.L, zero_stage, p.tau, p.grid, options),
      FGDD_CONTAINS("stage 0"));
}

TEST_CASE("the stage preconditioner refactors for new values and a new tau", "[kronecker]") {
  const ExecSpace space;
  const KroneckerProblem p = make_irk_problem(space, generate_problem("gen:bsr3:4"),
                                              IrkScheme::Gauss, 2, MassKind::Lumped, 0.8);
  const int s = 2;
  const Offset n = p.M.num_rows();
  const auto r = reference::to_device(reference::random_vector(n * s, 83u));
  const SparseMatrix M2 = combine_shared(space, 2.0, p.M, 0.0, p.M);  // 2M, M's arrays
  const double tau2 = 1.3;
  // Another pattern of the same size: its union with L is not the union setup saw.
  const SparseMatrix other =
      make_matrix(reference::random_matrix(p.M.num_block_rows(), 3, 2, 85u, true));
  const auto check_equal = [&](const Preconditioner& updated, const Preconditioner& fresh) {
    Vector z("z", n * s), z_fresh("z_fresh", n * s);
    updated.apply(space, r, z);
    fresh.apply(space, r, z_fresh);
    const auto got = reference::to_host(z), expected = reference::to_host(z_fresh);
    for (Offset i = 0; i < got.size(); ++i)
      CHECK(got[i] == FGDD_CATCH_APPROX(expected[i]).margin(1e-13));
  };
  StagePreconditionerOptions options;
  options.partition.subdomain_rows = 12 * 3;
  for (const StageSolver solver : {StageSolver::GlobalIlu, StageSolver::DdIlu}) {
    CAPTURE(to_string(solver));
    options.solver = solver;
    KroneckerStagePreconditioner P(space, p.M, p.L, p.coefficients, p.tau, p.grid, options);
    P.update_values(space, M2, p.L, tau2);
    check_equal(
        P, KroneckerStagePreconditioner(space, M2, p.L, p.coefficients, tau2, p.grid, options));
    CHECK_THROWS_AS(P.update_values(space, other, p.L, tau2), InvalidInput);
  }
  // On given subdomain blocks (a rank's rows): M and L reordered by one partition.
  const SharedPatternPair pair = on_union_pattern(space, p.M, p.L);
  const PartitionedMatrix dd = partition_matrix(
      space, combine_shared(space, 1.0, pair.M, 1.0, pair.L), p.grid, options.partition);
  const auto dropped = [&](const SparseMatrix& A) {
    return reorder_and_drop(space, A, dd.partition).dropped;
  };
  KroneckerStagePreconditioner local(space, dropped(p.M), dropped(p.L), dd.partition,
                                     p.coefficients, p.tau, options.dd);
  local.update_values(space, dropped(M2), dropped(p.L), tau2);
  check_equal(local, KroneckerStagePreconditioner(space, dropped(M2), dropped(p.L), dd.partition,
                                                  p.coefficients, tau2, options.dd));
  CHECK_THROWS_AS(local.update_values(space, dropped(other), dropped(p.L), tau2), InvalidInput);
}

TEST_CASE("the stage preconditioner reduces GMRES iterations", "[kronecker]") {
  struct Case {
    std::string spec;
    IrkScheme scheme;
    int stages;
    MassKind mass;
  };
  const std::vector<Case> cases = {{"gen:lap7:10", IrkScheme::RadauIIA, 2, MassKind::Lumped},
                                   {"gen:lap7:10", IrkScheme::RadauIIA, 3, MassKind::Consistent},
                                   {"gen:lap7:10", IrkScheme::Gauss, 2, MassKind::Consistent},
                                   {"gen:bsr3:5", IrkScheme::RadauIIA, 3, MassKind::Lumped}};
  for (const Case& test : cases) {
    const KroneckerProblem p = make_irk_problem(ExecSpace(), generate_problem(test.spec),
                                                test.scheme, test.stages, test.mass, 2.0);
    const KroneckerOperator op(p.M, p.L, p.coefficients, p.tau);
    const auto f = reference::to_device(reference::random_vector(op.num_rows(), 91u));
    KrylovOptions options;
    options.relative_tolerance = 1e-8;
    Vector u("u", op.num_rows());
    const SolveResult plain = gmres(ExecSpace(), op, IdentityPreconditioner(), f, u, options);
    REQUIRE(plain.converged());
    for (const StageSolver solver : {StageSolver::DdIlu, StageSolver::GlobalIlu}) {
      CAPTURE(p.description, to_string(solver));
      StagePreconditionerOptions pre;
      pre.solver = solver;
      pre.partition.subdomain_rows = 100 * p.M.block_size();
      const KroneckerStagePreconditioner P(ExecSpace(), p.M, p.L, p.coefficients, p.tau, p.grid,
                                           pre);
      Kokkos::deep_copy(u, 0.0);
      const SolveResult result = gmres(ExecSpace(), op, P, f, u, options);
      REQUIRE(result.converged());
      CHECK(result.relative_true_residual <= 1e-8);
      CHECK(result.iterations < plain.iterations);
      UNSCOPED_INFO(p.description << ": " << plain.iterations << " -> " << result.iterations
                                  << " iterations with " << P.name());
    }
  }
}

TEST_CASE("Kronecker problems from Matrix Market files", "[kronecker]") {
  const ScratchDir dir;
  const KroneckerProblem generated = make_irk_problem(ExecSpace(), generate_problem("gen:lap7:3"),
                                                      IrkScheme::Gauss, 2, MassKind::Lumped, 0.25);
  write_matrix_market(dir.path + "/M.mtx", generated.M);
  write_matrix_market(dir.path + "/L.mtx", generated.L);
  const auto& B = generated.coefficients.B;
  std::ostringstream b_text;  // column by column
  b_text << std::setprecision(17) << "%%MatrixMarket matrix array real general\n2 2\n"
         << B[0] << "\n"
         << B[2] << "\n"
         << B[1] << "\n"
         << B[3] << "\n";
  dir.file("B.mtx", b_text.str());
  dir.file("A.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 1\n");
  const KroneckerProblem read = read_kronecker_problem(
      dir.path + "/M.mtx", dir.path + "/L.mtx", dir.path + "/A.mtx", dir.path + "/B.mtx", 0.25);
  REQUIRE(read.coefficients.stages == 2);
  CHECK(read.coefficients.A == generated.coefficients.A);
  CHECK(read.coefficients.B == B);
  CHECK(reference::to_dense(read.M).a == reference::to_dense(generated.M).a);
  CHECK(reference::to_dense(read.L).a == reference::to_dense(generated.L).a);
  dir.file("C.mtx", "%%MatrixMarket matrix array real general\n1 1\n1\n");
  CHECK_THROWS_AS(read_kronecker_problem(dir.path + "/M.mtx", dir.path + "/L.mtx",
                                         dir.path + "/A.mtx", dir.path + "/C.mtx", 0.25),
                  DimensionMismatch);
}
