// SubdomainTrsv against the serial reference (reference/reference_trsv.hpp): level sets, every
// triangular kernel and apply kernel by componentwise backward error and a forward-error bound,
// Ilu0 vs Ildu0, the transposed apply, bitwise reproducibility of the vertex-centric kernels,
// applies that follow numeric(), and vector-size errors. CSR and BSR (b = 1..5), odd sizes,
// one-row and single subdomains, irregular label partitions, generated problems.
#include "catch_compat.hpp"
#include "core/errors.hpp"
#include "core/generators.hpp"
#include "core/team_size.hpp"
#include "factor/subdomain_ilu0.hpp"
#include "partition/partition_matrix.hpp"
#include "reference/dense.hpp"
#include "reference/labeling_checks.hpp"
#include "reference/random_matrix.hpp"
#include "reference/reference_ilu0.hpp"
#include "reference/reference_trsv.hpp"
#include "trsv/split_triangles.hpp"
#include "trsv/subdomain_trsv.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

using namespace fgdd;

namespace {

// A partition from explicit labels (row index as the order key).
Partition partition_of(const std::vector<Ordinal>& labels, Ordinal num_parts) {
  std::vector<Ordinal> keys(labels.size());
  std::iota(keys.begin(), keys.end(), 0);
  return detail::make_partition(
      ExecSpace(),
      detail::Labeling{num_parts, reference::to_device(labels), reference::to_device(keys)});
}

struct Problem {
  std::string name;
  SparseMatrix dropped;
  Partition partition;
  int level_of_fill = 0;
};

enum class Labels { Irregular, OneRowEach, Single };

Problem random_problem(Ordinal block_rows, int b, Ordinal num_parts, Labels rule, unsigned seed,
                       int level_of_fill = 0) {
  const SparseMatrix A = make_matrix(reference::random_matrix(block_rows, b, 5, seed));
  std::vector<Ordinal> labels(block_rows, 0);
  for (Ordinal i = 0; i < block_rows; ++i) {
    // Irregular: parts of very different sizes, some of one row, some labels unused.
    if (rule == Labels::Irregular) labels[i] = Ordinal((Offset(i) * i + 3 * i) % num_parts);
    // One row each, in reverse order so the permutation is not the identity.
    if (rule == Labels::OneRowEach) labels[i] = block_rows - 1 - i;
  }
  if (rule == Labels::OneRowEach) num_parts = block_rows;
  if (rule == Labels::Single) num_parts = 1;
  const Partition partition = partition_of(labels, num_parts);
  const ReorderedSystem system = reorder_and_drop(ExecSpace(), A, partition);
  return {"random " + std::to_string(block_rows) + " block rows, b = " + std::to_string(b) + ", " +
              std::to_string(partition.num_subdomains) + " subdomains" +
              (level_of_fill > 0 ? ", ILU(" + std::to_string(level_of_fill) + ")" : ""),
          system.dropped, partition, level_of_fill};
}

Problem generated_problem(const std::string& spec, Partitioner partitioner, Offset subdomain_rows) {
  const GeneratedProblem problem = generate_problem(spec);
  PartitionOptions options;
  options.partitioner = partitioner;
  options.subdomain_rows = subdomain_rows;
  const PartitionedMatrix dd = partition_matrix(ExecSpace(), problem.matrix, problem.grid, options);
  return {spec + " " + to_string(partitioner) + " " + std::to_string(subdomain_rows) + " rows, " +
              std::to_string(dd.partition.num_subdomains) + " subdomains",
          dd.system.dropped, dd.partition, 0};
}

// One subdomain whose vector slice (5,832 rows, 46,656 bytes) is larger than level-0 team
// scratch on every backend (Serial 32 KB, H100 40,936 bytes): it must live in level 1.
Problem beyond_level0_scratch() {
  const GeneratedProblem big = generate_problem("gen:lap7:18");
  const Partition partition = partition_of(std::vector<Ordinal>(big.matrix.num_block_rows(), 0), 1);
  return {"gen:lap7:18 in one subdomain (level-1 scratch)",
          reorder_and_drop(ExecSpace(), big.matrix, partition).dropped, partition, 0};
}

// Tridiagonal with one full row and column (an arrow), rows 0..199 in a second subdomain: the
// arrow row keeps 2,800 entries in its subdomain, more than the level builder stages in scratch
// at once (2,048), so it is swept from global memory between staged chunks.
Problem arrow_beyond_level_chunk() {
  const Ordinal n = 3000;
  std::vector<Ordinal> labels(n, 0);
  for (Ordinal i = 0; i < 200; ++i) labels[i] = 1;
  const Partition partition = partition_of(labels, 2);
  return {"arrow 3000 rows, 2 subdomains (a row beyond the level builder's chunk)",
          reorder_and_drop(ExecSpace(), make_matrix(reference::arrow_matrix(n, 1500)), partition)
              .dropped,
          partition, 0};
}

std::vector<Problem> problems() {
  std::vector<Problem> all;
  all.push_back(random_problem(1, 1, 1, Labels::Single, 11u));  // one row
  all.push_back(random_problem(1, 3, 1, Labels::Single, 12u));  // one block row
  all.push_back(random_problem(57, 1, 1, Labels::Single, 13u));
  all.push_back(random_problem(301, 1, 3, Labels::Irregular, 14u));  // subdomains > a warp
  all.push_back(random_problem(57, 1, 5, Labels::Irregular, 15u));
  all.push_back(random_problem(130, 1, 57, Labels::Irregular, 16u));  // many tiny subdomains
  all.push_back(random_problem(41, 1, 0, Labels::OneRowEach, 17u));
  all.push_back(random_problem(40, 2, 3, Labels::Irregular, 18u));
  all.push_back(random_problem(33, 3, 4, Labels::Irregular, 19u));
  all.push_back(random_problem(25, 4, 2, Labels::Irregular, 20u));
  all.push_back(random_problem(9, 3, 0, Labels::OneRowEach, 21u));
  all.push_back(random_problem(67, 3, 1, Labels::Single, 22u));
  all.push_back(random_problem(29, 4, 0, Labels::OneRowEach, 23u));
  all.push_back(random_problem(23, 5, 3, Labels::Irregular, 24u));  // b = 5: the generic block path
  all.push_back(random_problem(61, 1, 4, Labels::Irregular, 25u, 1));  // fill: more entries per row
  all.push_back(random_problem(31, 2, 2, Labels::Irregular, 26u, 2));
  all.push_back(generated_problem("gen:lap7:9:7:5", Partitioner::Geometric, 60));
  all.push_back(generated_problem("gen:lap27:6", Partitioner::Rcm, 50));
  all.push_back(generated_problem("gen:convdiff:7", Partitioner::Natural, 64));
  all.push_back(generated_problem("gen:convdiff:6", Partitioner::Rcm, 216));  // one subdomain
  all.push_back(generated_problem("gen:reservoir:8:7:6", Partitioner::Geometric, 100));
  all.push_back(generated_problem("gen:bsr3:5", Partitioner::Geometric, 60));
  all.push_back(generated_problem("gen:bsr3:4", Partitioner::Natural, 27));
  all.push_back(
      generated_problem("gen:lap7:12", Partitioner::Geometric, 1728));  // one, many levels
  all.push_back(beyond_level0_scratch());
  all.push_back(arrow_beyond_level_chunk());
  return all;
}

SubdomainIlu0 factorize(const Problem& problem, IluForm form) {
  FactorOptions options;
  options.form = form;
  options.level_of_fill = problem.level_of_fill;
  return SubdomainIlu0(ExecSpace(), problem.dropped, problem.partition, options);
}

// Rounding-error allowances, first order in u (Higham, Accuracy and Stability of Numerical
// Algorithms, "ASNA"): u = eps/2, γ_k = k·u/(1 − k·u). Every scalar unknown a solve or a
// reference product forms is an inner product of at most m = (most blocks in a factor block
// row) × b terms.
//  - substitution: backward error of one triangular solve, kernel or reference. γ_m for the
//    inner products (ASNA Thm 8.5, row by row: |ΔT| ≤ γ_m|T| in any summation order, so the
//    atomics of the edge-centric kernels are covered). With pivots the row is then multiplied
//    by the computed D̂⁻¹ (γ_b), and D̂⁻¹ itself, by Gauss-Jordan with partial pivoting, has
//    |I − D·D̂⁻¹| ≤ 8b·u|L̂||Û||D̂⁻¹| (ASNA §14.4) with |L̂||Û| ≈ |D| (no growth on the diagonally
//    dominant pivot blocks of these tests): γ_{8b}. Both reach the residual as |D||D̂⁻¹||D x̂|,
//    which is why the reference's bound counts a pivot block as |D||D̂⁻¹||D|. Total γ_m + γ_{9b}.
//  - apply: two substitutions and one D̂⁻¹ (Ildu0), or one unit and one pivoted substitution
//    (Ilu0): 2γ_m + γ_{9b}; (L + ΔL)(D + ΔD)(U + ΔU)ẑ = r gives |r − Mẑ| ≤ that · |L||D||U||ẑ|.
//  - *_check: the same plus the rounding of the reference's own products that form the residual
//    (ASNA §3.5: γ_m per triangle, γ_b per pivot block) and the subtraction from r (γ_1).
//  - form: Ildu0's U is fl(D̂⁻¹U) of Ilu0's U (same L and D), so the two M differ by
//    γ_{9b}·|L||D||D̂⁻¹||D||Û|: γ_b for the product, γ_{8b} for D·D̂⁻¹ − I.
//  - tiny: the underflow allowance of substitution (m times the smallest normal number).
// Each tolerance is therefore c·m·eps with c fixed by this accounting (about 2 to 3 for rows of
// several blocks, up to 7.5 for rows of one block, where the 8b of Gauss-Jordan dominates),
// never fitted to observed errors (the worst observed error is about 0.18 of its allowance).
struct Tolerances {
  double substitution, solve_check, apply, apply_check, form, tiny;
};

double gamma_k(double k) {
  const double u = std::numeric_limits<double>::epsilon() / 2;
  return k * u / (1 - k * u);
}

Tolerances tolerances(const reference::HostFactors& h) {
  const int b = h.F.b;
  Offset most_blocks = 0;
  for (Ordinal i = 0; i < h.F.num_block_rows(); ++i)
    most_blocks = std::max(most_blocks, h.F.row_map[i + 1] - h.F.row_map[i]);
  const double m = double(most_blocks) * b;
  Tolerances t;
  t.substitution = gamma_k(m) + gamma_k(9 * b);
  t.solve_check = t.substitution + gamma_k(m + 1);
  t.apply = 2 * gamma_k(m) + gamma_k(9 * b);
  t.apply_check = t.apply + 2 * gamma_k(m) + gamma_k(b + 1);
  t.form = gamma_k(9 * b);
  t.tiny = m * std::numeric_limits<double>::min();
  return t;
}

// The majorant solves sum nonnegative terms (relative error ≤ levels·γ_m < 1e-9 here) and use
// D̂⁻¹ for D⁻¹ (relative O(u) for these pivot blocks): 1% covers both with room to spare.
constexpr double majorant_slack = 1.01;

std::vector<double> operator-(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> d(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) d[i] = a[i] - b[i];
  return d;
}

// c·a + d·b + e, componentwise.
std::vector<double> combine(double c, const std::vector<double>& a, double d,
                            const std::vector<double>& b, double e) {
  std::vector<double> out(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) out[i] = c * a[i] + d * b[i] + e;
  return out;
}

// |difference_i| ≤ allowed_i for every i; one assertion per vector, naming the worst entry.
void check_within(const std::vector<double>& difference, const std::vector<double>& allowed,
                  const std::string& what) {
  REQUIRE(difference.size() == allowed.size());
  std::size_t violations = 0, worst = 0;
  double worst_ratio = 0;
  for (std::size_t i = 0; i < difference.size(); ++i) {
    const double ratio = std::abs(difference[i]) / allowed[i];
    if (!(std::abs(difference[i]) <= allowed[i])) ++violations;
    if (!(ratio <= worst_ratio)) worst_ratio = ratio, worst = i;
  }
  INFO(what << ": " << violations << " of " << difference.size() << " entries off; worst entry "
            << worst << " off by " << (difference.empty() ? 0.0 : difference[worst]) << ", allowed "
            << (allowed.empty() ? 0.0 : allowed[worst]) << " (ratio " << worst_ratio << ")");
  CHECK(violations == 0);
}

std::vector<double> run_solve(const SubdomainTrsv& trsv, Triangle triangle, Diagonal diagonal,
                              TriangularKernel kernel, const Vector& r) {
  Vector x("x", r.extent(0));
  Kokkos::deep_copy(x, 7.0);  // garbage: a kernel must not read its output before writing it
  trsv.solve(ExecSpace(), triangle, diagonal, kernel, r, x);
  return reference::to_host(x);
}

std::vector<double> run_apply(const SubdomainTrsv& trsv, ApplyKernel kernel, const Vector& r) {
  Vector z("z", r.extent(0));
  Kokkos::deep_copy(z, 7.0);
  trsv.apply(ExecSpace(), kernel, r, z);
  return reference::to_host(z);
}

std::vector<double> run_apply_transpose(const SubdomainTrsv& trsv, ApplyKernel kernel,
                                        const Vector& r) {
  Vector z("z", r.extent(0));
  Kokkos::deep_copy(z, 7.0);
  trsv.apply_transpose(ExecSpace(), kernel, r, z);
  return reference::to_host(z);
}

// x̂ = T⁻¹r: backward error against T, forward error against the reference substitution.
void check_solve(const reference::HostFactors& h, Triangle triangle, Diagonal diagonal,
                 const std::vector<double>& r, const std::vector<double>& x,
                 const std::string& what) {
  const Tolerances t = tolerances(h);
  const auto Tx = reference::triangular_product(h, triangle, diagonal, x);
  check_within(r - Tx.product, combine(t.solve_check, Tx.bound, 0, Tx.bound, t.tiny),
               what + ": backward error");
  // Both x̂ and the reference x satisfy the backward bound, so x̂ − x = T⁻¹(residuals) and
  // |T⁻¹| ≤ the majorant solve.
  const auto expected = reference::triangular_solve(h, triangle, diagonal, r);
  const auto Te = reference::triangular_product(h, triangle, diagonal, expected);
  const auto allowed = reference::triangular_solve(
      h, triangle, diagonal,
      combine(t.substitution, Tx.bound, t.substitution, Te.bound, 2 * t.tiny), false, true);
  check_within(x - expected, combine(majorant_slack, allowed, 0, allowed, t.tiny),
               what + ": forward error");
}

// ẑ = M⁻¹r (M⁻ᵀr): backward error against M, forward error against the reference.
void check_apply(const reference::HostFactors& h, const std::vector<double>& r,
                 const std::vector<double>& z, bool transposed, const std::string& what) {
  const Tolerances t = tolerances(h);
  const auto Mz = reference::preconditioner_product(h, z, transposed);
  check_within(r - Mz.product, combine(t.apply_check, Mz.bound, 0, Mz.bound, t.tiny),
               what + ": backward error");
  const auto expected = reference::preconditioner_solve(h, r, transposed);
  const auto Me = reference::preconditioner_product(h, expected, transposed);
  const auto allowed = reference::preconditioner_solve(
      h, combine(t.apply, Mz.bound, t.apply, Me.bound, 2 * t.tiny), transposed, true);
  check_within(z - expected, combine(majorant_slack, allowed, 0, allowed, t.tiny),
               what + ": forward error");
}

// DagEcLdsUd solves another triangle with pivots (L·D, D·U): its own test below.
// Every kernel of the name tables, so a new kernel is tested by its table entry; dag_ec_lds_ud
// solves with L·D (D·U) rather than L + D and has its own test below.
const std::vector<TriangularKernel> triangular_kernels = [] {
  std::vector<TriangularKernel> kernels;
  for (const TriangularKernel kernel : triangular_kernel_names.values())
    if (kernel != TriangularKernel::DagEcLdsUd) kernels.push_back(kernel);
  return kernels;
}();
const auto apply_kernels = apply_kernel_names.values();
const Triangle triangles[] = {Triangle::Lower, Triangle::Upper};
const Diagonal diagonals[] = {Diagonal::Pivots, Diagonal::Unit};

std::string name_of(Triangle triangle, Diagonal diagonal) {
  return std::string(triangle == Triangle::Lower ? "lower" : "upper") +
         (diagonal == Diagonal::Pivots ? " with pivots" : " unit");
}
std::string name_of(IluForm form) { return form == IluForm::Ilu0 ? "Ilu0" : "Ildu0"; }

// Every check the level sets of one triangle must pass (subdomain_levels.hpp).
void check_levels(const SubdomainLevels& levels, const reference::HostBlockCsr& F,
                  const Partition& partition, Triangle triangle) {
  CHECK(levels.triangle == triangle);
  const auto num_levels = reference::host_vector(levels.num_levels);
  const auto level_ptr = reference::host_vector(levels.level_ptr);
  const auto rows = reference::host_vector(levels.rows);
  const auto edge_ptr = reference::host_vector(levels.edge_ptr);
  // edge_row is built only for the kernels that scatter by edge (fill_edge_rows); checked when
  // the caller built it.
  const bool with_rows = levels.edge_row.is_allocated();
  const auto edge_row =
      with_rows ? reference::host_vector(levels.edge_row) : std::vector<Ordinal>{};
  const auto edge_col = reference::host_vector(levels.edge_col);
  const auto row_edge_begin = reference::host_vector(levels.row_edge_begin);
  const auto row_edge_end = reference::host_vector(levels.row_edge_end);
  const Ordinal n = F.num_block_rows(), num_subdomains = partition.num_subdomains;
  const auto& offsets = partition.host_subdomain_offsets;
  REQUIRE(Ordinal(num_levels.size()) == num_subdomains);
  REQUIRE(Ordinal(rows.size()) == n);
  REQUIRE(Ordinal(level_ptr.size()) >= n + num_subdomains + 1);
  REQUIRE(Ordinal(edge_ptr.size()) >= n + num_subdomains + 1);
  const bool lower = triangle == Triangle::Lower;
  const auto depends = [&](Ordinal i, Ordinal j) { return lower ? j < i : j > i; };

  Ordinal deepest = 0;
  for (Ordinal s = 0; s < num_subdomains; ++s) {
    std::size_t failures = 0;  // counted, then one CHECK per part: not one assertion per row
    const Ordinal first = offsets[s], last = offsets[s + 1], base = first + s;
    CAPTURE(s, first, last);
    const Ordinal count = num_levels[s];
    deepest = std::max(deepest, count);
    REQUIRE(count >= 1);
    REQUIRE(count <= last - first);
    CHECK(level_ptr[base] == first);
    CHECK(level_ptr[base + count] == last);
    // Every row of the subdomain exactly once; no empty level.
    std::vector<Ordinal> level_of(last - first, -1);
    for (Ordinal l = 0; l < count; ++l) {
      if (!(level_ptr[base + l] < level_ptr[base + l + 1])) ++failures;
      for (Ordinal p = level_ptr[base + l]; p < level_ptr[base + l + 1] && p < last; ++p) {
        const Ordinal i = rows[p];
        // Ascending within a level: the lists do not depend on the kernel's scheduling.
        if (p > level_ptr[base + l] && rows[p] <= rows[p - 1]) ++failures;
        if (i < first || i >= last || level_of[i - first] != -1) {
          ++failures;
          continue;
        }
        level_of[i - first] = l;
      }
    }
    CHECK(std::count(level_of.begin(), level_of.end(), -1) == 0);
    // A row's level is one more than the deepest row it depends on (0 without dependencies).
    Offset triangle_entries = 0, lower_entries = 0;
    for (Ordinal i = first; i < last; ++i) {
      Ordinal expected = 0;
      for (Offset k = F.row_map[i]; k < F.row_map[i + 1]; ++k) {
        const Ordinal j = F.col_ind[k];
        if (j < i) ++lower_entries;
        if (!depends(i, j)) continue;
        ++triangle_entries;
        if (j < first || j >= last) {
          ++failures;
          continue;
        }
        if (!(level_of[j - first] < level_of[i - first])) ++failures;
        expected = std::max(expected, level_of[j - first] + 1);
      }
      if (level_of[i - first] != expected) ++failures;
    }
    CHECK(failures == 0);
    failures = 0;
    // Edges: the strictly triangular entries of each level's rows, in level order, row by row,
    // each row's in the factors' order (edge_entry's run); lower edges first in the subdomain's
    // entry range, upper ones after them.
    const Offset edge_begin = F.row_map[first] + (lower ? 0 : lower_entries);
    CHECK(edge_ptr[base] == edge_begin);
    CHECK(edge_ptr[base + count] == edge_begin + triangle_entries);
    for (Ordinal l = 0; l < count; ++l) {
      Offset e = edge_ptr[base + l];
      for (Ordinal p = level_ptr[base + l]; p < level_ptr[base + l + 1] && p < last; ++p) {
        const Ordinal i = rows[p];
        if (row_edge_begin[p] != e) ++failures;
        std::vector<Offset> expected;
        for (Offset k = F.row_map[i]; k < F.row_map[i + 1]; ++k)
          if (depends(i, F.col_ind[k])) expected.push_back(k);
        if (row_edge_end[p] - row_edge_begin[p] != expected.size()) ++failures;
        for (e = row_edge_begin[p]; e < row_edge_end[p] && e < edge_col.size(); ++e) {
          const Offset q = e - row_edge_begin[p];
          if (q >= expected.size() || edge_col[e] != F.col_ind[expected[q]]) ++failures;
          if (with_rows && edge_row[e] != i) ++failures;
        }
      }
      if (e != edge_ptr[base + l + 1]) ++failures;
    }
    CHECK(failures == 0);
  }
  CHECK(levels.max_levels == deepest);
}

// Strictly triangular blocks of one triangle, over all subdomains: the edges a level set lists.
Offset strict_entries(const reference::HostBlockCsr& F, Triangle triangle) {
  Offset count = 0;
  for (Ordinal i = 0; i < F.num_block_rows(); ++i)
    for (Offset k = F.row_map[i]; k < F.row_map[i + 1]; ++k)
      count += triangle == Triangle::Lower ? F.col_ind[k] < i : F.col_ind[k] > i;
  return count;
}

// Team sizes to run: Kokkos's choice, one thread, and three (odd, fewer threads than most
// levels have rows) where the backend has that many.
std::vector<int> team_sizes() {
  std::vector<int> sizes{0, 1};
  if (ExecSpace().concurrency() >= 3) sizes.push_back(3);
  return sizes;
}

// Off-diagonal scalar entries scaled by factors in [0.5, 1): new values, same pattern, still
// diagonally dominant.
HostMatrixArrays rescaled(HostMatrixArrays m) {
  const int b = m.block_size;
  for (Ordinal i = 0; i < m.num_block_rows; ++i)
    for (Offset k = m.row_map[i]; k < m.row_map[i + 1]; ++k)
      for (int e = 0; e < b * b; ++e)
        if (m.col_ind[k] != i || e / b != e % b)
          m.values[k * b * b + e] *= 0.5 + 0.005 * double((k * 7919 + e * 31) % 100);
  return m;
}

}  // namespace

