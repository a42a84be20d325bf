// Rows renumbered by level inside each subdomain (subdomain_order=levels,
// partition/level_order.hpp): the same subdomains, each level's rows consecutive, and for a
// structurally symmetric pattern the same preconditioner as the partitioner's order. Rows
// renumbered by colour (subdomain_order=colours): as many levels as colours at most. Rows in
// reverse Cuthill–McKee order (subdomain_order=rcm, partition/subdomain_rcm.hpp).
#include "catch_compat.hpp"
#include "core/generators.hpp"
#include "partition/level_order.hpp"
#include "partition/subdomain_rcm.hpp"
#include "precond/dd_ilu_preconditioner.hpp"
#include "reference/dense.hpp"
#include "reference/random_matrix.hpp"
#include "reference/reference_ilu0.hpp"
#include "reference/reference_rcm.hpp"
#include "solver/solver.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
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

Setup generated(const char* spec) {
  const GeneratedProblem problem = generate_problem(spec);
  return Setup{problem.matrix, problem.grid};
}

// A case's options: the level-order factorization (which builds the lower level sets), a
// tolerance for check_solve_converges, and the partition "PARTITIONER:ROWS" or "ROWS" (auto).
std::vector<std::string> case_options(const std::string& partition) {
  std::vector<std::string> options = {"factor_order=levels", "tol=1e-10"};
  const auto colon = partition.find(':');
  if (colon != std::string::npos) options.push_back("partitioner=" + partition.substr(0, colon));
  const auto rows = colon == std::string::npos ? 0 : colon + 1;
  options.push_back("subdomain_rows=" + partition.substr(rows));
  return options;
}

// A reordered solver keeps the given one's subdomains and dropped entries, and its report
// names the reordering step.
void check_same_subdomains(const Solver& given, const Solver& reordered, const char* step) {
  CHECK(reordered.partition_report().num_subdomains == given.partition_report().num_subdomains);
  CHECK(reordered.partition_report().entries_after_drop ==
        given.partition_report().entries_after_drop);
  CHECK(reordered.partition_report().steps.find(step) != std::string::npos);
}

// The DD preconditioner's lower level sets (the level-order factorization builds them).
const SubdomainLevels& lower_levels(const Solver& solver) {
  const auto* dd = dynamic_cast<const DdIluPreconditioner*>(&solver.preconditioner());
  REQUIRE(dd != nullptr);
  const SubdomainLevels* lower = dd->factorization().lower_levels();
  REQUIRE(lower != nullptr);
  return *lower;
}

// Solves with b = 1 and requires the true residual to meet the tests' tolerance.
void check_solve_converges(Solver& solver, Offset n) {
  Vector b("b", n), x("x", n);
  Kokkos::deep_copy(b, 1.0);
  const SolveResult result = solver.solve(ExecSpace(), b, x);
  CHECK(result.converged());
  CHECK(result.relative_true_residual <= 1e-10);
}

// Positions p of the lower level sets list block row p: a level's rows are consecutive.
bool levels_list_rows_in_order(const Solver& solver) {
  const SubdomainLevels* lower = &lower_levels(solver);
  const auto rows = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), lower->rows);
  for (std::size_t p = 0; p < rows.extent(0); ++p)
    if (rows(p) != Ordinal(p)) return false;
  return true;
}

