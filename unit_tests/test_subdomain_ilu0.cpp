// SubdomainIlu0 against the serial reference ILU0: CSR and BSR, odd sizes, one-row and single
// subdomains, irregular partitions; ILU0 = L·U on the pattern; ILDU0 = ILU0 rescaled; numeric
// refactor; zero pivots reported with the caller's row; opt-in shifts.
#include "catch_compat.hpp"
#include "core/generators.hpp"
#include "factor/subdomain_ilu0.hpp"
#include "partition/partition_matrix.hpp"
#include "reference/dense.hpp"
#include "reference/random_matrix.hpp"
#include "reference/reference_ilu0.hpp"

#include <cmath>
#include <numeric>

using namespace fgdd;

namespace {

// A partition from explicit labels (row index as the order key).
Partition partition_of(const std::vector<Ordinal>& labels, Ordinal num_parts) {
  std::vector<Ordinal> keys(labels.size());
  std::iota(keys.begin(), keys.end(), 0);
  return detail::make_partition(ExecSpace(),
                                detail::Labeling{num_parts, reference::to_device(labels), reference::to_device(keys)});
}

// Scale-aware comparison: each value against the reference with a tolerance from the row's size.
void check_close(const std::vector<double>& got, const std::vector<double>& expected, double tol) {
  REQUIRE(got.size() == expected.size());
  for (std::size_t e = 0; e < got.size(); ++e) {
    CAPTURE(e);
    CHECK(got[e] == FGDD_CATCH_APPROX(expected[e]).margin(tol));
  }
}

struct Case {
  SparseMatrix A;
  std::vector<Ordinal> labels;
  Ordinal num_parts;
};

}  // namespace

TEST_CASE("subdomain ILU0 equals the serial reference", "[factor]") {
  const auto [block_rows, block_size, num_parts] = GENERATE(table<Ordinal, int, Ordinal>(
      {{1, 1, 1}, {57, 1, 1}, {57, 1, 5}, {130, 1, 57}, {40, 2, 3}, {33, 3, 4}, {25, 4, 2},
       {9, 3, 9}}));
  CAPTURE(block_rows, block_size, num_parts);
  const SparseMatrix A = make_matrix(reference::random_matrix(block_rows, block_size, 5, 11u));
  // Irregular labels, with some parts of a single row and (for 130 rows) many tiny ones.
  std::vector<Ordinal> labels(block_rows);
  for (Ordinal i = 0; i < block_rows; ++i) labels[i] = Ordinal((i * i + 3 * i) % num_parts);
  const Partition partition = partition_of(labels, num_parts);
  const ReorderedSystem system = reorder_and_drop(ExecSpace(), A, partition);

  FactorOptions options;
  options.form = IluForm::Ilu0;
  const SubdomainIlu0 ilu(ExecSpace(), system.dropped, partition, options);
  const auto reference = reference::ilu0(reference::to_host_csr(system.dropped));
  // Diagonally dominant rows keep every multiplier below 1, so errors stay near rounding of the
  // largest entries (row sums ≤ 2·(entries+1)).
  check_close(reference::host_vector(ilu.factors().values()), reference.values, 1e-12);
  CHECK(ilu.report().shifted_pivots == 0);

  SECTION("ILDU0 is ILU0 with U scaled by D⁻¹ and the same D⁻¹") {
    options.form = IluForm::Ildu0;
    const SubdomainIlu0 ildu(ExecSpace(), system.dropped, partition, options);
    const auto scaled = reference::host_vector(ildu.factors().values());
    const auto inv_diag = reference::host_vector(ildu.inv_diag());
    check_close(inv_diag, reference::host_vector(ilu.inv_diag()), 1e-13);
    const int b = block_size, bb = b * b;
    const auto& F = reference;
    for (Ordinal i = 0; i < F.num_block_rows(); ++i)
      for (Offset k = F.row_map[i]; k < F.row_map[i + 1]; ++k) {
        std::vector<double> expected(F.values.begin() + k * bb, F.values.begin() + (k + 1) * bb);
        if (F.col_ind[k] > i) {
          std::vector<double> u = expected;
          for (int r = 0; r < b; ++r)
            for (int c = 0; c < b; ++c) {
              double sum = 0;
              for (int t = 0; t < b; ++t) sum += inv_diag[i * bb + r * b + t] * u[t * b + c];
              expected[r * b + c] = sum;
            }
        }
        check_close(std::vector<double>(scaled.begin() + k * bb, scaled.begin() + (k + 1) * bb),
                    expected, 1e-12);
      }
  }
}

