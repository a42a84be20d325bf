// Block-asynchronous Jacobi triangular solves (trsv/jacobi_trsv.hpp) against plain serial
// code: the synchronous schedule equals a host implementation of the same block iteration with
// restricted overlap, enough sweeps and iterations give exact substitution, the triangular
// residual falls monotonically on 27-point Laplace ILU0 factors, and the asynchronous schedule
// converges too.
#include "catch_compat.hpp"
#include "core/errors.hpp"
#include "core/generators.hpp"
#include "factor/global_ilu0.hpp"
#include "krylov/bicgstab.hpp"
#include "krylov/jacobi_ilu_preconditioner.hpp"
#include "partition/partition_matrix.hpp"
#include "reference/dense.hpp"
#include "reference/random_matrix.hpp"
#include "reference/reference_trsv.hpp"
#include "trsv/jacobi_trsv.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

using namespace fgdd;

namespace {

constexpr double unit_roundoff = std::numeric_limits<double>::epsilon() / 2;

reference::HostFactors host_factors_of(const GlobalIlu0& g) {
  return {reference::to_host_csr(g.factors()), reference::host_vector(g.inv_diag()), g.form()};
}

bool has_pivots(const reference::HostFactors& h, Triangle triangle) {
  return triangle == Triangle::Upper && h.form == IluForm::Ilu0;
}

// The synchronous block iteration on the host, written as plainly as possible: every block
// reads x_old outside its extended rows, runs `sweeps` Jacobi sweeps on its extended rows,
// and writes back only its own rows.
std::vector<double> host_block_jacobi(const reference::HostFactors& h, Triangle triangle,
                                      const std::vector<double>& r, const JacobiTrsvOptions& o) {
  const reference::HostBlockCsr& F = h.F;
  const int b = F.b;
  const Ordinal n = F.num_block_rows();
  const Ordinal overlap = std::min<Ordinal>(Ordinal(o.overlap * o.block_rows), o.block_rows - 1);
  const Ordinal owned = o.block_rows - overlap;
  const Ordinal teams = (n + owned - 1) / owned;
  const bool lower = triangle == Triangle::Lower;
  std::vector<double> x(r.size(), 0.0);
  for (int iteration = 0; iteration < o.iterations; ++iteration) {
    const std::vector<double> old = x;
    for (Ordinal t = 0; t < teams; ++t) {
      Ordinal own_begin, own_end, begin, end;
      if (lower) {
        own_begin = t * owned, own_end = std::min(n, own_begin + owned);
        begin = std::max<Ordinal>(0, own_begin - overlap), end = own_end;
      } else {
        own_end = n - t * owned, own_begin = std::max<Ordinal>(0, own_end - owned);
        begin = own_begin, end = std::min(n, own_end + overlap);
      }
      std::vector<double> local(old.begin() + Offset(begin) * b, old.begin() + Offset(end) * b);
      for (int sweep = 0; sweep < o.sweeps; ++sweep) {
        std::vector<double> next(local.size());
        for (Ordinal i = begin; i < end; ++i) {
          std::vector<double> acc(r.begin() + Offset(i) * b, r.begin() + Offset(i + 1) * b);
          for (Offset k = F.row_map[i]; k < F.row_map[i + 1]; ++k) {
            const Ordinal j = F.col_ind[k];
            if (lower ? j >= i : j <= i) continue;
            const bool inside = j >= begin && j < end;
            for (int c = 0; c < b; ++c) {
              double sum = 0;
              for (int q = 0; q < b; ++q)
                sum += F.values[k * b * b + c * b + q] *
                       (inside ? local[Offset(j - begin) * b + q] : old[Offset(j) * b + q]);
              acc[c] -= sum;
            }
          }
          for (int c = 0; c < b; ++c) {
            double value = acc[c];
            if (has_pivots(h, triangle)) {
              value = 0;
              for (int q = 0; q < b; ++q)
                value += h.inv_diag[Offset(i) * b * b + c * b + q] * acc[q];
            }
            next[Offset(i - begin) * b + c] = value;
          }
        }
        local = next;
      }
      for (Offset k = Offset(own_begin) * b; k < Offset(own_end) * b; ++k)
        x[k] = local[k - Offset(begin) * b];
    }
  }
  return x;
}

struct Problem {
  std::string name;
  SparseMatrix A;
};

std::vector<Problem> problems() {
  return {{"lap27 6³", generate_problem("gen:lap27:6").matrix},
          {"convdiff 7³", generate_problem("gen:convdiff:7").matrix},
          {"bsr3 3³", generate_problem("gen:bsr3:3").matrix},
          {"random b=2, 57 rows", make_matrix(reference::random_matrix(57, 2, 4, 3, true))},
          {"one row", make_matrix(reference::random_matrix(1, 1, 0, 5, true))}};
}

double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (const double x : v) m = std::max(m, std::abs(x));
  return m;
}

}  // namespace