// The reference of order_rows_by_level and order_rows_by_colour: in each subdomain, sweeping
// the rows of P A Pᵀ in order, the level of every row in the lower triangle of its diagonal
// block (or its greedy colour: the smallest below 64 that no earlier row it has an entry for
// holds, else one past the highest of theirs), then the rows by that key, stably. Returns the
// new perm.
std::vector<Ordinal> reference_sweep_perm(const reference::HostBlockCsr& A,
                                          const Partition& partition, bool colours) {
  const auto perm = reference::host_vector(partition.perm);
  const auto iperm = reference::host_vector(partition.iperm);
  const auto& offsets = partition.host_subdomain_offsets;
  std::vector<Ordinal> new_perm(perm.size(), -1);
  for (Ordinal s = 0; s < partition.num_subdomains; ++s) {
    const Ordinal first = offsets[s], last = offsets[s + 1];
    std::vector<Ordinal> key(last - first, 0), order(last - first);
    for (Ordinal p = first; p < last; ++p) {
      const Ordinal r = iperm[p];
      std::vector<Ordinal> earlier;  // the keys of the earlier rows it has entries for
      for (Offset k = A.row_map[r]; k < A.row_map[r + 1]; ++k) {
        const Ordinal q = perm[A.col_ind[k]];
        if (q >= first && q < p) earlier.push_back(key[q - first]);
      }
      Ordinal& mine = key[p - first];
      if (!colours) {
        for (const Ordinal l : earlier) mine = std::max(mine, l + 1);
      } else {
        while (mine < 64 && std::find(earlier.begin(), earlier.end(), mine) != earlier.end())
          ++mine;
        if (mine == 64)
          for (const Ordinal c : earlier) mine = std::max(mine, c + 1);
      }
    }
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](Ordinal a, Ordinal b) { return key[a] < key[b]; });
    for (Ordinal k = 0; k < last - first; ++k) new_perm[iperm[first + order[k]]] = first + k;
  }
  return new_perm;
}

// The reference of order_rows_by_rcm, written from its contract: in each subdomain, rows by
// position t (partition order), a row's neighbours the other rows of the subdomain its entries
// name, ordered by reference::rcm_order. Returns the new perm.
std::vector<Ordinal> reference_rcm_perm(const reference::HostBlockCsr& A,
                                        const Partition& partition) {
  const auto perm = reference::host_vector(partition.perm);
  const auto iperm = reference::host_vector(partition.iperm);
  const auto& offsets = partition.host_subdomain_offsets;
  std::vector<Ordinal> new_perm(perm.size(), -1);
  for (Ordinal s = 0; s < partition.num_subdomains; ++s) {
    const Ordinal first = offsets[s], m = offsets[s + 1] - first;
    std::vector<std::vector<Ordinal>> neighbours(m);
    for (Ordinal t = 0; t < m; ++t) {
      const Ordinal r = iperm[first + t];
      for (Offset k = A.row_map[r]; k < A.row_map[r + 1]; ++k) {
        const Ordinal j = perm[A.col_ind[k]] - first;
        if (j >= 0 && j < m && j != t) neighbours[t].push_back(j);
      }
    }
    const std::vector<Ordinal> order =
        reference::rcm_order(neighbours, reference::RcmStart::PseudoPeripheral);
    for (Ordinal q = 0; q < m; ++q) new_perm[iperm[first + order[q]]] = first + q;
  }
  return new_perm;
}

}  // namespace

