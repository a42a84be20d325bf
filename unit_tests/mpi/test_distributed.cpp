// The MPI layer against one process: the distributed SpMV (and its transpose) and dot products
// equal the serial ones, DistributedSolver converges like Solver with the same partition, and a
// failure on one rank reaches every rank as the same error.
#include "catch_compat.hpp"
#include "fgdd.hpp"
#include "mpi/dist_checks.hpp"
#include "reference/dense.hpp"
#include "reference/random_matrix.hpp"
#include "solver/solver_steps.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

using namespace fgdd;
using namespace fgdd::test;

namespace {

constexpr double eps = std::numeric_limits<double>::epsilon();

struct Case {
  std::string name;
  GeneratedProblem problem;
  Offset subdomain_rows;
};

std::vector<Case> operator_cases() {
  // An odd-sized nonsymmetric CSR matrix without grid (METIS or RCM chunks), and grids.
  const SparseMatrix random = make_matrix(reference::random_matrix(301, 1, 5, 7, true));
  const SparseMatrix random_bsr = make_matrix(reference::random_matrix(97, 2, 4, 11, true));
  // Subdomains small enough for at least three per rank on three ranks (checked below), so
  // each rank's slice holds several subdomains and its local numbering is exercised.
  return {{"lap7 9³", generate_problem("gen:lap7:9"), 60},
          {"bsr3 5³", generate_problem("gen:bsr3:5"), 30},
          {"random CSR 301", {random, GridInfo{}, "random"}, 24},
          {"random BSR b=2", {random_bsr, GridInfo{}, "random b2"}, 16}};
}

PartitionOptions small_subdomains(Offset rows) {
  PartitionOptions options;
  options.subdomain_rows = rows;
  return options;
}

// The whole vector in A_p's ordering on every rank.
std::vector<double> gather(const DistributedMatrix& A, ConstVector local) {
  return gather_whole(A.comm(), A.distribution().block_row_offsets, A.block_size(),
                      reference::to_host(local));
}

// x_i = sin(0.3 i + 1) in A_p's ordering; this rank's slice.
Vector local_pattern(const DistributedMatrix& A) {
  const Offset first = Offset(A.first_block_row()) * A.block_size();
  std::vector<double> x(A.num_rows());
  for (Offset i = 0; i < x.size(); ++i) x[i] = std::sin(0.3 * double(first + i) + 1);
  return reference::to_device(x);
}

std::vector<double> whole_pattern(Offset n) {
  std::vector<double> x(n);
  for (Offset i = 0; i < n; ++i) x[i] = std::sin(0.3 * double(i) + 1);
  return x;
}

// Row i of y = op(A) x may differ between summation orders by at most
// γ_k Σ_j |a_ij x_j| (k entries summed; γ_k = k u / (1 − k u), doubled for two orders).
void check_product(const SparseMatrix& A, bool transpose, const std::vector<double>& x,
                   const std::vector<double>& computed, const std::vector<double>& serial) {
  const reference::DenseMatrix dense = reference::to_dense(A);
  const Offset n = A.num_rows();
  for (Offset i = 0; i < n; ++i) {
    double magnitude = 0;
    int terms = 0;
    for (Offset j = 0; j < n; ++j) {
      const double a = transpose ? dense(j, i) : dense(i, j);
      magnitude += std::abs(a * x[j]);
      terms += a != 0;
    }
    const double k_u = 2.0 * terms * eps / 2;
    CHECK(std::abs(computed[i] - serial[i]) <= k_u / (1 - k_u) * magnitude + 1e-300);
  }
}

}  // namespace

