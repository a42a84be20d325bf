// Ranks must agree on the solver options (else they wait on each other forever): setup compares
// them and every rank throws the same error naming the first option that differs; options are
// checked against the global problem on every rank alike.
#include "catch_compat.hpp"
#include "fgdd.hpp"

#include <string>
#include <vector>

using namespace fgdd;

TEST_CASE("require_same_on_all_ranks names the first rank and item that differ",
          "[dist][options]") {
  const Communicator comm;
  CHECK_NOTHROW(comm.require_same_on_all_ranks({"a=1", "b=2"}, "settings"));
  if (comm.size() < 2) return;
  const std::vector<std::string> mine = comm.rank() == 1 ? std::vector<std::string>{"a=1", "b=3"}
                                                         : std::vector<std::string>{"a=1", "b=2"};
  CHECK_THROWS_WITH(comm.require_same_on_all_ranks(mine, "settings"),
                    FGDD_CONTAINS("settings differ between ranks: rank 1 has 'b=3' where rank 0 "
                                  "has 'b=2'"));
  const std::vector<std::string> shorter = comm.rank() == comm.size() - 1
                                               ? std::vector<std::string>{"a=1"}
                                               : std::vector<std::string>{"a=1", "b=2"};
  CHECK_THROWS_WITH(comm.require_same_on_all_ranks(shorter, "settings"),
                    FGDD_CONTAINS("has nothing where rank 0 has 'b=2'"));
}

TEST_CASE("DistributedSolver setup fails on every rank when the ranks' options differ",
          "[dist][options]") {
  const Communicator comm;
  const ExecSpace space;
  const GeneratedProblem problem = generate_problem("gen:lap7:6");
  const SparseMatrix* A = comm.is_root() ? &problem.matrix : nullptr;
  SolverOptions options;
  options.set_all({"method=gmres", "subdomain_rows=30"});
  options.set("restart", comm.rank() == 1 ? "7" : "30");
  DistributedSolver solver(comm, options);
  if (comm.size() > 1) {
    CHECK_THROWS_WITH(solver.setup(space, A),
                      FGDD_CONTAINS("rank 1 has 'restart=7' where rank 0 has 'restart=30'"));
    const LocalRows mine = generate_local_rows(comm, "gen:lap7:6").rows;
    CHECK_THROWS_WITH(solver.setup(space, mine), FGDD_CONTAINS("'restart=7'"));
  }
  // The same options on every rank set up.
  options.set("restart", "7");
  DistributedSolver agreed(comm, options);
  CHECK_NOTHROW(agreed.setup(space, A));
}

TEST_CASE("DistributedSolver checks GMRES restart against the global rows", "[dist][options]") {
  const Communicator comm;
  const ExecSpace space;
  const GeneratedProblem problem = generate_problem("gen:lap7:4");  // 64 rows over the ranks
  const SparseMatrix* A = comm.is_root() ? &problem.matrix : nullptr;
  SolverOptions options;
  options.set_all({"method=gmres", "restart=65", "subdomain_rows=16"});
  DistributedSolver too_long(comm, options);
  CHECK_THROWS_WITH(too_long.setup(space, A), FGDD_CONTAINS("restart 65 exceeds the 64 rows"));
  // Every rank holds fewer rows than 64, but the basis spans the global problem.
  options.set("restart", "64");
  DistributedSolver longest(comm, options);
  longest.setup(space, A);
  Vector b("b", comm.is_root() ? 64 : 0), x("x", comm.is_root() ? 64 : 0);
  Kokkos::deep_copy(b, 1.0);
  CHECK(longest.solve(space, b, x).converged());
}