TEST_CASE("order_rows_by_level, _by_colour and _by_rcm equal the host reference on every partition",
          "[partition][levels]") {
  const ExecSpace space;
  struct Case {
    std::string name;
    SparseMatrix A;
    Partition partition;
  };
  std::vector<Case> cases;
  const auto partitioned = [&](const std::string& spec, Partitioner partitioner, Offset rows) {
    const GeneratedProblem problem = generate_problem(spec);
    PartitionOptions options;
    options.partitioner = partitioner;
    options.subdomain_rows = rows;
    cases.push_back({spec + " " + to_string(partitioner) + " " + std::to_string(rows),
                     problem.matrix,
                     partition_matrix(space, problem.matrix, problem.grid, options).partition});
  };
  partitioned("gen:lap7:9:7:5", Partitioner::Geometric, 60);
  partitioned("gen:lap27:6", Partitioner::Rcm, 50);
  partitioned("gen:bsr3:5", Partitioner::Geometric, 60);
  partitioned("gen:reservoir:8:7:6", Partitioner::Multilevel, 100);
  partitioned("gen:convdiff:7", Partitioner::Natural, 1);    // one row each
  partitioned("gen:convdiff:6", Partitioner::Natural, 216);  // one subdomain
  // Explicit labels, each subdomain in descending row order (ties must keep it). Subdomains
  // larger than the partitioners' scratch cap are allowed here: the order itself has no cap.
  const auto labeled = [&](const std::string& name, const SparseMatrix& A, Ordinal parts) {
    const Ordinal n = A.num_block_rows();
    std::vector<Ordinal> labels(n), keys(n);
    for (Ordinal i = 0; i < n; ++i) {
      labels[i] = Ordinal((Offset(i) * i + 3 * i) % parts);  // parts of very different sizes
      keys[i] = n - 1 - i;
    }
    cases.push_back(
        {name, A,
         detail::make_partition(space, detail::Labeling{parts, reference::to_device(labels),
                                                        reference::to_device(keys)})});
  };
  const auto labeled_arrays = [&](const std::string& name, const HostMatrixArrays& arrays,
                                  Ordinal parts) { labeled(name, make_matrix(arrays), parts); };
  labeled_arrays("random CSR 301, 3 parts", reference::random_matrix(301, 1, 6, 5u), 3);
  labeled_arrays("random BSR 2, 157 rows, 5 parts", reference::random_matrix(157, 2, 4, 9u), 5);
  labeled_arrays("random CSR 130, 57 parts", reference::random_matrix(130, 1, 5, 16u), 57);
  labeled_arrays("one row", reference::random_matrix(1, 1, 1, 11u), 1);
  // A row of 2,600 entries, longer than a chunk: swept from global memory.
  labeled_arrays("arrow 2600, 1 part", reference::arrow_matrix(2600, 1300), 1);
  labeled_arrays("arrow 2600, 2 parts", reference::arrow_matrix(2600, 1301), 2);
  // 5,832 rows in one subdomain (more than CUDA's scratch cap of 5,117): 23 chunks.
  labeled("lap7 18^3, 1 part", generate_problem("gen:lap7:18").matrix, 1);
  // A clique of 66 rows takes colours 0..65. Row 66 couples to all of them but row 64, so every
  // colour below 64 is taken and it takes 66 (one past its neighbours'), not the free 64; row
  // 67 couples to rows 0..63 only and takes 64, so it sorts before rows 65 and 66.
  {
    const auto coupled = [](Ordinal i, Ordinal j) {
      const auto pair = [&](Ordinal a, Ordinal b) {
        if (a < 66 && b < 66) return true;
        if (a == 66) return b < 64 || b == 65 || b == 66;
        if (a == 67) return b < 64 || b == 67;
        return false;
      };
      return pair(i, j) || pair(j, i);
    };
    HostMatrixArrays clique;
    clique.num_block_rows = clique.num_block_cols = 68;
    clique.row_map.push_back(0);
    for (Ordinal i = 0; i < 68; ++i) {
      for (Ordinal j = 0; j < 68; ++j) {
        if (!coupled(i, j)) continue;
        clique.col_ind.push_back(j);
        clique.values.push_back(i == j ? 100.0 : -1.0);
      }
      clique.row_map.push_back(Offset(clique.col_ind.size()));
    }
    Partition one = detail::make_partition(
        space, detail::Labeling{1, reference::to_device(std::vector<Ordinal>(68, 0)),
                                reference::to_device([] {
                                  std::vector<Ordinal> keys(68);
                                  std::iota(keys.begin(), keys.end(), 0);
                                  return keys;
                                }())});
    cases.push_back({"clique past 64 colours, 1 part", make_matrix(clique), one});
  }

  for (const Case& c : cases) {
    for (const SubdomainRowOrder order :
         {SubdomainRowOrder::Levels, SubdomainRowOrder::Colours, SubdomainRowOrder::Rcm}) {
      INFO(c.name << ", " << subdomain_row_order_names.name(order));
      const bool colours = order == SubdomainRowOrder::Colours;
      const Partition ordered =
          order == SubdomainRowOrder::Rcm ? detail::order_rows_by_rcm(space, c.A, c.partition)
          : colours                       ? detail::order_rows_by_colour(space, c.A, c.partition)
                                          : detail::order_rows_by_level(space, c.A, c.partition);
      const auto host_A = reference::to_host_csr(c.A);
      const std::vector<Ordinal> expected =
          order == SubdomainRowOrder::Rcm ? reference_rcm_perm(host_A, c.partition)
                                          : reference_sweep_perm(host_A, c.partition, colours);
      CHECK(reference::host_vector(ordered.perm) == expected);
      // iperm inverts perm; the subdomains stay.
      const auto perm = reference::host_vector(ordered.perm);
      const auto iperm = reference::host_vector(ordered.iperm);
      std::size_t broken = 0;
      for (std::size_t i = 0; i < perm.size(); ++i)
        broken += iperm[std::size_t(perm[i])] != Ordinal(i);
      CHECK(broken == 0);
      CHECK(ordered.host_subdomain_offsets == c.partition.host_subdomain_offsets);
      CHECK(reference::host_vector(ordered.part_of_row) ==
            reference::host_vector(c.partition.part_of_row));
    }
  }
}