TEST_CASE(
    "subdomain levels: every row once, after all it depends on; edges are the strict triangle",
    "[trsv]") {
  for (const Problem& problem : problems()) {
    INFO(problem.name);
    const SubdomainIlu0 ilu = factorize(problem, IluForm::Ildu0);
    const SubdomainTrsv trsv(ExecSpace(), ilu);
    const auto F = reference::to_host_csr(ilu.factors());
    SubdomainLevels lower = trsv.levels(ExecSpace(), Triangle::Lower);
    SubdomainLevels upper = trsv.levels(ExecSpace(), Triangle::Upper);
    fill_edge_rows(ExecSpace(), lower, upper);
    for (const Triangle triangle : triangles) {
      INFO((triangle == Triangle::Lower ? "lower" : "upper"));
      check_levels(triangle == Triangle::Lower ? lower : upper, F, problem.partition, triangle);
    }
  }
}

TEST_CASE("subdomain levels: num_edges counts the listed edges", "[trsv]") {
  for (const Problem& problem : problems()) {
    INFO(problem.name);
    const SubdomainIlu0 ilu = factorize(problem, IluForm::Ildu0);
    const SubdomainTrsv trsv(ExecSpace(), ilu);
    const auto F = reference::to_host_csr(ilu.factors());
    for (const Triangle triangle : triangles) {
      INFO((triangle == Triangle::Lower ? "lower" : "upper"));
      CHECK(trsv.levels(ExecSpace(), triangle).num_edges == strict_entries(F, triangle));
    }
  }
}

