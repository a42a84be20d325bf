// Every subdomain triangular-solve and apply kernel against serial products on many matrices:
// random CSR and BSR (b = 1..4, odd sizes), one-row matrices, a single subdomain, one-row
// subdomains, irregular partitions with subdomains of different sizes, and generated problems.
//
// Tolerances are backward errors (Higham, Accuracy and Stability, Thm 8.5): a computed solution
// x̂ of a triangular system T x = r satisfies (T + ΔT) x̂ = r with |ΔT| ≤ γ_m |T|, m the terms of
// the longest row sum, γ_m = m·u / (1 − m·u). So |r − T x̂| ≤ γ_m |T||x̂| row by row, whatever the
// summation order (edge-centric atomics change it). Pivots are applied by multiplying with the
// computed D⁻¹, which adds the factor κ_D = max ‖|D_i||D_i⁻¹|‖∞ (1 for b = 1). The check
// computes r − T x̂ in double on the host, which adds another γ_m, hence 2γ_m. For M = L D U,
// three solves in a row: 3 · 2γ_m κ_D (|L||D||U|)|ẑ|.
#include "catch_compat.hpp"
#include "core/generators.hpp"
#include "factor/subdomain_ilu0.hpp"
#include "partition/partition_matrix.hpp"
#include "reference/dense.hpp"
#include "reference/random_matrix.hpp"
#include "reference/reference_factor_products.hpp"
#include "trsv/subdomain_trsv.hpp"

#include <cmath>
#include <limits>
#include <numeric>

using namespace fgdd;
using reference::Part;

namespace {

struct Case {
  std::string name;
  SparseMatrix dropped;
  Partition partition;
};

// Kokkos's own team size, and a small odd one that makes every level loop ragged (backends that
// run teams of one thread, like Serial, only have the first).
std::vector<int> team_sizes() {
  if (ExecSpace().concurrency() > 1) return {0, 3};
  return {0};
}

double gamma(int m) {
  const double u = std::numeric_limits<double>::epsilon() / 2;
  return m * u / (1 - m * u);
}

// Labels with irregular sizes: part p gets a stretch of (p % 4 + 1) · stride rows.
Case random_case(Ordinal block_rows, int b, Ordinal parts, unsigned seed) {
  const SparseMatrix A = make_matrix(reference::random_matrix(block_rows, b, 4, seed));
  std::vector<Ordinal> labels(block_rows), keys(block_rows);
  std::iota(keys.begin(), keys.end(), 0);
  for (Ordinal i = 0; i < block_rows; ++i) labels[i] = Ordinal((i * 7 + i * i) % parts);
  const Partition partition = detail::make_partition(
      ExecSpace(),
      detail::Labeling{parts, reference::to_device(labels), reference::to_device(keys)});
  return {"random " + std::to_string(block_rows) + "x" + std::to_string(b) + "/" +
              std::to_string(parts),
          reorder_and_drop(ExecSpace(), A, partition).dropped, partition};
}

Case generated_case(const std::string& spec, Offset subdomain_rows) {
  const GeneratedProblem problem = generate_problem(spec);
  PartitionOptions options;
  options.subdomain_rows = subdomain_rows;
  const PartitionedMatrix dd = partition_matrix(ExecSpace(), problem.matrix, problem.grid, options);
  return {spec, dd.system.dropped, dd.partition};
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  cases.push_back(random_case(1, 1, 1, 1u));    // one row
  cases.push_back(random_case(1, 3, 1, 2u));    // one block row
  cases.push_back(random_case(67, 1, 1, 3u));   // a single subdomain
  cases.push_back(random_case(31, 1, 31, 4u));  // one-row subdomains
  cases.push_back(random_case(101, 1, 7, 5u));  // irregular sizes
  cases.push_back(random_case(45, 2, 6, 6u));
  cases.push_back(random_case(37, 3, 5, 7u));
  cases.push_back(random_case(29, 4, 3, 8u));
  cases.push_back(random_case(19, 5, 2, 9u));  // b = 5: the runtime-b path
  cases.push_back(generated_case("gen:lap7:9", 120));
  cases.push_back(generated_case("gen:lap27:6", 70));
  cases.push_back(generated_case("gen:convdiff:8", 100));
  cases.push_back(generated_case("gen:reservoir:8:7:5", 90));
  cases.push_back(generated_case("gen:bsr3:4", 60));
  return cases;
}

// max_i |r − op x̂|_i / bound_i, with bound = tolerance-scaled |op||x̂|; ≤ 1 passes.
double worst_ratio(const std::vector<double>& r, const std::vector<double>& product,
                   const std::vector<double>& bound, double tolerance) {
  double worst = 0;
  for (std::size_t i = 0; i < r.size(); ++i) {
    const double allowed = tolerance * bound[i] + std::numeric_limits<double>::min();
    worst = std::max(worst, std::abs(r[i] - product[i]) / allowed);
  }
  return worst;
}

}  // namespace