TEST_CASE("rows in level order: a level's rows consecutive, the same preconditioner",
          "[solver][levels]") {
  struct Case {
    std::string name;
    Setup problem;
    std::string partition;  // partitioner and subdomain rows
    bool symmetric_pattern;
  };
  std::vector<Case> cases;
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
    const std::vector<std::string> common = case_options(c.partition);
    Solver given = set_up(c.problem, common, "partitioner");
    Solver by_level = set_up(c.problem, common, "levels");
    check_same_subdomains(given, by_level, "level order");
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
    check_solve_converges(by_level, n);
    // Reverse Cuthill–McKee inside each subdomain: the same subdomains, another order's factors.
    Solver by_rcm = set_up(c.problem, common, "rcm");
    check_same_subdomains(given, by_rcm, "reverse Cuthill-McKee");
    check_solve_converges(by_rcm, n);
  }
}

TEST_CASE("rows by colour: no more levels than colours, solves that converge",
          "[solver][levels]") {
  struct Case {
    std::string name;
    Setup problem;
    std::string partition;  // partitioner and subdomain rows
    Ordinal colours;        // what a greedy sweep of the grid's boxes needs; 0: not checked
  };
  const std::vector<Case> cases = {
      // A 7-point box is two-coloured (red-black), a 27-point box needs eight.
      {"lap7 odd box, geometric", generated("gen:lap7:11:9:8"), "geometric:150", 2},
      {"lap27, geometric", generated("gen:lap27:9"), "geometric:101", 8},
      {"bsr3, geometric", generated("gen:bsr3:7"), "geometric:150", 2},
      {"convdiff, natural chunks", generated("gen:convdiff:9"), "natural:97", 0},
      {"reservoir, one subdomain", generated("gen:reservoir:9:8:7"), "natural:504", 0},
      {"convdiff, one-row subdomains", generated("gen:convdiff:4"), "natural:1", 1},
      {"random CSR, natural", Setup{make_matrix(reference::random_matrix(301, 1, 6, 5u)), {}},
       "natural:64", 0},
      {"random BSR 2, multilevel", Setup{make_matrix(reference::random_matrix(157, 2, 4, 9u)), {}},
       "multilevel:40", 0},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const std::vector<std::string> common = case_options(c.partition);
    Solver given = set_up(c.problem, common, "partitioner");
    Solver by_colour = set_up(c.problem, common, "colours");
    check_same_subdomains(given, by_colour, "by colour");
    const SubdomainLevels* lower = &lower_levels(by_colour);
    if (c.colours > 0) {
      // Rows of one colour never depend on each other: a level per colour at most, in both
      // triangles of these symmetric patterns.
      CHECK(lower->max_levels <= c.colours);
      const auto& dd = dynamic_cast<const DdIluPreconditioner&>(by_colour.preconditioner());
      CHECK(dd.trsv().levels(ExecSpace(), Triangle::Upper).max_levels <= c.colours);
      const Ordinal levels_given = lower_levels(given).max_levels;
      CHECK(lower->max_levels < levels_given + (c.colours == 1));  // one row has one level
    }
    check_solve_converges(by_colour, c.problem.matrix.num_rows());
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
  options.set("subdomain_order", "colours");
  solver = Solver(options);
  solver.setup(ExecSpace(), problem.matrix, problem.grid);
  CHECK(solver.partition_report().steps.find("by colour") == std::string::npos);
  CHECK_THROWS_WITH(options.set("subdomain_order", "sideways"),
                    FGDD_CONTAINS("partitioner|levels|colours|rcm"));
}