TEST_CASE("sliced levels: each level's rows as padded columns, every listed edge once in order",
          "[trsv]") {
  for (const Problem& problem : problems()) {
    INFO(problem.name);
    const SubdomainIlu0 ilu = factorize(problem, IluForm::Ildu0);
    const SubdomainTrsv trsv(ExecSpace(), ilu);
    const int bb = problem.dropped.block_size() * problem.dropped.block_size();
    const auto values = reference::host_vector(ilu.factors().values());
    for (const Triangle triangle : triangles) {
      INFO((triangle == Triangle::Lower ? "lower" : "upper"));
      const SubdomainLevels& levels = trsv.levels(ExecSpace(), triangle);
      const SlicedLevels sliced = build_sliced_levels(ExecSpace(), levels, problem.partition);
      Kokkos::View<Scalar*, DeviceType> gathered("gathered", sliced.num_entries * bb);
      gather_sliced_values(ExecSpace(), levels, sliced, problem.partition, ilu.factors(),
                           ilu.diag_position(), gathered);
      const auto F = reference::to_host_csr(ilu.factors());
      const auto num_levels = reference::host_vector(levels.num_levels);
      const auto level_ptr = reference::host_vector(levels.level_ptr);
      const auto rows = reference::host_vector(levels.rows);
      const auto edge_col = reference::host_vector(levels.edge_col);
      const auto row_edge_begin = reference::host_vector(levels.row_edge_begin);
      const auto row_edge_end = reference::host_vector(levels.row_edge_end);
      const auto slice_ptr = reference::host_vector(sliced.slice_ptr);
      const auto width = reference::host_vector(sliced.width);
      const auto col = reference::host_vector(sliced.col);
      const auto got = reference::host_vector(gathered);
      const auto& offsets = problem.partition.host_subdomain_offsets;
      Offset next = 0, listed = 0;  // slices follow each other without gaps
      std::size_t failures = 0;     // counted: one CHECK, not one assertion per entry
      for (Ordinal s = 0; s < problem.partition.num_subdomains; ++s) {
        const Ordinal first = offsets[s], base = first + s;
        for (Ordinal l = 0; l < num_levels[s]; ++l) {
          const Ordinal L = base + l, R = level_ptr[L + 1] - level_ptr[L];
          if (slice_ptr[L] != next) ++failures;
          Offset longest = 0;
          for (Ordinal p = 0; p < R; ++p) {
            const Offset begin = row_edge_begin[level_ptr[L] + p];
            const Offset length = row_edge_end[level_ptr[L] + p] - begin;
            // The row's strictly triangular entries in the factors' order: edge q is the q-th.
            const Ordinal i = rows[level_ptr[L] + p];
            std::vector<Offset> entries;
            for (Offset k = F.row_map[i]; k < F.row_map[i + 1]; ++k)
              if (triangle == Triangle::Lower ? F.col_ind[k] < i : F.col_ind[k] > i)
                entries.push_back(k);
            if (entries.size() != length) ++failures;
            longest = std::max(longest, length);
            listed += length;
            for (Offset q = 0; q < Offset(width[L]); ++q) {
              const Offset k = slice_ptr[L] + q * R + p;
              const bool real = q < length;
              if (col[k] != (real ? edge_col[begin + q] - first : -1)) ++failures;
              for (int j = 0; j < bb && (!real || q < entries.size()); ++j)
                if (got[k * bb + j] != (real ? values[entries[q] * bb + j] : 0.0)) ++failures;
            }
          }
          if (Offset(width[L]) != longest) ++failures;
          next += Offset(R) * width[L];
        }
      }
      CHECK(failures == 0);
      CHECK(listed == levels.num_edges);
      CHECK(sliced.num_entries == next);
      CHECK(sliced.num_entries >= levels.num_edges);
    }
  }
}

