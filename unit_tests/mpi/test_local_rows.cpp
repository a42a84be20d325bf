// DistributedMatrix and DistributedSolver from each rank's own rows (LocalRows): the SpMV equals
// the serial product in the callers' ordering, solves meet the tolerance on the whole matrix
// (and on one rank take Solver's iterations), new values equal a fresh setup, and bad input is
// the same typed error on every rank.
#include "catch_compat.hpp"
#include "fgdd.hpp"
#include "mpi/dist_checks.hpp"
#include "reference/dense.hpp"
#include "reference/random_matrix.hpp"
#include "solver/solver_steps.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using namespace fgdd;
using namespace fgdd::test;

namespace {

// rows_of, with each row's columns reversed when asked (callers need not sort).
LocalRows rows_of(const SparseMatrix& A, Ordinal first, Ordinal count, bool reversed) {
  LocalRows mine = fgdd::rows_of(A, first, count);
  if (!reversed) return mine;
  const Offset b2 = Offset(mine.block_size) * mine.block_size;
  LocalRows out = mine;
  for (Ordinal i = 0; i < mine.num_block_rows(); ++i)
    for (Offset k = mine.row_map[i], j = mine.row_map[i + 1] - 1; k < mine.row_map[i + 1];
         ++k, --j) {
      out.col_ind[k] = mine.col_ind[j];
      std::copy(mine.values.begin() + j * b2, mine.values.begin() + (j + 1) * b2,
                out.values.begin() + k * b2);
    }
  return out;
}

// Uneven consecutive ranges: rank r gets a share growing with r (r + 1 parts of 1 + … + P),
// cut at multiples of unit (a grid plane, so each rank's rows are a grid of whole planes), and
// at least one unit each.
std::vector<Ordinal> uneven_offsets(Ordinal rows, int ranks, Ordinal unit) {
  const Ordinal units = rows / unit, parts = ranks * (ranks + 1) / 2;
  std::vector<Ordinal> offsets(1, 0);
  Ordinal done = 0, units_so_far = 0;
  for (int r = 0; r < ranks; ++r) {
    done += r + 1;
    units_so_far =
        std::min(std::max(units * done / parts, units_so_far + 1), units - (ranks - 1 - r));
    offsets.push_back(r + 1 == ranks ? rows : units_so_far * unit);
  }
  return offsets;
}

struct Case {
  std::string name;
  GeneratedProblem problem;
  Offset subdomain_rows;
  bool grid;  // pass each rank's planes as its local grid
};

std::vector<Case> cases() {
  return {{"lap7 9x9x11, local grids", generate_problem("gen:lap7:9:9:11"), 40, true},
          {"bsr3 6³, local grids", generate_problem("gen:bsr3:6"), 30, true},
          {"convdiff 9³, no grid", generate_problem("gen:convdiff:9"), 50, false},
          {"random CSR 301",
           {make_matrix(reference::random_matrix(301, 1, 5, 7, true)), {}, ""},
           24,
           false},
          {"random BSR b=2",
           {make_matrix(reference::random_matrix(97, 2, 4, 11, true)), {}, ""},
           16,
           false}};
}

struct Split {
  LocalRows mine;
  GridInfo local_grid;
  std::vector<Ordinal> offsets;
};

Split split(const Communicator& comm, const Case& c) {
  const GridInfo& g = c.problem.grid;
  const Ordinal plane = c.grid ? g.nx * g.ny : 1;
  Split s;
  s.offsets = uneven_offsets(c.problem.matrix.num_block_rows(), comm.size(), plane);
  const Ordinal first = s.offsets[comm.rank()], count = s.offsets[comm.rank() + 1] - first;
  s.mine = rows_of(c.problem.matrix, first, count, comm.rank() % 2 == 1);
  if (c.grid && count > 0) s.local_grid = GridInfo{g.nx, g.ny, count / plane};
  return s;
}

PartitionOptions small_subdomains(Offset rows) {
  PartitionOptions options;
  options.subdomain_rows = rows;
  return options;
}

}  // namespace