TEST_CASE("every triangular kernel solves T x = r to its backward error", "[trsv][kernels]") {
  for (const Case& c : all_cases()) {
    for (const IluForm form : {IluForm::Ilu0, IluForm::Ildu0}) {
      for (const int team_size : team_sizes()) {
        FactorOptions options;
        options.form = form;
        const SubdomainIlu0 ilu(ExecSpace(), c.dropped, c.partition, options);
        const SubdomainTrsv trsv(ExecSpace(), ilu, team_size);
        const auto F = reference::to_host_csr(ilu.factors());
        const double kappa = reference::pivot_condition(F, reference::host_vector(ilu.inv_diag()));
        const double tolerance = 2 * gamma(reference::longest_row_terms(F)) * kappa;
        const auto r = reference::random_vector(c.dropped.num_rows(), 17u);
        for (const TriangularKernel kernel :
             {TriangularKernel::SpinLoopLds, TriangularKernel::DagEcNoLds,
              TriangularKernel::DagEcLds, TriangularKernel::DagVcLds}) {
          for (const Triangle triangle : {Triangle::Lower, Triangle::Upper}) {
            for (const Diagonal diagonal : {Diagonal::Unit, Diagonal::Pivots}) {
              CAPTURE(c.name, int(form), team_size, to_string(kernel), int(triangle),
                      int(diagonal));
              Vector x("x", r.size());
              trsv.solve(ExecSpace(), triangle, diagonal, kernel, reference::to_device(r), x);
              const auto got = reference::to_host(x);
              const Part part = triangle == Triangle::Lower ? Part::Lower : Part::Upper;
              const bool unit = diagonal == Diagonal::Unit;
              const auto product = reference::triangle_times(F, part, unit, false, false, got);
              const auto bound = reference::triangle_times(F, part, unit, false, true, got);
              CHECK(worst_ratio(r, product, bound,
                                unit ? 2 * gamma(reference::longest_row_terms(F)) : tolerance) <=
                    1);
            }
          }
        }
      }
    }
  }
}

TEST_CASE("every apply kernel and the transpose apply invert M to its backward error",
          "[trsv][kernels]") {
  for (const Case& c : all_cases()) {
    for (const IluForm form : {IluForm::Ilu0, IluForm::Ildu0}) {
      for (const int team_size : team_sizes()) {
        FactorOptions options;
        options.form = form;
        const SubdomainIlu0 ilu(ExecSpace(), c.dropped, c.partition, options);
        const SubdomainTrsv trsv(ExecSpace(), ilu, team_size);
        const reference::HostFactors factors{reference::to_host_csr(ilu.factors()),
                                             form == IluForm::Ildu0};
        const double kappa =
            reference::pivot_condition(factors.F, reference::host_vector(ilu.inv_diag()));
        const double tolerance = 3 * 2 * gamma(reference::longest_row_terms(factors.F)) * kappa;
        const auto r = reference::random_vector(c.dropped.num_rows(), 23u);
        for (const ApplyKernel kernel :
             {ApplyKernel::Auto, ApplyKernel::DagEcIldU0, ApplyKernel::DagVcIlduFused,
              ApplyKernel::DagEcIlduFused}) {
          CAPTURE(c.name, int(form), team_size, to_string(kernel));
          Vector z("z", r.size());
          trsv.apply(ExecSpace(), kernel, reference::to_device(r), z);
          const auto got = reference::to_host(z);
          CHECK(worst_ratio(r, reference::preconditioner_times(factors, false, false, got),
                            reference::preconditioner_times(factors, false, true, got),
                            tolerance) <= 1);
        }
        CAPTURE(c.name, int(form), team_size);
        Vector z("z", r.size());
        trsv.apply_transpose(ExecSpace(), reference::to_device(r), z);
        const auto got = reference::to_host(z);
        CHECK(worst_ratio(r, reference::preconditioner_times(factors, true, false, got),
                          reference::preconditioner_times(factors, true, true, got),
                          tolerance) <= 1);
      }
    }
  }
}