TEST_CASE("subdomain levels: a diagonal matrix has one level, a tridiagonal chain one per row",
          "[trsv]") {
  const int b = GENERATE(1, 2);
  CAPTURE(b);
  const Ordinal n = 37;
  SECTION("diagonal, irregular subdomains") {
    HostMatrixArrays m;
    m.num_block_rows = m.num_block_cols = n;
    m.block_size = b;
    for (Ordinal i = 0; i <= n; ++i) m.row_map.push_back(i);
    for (Ordinal i = 0; i < n; ++i) m.col_ind.push_back(i);
    m.values = reference::random_vector(Offset(n) * b * b, 3u);
    for (Ordinal i = 0; i < n; ++i)
      for (int c = 0; c < b; ++c) m.values[(Offset(i) * b + c) * b + c] = 4.0 + c;
    std::vector<Ordinal> labels(n);
    for (Ordinal i = 0; i < n; ++i) labels[i] = (i * i) % 6;
    const Partition partition = partition_of(labels, 6);
    const Problem problem{
        "diagonal", reorder_and_drop(ExecSpace(), make_matrix(m), partition).dropped, partition, 0};
    const SubdomainIlu0 ilu = factorize(problem, IluForm::Ildu0);
    const SubdomainTrsv trsv(ExecSpace(), ilu);
    for (const Triangle triangle : triangles) {
      const SubdomainLevels& levels = trsv.levels(ExecSpace(), triangle);
      CHECK(levels.max_levels == 1);
      for (const Ordinal count : reference::host_vector(levels.num_levels)) CHECK(count == 1);
      check_levels(levels, reference::to_host_csr(ilu.factors()), partition, triangle);
    }
  }
  SECTION("tridiagonal, one subdomain") {
    HostMatrixArrays m = reference::random_matrix(n, b, 0, 4u);  // diagonal blocks only
    HostMatrixArrays tri;
    tri.num_block_rows = tri.num_block_cols = n;
    tri.block_size = b;
    tri.row_map.push_back(0);
    for (Ordinal i = 0; i < n; ++i) {
      for (Ordinal j = std::max(i - 1, 0); j <= std::min(i + 1, n - 1); ++j) {
        tri.col_ind.push_back(j);
        for (int e = 0; e < b * b; ++e)
          tri.values.push_back(j == i
                                   ? m.values[Offset(i) * b * b + e] + (e / b == e % b ? 2.0 : 0.0)
                                   : 0.25 + 0.125 * e);
      }
      tri.row_map.push_back(tri.col_ind.size());
    }
    const Partition partition = partition_of(std::vector<Ordinal>(n, 0), 1);
    const Problem problem{"tridiagonal",
                          reorder_and_drop(ExecSpace(), make_matrix(tri), partition).dropped,
                          partition, 0};
    const SubdomainIlu0 ilu = factorize(problem, IluForm::Ildu0);
    const SubdomainTrsv trsv(ExecSpace(), ilu);
    const auto F = reference::to_host_csr(ilu.factors());
    for (const Triangle triangle : triangles) {
      const SubdomainLevels& levels = trsv.levels(ExecSpace(), triangle);
      CHECK(levels.max_levels == n);
      CHECK(reference::host_vector(levels.num_levels) == std::vector<Ordinal>{n});
      // One row per level: top-down for L, bottom-up for U.
      const auto rows = reference::host_vector(levels.rows);
      for (Ordinal p = 0; p < n; ++p)
        CHECK(rows[p] == (triangle == Triangle::Lower ? p : n - 1 - p));
      check_levels(levels, F, partition, triangle);
    }
  }
}

TEST_CASE("subdomain trsv: every triangular kernel solves its triangle", "[trsv]") {
  for (const Problem& problem : problems()) {
    INFO(problem.name);
    for (const IluForm form : {IluForm::Ildu0, IluForm::Ilu0}) {
      const SubdomainIlu0 ilu = factorize(problem, form);
      const auto h = reference::host_factors(ilu);
      const auto r_host = reference::random_vector(problem.dropped.num_rows(), 5u);
      const Vector r = reference::to_device(r_host);
      for (const int team_size : team_sizes()) {
        const SubdomainTrsv trsv(ExecSpace(), ilu, team_size);
        for (const TriangularKernel kernel : triangular_kernels)
          for (const Triangle triangle : triangles)
            for (const Diagonal diagonal : diagonals) {
              const std::string what = name_of(form) + " " + to_string(kernel) + " " +
                                       name_of(triangle, diagonal) + " team size " +
                                       std::to_string(team_size);
              check_solve(h, triangle, diagonal, r_host,
                          run_solve(trsv, triangle, diagonal, kernel, r), what);
            }
      }
    }
  }
}

// dag_ec_lds_ud with pivots: x = D⁻¹ L⁻¹ r (lower) or U⁻¹ D⁻¹ r (upper), the scaling deferred.
// Against the host doing the same steps with the same D⁻¹: the unit solves of both satisfy
// backward error γ_m, so they differ by at most 2γ_m |T⁻¹||T||y| (the magnitude solve bounds
// |T⁻¹|, ×1.01 for its own rounding); the two D⁻¹ products differ by at most 2γ_b |D⁻¹||y|.
TEST_CASE("subdomain trsv: dag_ec_lds_ud defers the D⁻¹ scaling", "[trsv]") {
  const auto scale = [](const reference::HostFactors& h, const std::vector<double>& y,
                        bool absolute) {
    const int b = h.F.b;
    std::vector<double> out(y.size(), 0.0);
    for (std::size_t i = 0; i < y.size() / b; ++i)
      for (int r = 0; r < b; ++r)
        for (int c = 0; c < b; ++c) {
          const double d = h.inv_diag[i * b * b + r * b + c];
          out[i * b + r] += absolute ? std::abs(d) * std::abs(y[i * b + c]) : d * y[i * b + c];
        }
    return out;
  };
  const auto abs_of = [](std::vector<double> v) {
    for (double& x : v) x = std::abs(x);
    return v;
  };
  for (const Problem& problem : problems()) {
    INFO(problem.name);
    const SubdomainIlu0 ilu = factorize(problem, IluForm::Ildu0);
    const auto h = reference::host_factors(ilu);
    const SubdomainTrsv trsv(ExecSpace(), ilu);
    const auto r = reference::random_vector(problem.dropped.num_rows(), 11u);
    const Tolerances t = tolerances(h);
    const double g_m = t.solve_check, g_b = gamma_k(9 * h.F.b);
    for (const Triangle triangle : triangles) {
      CAPTURE(int(triangle));
      // With a unit diagonal it is the plain unit solve.
      check_solve(h, triangle, Diagonal::Unit, r,
                  run_solve(trsv, triangle, Diagonal::Unit, TriangularKernel::DagEcLdsUd,
                            reference::to_device(r)),
                  "dag_ec_lds_ud unit");
      const auto got = run_solve(trsv, triangle, Diagonal::Pivots, TriangularKernel::DagEcLdsUd,
                                 reference::to_device(r));
      std::vector<double> expected, allowed(r.size());
      if (triangle == Triangle::Lower) {
        const auto y = reference::triangular_solve(h, triangle, Diagonal::Unit, r);
        expected = scale(h, y, false);
        const auto spread = reference::triangular_solve(
            h, triangle, Diagonal::Unit,
            reference::triangular_product(h, triangle, Diagonal::Unit, abs_of(y)).bound, false,
            true);
        const auto first = scale(h, spread, true), second = scale(h, y, true);
        for (std::size_t i = 0; i < r.size(); ++i)
          allowed[i] = 2 * g_m * 1.01 * first[i] + 2 * g_b * second[i];
      } else {
        const auto d = scale(h, r, false);
        expected = reference::triangular_solve(h, triangle, Diagonal::Unit, d);
        const auto spread = reference::triangular_solve(
            h, triangle, Diagonal::Unit,
            reference::triangular_product(h, triangle, Diagonal::Unit, abs_of(expected)).bound,
            false, true);
        const auto scaled_error = reference::triangular_solve(h, triangle, Diagonal::Unit,
                                                              scale(h, r, true), false, true);
        for (std::size_t i = 0; i < r.size(); ++i)
          allowed[i] = 2 * g_m * 1.01 * spread[i] + 2 * g_b * 1.01 * scaled_error[i];
      }
      std::size_t failures = 0;
      for (std::size_t i = 0; i < r.size(); ++i)
        if (!(std::abs(got[i] - expected[i]) <= allowed[i] + t.tiny)) ++failures;
      CHECK(failures == 0);
    }
  }
}