TEST_CASE("LocalRows: the distributed SpMV equals the serial one in the callers' ordering",
          "[mpi][dist]") {
  const Communicator comm;
  const ExecSpace space;
  for (const Case& c : cases()) {
    CAPTURE(c.name, comm.size());
    const Split s = split(comm, c);
    const DistributedMatrix A(space, comm, s.mine, s.local_grid,
                              small_subdomains(c.subdomain_rows));
    CHECK(A.first_block_row() == s.mine.first_block_row);
    CHECK(A.global_num_block_rows() == c.problem.matrix.num_block_rows());
    CHECK(A.local_report().num_subdomains == A.partition().num_subdomains);
    const int b = A.block_size();
    const Offset n = A.num_rows(), first = Offset(s.mine.first_block_row) * b;
    std::vector<double> x_mine(n);
    for (Offset i = 0; i < n; ++i) x_mine[i] = std::sin(0.3 * double(first + i) + 1);
    Vector x_local("x_local", n), y_local("y_local", n), y_mine("y_mine", n);
    permute_vector(space, A.local_order(), b, reference::to_device(x_mine), x_local);
    DistributedOperator(A).apply(space, x_local, y_local);
    unpermute_vector(space, A.local_order(), b, y_local, y_mine);
    // The callers' rows follow each other, so the gathered result is in A's own ordering.
    const std::vector<double> y = gather_whole(comm, s.offsets, b, reference::to_host(y_mine));
    const std::vector<double> x = gather_whole(comm, s.offsets, b, x_mine);
    Vector Y("Y", c.problem.matrix.num_rows());
    spmv(space, c.problem.matrix, reference::to_device(x), Y);
    const std::vector<double> serial = reference::to_host(Y);
    const std::vector<double> magnitude = absolute_product(c.problem.matrix, x);
    // Two summation orders of at most k terms each.
    const double bound = 2 * sum_error_bound(max_row_entries(c.problem.matrix));
    for (std::size_t i = 0; i < y.size(); ++i)
      CHECK(std::abs(y[i] - serial[i]) <= bound * magnitude[i] + 1e-300);
    check_halo_counts(comm, A);
  }
}

TEST_CASE("LocalRows: DistributedSolver meets the tolerance on the whole matrix", "[mpi][dist]") {
  const Communicator comm;
  const ExecSpace space;
  struct SolveCase {
    std::size_t problem;
    std::vector<std::string> options;
  };
  const std::vector<Case> problems = cases();
  const std::vector<SolveCase> solves = {{0, {"method=bicgstab", "preconditioner=ildu0-dd"}},
                                         {1, {"method=bicgstab", "preconditioner=ildu0-dd"}},
                                         {2, {"method=gmres"}},
                                         {0, {"method=cg", "preconditioner=ic0-dd"}},
                                         // each rank renumbers its subdomains' rows by level
                                         {0, {"method=bicgstab", "subdomain_order=levels"}},
                                         {1, {"method=gmres", "subdomain_order=levels"}}};
  for (const SolveCase& sc : solves) {
    const Case& c = problems[sc.problem];
    CAPTURE(c.name, sc.options.front(), comm.size());
    SolverOptions options;
    options.set_all({"subdomain_rows=" + std::to_string(c.subdomain_rows)});
    options.set_all(sc.options);
    const Split s = split(comm, c);
    DistributedSolver solver(comm, options);
    Vector x;
    const SolveResult result = solve_ones_from_rows(solver, s.mine, s.local_grid, x);
    CHECK(result.converged());
    CHECK((solver.partition_report().steps.find("level order") != std::string::npos) ==
          detail::orders_subdomain_rows_by_level(options));
    // On the whole matrix, x gathered in A's ordering; the recurrence may drift from the true
    // residual by a little, not by the distribution.
    const Offset N = c.problem.matrix.num_rows();
    const double tol = options.krylov.relative_tolerance;
    CHECK(whole_residual_of_ones(comm, s.offsets, c.problem.matrix, x) <=
          1.01 * tol * std::sqrt(double(N)));
    if (comm.size() == 1) {  // the rank's diagonal block is A: Solver's partition and steps
      Solver serial(options);
      serial.setup(space, c.problem.matrix, c.grid ? c.problem.grid : GridInfo{});
      Vector b1("b1", N), x1("x1", N);
      Kokkos::deep_copy(b1, 1.0);
      CHECK(serial.solve(space, b1, x1).iterations == result.iterations);
    }
  }
}