TEST_CASE("distributed SpMV and its transpose equal the serial products", "[mpi][dist]") {
  const Communicator comm;
  const ExecSpace space;
  for (const Case& c : operator_cases()) {
    CAPTURE(c.name, comm.size());
    const PartitionedMatrix dd = partition_matrix(space, c.problem.matrix, c.problem.grid,
                                                  small_subdomains(c.subdomain_rows));
    REQUIRE(dd.report.num_subdomains >= 3 * comm.size());
    const DistributedMatrix A(space, comm, comm.is_root() ? &dd : nullptr);
    const DistributedOperator op(A);
    const Vector x = local_pattern(A);
    Vector y("y", A.num_rows()), y_t("y_t", A.num_rows());
    op.apply(space, x, y);
    op.apply_transpose(space, x, y_t);
    const std::vector<double> whole_y = gather(A, y), whole_y_t = gather(A, y_t);
    if (comm.is_root()) {  // the root's A_p is the one that was distributed
      const SparseMatrix& A_p = dd.system.permuted;
      const std::vector<double> x_whole = whole_pattern(A_p.num_rows());
      const Vector X = reference::to_device(x_whole);
      Vector Y("Y", A_p.num_rows()), Y_t("Y_t", A_p.num_rows());
      spmv(space, A_p, X, Y);
      spmv_transpose(space, A_p, X, Y_t);
      check_product(A_p, false, x_whole, whole_y, reference::to_host(Y));
      check_product(A_p, true, x_whole, whole_y_t, reference::to_host(Y_t));
    }
    check_halo_counts(comm, A);
  }
}

TEST_CASE("distributed dot products equal the serial one", "[mpi][dist]") {
  const Communicator comm;
  const ExecSpace space;
  const GeneratedProblem problem = generate_problem("gen:lap7:10");
  const PartitionedMatrix dd =
      partition_matrix(space, problem.matrix, problem.grid, small_subdomains(80));
  const DistributedMatrix A(space, comm, comm.is_root() ? &dd : nullptr);
  const DistributedOperator op(A);
  const std::vector<double> x = reference::to_host(local_pattern(A));
  double local = 0;
  for (const double v : x) local += v * v;
  const double distributed = op.global_sum(local);
  const std::vector<double> whole = whole_pattern(problem.matrix.num_rows());
  double serial = 0;
  for (const double v : whole) serial += v * v;
  // Both sums have n nonnegative terms: they differ by at most 2 γ_n · sum.
  const double n_u = double(whole.size()) * eps;
  CHECK(std::abs(distributed - serial) <= 2 * n_u / (1 - n_u) * serial);

  // x·y with y_i = cos(0.7 i) − 0.1 cancels; the bound is then 2 γ_n Σ |x_i y_i|, and the
  // fused two-value form Operator::global_sum<2> sums both dots in one reduction.
  const Offset first = Offset(A.first_block_row()) * A.block_size();
  std::array<double, 2> local_dots{0, 0};
  for (Offset i = 0; i < x.size(); ++i) {
    const double y = std::cos(0.7 * double(first + i)) - 0.1;
    local_dots[0] += x[i] * y;
    local_dots[1] += std::abs(x[i] * y);
  }
  const std::array<double, 2> distributed_dots = op.global_sum(local_dots);
  double serial_dot = 0, magnitude = 0;
  for (Offset i = 0; i < whole.size(); ++i) {
    const double y = std::cos(0.7 * double(i)) - 0.1;
    serial_dot += whole[i] * y;
    magnitude += std::abs(whole[i] * y);
  }
  CHECK(std::abs(distributed_dots[0] - serial_dot) <= 2 * n_u / (1 - n_u) * magnitude);
  CHECK(std::abs(distributed_dots[1] - magnitude) <= 2 * n_u / (1 - n_u) * magnitude);
}