TEST_CASE("subdomain trsv: every apply kernel applies M⁻¹; Ilu0 and Ildu0 agree", "[trsv]") {
  for (const Problem& problem : problems()) {
    INFO(problem.name);
    const SubdomainIlu0 ilu = factorize(problem, IluForm::Ilu0);
    const SubdomainIlu0 ildu = factorize(problem, IluForm::Ildu0);
    const auto h_ilu = reference::host_factors(ilu), h_ildu = reference::host_factors(ildu);
    const auto r_host = reference::random_vector(problem.dropped.num_rows(), 6u);
    const Vector r = reference::to_device(r_host);
    for (const int team_size : team_sizes()) {
      const SubdomainTrsv trsv_ilu(ExecSpace(), ilu, team_size),
          trsv_ildu(ExecSpace(), ildu, team_size);
      for (const ApplyKernel kernel : apply_kernels) {
        const std::string what = to_string(kernel) + " team size " + std::to_string(team_size);
        const auto z_ilu = run_apply(trsv_ilu, kernel, r);
        const auto z_ildu = run_apply(trsv_ildu, kernel, r);
        check_apply(h_ilu, r_host, z_ilu, false, "Ilu0 " + what);
        check_apply(h_ildu, r_host, z_ildu, false, "Ildu0 " + what);

        // Ildu0's ẑ against Ilu0's M: its own backward error plus the difference of the two M;
        // then ẑ_ildu − ẑ_ilu = M⁻¹(r − Mẑ_ilu − (r − Mẑ_ildu)) is bounded through the majorant.
        const Tolerances t = tolerances(h_ildu);
        const auto cross = reference::preconditioner_product(h_ilu, z_ildu);
        const auto own = reference::preconditioner_product(h_ildu, z_ildu);
        const auto ilu_own = reference::preconditioner_product(h_ilu, z_ilu);
        check_within(
            r_host - cross.product,
            combine(t.apply + t.form, own.bound, t.apply_check - t.apply, cross.bound, t.tiny),
            "Ildu0 ẑ against Ilu0's M, " + what);
        const auto allowed = reference::preconditioner_solve(
            h_ilu, combine(t.apply + t.form, own.bound, t.apply, ilu_own.bound, 2 * t.tiny), false,
            true);
        check_within(z_ildu - z_ilu, combine(majorant_slack, allowed, 0, allowed, t.tiny),
                     "Ildu0 vs Ilu0 ẑ, " + what);
      }
    }
  }
}

TEST_CASE("subdomain trsv: apply_transpose applies M⁻ᵀ", "[trsv]") {
  for (const Problem& problem : problems()) {
    INFO(problem.name);
    for (const IluForm form : {IluForm::Ildu0, IluForm::Ilu0}) {
      const SubdomainIlu0 ilu = factorize(problem, form);
      const SubdomainTrsv trsv(ExecSpace(), ilu);
      const auto r_host = reference::random_vector(problem.dropped.num_rows(), 7u);
      for (const ApplyKernel kernel : apply_kernels)
        check_apply(reference::host_factors(ilu), r_host,
                    run_apply_transpose(trsv, kernel, reference::to_device(r_host)), true,
                    name_of(form) + " transpose " + to_string(kernel));
    }
  }
}

// One subdomain, block tridiagonal, with the last block row also coupled to the block row
// `distance` before it (both ways): the row-order sweeps store scalar columns as 16-bit
// distances j − i up to 32,767 and as 32-bit columns beyond, block columns always as columns.
Problem far_coupling(Ordinal distance, int b) {
  const Ordinal n = distance + 2;
  HostMatrixArrays m;
  m.num_block_rows = m.num_block_cols = n;
  m.block_size = b;
  m.row_map.push_back(0);
  const auto add_block = [&](Ordinal i, Ordinal j) {
    m.col_ind.push_back(j);
    for (int e = 0; e < b * b; ++e)
      m.values.push_back(i == j ? (e / b == e % b ? 4.0 : 0.125 * ((e + i) % 3))
                                : -0.5 + 0.0625 * ((e + i + j) % 5));
  };
  for (Ordinal i = 0; i < n; ++i) {
    if (i == n - 1) add_block(i, i - distance);
    for (Ordinal j = std::max(i - 1, 0); j <= std::min(i + 1, n - 1); ++j) add_block(i, j);
    if (i == n - 1 - distance) add_block(i, n - 1);
    m.row_map.push_back(m.col_ind.size());
  }
  const Partition partition = partition_of(std::vector<Ordinal>(n, 0), 1);
  return {"block tridiagonal, b = " + std::to_string(b) + ", a coupling " +
              std::to_string(distance) + " block rows apart",
          reorder_and_drop(ExecSpace(), make_matrix(m), partition).dropped, partition, 0};
}

TEST_CASE(
    "subdomain trsv: row-order sweeps read 16-bit distances up to 32767 rows and columns beyond",
    "[trsv]") {
  for (const int b : {1, 2})
    for (const Ordinal distance : {max_short_distance, max_short_distance + 1}) {
      const Problem problem = far_coupling(distance, b);
      INFO(problem.name);
      const SubdomainIlu0 ilu = factorize(problem, IluForm::Ildu0);
      const SplitTriangles split = split_triangles(ExecSpace(), ilu.factors(), ilu.diag_position());
      CHECK(split.short_distances == (b == 1 && distance <= max_short_distance));
      CHECK(split.lower_cols.is_allocated() == !split.short_distances);
      const auto h = reference::host_factors(ilu);
      const auto r_host = reference::random_vector(problem.dropped.num_rows(), 31u);
      const Vector r = reference::to_device(r_host);
      const SubdomainTrsv trsv(ExecSpace(), ilu);
      check_apply(h, r_host, run_apply(trsv, ApplyKernel::RowOrderFused, r), false, "apply");
      check_apply(h, r_host, run_apply_transpose(trsv, ApplyKernel::RowOrderFused, r), true,
                  "transposed apply");
      for (const Triangle triangle : triangles)
        for (const Diagonal diagonal : diagonals)
          check_solve(h, triangle, diagonal, r_host,
                      run_solve(trsv, triangle, diagonal, TriangularKernel::RowOrder, r),
                      name_of(triangle, diagonal));
    }
}

TEST_CASE("subdomain trsv: a subdomain beyond level-0 scratch runs from level 1", "[trsv]") {
  const Problem problem = beyond_level0_scratch();
  const SubdomainIlu0 ilu = factorize(problem, IluForm::Ildu0);
  const SubdomainTrsv trsv(ExecSpace(), ilu);
  CHECK(trsv.slice_bytes() == problem.dropped.num_rows() * sizeof(double));
  CHECK(trsv.scratch_level() == 1);
  const auto r_host = reference::random_vector(problem.dropped.num_rows(), 10u);
  const Vector r = reference::to_device(r_host);
  const auto h = reference::host_factors(ilu);
  for (const ApplyKernel kernel : apply_kernels)
    check_apply(h, r_host, run_apply(trsv, kernel, r), false, to_string(kernel));
  for (const TriangularKernel kernel : triangular_kernels)
    check_solve(h, Triangle::Lower, Diagonal::Pivots, r_host,
                run_solve(trsv, Triangle::Lower, Diagonal::Pivots, kernel, r), to_string(kernel));
}