TEST_CASE("LocalRows: update_values then solve equals a fresh setup", "[mpi][dist]") {
  const Communicator comm;
  const ExecSpace space;
  const Case c = cases()[2];
  const Split s = split(comm, c);
  LocalRows changed = s.mine;
  for (std::size_t k = 0; k < changed.values.size(); ++k)
    changed.values[k] *= 1 + 0.2 * std::sin(double(k + s.mine.first_block_row));
  for (const char* order : {"partitioner", "levels", "colours"}) {  // rows inside subdomains
    CAPTURE(order);
    SolverOptions options;
    // Natural chunks: a partition that ignores the values (the GPU default, multilevel, weighs
    // edges by them, so a fresh setup of the new values may cut differently).
    options.set_all(
        {"subdomain_rows=50", "partitioner=natural", std::string("subdomain_order=") + order});
    const auto solve = [&](DistributedSolver& solver) {
      const Offset n = solver.matrix().num_rows();
      Vector b("b", n), x("x", n);
      Kokkos::deep_copy(b, 1.0);
      const SolveResult result = solver.solve_rows(space, b, x);
      return std::make_pair(result, reference::to_host(x));
    };
    DistributedSolver updated(comm, options), fresh(comm, options);
    updated.setup(space, s.mine, s.local_grid);
    updated.update_values(space, changed);
    fresh.setup(space, changed, s.local_grid);
    const auto [result, x] = solve(updated);
    const auto [expected, x_fresh] = solve(fresh);
    CHECK(result.converged());
    CHECK(result.iterations == expected.iterations);
    // The same factors and operator, so the same arithmetic.
    for (std::size_t i = 0; i < x.size(); ++i) CHECK(x[i] == x_fresh[i]);
  }
}

