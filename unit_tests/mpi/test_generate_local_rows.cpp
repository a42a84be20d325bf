// generate_local_rows: each rank builds only its z planes of a generated problem, bitwise the
// rows the whole generator gives, and a solve from them meets the tolerance on the whole matrix.
#include "catch_compat.hpp"
#include "fgdd.hpp"
#include "mpi/dist_checks.hpp"
#include "reference/dense.hpp"

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

using namespace fgdd;
using namespace fgdd::test;

TEST_CASE("generate_local_rows: every rank's planes are the whole problem's rows",
          "[mpi][dist]") {
  const Communicator comm;
  // Odd plane counts that do not divide evenly among 2 or 3 ranks; every generator kind.
  for (const char* spec : {"gen:lap7:5:4:7", "gen:lap27:4:3:5", "gen:convdiff:5",
                           "gen:reservoir:4:5:7", "gen:bsr3:4"}) {
    CAPTURE(spec, comm.size());
    const GeneratedProblem whole = generate_problem(spec);
    const GeneratedLocalRows mine = generate_local_rows(comm, spec);
    const GridInfo g = whole.grid;
    const Ordinal first_z = Ordinal(Offset(g.nz) * comm.rank() / comm.size());
    const Ordinal last_z = Ordinal(Offset(g.nz) * (comm.rank() + 1) / comm.size());
    CHECK(mine.grid.nz == g.nz);
    CHECK(mine.local_grid.nx == g.nx);
    CHECK(mine.local_grid.ny == g.ny);
    CHECK(mine.local_grid.nz == last_z - first_z);
    const LocalRows expected =
        rows_of(whole.matrix, first_z * g.nx * g.ny, (last_z - first_z) * g.nx * g.ny);
    CHECK(mine.rows.first_block_row == expected.first_block_row);
    CHECK(mine.rows.block_size == expected.block_size);
    CHECK(mine.rows.row_map == expected.row_map);
    CHECK(mine.rows.col_ind == expected.col_ind);
    REQUIRE(mine.rows.values.size() == expected.values.size());
    CHECK(std::memcmp(mine.rows.values.data(), expected.values.data(),
                      expected.values.size() * sizeof(Scalar)) == 0);
    // The ranks' rows follow each other and cover the matrix.
    const std::vector<Ordinal> offsets = detail::gather_row_offsets(comm, mine.rows);
    CHECK(offsets.back() == whole.matrix.num_block_rows());
  }
}

TEST_CASE("generate_local_rows: a solve from each rank's planes meets the tolerance",
          "[mpi][dist]") {
  const Communicator comm;
  for (const char* spec : {"gen:lap7:9:8:11", "gen:bsr3:6"}) {
    CAPTURE(spec, comm.size());
    const GeneratedLocalRows mine = generate_local_rows(comm, spec);
    SolverOptions options;
    options.set_all({"subdomain_rows=60"});
    DistributedSolver solver(comm, options);
    Vector x;
    CHECK(solve_ones_from_rows(solver, mine.rows, mine.local_grid, x).converged());
    const GeneratedProblem whole = generate_problem(spec);
    const std::vector<Ordinal> offsets = detail::gather_row_offsets(comm, mine.rows);
    CHECK(whole_residual_of_ones(comm, offsets, whole.matrix, x) <=
          1.01 * options.krylov.relative_tolerance * std::sqrt(double(whole.matrix.num_rows())));
  }
}

TEST_CASE("generate_local_rows: too few planes or a bad spec is the same error on every rank",
          "[mpi][dist]") {
  const Communicator comm;
  CHECK_THROWS_WITH(generate_local_rows(comm, "gen:lap7:4:4:0"), FGDD_CONTAINS("at least 1"));
  if (comm.size() > 1)
    CHECK_THROWS_WITH(generate_local_rows(comm, "gen:lap7:4:4:1"),
                      FGDD_CONTAINS("1-plane grid cannot give each of the " +
                                    std::to_string(comm.size()) + " ranks a z plane"));
}