TEST_CASE("team scratch: level-1 requests are whole 128-byte lines", "[trsv]") {
  // Level 1 gives the team in slot k the chunk at k × the request, unaligned: a request of 4 mod
  // 8 bytes put every other team's doubles off their alignment (a CUDA fault).
  const std::size_t max0 = Kokkos::TeamPolicy<ExecSpace>::scratch_size_max(0);
  for (const std::size_t bytes : {std::size_t(12), max0 - 4, max0}) {
    CHECK(detail::team_scratch_for(bytes).level == 0);
    CHECK(detail::team_scratch_for(bytes).bytes == bytes);
  }
  for (const std::size_t bytes : {max0 + 1, max0 + 4, max0 + 128, 3 * max0 + 12}) {
    const detail::TeamScratch scratch = detail::team_scratch_for(bytes);
    CHECK(scratch.level == 1);
    CHECK(scratch.bytes % 128 == 0);
    CHECK(scratch.bytes >= bytes);
    CHECK(scratch.bytes < bytes + 128);
  }
}

TEST_CASE("subdomain trsv: level-1 spin scratch with an odd largest subdomain", "[trsv]") {
  // The spin kernel keeps 12 bytes a row (the slice and the flags): with 3,579 rows that is
  // beyond level 0 on every backend (H100: 40,936 bytes, Serial: 32 KB), 4 mod 8 bytes before
  // rounding, and the second and third subdomains' teams take the chunks after the first.
  const GeneratedProblem grid = generate_problem("gen:lap7:23:23:20");  // 10,580 rows
  std::vector<Ordinal> labels(grid.matrix.num_block_rows(), 2);
  std::fill(labels.begin(), labels.begin() + 3501, 0);
  std::fill(labels.begin() + 3501, labels.begin() + 7001, 1);
  const Partition partition = partition_of(labels, 3);
  const Problem problem{"gen:lap7:23:23:20 in 3,501 / 3,500 / 3,579 rows",
                        reorder_and_drop(ExecSpace(), grid.matrix, partition).dropped, partition,
                        0};
  const SubdomainIlu0 ilu = factorize(problem, IluForm::Ildu0);
  const SubdomainTrsv trsv(ExecSpace(), ilu);
  const auto r_host = reference::random_vector(problem.dropped.num_rows(), 12u);
  const Vector r = reference::to_device(r_host);
  const auto h = reference::host_factors(ilu);
  for (const Triangle triangle : triangles)
    for (const TriangularKernel kernel : triangular_kernels)
      check_solve(h, triangle, Diagonal::Pivots, r_host,
                  run_solve(trsv, triangle, Diagonal::Pivots, kernel, r),
                  name_of(triangle, Diagonal::Pivots) + " " + to_string(kernel));
}

TEST_CASE("subdomain trsv: vertex-centric, lanes and row-order kernels are bitwise reproducible",
          "[trsv]") {
  // Ten runs each: the fixed-order kernels must give the same bits every time (on GPUs the
  // lanes kernel's vector reduction is a shuffle tree whose order the lane count fixes).
  for (const Problem& problem : problems()) {
    INFO(problem.name);
    const SubdomainIlu0 ilu = factorize(problem, IluForm::Ildu0);
    const SubdomainTrsv trsv(ExecSpace(), ilu);
    const Vector r = reference::to_device(reference::random_vector(problem.dropped.num_rows(), 8u));
    for (const TriangularKernel kernel : triangular_kernel_names.values_with(deterministic_kernel))
      for (const Triangle triangle : triangles)
        for (const Diagonal diagonal : diagonals) {
          INFO(name_of(triangle, diagonal) + " " + to_string(kernel));
          const auto first = run_solve(trsv, triangle, diagonal, kernel, r);
          for (int run = 0; run < 9; ++run)
            CHECK(run_solve(trsv, triangle, diagonal, kernel, r) == first);
        }
    for (const ApplyKernel kernel : apply_kernels) {
      if (!apply_kernel_names.has(resolve_auto(kernel), deterministic_kernel))
        continue;  // adds with atomics: not reproducible by design
      INFO(to_string(kernel));
      const auto first = run_apply(trsv, kernel, r);
      for (int run = 0; run < 9; ++run) CHECK(run_apply(trsv, kernel, r) == first);
    }
  }
}

TEST_CASE("subdomain trsv: solves and applies follow numeric() without a rebuild", "[trsv]") {
  const auto [block_rows, b, num_parts] =
      GENERATE(table<Ordinal, int, Ordinal>({{48, 1, 5}, {48, 2, 5}, {35, 3, 4}, {130, 1, 57}}));
  const IluForm form = GENERATE(IluForm::Ildu0, IluForm::Ilu0);
  CAPTURE(block_rows, b, num_parts, name_of(form));
  const HostMatrixArrays arrays = reference::random_matrix(block_rows, b, 4, 31u);
  std::vector<Ordinal> labels(block_rows);
  for (Ordinal i = 0; i < block_rows; ++i) labels[i] = Ordinal((Offset(i) * i + 3 * i) % num_parts);
  const Partition partition = partition_of(labels, num_parts);
  ReorderedSystem system = reorder_and_drop(ExecSpace(), make_matrix(arrays), partition);
  FactorOptions options;
  options.form = form;
  SubdomainIlu0 ilu(ExecSpace(), system.dropped, partition, options);
  const SubdomainTrsv trsv(ExecSpace(), ilu);
  const auto r_host = reference::random_vector(system.dropped.num_rows(), 9u);
  const Vector r = reference::to_device(r_host);
  const auto before = run_apply(trsv, ApplyKernel::DagVcIlduFused, r);

  update_values(ExecSpace(), make_matrix(rescaled(arrays)), system);
  ilu.numeric(ExecSpace(), system.dropped);
  const SubdomainTrsv fresh(ExecSpace(), ilu);
  const auto h = reference::host_factors(ilu);
  const auto after = run_apply(trsv, ApplyKernel::DagVcIlduFused, r);
  CHECK(after != before);
  // Same factors, same deterministic kernel: bitwise what a fresh SubdomainTrsv gives.
  CHECK(after == run_apply(fresh, ApplyKernel::DagVcIlduFused, r));
  for (const ApplyKernel kernel : apply_kernels)
    check_apply(h, r_host, run_apply(trsv, kernel, r), false, "after numeric " + to_string(kernel));
  for (const ApplyKernel kernel : apply_kernels)
    check_apply(h, r_host, run_apply_transpose(trsv, kernel, r), true,
                "after numeric, transpose " + to_string(kernel));
  for (const TriangularKernel kernel : triangular_kernels)
    for (const Triangle triangle : triangles)
      for (const Diagonal diagonal : diagonals)
        check_solve(h, triangle, diagonal, r_host, run_solve(trsv, triangle, diagonal, kernel, r),
                    "after numeric " + to_string(kernel) + " " + name_of(triangle, diagonal));
}

TEST_CASE("subdomain trsv: vectors of the wrong length throw DimensionMismatch", "[trsv]") {
  const Problem problem = random_problem(20, 2, 3, Labels::Irregular, 41u);
  const SubdomainIlu0 ilu = factorize(problem, IluForm::Ildu0);
  const SubdomainTrsv trsv(ExecSpace(), ilu);
  const Offset n = problem.dropped.num_rows();
  const Vector right("right", n), short_one("short", n - 1), long_one("long", n + 2);
  Vector out("out", n);
  for (const Vector& wrong : {short_one, long_one}) {
    CHECK_THROWS_AS(trsv.solve(ExecSpace(), Triangle::Lower, Diagonal::Unit,
                               TriangularKernel::DagVcLds, wrong, out),
                    DimensionMismatch);
    CHECK_THROWS_AS(trsv.solve(ExecSpace(), Triangle::Upper, Diagonal::Pivots,
                               TriangularKernel::SpinLoopLds, right, wrong),
                    DimensionMismatch);
    for (const ApplyKernel kernel : apply_kernels) {
      CHECK_THROWS_AS(trsv.apply(ExecSpace(), kernel, wrong, out), DimensionMismatch);
      CHECK_THROWS_AS(trsv.apply(ExecSpace(), kernel, right, wrong), DimensionMismatch);
    }
    for (const ApplyKernel kernel : apply_kernels) {
      CHECK_THROWS_AS(trsv.apply_transpose(ExecSpace(), kernel, wrong, out), DimensionMismatch);
      CHECK_THROWS_AS(trsv.apply_transpose(ExecSpace(), kernel, right, wrong), DimensionMismatch);
    }
  }
}