TEST_CASE("DistributedSolver converges like Solver on the same partition", "[mpi][dist]") {
  const Communicator comm;
  const ExecSpace space;
  struct SolveCase {
    const char* spec;
    std::vector<std::string> options;
  };
  // Problems whose iteration counts rounding does not move (checked for 1-3 ranks).
  const std::vector<SolveCase> cases = {
      {"gen:lap7:20", {"method=bicgstab", "preconditioner=ildu0-dd"}},
      {"gen:bsr3:8", {"method=bicgstab", "preconditioner=ildu0-dd"}},
      {"gen:convdiff:16", {"method=gmres"}},
      {"gen:convdiff:16", {"method=bicg"}},
      {"gen:lap7:20", {"method=cg", "preconditioner=ic0-dd"}},
      // Rows in level order inside each subdomain, on the root before the scatter.
      {"gen:convdiff:16", {"method=bicgstab", "subdomain_order=levels"}},
      {"gen:bsr3:8", {"method=bicgstab", "subdomain_order=levels", "factor_order=levels"}},
  };
  for (const SolveCase& c : cases) {
    CAPTURE(c.spec, c.options.front(), comm.size());
    const GeneratedProblem problem = generate_problem(c.spec);
    SolverOptions options;
    options.set_all({"subdomain_rows=200"});
    options.set_all(c.options);
    DistributedSolver distributed(comm, options);
    distributed.setup(space, comm.is_root() ? &problem.matrix : nullptr, problem.grid);
    if (comm.is_root())  // level order where Solver would use it (levels, or auto on GPUs)
      CHECK((distributed.partition_report().steps.find("level order") != std::string::npos) ==
            detail::orders_subdomain_rows_by_level(options));
    const Offset n = problem.matrix.num_rows();
    Vector b("b", comm.is_root() ? n : 0), x("x", comm.is_root() ? n : 0);
    Kokkos::deep_copy(b, 1.0);
    const SolveResult result = distributed.solve(space, b, x);
    CHECK(result.converged());

    Solver serial(options);
    serial.setup(space, problem.matrix, problem.grid);
    Vector b1("b1", n), x1("x1", n);
    Kokkos::deep_copy(b1, 1.0);
    const SolveResult reference = serial.solve(space, b1, x1);
    REQUIRE(reference.converged());
    CHECK(result.iterations == reference.iterations);
    // Both solutions meet the tolerance: ‖b − A x‖ ≤ tol ‖b‖ (a small excess would be the
    // recurrence residual drifting from the true one, not the distribution).
    const double b_norm = std::sqrt(double(n));
    const double tol = options.krylov.relative_tolerance;
    CHECK(result.true_residual <= 1.01 * tol * b_norm);
    CHECK(reference.true_residual <= 1.01 * tol * b_norm);
    if (comm.is_root()) {
      // Then A (x − x₁) = (b − A x₁) − (b − A x), so ‖A (x − x₁)‖ ≤ r + r₁ (the measured true
      // residuals, ≈ 2 tol ‖b‖): the solutions agree as far as the tolerance defines them, with
      // no bound on κ needed. Rounding: each residual evaluation errs by at most
      // γ_{k+1} (|b| + |A||x|) per row, the product A (x − x₁) by γ_k |A||x − x₁| (k entries
      // per row).
      const std::vector<double> a = reference::to_host(x), a1 = reference::to_host(x1);
      std::vector<double> difference(n);
      for (Offset i = 0; i < n; ++i) difference[i] = a[i] - a1[i];
      Vector A_difference("A_difference", n);
      spmv(space, problem.matrix, reference::to_device(difference), A_difference);
      const int k = max_row_entries(problem.matrix);
      std::vector<double> residual_rounding = absolute_product(problem.matrix, a);
      const std::vector<double> abs_A_x1 = absolute_product(problem.matrix, a1);
      // Both evaluations: |A||x| + |A||x₁| + 2 |b| (b is all ones).
      for (Offset i = 0; i < n; ++i) residual_rounding[i] += abs_A_x1[i] + 2.0;
      const double rounding =
          sum_error_bound(k + 1) * norm2(residual_rounding) +
          sum_error_bound(k) * norm2(absolute_product(problem.matrix, difference));
      CHECK(norm2(reference::to_host(A_difference)) <=
            result.true_residual + reference.true_residual + rounding);
    }
  }
}

namespace {

// Subdomains the default setup of A (no grid) makes over the ranks.
Ordinal solver_subdomains(const Communicator& comm, const SparseMatrix& A) {
  DistributedSolver solver(comm, SolverOptions{});
  solver.setup(ExecSpace(), comm.is_root() ? &A : nullptr, GridInfo{});
  return solver.matrix().distribution().subdomain_offsets.back();
}

}  // namespace