TEST_CASE("synchronous Jacobi trsv equals the host block iteration with restricted overlap",
          "[jacobi_trsv]") {
  const ExecSpace space;
  for (const Problem& p : problems()) {
    for (const IluForm form : {IluForm::Ildu0, IluForm::Ilu0}) {
      FactorOptions factor;
      factor.form = form;
      const GlobalIlu0 g(space, p.A, factor);
      const reference::HostFactors h = host_factors_of(g);
      const std::vector<double> r = reference::random_vector(p.A.num_rows(), 17);
      for (const double overlap : {0.0, 0.13, 0.5}) {
        for (const int iterations : {1, 2, 5}) {
          for (const Triangle triangle : {Triangle::Lower, Triangle::Upper}) {
            CAPTURE(p.name, int(form), overlap, iterations, int(triangle));
            JacobiTrsvOptions o;
            o.block_rows = 8;  // many blocks even on small matrices
            o.sweeps = 2;
            o.iterations = iterations;
            o.overlap = overlap;
            o.schedule = JacobiSchedule::Synchronous;
            const JacobiTrsv trsv(factor_arrays(g), o);
            Vector x("x", p.A.num_rows());
            CHECK(trsv.solve(space, triangle, reference::to_device(r), x) == iterations);
            const std::vector<double> expected = host_block_jacobi(h, triangle, r, o);
            const std::vector<double> got = reference::to_host(x);
            // Same operations in the same order; a GPU may contract a·b + c into one rounding,
            // so allow a few roundings of the largest value per sweep.
            const double tolerance =
                16.0 * o.sweeps * iterations * unit_roundoff * (max_abs(expected) + 1);
            for (std::size_t i = 0; i < got.size(); ++i)
              CHECK(std::abs(got[i] - expected[i]) <= tolerance);
          }
        }
      }
    }
  }
}

TEST_CASE("enough sweeps and iterations give exact substitution", "[jacobi_trsv]") {
  const ExecSpace space;
  for (const Problem& p : problems()) {
    for (const JacobiSchedule schedule :
         {JacobiSchedule::Synchronous, JacobiSchedule::Asynchronous}) {
      const GlobalIlu0 g(space, p.A, FactorOptions{});
      const reference::HostFactors h = host_factors_of(g);
      const std::vector<double> r = reference::random_vector(p.A.num_rows(), 29);
      JacobiTrsvOptions o;
      o.block_rows = 16;
      o.overlap = 0.25;
      o.sweeps = o.block_rows;  // a strictly triangular block is nilpotent of index ≤ its rows
      o.schedule = schedule;
      o.iterations = int(p.A.num_block_rows() / 12 + 2);  // one block of progress per iteration
      const JacobiTrsv trsv(factor_arrays(g), o);
      for (const Triangle triangle : {Triangle::Lower, Triangle::Upper}) {
        CAPTURE(p.name, int(schedule), int(triangle));
        Vector x("x", p.A.num_rows());
        trsv.solve(space, triangle, reference::to_device(r), x);
        const Diagonal diagonal = has_pivots(h, triangle) ? Diagonal::Pivots : Diagonal::Unit;
        const std::vector<double> exact = reference::triangular_solve(h, triangle, diagonal, r);
        // Componentwise: |x − x̂| ≤ γ_k |T⁻¹| (|r| + |T||x̂|), k the most terms in a row.
        std::vector<double> rhs = reference::triangular_product(h, triangle, diagonal, exact).bound;
        for (std::size_t i = 0; i < rhs.size(); ++i) rhs[i] += std::abs(r[i]);
        const std::vector<double> bound =
            reference::triangular_solve(h, triangle, diagonal, rhs, false, true);
        const double k_u = 4.0 * 27 * p.A.block_size() * unit_roundoff;
        const std::vector<double> got = reference::to_host(x);
        for (std::size_t i = 0; i < got.size(); ++i)
          CHECK(std::abs(got[i] - exact[i]) <= k_u / (1 - k_u) * bound[i] + 1e-300);
      }
    }
  }
}