TEST_CASE("reference trsv: products and solves agree with dense L, D, U", "[trsv]") {
  const Problem problem = random_problem(14, 3, 3, Labels::Irregular, 51u);
  for (const IluForm form : {IluForm::Ildu0, IluForm::Ilu0}) {
    INFO(name_of(form));
    const SubdomainIlu0 ilu = factorize(problem, form);
    const auto h = reference::host_factors(ilu);
    const reference::DenseMatrix F = reference::to_dense(ilu.factors());
    const std::size_t n = F.n, b = h.F.b;
    // Every scalar entry goes to L, D or U by the block it lies in.
    const reference::DenseMatrix zero{n, std::vector<double>(n * n, 0.0)};
    reference::DenseMatrix L = zero, D = zero, U = zero, I = zero;
    for (std::size_t p = 0; p < n; ++p) {
      I(p, p) = 1;
      for (std::size_t q = 0; q < n; ++q)
        (q / b < p / b ? L : q / b > p / b ? U : D)(p, q) = F(p, q);
    }
    const auto plus = [](reference::DenseMatrix A, const reference::DenseMatrix& B) {
      for (std::size_t e = 0; e < A.a.size(); ++e) A.a[e] += B.a[e];
      return A;
    };
    const auto transpose = [](const reference::DenseMatrix& A) {
      reference::DenseMatrix T = A;
      for (std::size_t p = 0; p < A.n; ++p)
        for (std::size_t q = 0; q < A.n; ++q) T(p, q) = A(q, p);
      return T;
    };
    const auto close = [](const std::vector<double>& got, const std::vector<double>& expected) {
      // Entries are O(1)..O(10) and rows hold a few dozen terms: 1e-12 is hundreds of roundings.
      REQUIRE(got.size() == expected.size());
      for (std::size_t i = 0; i < got.size(); ++i) {
        CAPTURE(i);
        CHECK(got[i] == FGDD_CATCH_APPROX(expected[i]).margin(1e-12));
      }
    };
    const auto dense_triangle = [&](Triangle triangle, Diagonal diagonal) {
      return plus(triangle == Triangle::Lower ? L : U, diagonal == Diagonal::Pivots ? D : I);
    };
    // M = L·D·U (Ildu0, U unit upper) or L·U (Ilu0, U with D on its diagonal), column by column.
    const auto dense_M_times = [&](const std::vector<double>& z, bool transposed) {
      const auto Lu = plus(L, I);
      const auto Uf = form == IluForm::Ilu0 ? plus(U, D) : plus(U, I);
      if (transposed) {
        const auto y = reference::multiply(transpose(Lu), z);
        return reference::multiply(
            transpose(Uf), form == IluForm::Ilu0 ? y : reference::multiply(transpose(D), y));
      }
      const auto y = reference::multiply(Uf, z);
      return reference::multiply(Lu, form == IluForm::Ilu0 ? y : reference::multiply(D, y));
    };
    const auto r = reference::random_vector(n, 52u);
    for (const bool transposed : {false, true}) {
      INFO((transposed ? "transposed" : "not transposed"));
      for (const Triangle triangle : triangles)
        for (const Diagonal diagonal : diagonals) {
          INFO(name_of(triangle, diagonal));
          const auto T = transposed ? transpose(dense_triangle(triangle, diagonal))
                                    : dense_triangle(triangle, diagonal);
          close(reference::triangular_product(h, triangle, diagonal, r, transposed).product,
                reference::multiply(T, r));
          const auto x = reference::triangular_solve(h, triangle, diagonal, r, transposed);
          close(reference::multiply(T, x), r);
          // The majorant solve bounds |T⁻¹| |r|, built here column by column.
          std::vector<double> columns(n, 0.0), unit(n, 0.0);
          for (std::size_t j = 0; j < n; ++j) {
            unit.assign(n, 0.0);
            unit[j] = 1;
            const auto column =
                reference::triangular_solve(h, triangle, diagonal, unit, transposed);
            for (std::size_t i = 0; i < n; ++i) columns[i] += std::abs(column[i]) * std::abs(r[j]);
          }
          std::vector<double> abs_r(n);
          for (std::size_t i = 0; i < n; ++i) abs_r[i] = std::abs(r[i]);
          const auto majorant =
              reference::triangular_solve(h, triangle, diagonal, abs_r, transposed, true);
          for (std::size_t i = 0; i < n; ++i) CHECK(majorant[i] >= columns[i] * (1 - 1e-12));
        }
      close(reference::preconditioner_product(h, r, transposed).product,
            dense_M_times(r, transposed));
      close(dense_M_times(reference::preconditioner_solve(h, r, transposed), transposed), r);
    }
  }
}

namespace {

// The factors as the float apply sees them: strictly triangular blocks and D⁻¹ rounded to float,
// D the inverse of the rounded D⁻¹ (the reference products use D, the solves D⁻¹). The float
// apply is the double apply of these factors (it widens every value before multiplying), so it
// is checked against them with the double tolerances, which are far below float's rounding.
reference::HostFactors rounded_to_float(reference::HostFactors h) {
  const int b = h.F.b, bb = b * b;
  for (double& v : h.inv_diag) v = double(float(v));
  for (Ordinal i = 0; i < h.F.num_block_rows(); ++i)
    for (Offset k = h.F.row_map[i]; k < h.F.row_map[i + 1]; ++k) {
      double* block = &h.F.values[k * bb];
      if (h.F.col_ind[k] != i) {
        for (int e = 0; e < bb; ++e) block[e] = double(float(block[e]));
        continue;
      }
      const auto d = reference::block_inverse(&h.inv_diag[Offset(i) * bb], b);
      std::copy(d.begin(), d.end(), block);
    }
  return h;
}

}  // namespace

TEST_CASE("subdomain trsv: with float factors every apply kernel applies the rounded factors",
          "[trsv][float]") {
  for (const Problem& problem : problems()) {
    INFO(problem.name);
    for (const IluForm form : {IluForm::Ildu0, IluForm::Ilu0}) {
      const SubdomainIlu0 ilu = factorize(problem, form);
      const SubdomainTrsv single(ExecSpace(), ilu, 0, FactorPrecision::Float);
      CHECK(single.precision() == FactorPrecision::Float);
      const auto h = rounded_to_float(reference::host_factors(ilu));
      const auto r_host = reference::random_vector(problem.dropped.num_rows(), 9u);
      const Vector r = reference::to_device(r_host);
      for (const ApplyKernel kernel : apply_kernels) {
        const std::string what = name_of(form) + " float " + to_string(kernel);
        check_apply(h, r_host, run_apply(single, kernel, r), false, what);
        check_apply(h, r_host, run_apply_transpose(single, kernel, r), true, what + " transpose");
      }
      // Triangular solves read double factors only.
      CHECK_THROWS_AS(
          run_solve(single, Triangle::Lower, Diagonal::Unit, TriangularKernel::DagVcLds, r),
          InvalidInput);
    }
  }
}

TEST_CASE("subdomain trsv: float factors follow numeric()", "[trsv][float]") {
  const HostMatrixArrays arrays = reference::random_matrix(48, 2, 4, 33u);
  std::vector<Ordinal> labels(48);
  for (Ordinal i = 0; i < 48; ++i) labels[i] = Ordinal((Offset(i) * i + 3 * i) % 5);
  const Partition partition = partition_of(labels, 5);
  ReorderedSystem system = reorder_and_drop(ExecSpace(), make_matrix(arrays), partition);
  SubdomainIlu0 ilu(ExecSpace(), system.dropped, partition, FactorOptions{});
  const SubdomainTrsv single(ExecSpace(), ilu, 0, FactorPrecision::Float);
  const auto r_host = reference::random_vector(system.dropped.num_rows(), 4u);
  const Vector r = reference::to_device(r_host);
  for (const ApplyKernel kernel : apply_kernels) run_apply(single, kernel, r);  // first values

  update_values(ExecSpace(), make_matrix(rescaled(arrays)), system);
  ilu.numeric(ExecSpace(), system.dropped);
  const auto h = rounded_to_float(reference::host_factors(ilu));
  for (const ApplyKernel kernel : apply_kernels)
    check_apply(h, r_host, run_apply(single, kernel, r), false,
                "after numeric " + to_string(kernel));
}

