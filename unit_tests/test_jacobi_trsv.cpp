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
#include "precond/jacobi_ilu_preconditioner.hpp"
#include "partition/partition_matrix.hpp"
#include "reference/dense.hpp"
#include "reference/random_matrix.hpp"
#include "reference/reference_trsv.hpp"
#include "solver/solver.hpp"
#include "trsv/jacobi_trsv.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
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
// takes x_old outside its extended rows into a local right-hand side s = r − T_outside x_old,
// runs `sweeps` Jacobi sweeps x ← D⁻¹(s − T_inside x) (D = I for unit triangles) on its
// extended rows, and writes back only its own rows.
std::vector<double> host_block_jacobi(const reference::HostFactors& h, Triangle triangle,
                                      const std::vector<double>& r, const JacobiTrsvOptions& o) {
  const reference::HostBlockCsr& F = h.F;
  const int b = F.b;
  const Ordinal n = F.num_block_rows();
  const Ordinal overlap = std::min<Ordinal>(Ordinal(o.overlap * o.block_rows), o.block_rows - 1);
  const Ordinal owned = o.block_rows - overlap;
  const Ordinal teams = (n + owned - 1) / owned;
  const bool lower = triangle == Triangle::Lower;
  const auto in_triangle = [&](Ordinal i, Ordinal j) { return lower ? j < i : j > i; };
  // acc −= F_k v (one b×b block times b values), the sum over the block's row formed first.
  const auto subtract = [&](double* acc, Offset k, const double* v) {
    for (int c = 0; c < b; ++c) {
      double sum = 0;
      for (int q = 0; q < b; ++q) sum += F.values[k * b * b + c * b + q] * v[q];
      acc[c] -= sum;
    }
  };
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
      const auto inside = [&](Ordinal j) { return j >= begin && j < end; };
      std::vector<double> local(old.begin() + Offset(begin) * b, old.begin() + Offset(end) * b);
      std::vector<double> s(r.begin() + Offset(begin) * b, r.begin() + Offset(end) * b);
      for (Ordinal i = begin; i < end; ++i)
        for (Offset k = F.row_map[i]; k < F.row_map[i + 1]; ++k)
          if (in_triangle(i, F.col_ind[k]) && !inside(F.col_ind[k]))
            subtract(&s[Offset(i - begin) * b], k, &old[Offset(F.col_ind[k]) * b]);
      for (int sweep = 0; sweep < o.sweeps; ++sweep) {
        std::vector<double> next(local.size());
        for (Ordinal i = begin; i < end; ++i) {
          std::vector<double> acc(s.begin() + Offset(i - begin) * b,
                                  s.begin() + Offset(i - begin + 1) * b);
          for (Offset k = F.row_map[i]; k < F.row_map[i + 1]; ++k)
            if (in_triangle(i, F.col_ind[k]) && inside(F.col_ind[k]))
              subtract(acc.data(), k, &local[Offset(F.col_ind[k] - begin) * b]);
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
      // 8: many blocks even on small matrices (overlap 0.13 is one row, 0.5 four); 1000: one
      // team holds all of every matrix here (block_rows larger than n).
      for (const Ordinal block_rows : {Ordinal(8), Ordinal(1000)}) {
        for (const double overlap : {0.0, 0.13, 0.5}) {
          for (const int iterations : {1, 2, 5}) {
            for (const Triangle triangle : {Triangle::Lower, Triangle::Upper}) {
              CAPTURE(p.name, int(form), block_rows, overlap, iterations, int(triangle));
              JacobiTrsvOptions o;
              o.block_rows = block_rows;
              o.sweeps = 2;
              o.iterations = iterations;
              o.overlap = overlap;
              o.schedule = JacobiSchedule::Synchronous;
              const JacobiTrsv trsv(factor_arrays(g), o);
              Vector x("x", p.A.num_rows());
              Kokkos::deep_copy(x, 7.0);  // solve starts from x = 0 whatever x holds
              CHECK(trsv.solve(space, triangle, reference::to_device(r), x) == iterations);
              const std::vector<double> expected = host_block_jacobi(h, triangle, r, o);
              const std::vector<double> got = reference::to_host(x);
              // Same operations in the same order (bitwise equal on Serial); a GPU may contract
              // a·b + c into one rounding, so allow a few roundings of the largest value per
              // sweep. A kernel that wrote overlap rows back would replace the owner's value of
              // those rows by one computed from x_old outside the overlapping team's rows, where
              // the owner had iterated them locally: far more than this apart (checked by
              // planting exactly that change: thousands of these checks then fail).
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
}

TEST_CASE("enough sweeps and iterations give exact substitution", "[jacobi_trsv]") {
  const ExecSpace space;
  for (const Problem& p : problems()) {
    for (const auto& [schedule, form] :
         {std::pair{JacobiSchedule::Synchronous, IluForm::Ildu0},
          std::pair{JacobiSchedule::Asynchronous, IluForm::Ildu0},
          std::pair{JacobiSchedule::Asynchronous, IluForm::Ilu0}}) {  // Ilu0: U with pivots
      FactorOptions factor;
      factor.form = form;
      const GlobalIlu0 g(space, p.A, factor);
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
        CAPTURE(p.name, int(schedule), int(form), int(triangle));
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

TEST_CASE("the Jacobi apply equals the exact preconditioner solve, global and DD factors",
          "[jacobi_trsv]") {
  const ExecSpace space;
  // The factors and the reference's view of them, for every layout JacobiTrsv is given.
  struct Case {
    std::string name;
    FactorArrays arrays;
    reference::HostFactors host;
  };
  std::vector<Case> cases;
  std::vector<std::unique_ptr<GlobalIlu0>> global;
  std::vector<std::unique_ptr<SubdomainIlu0>> dd;
  std::vector<PartitionedMatrix> partitioned;
  for (const Problem& p : problems()) {
    for (const IluForm form : {IluForm::Ildu0, IluForm::Ilu0}) {
      FactorOptions factor;
      factor.form = form;
      global.push_back(std::make_unique<GlobalIlu0>(space, p.A, factor));
      cases.push_back({p.name + " global form " + std::to_string(int(form)),
                       factor_arrays(*global.back()), host_factors_of(*global.back())});
    }
    // DD factors of the dropped matrix, small natural subdomains so several teams straddle
    // subdomain boundaries; Ildlt (L D Lᵀ, stored as Ildu0) where the matrix is symmetric.
    PartitionOptions options;
    options.partitioner = Partitioner::Natural;
    options.subdomain_rows = Offset(40) * p.A.block_size();
    partitioned.push_back(partition_matrix(space, p.A, GridInfo{}, options));
    const PartitionedMatrix& part = partitioned.back();
    std::vector<IluForm> forms = {IluForm::Ildu0, IluForm::Ilu0};
    if (p.name.rfind("lap27", 0) == 0) forms.push_back(IluForm::Ildlt);
    for (const IluForm form : forms) {
      FactorOptions factor;
      factor.form = form;
      dd.push_back(
          std::make_unique<SubdomainIlu0>(space, part.system.dropped, part.partition, factor));
      cases.push_back({p.name + " DD form " + std::to_string(int(form)), factor_arrays(*dd.back()),
                       reference::host_factors(*dd.back())});
    }
  }
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const Ordinal n = c.arrays.factors.num_block_rows();
    const int b = c.arrays.factors.block_size();
    const std::vector<double> r = reference::random_vector(c.arrays.factors.num_rows(), 41);
    JacobiTrsvOptions o;  // asynchronous
    o.block_rows = 16;
    o.overlap = 0.25;                // 4 overlap rows, 12 owned
    o.sweeps = o.block_rows;         // each block's local solve is exact
    o.iterations = int(n / 12 + 2);  // one more block is exact after each global iteration
    const JacobiTrsv trsv(c.arrays, o);
    Vector z("z", r.size());
    trsv.apply(space, reference::to_device(r), z);
    // Once converged every row is computed by the substitution formula from final values, so
    // the result is exact substitution up to rounding. Each of the three steps (L, D⁻¹, U) is
    // backward stable with |ΔT| ≤ γ_k|T| (Higham Thm 8.5; k the most terms in a row: ≤ 27
    // blocks of b), so both computed results satisfy |z − ẑ| ≤ 3γ_k |M⁻¹| (|r| + |L||D||U||ẑ|)
    // to first order; the factor 4 covers the two results and the rounding of D⁻¹.
    const std::vector<double> exact = reference::preconditioner_solve(c.host, r);
    std::vector<double> rhs = reference::preconditioner_product(c.host, exact).bound;
    for (std::size_t i = 0; i < rhs.size(); ++i) rhs[i] += std::abs(r[i]);
    const std::vector<double> bound = reference::preconditioner_solve(c.host, rhs, false, true);
    const double k_u = 3 * 4.0 * 27 * b * unit_roundoff;
    const std::vector<double> got = reference::to_host(z);
    for (std::size_t i = 0; i < got.size(); ++i)
      CHECK(std::abs(got[i] - exact[i]) <= k_u / (1 - k_u) * bound[i] + 1e-300);
  }
}

TEST_CASE("JacobiIluPreconditioner applies refactored values, global and DD", "[jacobi_trsv]") {
  const ExecSpace space;
  auto arrays = reference::random_matrix(60, 2, 4, 21u);
  PartitionOptions options;
  options.partitioner = Partitioner::Natural;
  options.subdomain_rows = 24;
  PartitionedMatrix dd = partition_matrix(space, make_matrix(arrays), GridInfo{}, options);
  JacobiTrsvOptions o;
  o.block_rows = 8;
  o.overlap = 0.25;
  o.schedule = JacobiSchedule::Synchronous;  // deterministic
  JacobiIluPreconditioner global(space, make_matrix(arrays), FactorOptions{}, o);
  JacobiIluPreconditioner local(space, dd.system.dropped, dd.partition, FactorOptions{}, o);
  const Vector r =
      reference::to_device(reference::random_vector(make_matrix(arrays).num_rows(), 8));
  Vector before_global("before_global", r.extent(0)), before_local("before_local", r.extent(0));
  global.apply(space, r, before_global);
  local.apply(space, r, before_local);

  for (auto& v : arrays.values) v = 0.5 * v + 0.125;
  const SparseMatrix A = make_matrix(arrays);
  update_values(space, A, dd.system);
  global.update_values(space, A);
  local.update_values(space, dd.system.dropped);
  const JacobiIluPreconditioner global_fresh(space, A, FactorOptions{}, o);
  const JacobiIluPreconditioner local_fresh(space, dd.system.dropped, dd.partition, FactorOptions{},
                                            o);
  for (const auto& [M, fresh, before] : {std::tuple{&global, &global_fresh, &before_global},
                                         std::tuple{&local, &local_fresh, &before_local}}) {
    CAPTURE(M->name());
    Vector got("got", r.extent(0)), expected("expected", r.extent(0));
    M->apply(space, r, got);
    fresh->apply(space, r, expected);
    const std::vector<double> g = reference::to_host(got), e = reference::to_host(expected);
    CHECK(g != reference::to_host(*before));
    // Same factors, same deterministic iteration: equal up to the factorization's own rounding
    // differences between launches (none expected; 1e-12 of the largest entry allows a few).
    const double scale = max_abs(e);
    for (std::size_t i = 0; i < g.size(); ++i) CHECK(std::abs(g[i] - e[i]) <= 1e-12 * scale);
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
  bad([](JacobiTrsvOptions& o) { o.overlap = std::nan(""); });
  bad([](JacobiTrsvOptions& o) { o.tolerance = -1; });
  // The message names the field, as the option keys of the solver do.
  for (const auto& [field, change] :
       std::vector<std::pair<std::string, void (*)(JacobiTrsvOptions&)>>{
           {"block_rows", [](JacobiTrsvOptions& o) { o.block_rows = -3; }},
           {"sweeps", [](JacobiTrsvOptions& o) { o.sweeps = -1; }},
           {"iterations", [](JacobiTrsvOptions& o) { o.iterations = 0; }},
           {"overlap", [](JacobiTrsvOptions& o) { o.overlap = 2; }},
           {"tolerance", [](JacobiTrsvOptions& o) { o.tolerance = -1e-3; }}}) {
    JacobiTrsvOptions o;
    change(o);
    CAPTURE(field);
    CHECK_THROWS_WITH(o.validate(), FGDD_CONTAINS(field));
  }
  JacobiTrsvOptions fine;
  fine.overlap = 0.5;
  fine.block_rows = 1;  // point Jacobi: the overlap rounds down to no row
  CHECK_NOTHROW(JacobiTrsv(factor_arrays(g), fine));
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

TEST_CASE("Solver options trsv=jacobi select the Jacobi triangular solves", "[jacobi_trsv]") {
  const ExecSpace space;
  const GeneratedProblem problem = generate_problem("gen:convdiff:10");
  for (const std::string preconditioner : {"ilu0", "ildu0-dd", "ilu0-dd"}) {
    CAPTURE(preconditioner);
    SolverOptions options;
    options.set_all({"preconditioner=" + preconditioner, "trsv=jacobi", "jacobi_sweeps=3",
                     "jacobi_iters=3", "overlap=0.13", "jacobi_block_rows=64"});
    CHECK(options.jacobi.sweeps == 3);
    CHECK(options.jacobi.iterations == 3);
    CHECK(options.jacobi.overlap == 0.13);
    CHECK(options.jacobi.block_rows == 64);
    Solver solver(options);
    solver.setup(space, problem.matrix, problem.grid);
    CHECK_THAT(solver.preconditioner().name(), FGDD_CONTAINS("+jacobi-trsv"));
    Vector b("b", problem.matrix.num_rows()), x("x", problem.matrix.num_rows());
    Kokkos::deep_copy(b, 1.0);
    CHECK(solver.solve(space, b, x).converged());
    CHECK(reference::relative_residual(problem.matrix, reference::to_host(x),
                                       reference::to_host(b)) <= 1e-7);
    // New values of the same pattern reach the Jacobi preconditioner's factors.
    solver.update_values(space, problem.matrix);
    Kokkos::deep_copy(x, 0.0);
    CHECK(solver.solve(space, b, x).converged());
  }
  SolverOptions options;
  options.set_all({"preconditioner=ilu0", "trsv=jacobi", "overlap=1"});
  CHECK_THROWS_WITH(options.validate(), FGDD_CONTAINS("overlap"));
  CHECK_THROWS_AS(Solver(options), InvalidInput);
}