TEST_CASE("vertex-centric kernels are bitwise reproducible", "[trsv][kernels]") {
  const Case c = generated_case("gen:convdiff:9", 150);
  const SubdomainIlu0 ilu(ExecSpace(), c.dropped, c.partition, FactorOptions{});
  const SubdomainTrsv trsv(ExecSpace(), ilu);
  const auto r = reference::to_device(reference::random_vector(c.dropped.num_rows(), 5u));
  Vector first("first", r.extent(0)), again("again", r.extent(0));
  trsv.apply(ExecSpace(), ApplyKernel::DagVcIlduFused, r, first);
  trsv.solve(ExecSpace(), Triangle::Lower, Diagonal::Unit, TriangularKernel::DagVcLds, r, again);
  const auto lower = reference::to_host(again);
  for (int run = 0; run < 3; ++run) {
    trsv.apply(ExecSpace(), ApplyKernel::DagVcIlduFused, r, again);
    CHECK(reference::to_host(again) == reference::to_host(first));
    trsv.solve(ExecSpace(), Triangle::Lower, Diagonal::Unit, TriangularKernel::DagVcLds, r, again);
    CHECK(reference::to_host(again) == lower);
  }
}

TEST_CASE("level sets are valid dependency orders", "[trsv][levels]") {
  for (const Case& c : all_cases()) {
    const SubdomainIlu0 ilu(ExecSpace(), c.dropped, c.partition, FactorOptions{});
    const SubdomainTrsv trsv(ExecSpace(), ilu);
    const auto F = reference::to_host_csr(ilu.factors());
    const auto& offsets = c.partition.host_subdomain_offsets;
    for (const Triangle triangle : {Triangle::Lower, Triangle::Upper}) {
      CAPTURE(c.name, int(triangle));
      const SubdomainLevels& levels = trsv.levels(triangle);
      const auto num_levels = reference::host_vector(levels.num_levels);
      const auto level_ptr = reference::host_vector(levels.level_ptr);
      const auto rows = reference::host_vector(levels.rows);
      const auto edge_ptr = reference::host_vector(levels.edge_ptr);
      const auto edges = reference::host_vector(levels.edges);
      const auto edge_row = reference::host_vector(levels.edge_row);
      const auto edge_col = reference::host_vector(levels.edge_col);
      std::vector<Ordinal> level_of(F.num_block_rows(), -1);
      Ordinal deepest = 0;
      for (Ordinal s = 0; s < c.partition.num_subdomains; ++s) {
        const Ordinal base = offsets[s] + s;
        deepest = std::max(deepest, num_levels[s]);
        REQUIRE(level_ptr[base] == offsets[s]);
        REQUIRE(level_ptr[base + num_levels[s]] == offsets[s + 1]);  // every row once
        for (Ordinal l = 0; l < num_levels[s]; ++l) {
          CHECK(level_ptr[base + l + 1] > level_ptr[base + l]);  // no empty level
          for (Ordinal p = level_ptr[base + l]; p < level_ptr[base + l + 1]; ++p) {
            REQUIRE(rows[p] >= offsets[s]);
            REQUIRE(rows[p] < offsets[s + 1]);
            CHECK(level_of[rows[p]] == -1);
            level_of[rows[p]] = l;
          }
          // The level's edges are exactly the strictly triangular entries of its rows.
          Offset expected_edges = 0;
          for (Ordinal p = level_ptr[base + l]; p < level_ptr[base + l + 1]; ++p)
            for (Offset k = F.row_map[rows[p]]; k < F.row_map[rows[p] + 1]; ++k)
              expected_edges +=
                  triangle == Triangle::Lower ? F.col_ind[k] < rows[p] : F.col_ind[k] > rows[p];
          CHECK(edge_ptr[base + l + 1] - edge_ptr[base + l] == expected_edges);
          for (Offset e = edge_ptr[base + l]; e < edge_ptr[base + l + 1]; ++e) {
            CHECK(F.col_ind[edges[e]] == edge_col[e]);
            CHECK(edges[e] >= F.row_map[edge_row[e]]);
            CHECK(edges[e] < F.row_map[edge_row[e] + 1]);
          }
        }
      }
      CHECK(levels.max_levels == deepest);
      // Each row sits one level above the highest row it depends on.
      for (Ordinal i = 0; i < F.num_block_rows(); ++i) {
        Ordinal expected = 0;
        for (Offset k = F.row_map[i]; k < F.row_map[i + 1]; ++k) {
          const Ordinal j = F.col_ind[k];
          if (triangle == Triangle::Lower ? j < i : j > i)
            expected = std::max(expected, level_of[j] + 1);
        }
        CHECK(level_of[i] == expected);
      }
    }
  }
}

