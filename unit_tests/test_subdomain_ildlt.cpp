// IC0 as L D Lᵀ (IluForm::Ildlt) on symmetric input: equals the Ildu0 factors (for a symmetric
// matrix ILU0 gives U = D Lᵀ), needs symmetry, and its pivots follow the same rules.
#include "catch_compat.hpp"
#include "core/generators.hpp"
#include "factor/subdomain_ilu0.hpp"
#include "partition/partition_matrix.hpp"
#include "reference/dense.hpp"
#include "reference/random_matrix.hpp"

using namespace fgdd;

namespace {

// (A + Aᵀ)/2 of a random diagonally dominant block matrix: symmetric and, being diagonally
// dominant with a positive diagonal, positive definite.
HostMatrixArrays random_spd(Ordinal block_rows, int b, unsigned seed) {
  const HostMatrixArrays A = reference::random_matrix(block_rows, b, 4, seed);
  HostMatrixArrays S = A;
  S.col_ind.clear();
  S.values.clear();
  S.row_map.assign(1, 0);
  const int bb = b * b;
  std::vector<std::vector<std::pair<Ordinal, std::vector<double>>>> rows(block_rows);
  for (Ordinal i = 0; i < block_rows; ++i)
    for (Offset k = A.row_map[i]; k < A.row_map[i + 1]; ++k) {
      const Ordinal j = A.col_ind[k];
      std::vector<double> half(bb), mirror(bb);
      for (int r = 0; r < b; ++r)
        for (int c = 0; c < b; ++c) {
          half[r * b + c] = 0.5 * A.values[k * bb + r * b + c];
          mirror[c * b + r] = half[r * b + c];
        }
      rows[i].push_back({j, half});
      rows[j].push_back({i, mirror});
    }
  for (Ordinal i = 0; i < block_rows; ++i) {
    for (const auto& [j, block] : rows[i]) {
      S.col_ind.push_back(j);
      S.values.insert(S.values.end(), block.begin(), block.end());
    }
    S.row_map.push_back(S.col_ind.size());
  }
  return S;  // make_matrix sums the duplicates
}

PartitionedMatrix split(const SparseMatrix& A, const GridInfo& grid, Offset rows) {
  PartitionOptions options;
  options.partitioner = grid.nx > 0 ? Partitioner::Geometric : Partitioner::Natural;
  options.subdomain_rows = rows;
  return partition_matrix(ExecSpace(), A, grid, options);
}

}  // namespace

TEST_CASE("Ildlt equals Ildu0 on symmetric matrices", "[factor][ildlt]") {
  const auto [name, block_rows, b] = GENERATE(table<std::string, Ordinal, int>(
      {{"random", 1, 1}, {"random", 61, 1}, {"random", 37, 2}, {"random", 29, 3},
       {"random", 23, 4}, {"gen:lap7:7", 0, 1}, {"gen:lap27:5", 0, 1}, {"gen:reservoir:6:5:4", 0, 1}}));
  CAPTURE(name, block_rows, b);
  GeneratedProblem problem;
  if (name == "random")
    problem.matrix = make_matrix(random_spd(block_rows, b, 7u + unsigned(block_rows)));
  else
    problem = generate_problem(name);
  const PartitionedMatrix dd = split(problem.matrix, problem.grid, 40);
  FactorOptions options;
  options.form = IluForm::Ildu0;
  const SubdomainIlu0 ildu(ExecSpace(), dd.system.dropped, dd.partition, options);
  options.form = IluForm::Ildlt;
  const SubdomainIlu0 ildlt(ExecSpace(), dd.system.dropped, dd.partition, options);
  const auto expected = reference::host_vector(ildu.factors().values());
  const auto got = reference::host_vector(ildlt.factors().values());
  const auto expected_inv = reference::host_vector(ildu.inv_diag());
  const auto got_inv = reference::host_vector(ildlt.inv_diag());
  // Both are the same exact factorization computed in different orders. Entries are bounded by
  // the matrix's largest entry (diagonal dominance keeps multipliers below 1), so the two differ
  // by a few roundings per update: 1e-12 relative to the largest entry allows ~100 updates.
  double scale = 0;
  for (double v : expected) scale = std::max(scale, std::abs(v));
  REQUIRE(got.size() == expected.size());
  for (std::size_t e = 0; e < got.size(); ++e) {
    CAPTURE(e);
    CHECK(got[e] == FGDD_CATCH_APPROX(expected[e]).margin(1e-12 * scale));
  }
  for (std::size_t e = 0; e < got_inv.size(); ++e) {
    CAPTURE(e);
    CHECK(got_inv[e] == FGDD_CATCH_APPROX(expected_inv[e]).margin(1e-12 * std::abs(expected_inv[e]) + 1e-300));
  }
}

TEST_CASE("Ildlt refuses a nonsymmetric matrix, naming the row", "[factor][ildlt]") {
  // Symmetric except A(3,5) ≠ A(5,3).
  HostMatrixArrays A = random_spd(9, 1, 3u);
  bool changed = false;
  for (Offset k = A.row_map[3]; k < A.row_map[4] && !changed; ++k)
    if (A.col_ind[k] != 3) {
      A.values[k] += 0.25;
      changed = true;
    }
  REQUIRE(changed);
  const PartitionedMatrix dd = split(make_matrix(A), GridInfo{}, 100);  // one subdomain
  FactorOptions options;
  options.form = IluForm::Ildlt;
  CHECK_THROWS_AS(SubdomainIlu0(ExecSpace(), dd.system.dropped, dd.partition, options), InvalidInput);
  CHECK_THROWS_WITH(SubdomainIlu0(ExecSpace(), dd.system.dropped, dd.partition, options),
                    FGDD_CONTAINS("needs a symmetric matrix"));

  // A nonsymmetric generated problem likewise.
  const GeneratedProblem conv = generate_problem("gen:convdiff:5");
  const PartitionedMatrix dd2 = split(conv.matrix, conv.grid, 40);
  CHECK_THROWS_AS(SubdomainIlu0(ExecSpace(), dd2.system.dropped, dd2.partition, options), InvalidInput);
}

TEST_CASE("Ildlt reports an indefinite pivot with its row, or shifts it", "[factor][ildlt]") {
  // [[1, 2], [2, 1]]: D_1 = 1 - 4 = -3 is fine for LDLᵀ; [[1, 1], [1, 1]] gives D_1 = 0.
  HostMatrixArrays A;
  A.num_block_rows = A.num_block_cols = 2;
  A.row_map = {0, 2, 4};
  A.col_ind = {0, 1, 0, 1};
  A.values = {1, 1, 1, 1};
  const PartitionedMatrix dd = split(make_matrix(A), GridInfo{}, 2);
  FactorOptions options;
  options.form = IluForm::Ildlt;
  CHECK_THROWS_AS(SubdomainIlu0(ExecSpace(), dd.system.dropped, dd.partition, options), ZeroPivot);
  options.shift_tiny_pivots = true;
  const SubdomainIlu0 shifted(ExecSpace(), dd.system.dropped, dd.partition, options);
  CHECK(shifted.report().shifted_pivots == 1);
}
