// Rows renumbered by level inside each subdomain (subdomain_order=levels,
// schedule/level_order.hpp): the same subdomains, each level's rows consecutive, and for a
// structurally symmetric pattern the same preconditioner as the partitioner's order.
#include "catch_compat.hpp"
#include "core/generators.hpp"
#include "precond/dd_ilu_preconditioner.hpp"
#include "reference/random_matrix.hpp"
#include "solver/solver.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

using namespace fgdd;

namespace {

struct Setup {
  SparseMatrix matrix;
  GridInfo grid;
};

std::vector<double> preconditioned(Solver& solver, const std::vector<double>& r) {
  const ExecSpace space;
  const Ordinal n = Ordinal(r.size());
  Vector r_dev("r", n), z_dev("z", n);
  auto host = Kokkos::create_mirror_view(r_dev);
  for (Ordinal i = 0; i < n; ++i) host(i) = r[std::size_t(i)];
  Kokkos::deep_copy(r_dev, host);
  solver.apply_preconditioner(space, r_dev, z_dev);
  Kokkos::deep_copy(host, z_dev);
  return std::vector<double>(host.data(), host.data() + n);
}

Solver set_up(const Setup& problem, const std::vector<std::string>& common, const char* order) {
  SolverOptions options;
  options.set_all(common);
  options.set("subdomain_order", order);
  Solver solver(options);
  solver.setup(ExecSpace(), problem.matrix, problem.grid);
  return solver;
}

// Positions p of the lower level sets list block row p: a level's rows are consecutive.
bool levels_list_rows_in_order(const Solver& solver) {
  const auto* dd = dynamic_cast<const DdIluPreconditioner*>(&solver.preconditioner());
  REQUIRE(dd != nullptr);
  const SubdomainLevels* lower = dd->factorization().lower_levels();
  REQUIRE(lower != nullptr);
  const auto rows = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), lower->rows);
  for (std::size_t p = 0; p < rows.extent(0); ++p)
    if (rows(p) != Ordinal(p)) return false;
  return true;
}

}  // namespace

TEST_CASE("rows in level order: a level's rows consecutive, the same preconditioner",
          "[solver][levels]") {
  struct Case {
    std::string name;
    Setup problem;
    std::string partition;  // partitioner and subdomain rows
    bool symmetric_pattern;
  };
  std::vector<Case> cases;
  const auto generated = [](const char* spec) {
    const GeneratedProblem problem = generate_problem(spec);
    return Setup{problem.matrix, problem.grid};
  };
  cases.push_back({"lap7 odd box, geometric", generated("gen:lap7:11:9:8"), "150", true});
  cases.push_back({"lap7, natural chunks", generated("gen:lap7:9:7:5"), "natural:97", true});
  cases.push_back({"bsr3, geometric", generated("gen:bsr3:7"), "150", true});
  cases.push_back({"lap27, rcm chunks", generated("gen:lap27:9"), "rcm:101", true});
  cases.push_back(
      {"reservoir, one subdomain", generated("gen:reservoir:9:8:7"), "natural:504", true});
  cases.push_back({"convdiff, one-row subdomains", generated("gen:convdiff:4"), "natural:1", true});
  // Random patterns are not symmetric: entries right of the diagonal may move left of it.
  cases.push_back({"random CSR, natural",
                   Setup{make_matrix(reference::random_matrix(301, 1, 6, 5u)), {}}, "natural:64",
                   false});
  cases.push_back({"random BSR 2, multilevel",
                   Setup{make_matrix(reference::random_matrix(157, 2, 4, 9u)), {}}, "multilevel:40",
                   false});
  for (const Case& c : cases) {
    INFO(c.name);
    const auto colon = c.partition.find(':');
    std::vector<std::string> common = {"factor_order=levels", "tol=1e-10"};
    if (colon == std::string::npos) {
      common.push_back("subdomain_rows=" + c.partition);
    } else {
      common.push_back("partitioner=" + c.partition.substr(0, colon));
      common.push_back("subdomain_rows=" + c.partition.substr(colon + 1));
    }
    Solver given = set_up(c.problem, common, "partitioner");
    Solver by_level = set_up(c.problem, common, "levels");
    CHECK(by_level.partition_report().num_subdomains == given.partition_report().num_subdomains);
    CHECK(by_level.partition_report().entries_after_drop ==
          given.partition_report().entries_after_drop);
    CHECK(by_level.partition_report().steps.find("level order") != std::string::npos);
    CHECK(levels_list_rows_in_order(by_level));

    const Ordinal n = c.problem.matrix.num_rows();
    std::mt19937 random(7u);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    std::vector<double> r(static_cast<std::size_t>(n));
    for (double& value : r) value = uniform(random);
    const std::vector<double> z_given = preconditioned(given, r);
    const std::vector<double> z_levels = preconditioned(by_level, r);
    double largest = 0, difference = 0;
    for (std::size_t i = 0; i < r.size(); ++i) {
      largest = std::max(largest, std::abs(z_given[i]));
      difference = std::max(difference, std::abs(z_given[i] - z_levels[i]));
    }
    REQUIRE(largest > 0);
    if (c.symmetric_pattern) {
      // The same factors, their sums in another order: each entry's rounding (a few ulps times
      // the row's terms) grows through the solves by the subdomain blocks' conditioning, a few
      // hundred at most for these diagonally dominant blocks of ≤ 504 rows.
      CHECK(difference <= 1e-11 * largest);
    }
    Vector b("b", n), x("x", n);
    Kokkos::deep_copy(b, 1.0);
    const SolveResult result = by_level.solve(ExecSpace(), b, x);
    CHECK(result.converged());
    CHECK(result.relative_true_residual <= 1e-10);
  }
}

TEST_CASE("subdomain_order auto: by level exactly where the factorization runs by levels",
          "[solver][levels]") {
  const GeneratedProblem generated = generate_problem("gen:convdiff:9");
  const Setup problem{generated.matrix, generated.grid};
  const auto by_level = [&](const std::vector<std::string>& options) {
    return set_up(problem, options, "auto").partition_report().steps.find("level order") !=
           std::string::npos;
  };
  CHECK(by_level({"factor_order=levels", "subdomain_rows=200"}));
  CHECK_FALSE(by_level({"factor_order=rows", "subdomain_rows=200"}));
  // The backend's own choice: levels on GPUs, rows on CPU backends.
  CHECK(by_level({"subdomain_rows=200"}) ==
        (resolve_auto(FactorOrder::Auto) == FactorOrder::Levels));
  // Not for the exact global ILU(0), which has no subdomains to renumber.
  CHECK_FALSE(by_level({"preconditioner=ilu0", "factor_order=levels"}));
}

TEST_CASE("subdomain_order is an option of the DD preconditioners only", "[solver][levels]") {
  const GeneratedProblem problem = generate_problem("gen:lap7:6");
  SolverOptions options;
  options.set_all({"preconditioner=ilu0", "subdomain_order=levels"});
  Solver solver(options);
  solver.setup(ExecSpace(), problem.matrix, problem.grid);
  // The exact global ILU(0) keeps the caller's order: nothing is renumbered.
  CHECK(solver.partition_report().steps.find("level order") == std::string::npos);
  CHECK_THROWS_WITH(options.set("subdomain_order", "sideways"),
                    FGDD_CONTAINS("partitioner|levels"));
}