TEST_CASE("level counts of a diagonal matrix and of a chain", "[trsv][levels]") {
  // Tridiagonal, one subdomain: every row depends on its neighbour, n levels each way.
  HostMatrixArrays chain;
  const Ordinal n = 23;
  chain.num_block_rows = chain.num_block_cols = n;
  chain.row_map.push_back(0);
  for (Ordinal i = 0; i < n; ++i) {
    for (Ordinal j = std::max(0, i - 1); j <= std::min(n - 1, i + 1); ++j) {
      chain.col_ind.push_back(j);
      chain.values.push_back(i == j ? 4.0 : -1.0);
    }
    chain.row_map.push_back(chain.col_ind.size());
  }
  PartitionOptions options;
  options.partitioner = Partitioner::Natural;
  options.subdomain_rows = n;
  const PartitionedMatrix dd =
      partition_matrix(ExecSpace(), make_matrix(chain), GridInfo{}, options);
  const SubdomainIlu0 ilu(ExecSpace(), dd.system.dropped, dd.partition, FactorOptions{});
  const SubdomainTrsv trsv(ExecSpace(), ilu);
  CHECK(trsv.levels(Triangle::Lower).max_levels == n);
  CHECK(trsv.levels(Triangle::Upper).max_levels == n);

  HostMatrixArrays diagonal;
  diagonal.num_block_rows = diagonal.num_block_cols = n;
  for (Ordinal i = 0; i <= n; ++i) diagonal.row_map.push_back(i);
  for (Ordinal i = 0; i < n; ++i) diagonal.col_ind.push_back(i), diagonal.values.push_back(2.0);
  const PartitionedMatrix dd2 =
      partition_matrix(ExecSpace(), make_matrix(diagonal), GridInfo{}, options);
  const SubdomainIlu0 ilu2(ExecSpace(), dd2.system.dropped, dd2.partition, FactorOptions{});
  const SubdomainTrsv trsv2(ExecSpace(), ilu2);
  CHECK(trsv2.levels(Triangle::Lower).max_levels == 1);
  CHECK(trsv2.levels(Triangle::Upper).max_levels == 1);
}

TEST_CASE("trsv refuses vectors of the wrong length", "[trsv][kernels]") {
  const Case c = random_case(20, 2, 3, 1u);
  const SubdomainIlu0 ilu(ExecSpace(), c.dropped, c.partition, FactorOptions{});
  const SubdomainTrsv trsv(ExecSpace(), ilu);
  Vector good("good", 40), bad("bad", 39);
  CHECK_THROWS_AS(trsv.apply(ExecSpace(), ApplyKernel::Auto, bad, good), DimensionMismatch);
  CHECK_THROWS_AS(trsv.apply_transpose(ExecSpace(), good, bad), DimensionMismatch);
  CHECK_THROWS_AS(trsv.solve(ExecSpace(), Triangle::Lower, Diagonal::Unit,
                             TriangularKernel::DagEcLds, good, bad),
                  DimensionMismatch);
  CHECK_THROWS_AS(SubdomainTrsv(ExecSpace(), ilu, -1), InvalidInput);
}