TEST_CASE("subdomain trsv: float factors beyond float's range throw ZeroPivot naming the row",
          "[trsv][float]") {
  // A diagonal matrix, rows reversed into two subdomains, so the factor row differs from the
  // caller's; row 5's pivot makes D⁻¹ overflow float (1e39) or underflow it (1e-39).
  for (const double pivot : {1e-39, 1e39}) {
    const Ordinal n = 8;
    HostMatrixArrays m;
    m.num_block_rows = m.num_block_cols = n;
    m.block_size = 1;
    for (Ordinal i = 0; i <= n; ++i) m.row_map.push_back(i);
    for (Ordinal i = 0; i < n; ++i) m.col_ind.push_back(i);
    for (Ordinal i = 0; i < n; ++i) m.values.push_back(i == 5 ? pivot : 2.0);
    std::vector<Ordinal> labels(n);
    for (Ordinal i = 0; i < n; ++i) labels[i] = i < 4 ? 1 : 0;
    const Partition partition = partition_of(labels, 2);
    const Problem problem{
        "diagonal", reorder_and_drop(ExecSpace(), make_matrix(m), partition).dropped, partition, 0};
    INFO("pivot " << pivot);
    const SubdomainIlu0 ilu = factorize(problem, IluForm::Ildu0);
    const SubdomainTrsv single(ExecSpace(), ilu, 0, FactorPrecision::Float);
    for (const ApplyKernel kernel :
         {ApplyKernel::Auto, ApplyKernel::DagVcIlduFused, ApplyKernel::RowOrderFused}) {
      INFO(to_string(kernel));
      try {
        single.prepare(ExecSpace(), kernel);
        FAIL("no ZeroPivot");
      } catch (const ZeroPivot& error) {
        CHECK(error.row() == 5);
        CHECK(error.value() == Approx(1.0 / pivot));
        CHECK(std::string(error.what()).find("factor_precision") != std::string::npos);
      }
    }
    const SubdomainTrsv twice(ExecSpace(), ilu);  // double holds it
    CHECK_NOTHROW(twice.prepare(ExecSpace(), ApplyKernel::Auto));
  }
}

TEST_CASE("subdomain trsv: float factors name the first row beyond float's range, of L or of D⁻¹",
          "[trsv][float]") {
  // Pivots 2, but a_55 = 1e-30 and row 6 = (a_65, a_66) = (1e9, 1e9): L_65 = 1e39, beyond float's
  // 3.4e38, while every D⁻¹ fits; then also a pivot of 1e-39 (D⁻¹ = 1e39) in row 4 or 7. Rows 4..7 are the first subdomain, in order, so
  // the first offender in the factors' order is row 4's D⁻¹, else row 6's L, whichever check
  // (D⁻¹ alone, the triangles as the row-order apply rounds them) finds it.
  for (const Ordinal tiny_pivot_row : {-1, 4, 7}) {
    const Ordinal n = 8;
    HostMatrixArrays m;
    m.num_block_rows = m.num_block_cols = n;
    m.block_size = 1;
    m.row_map.push_back(0);
    for (Ordinal i = 0; i < n; ++i) {
      if (i == 6) {
        m.col_ind.push_back(5);
        m.values.push_back(1e9);
      }
      m.col_ind.push_back(i);
      m.values.push_back(i == tiny_pivot_row ? 1e-39 : i == 5 ? 1e-30 : i == 6 ? 1e9 : 2.0);
      m.row_map.push_back(Offset(m.col_ind.size()));
    }
    std::vector<Ordinal> labels(n);
    for (Ordinal i = 0; i < n; ++i) labels[i] = i < 4 ? 1 : 0;
    const Partition partition = partition_of(labels, 2);
    const Problem problem{"L beyond float",
                          reorder_and_drop(ExecSpace(), make_matrix(m), partition).dropped,
                          partition, 0};
    INFO("tiny pivot in row " << tiny_pivot_row);
    const SubdomainIlu0 ilu = factorize(problem, IluForm::Ildu0);
    const SubdomainTrsv single(ExecSpace(), ilu, 0, FactorPrecision::Float);
    const bool d_first = tiny_pivot_row == 4;
    for (const ApplyKernel kernel :
         {ApplyKernel::RowOrderFused, ApplyKernel::DagVcIlduFused, ApplyKernel::Auto}) {
      INFO(to_string(kernel));
      for (int attempt = 0; attempt < 2; ++attempt) {  // refused again, not cached
        try {
          single.prepare(ExecSpace(), kernel);
          FAIL("no ZeroPivot");
        } catch (const ZeroPivot& error) {
          CHECK(error.row() == (d_first ? 4 : 6));
          CHECK(error.value() == Approx(1e39));
        }
      }
    }
    const SubdomainTrsv twice(ExecSpace(), ilu);
    CHECK_NOTHROW(twice.prepare(ExecSpace(), ApplyKernel::RowOrderFused));
  }
}

namespace {

// 10³-row subdomains of a 7- or 27-point grid in natural chunks (7-point: 28 levels of about
// 96 entries each; 27-point: levels of more than 128 entries, two passes of a team of 128).
Problem grid_chunks(int stencil_points, Ordinal subdomains) {
  return generated_problem(
      "gen:lap" + std::to_string(stencil_points) + ":10:10:" + std::to_string(10 * subdomains),
      Partitioner::Natural, 1000);
}
Problem lap7_chunks(Ordinal subdomains) { return grid_chunks(7, subdomains); }

// The rule's launch (chosen) against the plain build at the same explicit team size: the same
// bits, and the same bits ten times over.
void check_rule_launch_bits(const Problem& problem, const SubdomainTrsv& chosen,
                            const SubdomainTrsv& plain, unsigned seed) {
  const Vector r = reference::to_device(reference::random_vector(problem.dropped.num_rows(), seed));
  const auto chosen_z = run_apply(chosen, ApplyKernel::DagEcOrderedIlduFused, r);
  CHECK(chosen_z == run_apply(plain, ApplyKernel::DagEcOrderedIlduFused, r));
  for (int run = 0; run < 9; ++run)
    CHECK(run_apply(chosen, ApplyKernel::DagEcOrderedIlduFused, r) == chosen_z);
  for (const Triangle triangle : triangles)
    CHECK(run_solve(chosen, triangle, Diagonal::Pivots, TriangularKernel::DagEcOrderedLds, r) ==
          run_solve(plain, triangle, Diagonal::Pivots, TriangularKernel::DagEcOrderedLds, r));
}

}  // namespace

TEST_CASE("subdomain trsv: the ordered kernel with capped registers gives the uncapped bits",
          "[trsv][reproducible]") {
  // detail::level_launch caps the ordered kernel's registers where 6 to 7 teams of 128 an SM
  // are wanted (the SPE10-size reservoir on an H100 or H200). Between those bounds: lap7_chunks.
  if (host_memory || detail::simd_width() != 32) {
    SUCCEED("the cap is measured and compiled for NVIDIA GPUs only");
    return;
  }
  const Problem problem = lap7_chunks(Ordinal(13 * ExecSpace().concurrency() / 4096));
  INFO(problem.name);
  const SubdomainIlu0 ilu = factorize(problem, IluForm::Ildu0);
  const SubdomainTrsv chosen(ExecSpace(), ilu);
  const detail::LevelLaunch launch = detail::level_launch(chosen.mean_level_entries(ExecSpace()),
                                                          problem.partition.num_subdomains, true);
  REQUIRE(launch.threads == 128);
  REQUIRE(launch.capped_registers);
  const SubdomainTrsv uncapped(ExecSpace(), ilu, 128);  // the same team size, uncapped
  check_rule_launch_bits(problem, chosen, uncapped, 9u);
}

TEST_CASE("subdomain trsv: the ordered kernel loading two entries ahead gives the one-entry bits",
          "[trsv][reproducible]") {
  // The rule's uncapped teams of 64 or 128 on NVIDIA GPUs run the build that holds two entries
  // of the next level a thread; an explicit team size runs the one-entry build. Teams of 64:
  // lap7 chunks (levels of about 96 entries: two passes of 64), more of them than 7 teams of
  // 128 an SM hold. Teams of 128: lap27 chunks (levels of more than 128 entries), few enough
  // for 6 teams of 128 an SM.
  if (host_memory || detail::simd_width() != 32) {
    SUCCEED("the two-entry build is measured and compiled for NVIDIA GPUs only");
    return;
  }
  const auto check = [](int threads, const Problem& problem, unsigned seed) {
    INFO(problem.name);
    const SubdomainIlu0 ilu = factorize(problem, IluForm::Ildu0);
    const SubdomainTrsv chosen(ExecSpace(), ilu);
    const double mean_entries = chosen.mean_level_entries(ExecSpace());
    const detail::LevelLaunch launch =
        detail::level_launch(mean_entries, problem.partition.num_subdomains, true);
    REQUIRE(launch.threads == threads);
    REQUIRE_FALSE(launch.capped_registers);
    REQUIRE(mean_entries > threads);  // a second pass of the team in a mean level
    const SubdomainTrsv one_entry(ExecSpace(), ilu, threads);  // the same size, one entry ahead
    check_rule_launch_bits(problem, chosen, one_entry, seed);
  };
  SECTION("teams of 64") { check(64, lap7_chunks(Ordinal(ExecSpace().concurrency() / 256)), 11u); }
  SECTION("teams of 128") {
    check(128, grid_chunks(27, Ordinal(ExecSpace().concurrency() / 4096)), 13u);
  }
}
