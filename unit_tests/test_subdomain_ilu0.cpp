// SubdomainIlu0 against the serial reference ILU0: CSR and BSR, odd sizes, one-row and single
// subdomains, irregular partitions; ILU0 = L·U on the pattern; ILDU0 = ILU0 rescaled; numeric
// refactor; zero pivots reported with the caller's row (overflow and NaN named as such); opt-in
// shifts, the positive-definite one per subdomain.
#include "catch_compat.hpp"
#include "core/generators.hpp"
#include "factor/elimination_streams.hpp"
#include "factor/subdomain_ilu0.hpp"
#include "partition/partition_matrix.hpp"
#include "reference/dense.hpp"
#include "reference/ic0_breakdown.hpp"
#include "reference/labeling_checks.hpp"
#include "reference/random_matrix.hpp"
#include "reference/reference_ilu0.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

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

// A random matrix (reference::random_matrix) in num_parts irregular parts, reordered and
// dropped: row i goes to part (i² + stride·i) mod num_parts, which gives some parts of a single
// row and, for many parts, many tiny ones.
struct IrregularCase {
  Partition partition;
  ReorderedSystem system;
};

IrregularCase irregular_case(Ordinal block_rows, int block_size, int entries_per_row,
                             unsigned seed, Ordinal num_parts, Ordinal stride) {
  const SparseMatrix A =
      make_matrix(reference::random_matrix(block_rows, block_size, entries_per_row, seed));
  std::vector<Ordinal> labels(block_rows);
  for (Ordinal i = 0; i < block_rows; ++i) labels[i] = Ordinal((i * i + stride * i) % num_parts);
  IrregularCase c{partition_of(labels, num_parts), {}};
  c.system = reorder_and_drop(ExecSpace(), A, c.partition);
  return c;
}

}  // namespace