TEST_CASE("DistributedSolver's default subdomain size is a rank's, so every rank gets some",
          "[mpi][dist]") {
  // On CPUs the default is one subdomain per thread; from the root's view alone that was one
  // subdomain for the whole matrix, refused with two ranks. Without a grid (a file's matrix)
  // and with one.
  const Communicator comm;
  const ExecSpace space;
  for (const bool with_grid : {false, true}) {
    CAPTURE(with_grid, comm.size());
    const GeneratedProblem problem = generate_problem("gen:convdiff:14");
    const GridInfo grid = with_grid ? problem.grid : GridInfo{};
    DistributedSolver solver(comm, SolverOptions{});
    solver.setup(space, comm.is_root() ? &problem.matrix : nullptr, grid);
    const PartitionOptions per_rank =
        per_rank_partition(PartitionOptions{}, problem.matrix, comm.size());
    if (comm.is_root())  // the root partitioned, with a rank's default
      CHECK(solver.partition_report().cap_rows ==
            Offset(per_rank.subdomain_block_rows(1, problem.matrix.num_rows())));
    const Offset n = problem.matrix.num_rows();
    Vector b("b", comm.is_root() ? n : 0), x("x", comm.is_root() ? n : 0);
    Kokkos::deep_copy(b, 1.0);
    CHECK(solver.solve(space, b, x).converged());
  }
  if (host_memory && comm.size() > 1) {  // one subdomain per thread of every rank, 6 % slack
    const SparseMatrix A = generate_problem("gen:lap7:12").matrix;
    const Offset parts = Offset(ExecSpace().concurrency()) * comm.size();
    const Offset cap = per_rank_partition(PartitionOptions{}, A, comm.size()).subdomain_rows;
    CHECK(cap == (Offset(A.num_rows()) * 106 + parts * 100 - 1) / (parts * 100));
    CHECK(solver_subdomains(comm, A) == Ordinal(parts));
  }
  PartitionOptions given;
  given.subdomain_rows = 77;
  CHECK(per_rank_partition(given, generate_problem("gen:lap7:6").matrix, comm.size())
            .subdomain_rows == 77);
}

TEST_CASE("DistributedSolver gives the same bits run to run at a fixed rank count",
          "[mpi][dist][reproducible]") {
  // Issue 34: setup and solve from scratch five times; x (gathered on the root), the iteration
  // count and the residual history must equal the first run's. MPI's reductions combine the
  // ranks' partial sums in an order fixed by the rank count.
  const Communicator comm;
  const ExecSpace space;
  const SparseMatrix random = make_matrix(reference::random_matrix(301, 1, 5, 7, true));
  const std::vector<Case> cases = {{"convdiff 14³", generate_problem("gen:convdiff:14"), 150},
                                   {"random CSR 301", {random, GridInfo{}, "random"}, 24}};
  for (const Case& c : cases) {
    for (const char* method : {"method=bicgstab", "method=gmres"}) {
      CAPTURE(c.name, method, comm.size());
      SolverOptions options;
      options.set_all({method, "tol=1e-10", "subdomain_rows=" + std::to_string(c.subdomain_rows)});
      const Offset n = c.problem.matrix.num_rows();
      const auto once = [&] {
        DistributedSolver solver(comm, options);
        solver.setup(space, comm.is_root() ? &c.problem.matrix : nullptr, c.problem.grid);
        Vector b("b", comm.is_root() ? n : 0), x("x", comm.is_root() ? n : 0);
        Kokkos::deep_copy(b, 1.0);
        const SolveResult result = solver.solve(space, b, x);
        return std::make_tuple(result.iterations, result.residual_history, reference::to_host(x));
      };
      const auto [iterations, history, x] = once();
      CHECK(iterations > 0);
      for (int run = 1; run < 5; ++run) {
        const auto [again_iterations, again_history, again_x] = once();
        CHECK(again_iterations == iterations);
        CHECK(again_history.size() == history.size());
        CHECK(std::memcmp(again_history.data(), history.data(), history.size() * sizeof(double)) ==
              0);
        CHECK(again_x.size() == x.size());
        CHECK(std::memcmp(again_x.data(), x.data(), x.size() * sizeof(double)) == 0);
      }
    }
  }
}