TEST_CASE("subdomain ILU0: L·U equals A on the pattern", "[factor]") {
  const GeneratedProblem problem = GENERATE(laplace7(7, 6, 5), multicomponent_bsr3(5),
                                            convection_diffusion(6, 10.0));
  CAPTURE(problem.description);
  PartitionOptions partition_options;
  partition_options.partitioner = Partitioner::Geometric;
  partition_options.subdomain_rows = 60;
  const PartitionedMatrix dd =
      partition_matrix(ExecSpace(), problem.matrix, problem.grid, partition_options);
  FactorOptions options;
  options.form = IluForm::Ilu0;
  const SubdomainIlu0 ilu(ExecSpace(), dd.system.dropped, dd.partition, options);
  const auto F = reference::to_host_csr(ilu.factors());
  const auto A = reference::to_host_csr(dd.system.dropped);
  const int b = F.b, bb = b * b;
  // (L·U)_ik = Σ_j L_ij U_jk over j ≤ min(i, k) with L_ii = I; compared on A's pattern.
  for (Ordinal i = 0; i < F.num_block_rows(); ++i) {
    for (Offset k = F.row_map[i]; k < F.row_map[i + 1]; ++k) {
      const Ordinal col = F.col_ind[k];
      std::vector<double> sum(bb, 0.0);
      for (Offset m = F.row_map[i]; m < F.row_map[i + 1]; ++m) {
        const Ordinal j = F.col_ind[m];
        if (j > i || j > col) continue;
        const double* l = &F.values[m * bb];
        std::vector<double> identity(bb, 0.0);
        for (int r = 0; r < b; ++r) identity[r * b + r] = 1;
        if (j == i) l = identity.data();
        for (Offset q = F.row_map[j]; q < F.row_map[j + 1]; ++q) {
          if (F.col_ind[q] != col) continue;
          for (int r = 0; r < b; ++r)
            for (int c = 0; c < b; ++c)
              for (int t = 0; t < b; ++t) sum[r * b + c] += l[r * b + t] * F.values[q * bb + t * b + c];
        }
      }
      check_close(sum, std::vector<double>(A.values.begin() + k * bb, A.values.begin() + (k + 1) * bb),
                  1e-11);
    }
  }
}

TEST_CASE("subdomain ILU0: numeric refactor equals a fresh factorization", "[factor]") {
  auto arrays = reference::random_matrix(48, 2, 4, 21u);
  std::vector<Ordinal> labels(48);
  for (Ordinal i = 0; i < 48; ++i) labels[i] = i / 10;
  const Partition partition = partition_of(labels, 5);
  ReorderedSystem system = reorder_and_drop(ExecSpace(), make_matrix(arrays), partition);
  SubdomainIlu0 ilu(ExecSpace(), system.dropped, partition, FactorOptions{});

  for (auto& v : arrays.values) v *= 1.5;
  update_values(ExecSpace(), make_matrix(arrays), system);
  ilu.numeric(ExecSpace(), system.dropped);
  const SubdomainIlu0 fresh(ExecSpace(), system.dropped, partition, FactorOptions{});
  CHECK(reference::host_vector(ilu.factors().values()) == reference::host_vector(fresh.factors().values()));
  CHECK(reference::host_vector(ilu.inv_diag()) == reference::host_vector(fresh.inv_diag()));

  const ReorderedSystem other = reorder_and_drop(ExecSpace(), make_matrix(arrays), partition);
  CHECK_THROWS_WITH(ilu.numeric(ExecSpace(), other.dropped), FGDD_CONTAINS("pattern"));
  CHECK_THROWS_WITH(SubdomainIlu0(ExecSpace(), other.permuted, partition, FactorOptions{}),
                    FGDD_CONTAINS("outside its subdomain"));
}

TEST_CASE("subdomain ILU0: zero pivots name the caller's row; shifts are opt-in and counted",
          "[factor]") {
  // Rows 0..5 in two subdomains {0,1,2} and {3,4,5}. Row 4 = row 3 in the coupled block, so
  // elimination leaves a zero pivot in original row 4.
  HostMatrixArrays m;
  m.num_block_rows = m.num_block_cols = 6;
  m.row_map = {0, 1, 2, 3, 5, 7, 8};
  m.col_ind = {0, 1, 2, 3, 4, 3, 4, 5};
  m.values = {2, 2, 2, 1, 1, 1, 1, 3};
  const SparseMatrix A = make_matrix(m);
  const Partition partition = partition_of({1, 1, 1, 0, 0, 0}, 2);  // permuted: rows 3,4,5 first
  const ReorderedSystem system = reorder_and_drop(ExecSpace(), A, partition);
  try {
    SubdomainIlu0 ilu(ExecSpace(), system.dropped, partition, FactorOptions{});
    FAIL("expected ZeroPivot");
  } catch (const ZeroPivot& pivot) {
    CHECK(pivot.row() == 4);
    CHECK(pivot.value() == 0);
  }
  FactorOptions shifting;
  shifting.shift_tiny_pivots = true;
  shifting.absolute_shift = 1e-3;
  const SubdomainIlu0 shifted(ExecSpace(), system.dropped, partition, shifting);
  CHECK(shifted.report().shifted_pivots == 1);
  for (const double v : reference::host_vector(shifted.inv_diag())) CHECK(std::isfinite(v));
  FactorOptions bad;
  bad.pivot_threshold = -1;
  CHECK_THROWS_AS(SubdomainIlu0(ExecSpace(), system.dropped, partition, bad), InvalidInput);
}