TEST_CASE("subdomain ILU0 equals the serial reference", "[factor]") {
  const auto [block_rows, block_size, num_parts] = GENERATE(table<Ordinal, int, Ordinal>(
      {{1, 1, 1}, {57, 1, 1}, {57, 1, 5}, {130, 1, 57}, {40, 2, 3}, {33, 3, 4}, {25, 4, 2},
       {9, 3, 9}}));
  const FactorOrder order = GENERATE(FactorOrder::Levels, FactorOrder::Rows);
  CAPTURE(block_rows, block_size, num_parts, factor_order_names.name(order));
  // Irregular parts, some of a single row and (for 130 rows) many tiny ones.
  const auto [partition, system] = irregular_case(block_rows, block_size, 5, 11u, num_parts, 3);

  FactorOptions options;
  options.form = IluForm::Ilu0;
  options.order = order;
  const SubdomainIlu0 ilu(ExecSpace(), system.dropped, partition, options);
  CHECK((ilu.lower_levels() != nullptr) == (order == FactorOrder::Levels));
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

TEST_CASE("subdomain ILU0 / ILDU0 / IC0: rows and levels give the same bits", "[factor]") {
  // A row reads only rows it depends on, final in either order, with the same operations.
  const GeneratedProblem problem = GENERATE(laplace7(9, 7, 5), multicomponent_bsr3(5),
                                            laplace27(5, 4, 3), reservoir_pressure(6, 5, 4));
  const Offset rows_per_part = GENERATE(Offset(3), Offset(37), Offset(1000));
  const IluForm form = GENERATE(IluForm::Ilu0, IluForm::Ildu0, IluForm::Ildlt);
  CAPTURE(problem.description, rows_per_part, int(form));
  if (form == IluForm::Ildlt && problem.matrix.block_size() != 1)
    return;  // the bsr3 blocks are not symmetric: IC0 refuses them (tested elsewhere)
  PartitionOptions partition_options;
  partition_options.partitioner = Partitioner::Natural;
  partition_options.subdomain_rows = rows_per_part;
  const PartitionedMatrix dd =
      partition_matrix(ExecSpace(), problem.matrix, problem.grid, partition_options);
  FactorOptions options;
  options.form = form;
  options.order = FactorOrder::Levels;
  const auto given = reference::host_vector(dd.system.dropped.values());
  const SubdomainIlu0 levels(ExecSpace(), dd.system.dropped, dd.partition, options);
  // Rows on CSR read each row from the dropped matrix itself (no copy first), Levels from a copy.
  options.order = FactorOrder::Rows;
  const SubdomainIlu0 rows(ExecSpace(), dd.system.dropped, dd.partition, options);
  CHECK(reference::host_vector(rows.factors().values()) ==
        reference::host_vector(levels.factors().values()));
  CHECK(reference::host_vector(rows.inv_diag()) == reference::host_vector(levels.inv_diag()));
  CHECK(reference::host_vector(dd.system.dropped.values()) == given);  // read, not written
}

TEST_CASE("subdomain ILU0 / ILDU0: update lists give the merge's bits", "[factor]") {
  // Levels read each row's updates from its stream; Rows find them through position_of, the
  // same terms in the order the merge meets them. Random patterns (fill inside a row, updates to
  // L entries), irregular parts with single rows, ILU(1) fill, CSR and BSR.
  const auto [block_rows, block_size, num_parts, fill] =
      GENERATE(table<Ordinal, int, Ordinal, int>({{1, 1, 1, 0}, {61, 1, 1, 0}, {61, 1, 7, 0},
                                                  {130, 1, 57, 0}, {47, 2, 3, 0}, {35, 3, 4, 1},
                                                  {80, 1, 2, 1}, {26, 4, 5, 2}}));
  const IluForm form = GENERATE(IluForm::Ilu0, IluForm::Ildu0);
  CAPTURE(block_rows, block_size, num_parts, fill, int(form));
  const auto [partition, system] = irregular_case(block_rows, block_size, 7, 29u, num_parts, 5);
  FactorOptions options;
  options.form = form;
  options.level_of_fill = fill;
  options.order = FactorOrder::Levels;
  const SubdomainIlu0 levels(ExecSpace(), system.dropped, partition, options);
  options.order = FactorOrder::Rows;
  const SubdomainIlu0 rows(ExecSpace(), system.dropped, partition, options);
  CHECK(reference::host_vector(rows.factors().values()) ==
        reference::host_vector(levels.factors().values()));
  CHECK(reference::host_vector(rows.inv_diag()) == reference::host_vector(levels.inv_diag()));
}

TEST_CASE("subdomain ILU0 / IC0: rows longer than 16-bit codes, a dense row", "[factor]") {
  // A symmetric arrow matrix in one subdomain: its last row holds every column, so its updates
  // land 70,000 entries into the row (three-code values), each U_j's entry is its last, and a
  // merge of rows would walk the last row once per L entry (quadratic; the level order finds
  // columns by binary search instead, IC0 included).
  const IluForm form = GENERATE(IluForm::Ilu0, IluForm::Ildlt);
  CAPTURE(int(form));
  const Ordinal n = 70001;
  const auto coupling = [](Ordinal j) { return 1e-3 * (1 + j % 3); };
  HostMatrixArrays arrow;
  arrow.num_block_rows = arrow.num_block_cols = n;
  arrow.row_map.push_back(0);
  for (Ordinal i = 0; i < n - 1; ++i) {
    arrow.col_ind.insert(arrow.col_ind.end(), {i, n - 1});
    arrow.values.insert(arrow.values.end(), {4.0 + (i % 5), coupling(i)});
    arrow.row_map.push_back(Offset(arrow.col_ind.size()));
  }
  for (Ordinal j = 0; j < n; ++j) {
    arrow.col_ind.push_back(j);
    arrow.values.push_back(j == n - 1 ? 4.0 : coupling(j));
  }
  arrow.row_map.push_back(Offset(arrow.col_ind.size()));
  const SparseMatrix A = make_matrix(arrow);
  const Partition partition = partition_of(std::vector<Ordinal>(n, 0), 1);
  const ReorderedSystem system = reorder_and_drop(ExecSpace(), A, partition);
  FactorOptions options;
  options.form = form;
  options.order = FactorOrder::Levels;
  const SubdomainIlu0 levels(ExecSpace(), system.dropped, partition, options);
  options.order = FactorOrder::Rows;
  const SubdomainIlu0 rows(ExecSpace(), system.dropped, partition, options);
  const auto expected = reference::host_vector(rows.factors().values());
  CHECK(reference::host_vector(levels.factors().values()) == expected);
  // The last pivot: 4 − Σ_j a_last,j · a_j,last / a_jj, summed by the serial reference.
  const auto reference = reference::ilu0(reference::to_host_csr(system.dropped));
  CHECK(expected.back() == FGDD_CATCH_APPROX(reference.values.back()).epsilon(1e-12));
}

TEST_CASE("subdomain ILU0: the update lists hold one code per count and two per update",
          "[factor]") {
  // Counted on the host: for every L entry (i, j), the entries of U_j whose columns row i holds.
  const auto [partition, system] = irregular_case(61, 1, 6, 41u, 5, 3);
  const auto F = reference::to_host_csr(system.dropped);
  Offset lower_entries = 0, updates = 0;
  for (Ordinal i = 0; i < F.num_block_rows(); ++i)
    for (Offset kj = F.row_map[i]; kj < F.row_map[i + 1] && F.col_ind[kj] < i; ++kj) {
      const Ordinal j = F.col_ind[kj];
      ++lower_entries;
      for (Offset kk = F.row_map[j]; kk < F.row_map[j + 1]; ++kk)
        for (Offset k = kj + 1; k < F.row_map[i + 1]; ++k)
          if (F.col_ind[kk] > j && F.col_ind[k] == F.col_ind[kk]) ++updates;
    }
  REQUIRE(updates > 0);  // else only the counts would be checked
  const Offset codes = lower_entries + 2 * updates;
  FactorOptions options;
  options.order = FactorOrder::Levels;
  const SubdomainIlu0 levels(ExecSpace(), system.dropped, partition, options);
  CHECK(levels.report().update_list_bytes ==
        Offset(62 * sizeof(Offset) + std::size_t(codes) * sizeof(std::uint16_t)));
  options.order = FactorOrder::Rows;
  CHECK(SubdomainIlu0(ExecSpace(), system.dropped, partition, options).report().update_list_bytes ==
        0);
}

TEST_CASE("elimination stream codes round-trip values of every width", "[factor]") {
  const std::vector<Offset> values = {0, 1, 0xFFFE, 0xFFFF, 0x10000, 123456, 0xFFFFFFFF, 7};
  std::vector<std::uint16_t> codes;
  Offset length = 0;
  for (const Offset v : values) length += detail::code_length(v);
  codes.resize(std::size_t(length));
  std::uint16_t* at = codes.data();
  for (const Offset v : values) detail::put_code(at, v);
  CHECK(at == codes.data() + length);
  CHECK(length == 1 + 1 + 1 + 3 + 3 + 3 + 3 + 1);
  const std::uint16_t* read = codes.data();
  for (const Offset v : values) CHECK(detail::take_code(read) == v);
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
  // The first such block row, found by scanning every entry (the check itself reads only each
  // row's first and last column, the columns being sorted).
  const auto row_map = reference::host_vector(other.permuted.row_map());
  const auto cols = reference::host_vector(other.permuted.col_ind());
  const auto& offsets = partition.host_subdomain_offsets;
  Ordinal first_outside = -1;
  for (Ordinal i = 0; i < 48 && first_outside < 0; ++i) {
    const Ordinal s = Ordinal(std::upper_bound(offsets.begin(), offsets.end(), i) -
                              offsets.begin()) - 1;
    for (Offset k = row_map[i]; k < row_map[i + 1]; ++k)
      if (cols[k] < offsets[s] || cols[k] >= offsets[s + 1]) first_outside = i;
  }
  REQUIRE(first_outside >= 0);
  CHECK_THROWS_WITH(SubdomainIlu0(ExecSpace(), other.permuted, partition, FactorOptions{}),
                    FGDD_CONTAINS("block row " + std::to_string(first_outside) + " has"));
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

namespace {

// Block-diagonal concatenation of square CSR matrices (b = 1), plus a coupling of value
// coupling between the last row of each part and the first of the next, both ways.
HostMatrixArrays concatenate(const std::vector<HostMatrixArrays>& parts, double coupling) {
  HostMatrixArrays out;
  out.row_map.assign(1, 0);
  Ordinal first = 0;
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const HostMatrixArrays& part = parts[p];
    const Ordinal n = part.num_block_rows;
    for (Ordinal i = 0; i < n; ++i) {
      if (i == 0 && p > 0) {
        out.col_ind.push_back(first - 1);
        out.values.push_back(coupling);
      }
      for (Offset k = part.row_map[i]; k < part.row_map[i + 1]; ++k) {
        out.col_ind.push_back(first + part.col_ind[k]);
        out.values.push_back(part.values[k]);
      }
      if (i == n - 1 && p + 1 < parts.size()) {
        out.col_ind.push_back(first + n);
        out.values.push_back(coupling);
      }
      out.row_map.push_back(out.col_ind.size());
    }
    first += n;
  }
  out.num_block_rows = out.num_block_cols = first;
  return out;
}

}  // namespace

TEST_CASE(
    "subdomain ILU0 / IC0: the positive-definite shift refactors each failing subdomain alone",
    "[factor]") {
  // Three subdomains: the 6×6 grid whose IC(0) breaks down (needs α = 2⁻⁹), Kershaw's matrix
  // (needs α = 2⁻³) and a diagonally dominant block (needs none), coupled (the couplings are
  // dropped). Each subdomain ends with its own α; the factors equal the serial ILU(0) of the
  // dropped matrix with each subdomain's rows shifted by its α.
  const IluForm form = GENERATE(IluForm::Ilu0, IluForm::Ildlt);
  const FactorOrder order = GENERATE(FactorOrder::Levels, FactorOrder::Rows);
  CAPTURE(int(form), factor_order_names.name(order));
  const HostMatrixArrays grid = reference::ic0_breakdown_grid();
  const HostMatrixArrays kershaw = reference::kershaw();
  HostMatrixArrays dominant;  // a diagonal block: nothing to shift
  dominant.num_block_rows = dominant.num_block_cols = 10;
  for (Ordinal i = 0; i <= 10; ++i) dominant.row_map.push_back(i);
  for (Ordinal i = 0; i < 10; ++i) {
    dominant.col_ind.push_back(i);
    dominant.values.push_back(2.0 + i);
  }
  const SparseMatrix A = make_matrix(concatenate({grid, kershaw, dominant}, 0.01));
  std::vector<Ordinal> labels(50, 2);
  for (Ordinal i = 0; i < 40; ++i) labels[i] = i < 36 ? 0 : 1;
  const Partition partition = partition_of(labels, 3);
  const ReorderedSystem system = reorder_and_drop(ExecSpace(), A, partition);
  FactorOptions options;
  options.form = form;
  options.order = order;

  // Unshifted, a pivot is negative (not tiny, so no ZeroPivot): an indefinite preconditioner.
  const SubdomainIlu0 plain(ExecSpace(), system.dropped, partition, options);
  const auto host = reference::to_host_csr(system.dropped);
  const auto pivots_of = [&](const std::vector<double>& values) {
    std::vector<double> pivots;
    for (Ordinal i = 0; i < host.num_block_rows(); ++i)
      for (Offset k = host.row_map[i]; k < host.row_map[i + 1]; ++k)
        if (host.col_ind[k] == i) pivots.push_back(values[k]);
    return pivots;
  };
  const auto plain_pivots = pivots_of(reference::host_vector(plain.factors().values()));
  CHECK(*std::min_element(plain_pivots.begin(), plain_pivots.end()) < 0);

  options.shift = PivotShift::PositiveDefinite;
  SubdomainIlu0 shifted(ExecSpace(), system.dropped, partition, options);
  const FactorReport& report = shifted.report();
  CHECK(report.shift == 0.125);
  CHECK(report.shift_attempts == 8);
  CHECK(report.shifted_subdomains == 2);
  CHECK(report.shifted_rows == Offset(40));
  std::vector<double> alpha(50, 0.0);
  for (Ordinal i = 0; i < 40; ++i) alpha[i] = i < 36 ? 1.0 / 512 : 0.125;
  const auto reference = reference::ilu0(reference::shifted(host, alpha, form == IluForm::Ildlt));
  const auto values = reference::host_vector(shifted.factors().values());
  for (Ordinal i = 0; i < host.num_block_rows(); ++i)
    for (Offset k = host.row_map[i]; k < host.row_map[i + 1]; ++k) {
      // Ildlt stores Lᵀ as U (the reference holds D Lᵀ): compare L and D there.
      if (form == IluForm::Ildlt && host.col_ind[k] > i) continue;
      CAPTURE(i, k);
      // Entries are O(1) and the multipliers stay below 1 once shifted: rounding of a few
      // updates.
      CHECK(values[k] == FGDD_CATCH_APPROX(reference.values[k]).margin(1e-13));
    }
  const auto pivots = pivots_of(values);
  CHECK(*std::min_element(pivots.begin(), pivots.end()) > 0);

  // A refactor with the same values takes the same shifts.
  const FactorReport& again = shifted.numeric(ExecSpace(), system.dropped);
  CHECK(again.shift == 0.125);
  CHECK(reference::host_vector(shifted.factors().values()) == values);
}

TEST_CASE("subdomain ILU0: a zero pivot that no shift cures names the shift; overflow and NaN",
          "[factor]") {
  // A zero row: its 1-norm is zero, so no α moves its pivot off zero.
  HostMatrixArrays zero_row;
  zero_row.num_block_rows = zero_row.num_block_cols = 3;
  zero_row.row_map = {0, 2, 3, 5};
  zero_row.col_ind = {0, 2, 1, 0, 2};
  zero_row.values = {2, 1, 0, 1, 2};
  const SparseMatrix Z = make_matrix(zero_row);
  const Partition one = partition_of({0, 0, 0}, 1);
  const ReorderedSystem z_system = reorder_and_drop(ExecSpace(), Z, one);
  FactorOptions options;
  options.shift = PivotShift::PositiveDefinite;
  try {
    SubdomainIlu0(ExecSpace(), z_system.dropped, one, options);
    FAIL("expected ZeroPivot");
  } catch (const ZeroPivot& pivot) {
    CHECK(pivot.row() == 1);
    CHECK_THAT(std::string(pivot.what()), FGDD_CONTAINS("shift positive_definite"));
  }

  // Entries near the largest double: L_10 = −1e8 and U_11 = 1e308 + 1e8·1e300 overflows.
  HostMatrixArrays big;
  big.num_block_rows = big.num_block_cols = 2;
  big.row_map = {0, 2, 4};
  big.col_ind = {0, 1, 0, 1};
  big.values = {1e300, 1e300, -1e308, 1e308};
  const SparseMatrix B = make_matrix(big);
  const Partition both = partition_of({0, 0}, 1);
  const ReorderedSystem b_system = reorder_and_drop(ExecSpace(), B, both);
  try {
    SubdomainIlu0(ExecSpace(), b_system.dropped, both, FactorOptions{});
    FAIL("expected PivotOverflow");
  } catch (const PivotOverflow& pivot) {
    CHECK(pivot.row() == 1);
    CHECK(std::isinf(pivot.value()));
    CHECK_THAT(std::string(pivot.what()),
               FGDD_CONTAINS("pivot of row 1 (0-based) overflowed (inf)"));
    CHECK_THAT(std::string(pivot.what()), !FGDD_CONTAINS("zero pivot"));
  }
  // L_10 = 1e308/1e-308 = inf, and U_11 = 1 − inf·0 (an explicit zero U_01) is NaN.
  big.values = {1e-308, 0, 1e308, 1};
  const SparseMatrix N = make_matrix(big);
  const ReorderedSystem n_system = reorder_and_drop(ExecSpace(), N, both);
  try {
    SubdomainIlu0(ExecSpace(), n_system.dropped, both, FactorOptions{});
    FAIL("expected ZeroPivot");
  } catch (const ZeroPivot& pivot) {
    CHECK(pivot.row() == 1);
    CHECK(std::isnan(pivot.value()));
    CHECK_THAT(std::string(pivot.what()), FGDD_CONTAINS("pivot of row 1 (0-based) is NaN"));
  }
}

TEST_CASE("subdomain ILU0 / ILDU0 / IC0 from deferred dropped values: the copy's bits",
          "[factor]") {
  // DroppedValues::Deferred leaves dropped's values unfilled; the factorization reads each row's
  // run of A_p (rows order on CSR) or copies the runs first (every other form), in place as the
  // solver factors, at setup and after new values.
  const GeneratedProblem problem =
      GENERATE(laplace7(9, 7, 5), multicomponent_bsr3(5), reservoir_pressure(6, 5, 4));
  const Offset rows_per_part = GENERATE(Offset(1), Offset(37), Offset(1000));
  const IluForm form = GENERATE(IluForm::Ilu0, IluForm::Ildu0, IluForm::Ildlt);
  const FactorOrder order = GENERATE(FactorOrder::Rows, FactorOrder::Levels);
  const PivotShift shift = GENERATE(PivotShift::None, PivotShift::PositiveDefinite);
  CAPTURE(problem.description, rows_per_part, int(form), factor_order_names.name(order),
          to_string(shift));
  if (form == IluForm::Ildlt && problem.matrix.block_size() != 1) return;  // bsr3: not symmetric
  PartitionOptions partition_options;
  partition_options.partitioner = Partitioner::Natural;
  partition_options.subdomain_rows = rows_per_part * problem.matrix.block_size();
  PartitionedMatrix copied =
      partition_matrix(ExecSpace(), problem.matrix, problem.grid, partition_options);
  PartitionedMatrix deferred =
      partition_matrix(ExecSpace(), problem.matrix, problem.grid, Coordinates(), partition_options,
                       DroppedValues::Deferred);
  CHECK(copied.system.dropped_runs().empty());
  // Only where something is dropped (a single subdomain has dropped = A_p, nothing to defer).
  REQUIRE(deferred.system.dropped_runs().empty() == (deferred.partition.num_subdomains == 1));
  FactorOptions options;
  options.form = form;
  options.order = order;
  options.shift = shift;
  // In place as the solver factors, where dropped is not A_p (the caller's matrix) itself.
  options.factor_in_place = !deferred.system.dropped_runs().empty();
  SubdomainIlu0 from_copy(ExecSpace(), copied.system.dropped, copied.partition, options);
  SubdomainIlu0 from_runs(ExecSpace(), deferred.system.dropped, deferred.partition, options,
                          deferred.system.dropped_runs());
  CHECK(reference::host_vector(from_runs.factors().values()) ==
        reference::host_vector(from_copy.factors().values()));
  CHECK(reference::host_vector(from_runs.inv_diag()) ==
        reference::host_vector(from_copy.inv_diag()));

  // New values of the pattern: the copy refilled, the deferred system's permuted values only.
  HostMatrixArrays arrays = reference::to_host_arrays(problem.matrix);
  for (double& v : arrays.values) v = 0.75 * v;  // keeps IC0's symmetry
  const SparseMatrix changed = make_matrix(arrays);
  update_values(ExecSpace(), changed, copied.system);
  update_values(ExecSpace(), changed, deferred.system);
  from_copy.numeric(ExecSpace(), copied.system.dropped);
  from_runs.numeric(ExecSpace(), deferred.system.dropped, deferred.system.dropped_runs());
  CHECK(reference::host_vector(from_runs.factors().values()) ==
        reference::host_vector(from_copy.factors().values()));
  CHECK(reference::host_vector(from_runs.inv_diag()) ==
        reference::host_vector(from_copy.inv_diag()));
}