TEST_CASE("the triangular residual falls monotonically on 27-point Laplace ILU0 factors",
          "[jacobi_trsv]") {
  const ExecSpace space;
  const GlobalIlu0 g(space, generate_problem("gen:lap27:10").matrix, FactorOptions{});
  const Vector r = reference::to_device(reference::random_vector(g.factors().num_rows(), 3));
  for (const double overlap : {0.0, 0.03, 0.13, 0.25, 0.5}) {
    for (const Triangle triangle : {Triangle::Lower, Triangle::Upper}) {
      CAPTURE(overlap, int(triangle));
      double previous = std::numeric_limits<double>::infinity();
      for (int iterations = 1; iterations <= 8; ++iterations) {
        JacobiTrsvOptions o;
        o.block_rows = 64;
        o.overlap = overlap;
        o.iterations = iterations;
        o.schedule = JacobiSchedule::Synchronous;
        const JacobiTrsv trsv(factor_arrays(g), o);
        Vector x("x", r.extent(0));
        trsv.solve(space, triangle, r, x);
        const double residual = trsv.residual_norm(space, triangle, r, x);
        CHECK(residual < previous);
        previous = residual;
      }
    }
  }
}

TEST_CASE("a tolerance stops the iteration early", "[jacobi_trsv]") {
  const ExecSpace space;
  const GlobalIlu0 g(space, generate_problem("gen:lap7:10").matrix, FactorOptions{});
  const Vector r = reference::to_device(reference::random_vector(g.factors().num_rows(), 5));
  JacobiTrsvOptions o;
  o.iterations = 200;
  o.tolerance = 1e-6;
  const JacobiTrsv trsv(factor_arrays(g), o);
  Vector x("x", r.extent(0));
  const int used = trsv.solve(space, Triangle::Lower, r, x);
  CHECK(used < 200);
  CHECK(trsv.residual_norm(space, Triangle::Lower, r, x) <=
        1e-6 * trsv.residual_norm(space, Triangle::Lower, r, Vector("zero", r.extent(0))));
}

TEST_CASE("Jacobi trsv options are validated", "[jacobi_trsv]") {
  const ExecSpace space;
  const GlobalIlu0 g(space, generate_problem("gen:lap7:4").matrix, FactorOptions{});
  const auto bad = [&](auto change) {
    JacobiTrsvOptions o;
    change(o);
    CHECK_THROWS_AS(JacobiTrsv(factor_arrays(g), o), InvalidInput);
  };
  bad([](JacobiTrsvOptions& o) { o.block_rows = 0; });
  bad([](JacobiTrsvOptions& o) { o.sweeps = 0; });
  bad([](JacobiTrsvOptions& o) { o.iterations = 0; });
  bad([](JacobiTrsvOptions& o) { o.overlap = 1.0; });
  bad([](JacobiTrsvOptions& o) { o.overlap = -0.1; });
  bad([](JacobiTrsvOptions& o) { o.tolerance = -1; });
}

TEST_CASE("BiCGSTAB with Jacobi triangular solves converges, global and DD", "[jacobi_trsv]") {
  const ExecSpace space;
  const GeneratedProblem problem = generate_problem("gen:convdiff:12");
  JacobiTrsvOptions o;
  o.overlap = 0.13;
  const JacobiIluPreconditioner global(space, problem.matrix, FactorOptions{}, o);
  const PartitionedMatrix dd =
      partition_matrix(space, problem.matrix, problem.grid, PartitionOptions{});
  const JacobiIluPreconditioner local(space, dd.system.dropped, dd.partition, FactorOptions{}, o);
  CHECK(global.name() == "ildu0+jacobi-trsv");
  CHECK(local.name() == "ildu0-dd+jacobi-trsv");
  for (const auto& [M, A] :
       {std::pair<const Preconditioner*, const SparseMatrix*>{&global, &problem.matrix},
        {&local, &dd.system.permuted}}) {
    CAPTURE(M->name());
    Vector b("b", A->num_rows()), x("x", A->num_rows());
    Kokkos::deep_copy(b, 1.0);
    const SolveResult result = bicgstab(space, *A, *M, b, x, KrylovOptions{});
    CHECK(result.converged());
    CHECK(result.relative_true_residual <= 1e-7);
  }
}
