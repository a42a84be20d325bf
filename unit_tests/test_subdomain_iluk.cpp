// ILU(k) within subdomains: the fill pattern and factors equal the serial reference; enough fill
// in one subdomain is the exact LU; refactors scatter new values into the fill pattern.
#include "catch_compat.hpp"
#include "core/generators.hpp"
#include "factor/subdomain_ilu0.hpp"
#include "krylov/bicgstab.hpp"
#include "precond/dd_ilu_preconditioner.hpp"
#include "partition/partition_matrix.hpp"
#include "reference/dense.hpp"
#include "reference/random_matrix.hpp"
#include "reference/reference_iluk.hpp"

#include <cmath>

using namespace fgdd;

namespace {

PartitionedMatrix split(const SparseMatrix& A, Offset rows) {
  PartitionOptions options;
  options.partitioner = Partitioner::Natural;
  options.subdomain_rows = rows;
  return partition_matrix(ExecSpace(), A, GridInfo{}, options);
}

}  // namespace

TEST_CASE("ILU(k) equals the serial reference inside every subdomain", "[factor][iluk]") {
  const auto [block_rows, b, k, rows_per_part] = GENERATE(table<Ordinal, int, int, Offset>(
      {{1, 1, 1, 1}, {47, 1, 1, 47}, {47, 1, 2, 13}, {31, 2, 1, 31}, {29, 3, 2, 10},
       {21, 4, 1, 21}, {40, 1, 3, 7}}));
  CAPTURE(block_rows, b, k, rows_per_part);
  const SparseMatrix A = make_matrix(reference::random_matrix(block_rows, b, 3, 17u));
  const PartitionedMatrix dd = split(A, Offset(rows_per_part) * b);
  FactorOptions options;
  options.form = IluForm::Ilu0;
  options.level_of_fill = k;
  const SubdomainIlu0 ilu(ExecSpace(), dd.system.dropped, dd.partition, options);
  const auto expected = reference::iluk(reference::to_host_csr(dd.system.dropped), k);
  const auto got = reference::to_host_csr(ilu.factors());
  CHECK(got.row_map == expected.row_map);
  CHECK(got.col_ind == expected.col_ind);
  CHECK(ilu.report().fill_entries == got.col_ind.size() - dd.system.dropped.num_block_entries());
  // Diagonal dominance keeps multipliers below 1, so entries stay below the largest row sum
  // (≤ 2·(entries + 1) here) and differ from the reference by a few roundings of those.
  REQUIRE(got.values.size() == expected.values.size());
  for (std::size_t e = 0; e < got.values.size(); ++e) {
    CAPTURE(e);
    CHECK(got.values[e] == FGDD_CATCH_APPROX(expected.values[e]).margin(1e-12));
  }
}

TEST_CASE("ILU(k) with enough fill is the exact LU of each subdomain block", "[factor][iluk]") {
  // One subdomain of 25 rows: level n fill is the complete LU, so M⁻¹ r solves A x = r.
  const SparseMatrix A = make_matrix(reference::random_matrix(25, 1, 3, 5u));
  const PartitionedMatrix dd = split(A, 25);
  REQUIRE(dd.partition.num_subdomains == 1);
  DdIluOptions options;
  options.factor.level_of_fill = 8;
  options.factor_precision = FactorPrecision::Double;  // exact to double's rounding, not float's
  const auto kernels = apply_kernel_names.values();
  options.apply = GENERATE_REF(from_range(kernels.begin(), kernels.end()));
  const DdIluPreconditioner M(ExecSpace(), dd.system.dropped, dd.partition, options);
  // Level 8 already holds the complete fill of this pattern (same as unlimited level), so the
  // factors are the exact LU and the solve is exact up to rounding.
  const auto host = reference::to_host_csr(dd.system.dropped);
  REQUIRE(reference::iluk(host, 8).col_ind == reference::iluk(host, 1 << 20).col_ind);
  const auto r = reference::random_vector(25, 9u);
  Vector z("z", 25);
  M.apply(ExecSpace(), reference::to_device(r), z);
  const auto Az = reference::multiply(reference::to_dense(dd.system.permuted), reference::to_host(z));
  // ‖r − A z‖∞ ≤ n·eps·‖A‖∞‖z‖∞·(growth ≤ 2 for diagonally dominant LU), with room for 10×.
  double a_norm = 0, z_norm = 0;
  const auto dense = reference::to_dense(dd.system.permuted);
  for (std::size_t i = 0; i < 25; ++i) {
    double row = 0;
    for (std::size_t j = 0; j < 25; ++j) row += std::abs(dense(i, j));
    a_norm = std::max(a_norm, row);
    z_norm = std::max(z_norm, std::abs(reference::to_host(z)[i]));
  }
  for (std::size_t i = 0; i < 25; ++i)
    CHECK(std::abs(r[i] - Az[i]) <= 10 * 25 * 2 * 2.2e-16 * a_norm * z_norm);
}

TEST_CASE("ILU(1) refactors new values into the fill pattern", "[factor][iluk]") {
  auto arrays = reference::random_matrix(36, 2, 3, 23u);
  const PartitionedMatrix dd = split(make_matrix(arrays), 24);
  ReorderedSystem system = dd.system;
  FactorOptions options;
  options.level_of_fill = 1;
  SubdomainIlu0 ilu(ExecSpace(), system.dropped, dd.partition, options);
  for (auto& v : arrays.values) v = v * 0.75 + 0.01;
  update_values(ExecSpace(), make_matrix(arrays), system);
  ilu.numeric(ExecSpace(), system.dropped);
  const SubdomainIlu0 fresh(ExecSpace(), system.dropped, dd.partition, options);
  CHECK(reference::host_vector(ilu.factors().values()) ==
        reference::host_vector(fresh.factors().values()));
}

TEST_CASE("ILU(1) needs fewer BiCGSTAB iterations than ILU(0)", "[factor][iluk]") {
  const GeneratedProblem problem = generate_problem("gen:convdiff:14");
  PartitionOptions partition_options;
  partition_options.subdomain_rows = 400;
  const PartitionedMatrix dd = partition_matrix(ExecSpace(), problem.matrix, problem.grid, partition_options);
  Vector b("b", problem.matrix.num_rows());
  Kokkos::deep_copy(b, 1.0);
  int iterations[2];
  for (int k = 0; k < 2; ++k) {
    DdIluOptions options;
    options.factor.level_of_fill = k;
    options.apply = ApplyKernel::DagVcIlduFused;
    const DdIluPreconditioner M(ExecSpace(), dd.system.dropped, dd.partition, options);
    Vector x("x", problem.matrix.num_rows());
    const SolveResult result = bicgstab(ExecSpace(), dd.system.permuted, M, b, x, KrylovOptions{});
    REQUIRE(result.converged());
    iterations[k] = result.iterations;
  }
  CHECK(iterations[1] < iterations[0]);
}

TEST_CASE("level_of_fill out of range is refused", "[factor][iluk]") {
  FactorOptions options;
  options.level_of_fill = -1;
  CHECK_THROWS_WITH(options.validate(), FGDD_CONTAINS("level_of_fill"));
  options.level_of_fill = 9;
  CHECK_THROWS_AS(options.validate(), InvalidInput);
}