TEST_CASE("DistributedSolver::update_values then solve equals a fresh setup", "[mpi][dist]") {
  const Communicator comm;
  const ExecSpace space;
  const GeneratedProblem problem = generate_problem("gen:convdiff:14");
  // The same pattern with other values: every entry scaled by 1 + 0.2 sin(k).
  SparseMatrix changed;
  {
    auto values = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), problem.matrix.values());
    for (std::size_t k = 0; k < values.extent(0); ++k) values(k) *= 1 + 0.2 * std::sin(double(k));
    changed = make_matrix(problem.matrix.num_block_rows(), problem.matrix.num_block_rows(), 1,
                          problem.matrix.row_map(), problem.matrix.col_ind(),
                          Kokkos::create_mirror_view_and_copy(MemSpace(), values), false);
  }
  for (const char* order : {"partitioner", "levels", "colours"}) {  // rows inside subdomains
    CAPTURE(order);
    SolverOptions options;
    options.set_all({"subdomain_rows=300", std::string("subdomain_order=") + order});
    const Offset n = problem.matrix.num_rows();
    const bool root = comm.is_root();
    const auto solve = [&](DistributedSolver& solver) {
      Vector b("b", root ? n : 0), x("x", root ? n : 0);
      Kokkos::deep_copy(b, 1.0);
      const SolveResult result = solver.solve(space, b, x);
      return std::make_pair(result, reference::to_host(x));
    };
    DistributedSolver updated(comm, options), fresh(comm, options);
    updated.setup(space, root ? &problem.matrix : nullptr, problem.grid);
    updated.update_values(space, root ? &changed : nullptr);
    fresh.setup(space, root ? &changed : nullptr, problem.grid);
    const auto [result, x] = solve(updated);
    const auto [expected, x_fresh] = solve(fresh);
    CHECK(result.converged());
    CHECK(result.iterations == expected.iterations);
    // The same factors and operator, so the same arithmetic: equal up to a few roundings.
    for (std::size_t i = 0; i < x.size(); ++i)
      CHECK(std::abs(x[i] - x_fresh[i]) <= 1e-12 * (std::abs(x_fresh[i]) + 1));
  }
}

TEST_CASE("a zero pivot on the last rank reaches every rank as the same error", "[mpi][dist]") {
  const Communicator comm;
  const ExecSpace space;
  GeneratedProblem problem = generate_problem("gen:lap7:12");
  SolverOptions options;
  options.set_all({"subdomain_rows=150"});
  // The first row of the last subdomain has no lower entries inside its block, so its pivot is
  // its diagonal: zero it there, in the caller's ordering.
  const PartitionedMatrix dd =
      partition_matrix(space, problem.matrix, problem.grid, options.partition);
  const Ordinal last_first_row =
      dd.partition.host_subdomain_offsets[dd.partition.num_subdomains - 1];
  const auto iperm = reference::host_vector(dd.partition.iperm);
  const Ordinal original_row = iperm[last_first_row];
  {
    const auto row_map = reference::host_vector(problem.matrix.row_map());
    const auto cols = reference::host_vector(problem.matrix.col_ind());
    auto values = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), problem.matrix.values());
    for (Offset k = row_map[original_row]; k < row_map[original_row + 1]; ++k)
      if (cols[k] == original_row) values(k) = 0;
    Kokkos::deep_copy(problem.matrix.values(), values);
  }
  DistributedSolver solver(comm, options);
  bool thrown = false;
  try {
    solver.setup(space, comm.is_root() ? &problem.matrix : nullptr, problem.grid);
  } catch (const ZeroPivot& pivot) {
    thrown = true;
    CHECK(pivot.row() == original_row);
  }
  CHECK(thrown);
}

TEST_CASE("more ranks than subdomains is an error on every rank", "[mpi][dist]") {
  const Communicator comm;
  if (comm.size() == 1) return;  // one rank always has a subdomain
  const ExecSpace space;
  // 216 rows in subdomains of up to 216 rows: one subdomain for two or three ranks. (A cap
  // beyond team scratch would also throw InvalidInput, from option validation: the message
  // check makes sure this is the distribution's error.)
  const GeneratedProblem problem = generate_problem("gen:lap7:6");
  SolverOptions options;
  options.set_all({"subdomain_rows=216"});
  DistributedSolver solver(comm, options);
  bool thrown = false;
  try {
    solver.setup(space, comm.is_root() ? &problem.matrix : nullptr, problem.grid);
  } catch (const InvalidInput& error) {
    thrown = true;
    CHECK_THAT(error.what(),
               FGDD_CONTAINS("1 subdomains for " + std::to_string(comm.size()) + " MPI ranks"));
  }
  CHECK(thrown);
}

TEST_CASE("a file the root cannot read is a FileError on every rank", "[mpi][dist]") {
  const Communicator comm;
  bool thrown = false;
  try {
    comm.run_collectively([&] {
      if (comm.is_root()) read_matrix_market("/nonexistent/fgdd/missing.mtx");
    });
  } catch (const FileError& error) {  // the root's error, path and message, on every rank
    thrown = true;
    CHECK(error.path() == "/nonexistent/fgdd/missing.mtx");
    CHECK_THAT(error.what(), FGDD_CONTAINS("cannot open"));
  }
  CHECK(thrown);
}