TEST_CASE("LocalRows: bad input is the same typed error on every rank", "[mpi][dist]") {
  const Communicator comm;
  const ExecSpace space;
  const Case c = cases()[0];
  const Split s = split(comm, c);
  const bool last = comm.rank() + 1 == comm.size();
  const Ordinal N = c.problem.matrix.num_block_rows(), last_row = N - 1;
  SolverOptions options;
  options.set_all({"subdomain_rows=40"});
  DistributedSolver solver(comm, options);

  CHECK_THROWS_AS(fgdd::rows_of(c.problem.matrix, last_row, 2), InvalidInput);
  CHECK(fgdd::rows_of(c.problem.matrix, last_row + 1, 0).row_map == std::vector<Offset>{0});

  // The last rank's rows start one row late: a gap.
  LocalRows gap = s.mine;
  if (last) ++gap.first_block_row;
  CHECK_THROWS_WITH(solver.setup(space, gap, {}), FGDD_CONTAINS("expected"));
  // The last rank hands its rows to the one before (one rank: has none).
  const int before = comm.size() - 2;
  const LocalRows none =
      last ? fgdd::rows_of(c.problem.matrix, comm.size() > 1 ? N : 0, 0)
      : comm.rank() == before
          ? fgdd::rows_of(c.problem.matrix, s.offsets[before], N - s.offsets[before])
          : s.mine;
  CHECK_THROWS_WITH(
      solver.setup(space, none, {}),
      FGDD_CONTAINS("rank " + std::to_string(comm.size() - 1) + " holds no block rows"));

  // The last rank's last row: a column past the end, a column twice, no diagonal, a NaN. The
  // error names the global row and column on every rank.
  const auto last_row_edit = [&](auto edit) {
    LocalRows bad = s.mine;
    if (last) edit(bad, bad.row_map[bad.num_block_rows() - 1], bad.row_map.back());
    return bad;
  };
  const auto check_matrix_error = [&](const LocalRows& bad, Ordinal column, const char* text) {
    bool thrown = false;
    try {
      solver.setup(space, bad, {});
    } catch (const InvalidMatrix& error) {
      thrown = true;
      CHECK(error.row() == last_row);
      CHECK(error.column() == column);
      CHECK_THAT(error.what(), FGDD_CONTAINS(text));
    }
    CHECK(thrown);
  };
  // The first column of the last row as the last rank passes it (odd ranks reverse their rows).
  const Ordinal first_column =
      rows_of(c.problem.matrix, last_row, 1, (comm.size() - 1) % 2 == 1).col_ind.front();
  check_matrix_error(
      last_row_edit([&](LocalRows& m, Offset begin, Offset) { m.col_ind[begin] = N; }), N,
      "outside");
  check_matrix_error(last_row_edit([&](LocalRows& m, Offset begin, Offset end) {
                       m.col_ind[end - 1] = m.col_ind[begin];
                     }),
                     first_column, "twice");
  check_matrix_error(last_row_edit([&](LocalRows& m, Offset begin, Offset end) {
                       for (Offset k = begin; k < end; ++k)
                         if (m.col_ind[k] == last_row) m.col_ind[k] = last_row - 2;
                     }),
                     last_row, "no diagonal");
  check_matrix_error(last_row_edit([&](LocalRows& m, Offset begin, Offset) {
                       m.values[begin * m.block_size * m.block_size] = std::nan("");
                     }),
                     first_column, "NaN");

  // Arrays of the wrong shape on the last rank: the same InvalidMatrix on every rank.
  const Ordinal last_first = s.offsets[comm.size() - 1];
  LocalRows decreasing = s.mine;
  if (last) decreasing.row_map[1] = decreasing.row_map[2] + 1;
  CHECK_THROWS_WITH(
      solver.setup(space, decreasing, {}),
      FGDD_CONTAINS("row map decreases at block row " + std::to_string(last_first + 1)));
  LocalRows extra_column = s.mine;
  if (last) {
    extra_column.col_ind.push_back(0);
    extra_column.values.resize(extra_column.values.size() +
                               extra_column.block_size * extra_column.block_size);
  }
  CHECK_THROWS_WITH(solver.setup(space, extra_column, {}), FGDD_CONTAINS("the row map ends at"));
  LocalRows short_values = s.mine;
  if (last) short_values.values.pop_back();
  CHECK_THROWS_WITH(solver.setup(space, short_values, {}), FGDD_CONTAINS("values for"));
  LocalRows shifted_start = s.mine;
  if (last) shifted_start.row_map.front() = 1;
  CHECK_THROWS_WITH(solver.setup(space, shifted_start, {}), FGDD_CONTAINS("offsets from 0"));

  // After a good setup: another pattern in update_values, the root's vectors in solve, and
  // vectors of the wrong length in solve_rows.
  solver.setup(space, s.mine, s.local_grid);
  LocalRows other = s.mine;
  if (last) other.col_ind[other.row_map[other.num_block_rows() - 1]] = last_row - 2;
  CHECK_THROWS_WITH(
      solver.update_values(space, other),
      FGDD_CONTAINS("block row " + std::to_string(last_row) + " has another pattern"));
  // The last row one block shorter: a changed count is another pattern too.
  LocalRows shorter = s.mine;
  if (last) {
    shorter.col_ind.pop_back();
    shorter.values.resize(shorter.col_ind.size() * shorter.block_size * shorter.block_size);
    --shorter.row_map.back();
  }
  CHECK_THROWS_WITH(
      solver.update_values(space, shorter),
      FGDD_CONTAINS("block row " + std::to_string(last_row) + " has another pattern"));
  // The same pattern with a NaN among the new values: InvalidMatrix naming the block.
  LocalRows nan_values = s.mine;
  if (last) nan_values.values.back() = std::nan("");
  bool nan_thrown = false;
  try {
    solver.update_values(space, nan_values);
  } catch (const InvalidMatrix& error) {
    nan_thrown = true;
    CHECK(error.row() == last_row);
    CHECK_THAT(error.what(), FGDD_CONTAINS("NaN"));
  }
  CHECK(nan_thrown);
  Vector wrong("wrong", 1), empty("empty", 0);
  CHECK_THROWS_AS(solver.solve(space, empty, empty), InvalidInput);
  CHECK_THROWS_AS(solver.solve_rows(space, wrong, wrong), DimensionMismatch);
  CHECK_THROWS_AS(solver.update_values(space, nullptr), InvalidInput);

  // A zero pivot on the last rank: its last row keeps only its diagonal, zero, so the pivot is
  // that zero wherever the row lands. Every rank gets the ZeroPivot naming the global row.
  LocalRows singular = s.mine;
  if (last) {
    const Offset begin = singular.row_map[singular.num_block_rows() - 1];
    singular.col_ind.resize(begin + 1);
    singular.values.resize(begin + 1);
    singular.col_ind[begin] = last_row;
    singular.values[begin] = 0;
    singular.row_map.back() = begin + 1;
  }
  bool pivot_thrown = false;
  try {
    solver.setup(space, singular, s.local_grid);
  } catch (const ZeroPivot& pivot) {
    pivot_thrown = true;
    CHECK(pivot.row() == last_row);
  }
  CHECK(pivot_thrown);

  // The structured preconditioners factor the whole grid: refused, whichever setup follows.
  for (const char* structured : {"preconditioner=struct-ilu0", "preconditioner=struct-ic0"}) {
    SolverOptions refused;
    refused.set_all({structured});
    CHECK_THROWS_WITH(DistributedSolver(comm, refused), FGDD_CONTAINS("not available over MPI"));
  }
}
