// natural_chunks against serial sums, and auto's choice of the caller's order on a few CPU
// threads when its chunks barely couple and its rows stay close.
#include "catch_compat.hpp"
#include "partition/chunk_coupling.hpp"
#include "partition/partition_matrix.hpp"
#include "reference/dense.hpp"
#include "reference/random_matrix.hpp"

#include <cmath>
#include <numeric>
#include <random>

using namespace fgdd;

namespace {

// The definitions, summed row by row on the host from the matrix as stored (duplicates merged).
detail::NaturalChunks serial_natural_chunks(const SparseMatrix& A, Ordinal parts) {
  const auto row_map = reference::host_vector(A.row_map());
  const auto cols = reference::host_vector(A.col_ind());
  const auto values = reference::host_vector(A.values());
  const Ordinal n = A.num_block_rows();
  const std::size_t bb = std::size_t(A.block_size()) * A.block_size();
  const auto chunk = [&](Ordinal row) { return std::int64_t(row) * parts / n; };
  double between = 0, all = 0, spans = 0;
  for (Ordinal i = 0; i < n; ++i) {
    if (row_map[i + 1] > row_map[i]) spans += cols[row_map[i + 1] - 1] - cols[row_map[i]];
    for (Offset k = row_map[i]; k < row_map[i + 1]; ++k)
      for (std::size_t e = 0; e < bb; ++e) {
        const double w = std::fabs(values[k * bb + e]);
        all += w;
        if (chunk(cols[k]) != chunk(i)) between += w;
      }
  }
  return {all > 0 ? between / all : 0, spans / n / (double(n) / parts)};
}

// Two tridiagonal (2, -1) blocks of `half` rows each, joined by `coupling` between rows half - 1
// and half: its chunks of two drop 2·coupling of Σ|a| = 8·half - 4 + 2·coupling.
HostMatrixArrays two_chains(Ordinal half, double coupling) {
  HostMatrixArrays m;
  const Ordinal n = 2 * half;
  m.num_block_rows = m.num_block_cols = n;
  m.row_map.push_back(0);
  for (Ordinal i = 0; i < n; ++i) {
    for (Ordinal j = std::max<Ordinal>(i - 1, 0); j <= std::min<Ordinal>(i + 1, n - 1); ++j) {
      m.col_ind.push_back(j);
      const bool across = (i == half - 1 && j == half) || (i == half && j == half - 1);
      m.values.push_back(i == j ? 2.0 : across ? -coupling : -1.0);
    }
    m.row_map.push_back(Offset(m.col_ind.size()));
  }
  return m;
}

// B = P A Pᵀ, row i of A becoming row new_of[i] of B (a scalar matrix).
HostMatrixArrays renumbered(const HostMatrixArrays& a, const std::vector<Ordinal>& new_of) {
  const Ordinal n = a.num_block_rows;
  std::vector<Ordinal> old_of(n);
  for (Ordinal i = 0; i < n; ++i) old_of[new_of[i]] = i;
  HostMatrixArrays b = a;
  b.row_map = {0};
  b.col_ind.clear();
  b.values.clear();
  for (Ordinal r = 0; r < n; ++r) {
    const Ordinal old = old_of[r];
    for (Offset k = a.row_map[old]; k < a.row_map[old + 1]; ++k) {
      b.col_ind.push_back(new_of[a.col_ind[k]]);
      b.values.push_back(a.values[k]);
    }
    b.row_map.push_back(Offset(b.col_ind.size()));
  }
  return b;  // make_matrix sorts the rows
}

// A random numbering of [first, last), the identity elsewhere.
std::vector<Ordinal> shuffled(Ordinal n, Ordinal first, Ordinal last, unsigned seed) {
  std::vector<Ordinal> new_of(n);
  std::iota(new_of.begin(), new_of.end(), 0);
  std::shuffle(new_of.begin() + first, new_of.begin() + last, std::mt19937(seed));
  return new_of;
}

constexpr bool gpu = !Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemSpace>::accessible;
constexpr double local_span_limit = 0.25;  // partition_matrix.cpp's local_row_span

}  // namespace

TEST_CASE(
    "natural_chunks: the share of sum |a_ij| between chunks of the natural order and the "
    "rows' mean span",
    "[partition]") {
  struct Case {
    Ordinal n;
    int b;
    unsigned seed;
  };
  for (const Case c : {Case{1, 1, 1}, Case{2, 1, 2}, Case{37, 1, 3}, Case{101, 1, 4},
                       Case{23, 3, 5}, Case{17, 2, 6}}) {
    // Not dominant: signs of every kind, so an absolute value left out would show.
    const SparseMatrix A = make_matrix(reference::random_matrix(c.n, c.b, 4, c.seed, false));
    for (const Ordinal parts : {Ordinal(1), Ordinal(2), Ordinal(3), Ordinal(5), c.n}) {
      CAPTURE(c.n, c.b, parts);
      const detail::NaturalChunks expected = serial_natural_chunks(A, parts);
      const detail::NaturalChunks got = detail::natural_chunks(ExecSpace(), A, parts);
      if (parts <= 1) {
        CHECK(got.coupling == 0);
        CHECK(got.row_span == 0);
        continue;
      }
      if (c.n > 1) CHECK(expected.coupling > 0);  // random columns cross the boundaries somewhere
      // Sums of non-negative terms in another order: a few units of rounding each. The spans
      // are integers, summed exactly.
      CHECK(got.coupling == FGDD_CATCH_APPROX(expected.coupling).epsilon(1e-13));
      CHECK(got.row_span == FGDD_CATCH_APPROX(expected.row_span).epsilon(1e-15));
    }
  }
  // Exactly: no coupling, all zeros, no rows.
  CHECK(detail::natural_chunks(ExecSpace(), make_matrix(two_chains(5, 0.0)), 2).coupling == 0);
  HostMatrixArrays zeros = two_chains(4, 1.0);
  std::fill(zeros.values.begin(), zeros.values.end(), 0.0);
  CHECK(detail::natural_chunks(ExecSpace(), make_matrix(zeros), 2).coupling == 0);
  const detail::NaturalChunks chains =
      detail::natural_chunks(ExecSpace(), make_matrix(two_chains(6, 0.5)), 2);
  CHECK(chains.coupling == FGDD_CATCH_APPROX(1.0 / (8 * 6 - 4 + 1.0)).epsilon(1e-14));
  CHECK(chains.row_span == FGDD_CATCH_APPROX((12 * 2 - 2) / 12.0 / 6.0).epsilon(1e-15));
}

TEST_CASE(
    "partition_matrix: auto keeps the caller's order on a few CPU threads when its chunks "
    "barely couple",
    "[partition]") {
  const Ordinal half = 40;
  PartitionOptions two;
  two.subdomain_rows = half;  // two subdomains
  // Couplings that make the halves drop 0.05 % and 0.2 % of Σ|a| (under and over 0.1 %).
  const double total_without = 8.0 * half - 4;
  const auto coupling_for = [&](double share) { return share * total_without / (2 * (1 - share)); };
  for (const double share : {0.0005, 0.002}) {
    CAPTURE(share);
    const SparseMatrix A = make_matrix(two_chains(half, coupling_for(share)));
    REQUIRE(detail::natural_chunks(ExecSpace(), A, 2).coupling ==
            FGDD_CATCH_APPROX(share).epsilon(1e-12));
    const PartitionedMatrix result = partition_matrix(ExecSpace(), A, GridInfo{}, two);
    const PartitionReport& report = result.report;
    if (gpu) {  // many subdomains there: the rule is for CPU threads' RCM slabs
      CHECK(report.partitioner != Partitioner::Natural);
      continue;
    }
    CHECK(report.num_subdomains == 2);
    if (share < 0.001) {
      CHECK(report.partitioner == Partitioner::Natural);
      CHECK_THAT(report.reason, FGDD_CONTAINS("0.05 % of sum |a_ij| (under 0.1 %) with rows "
                                              "spanning 4.9 % of a chunk"));
      const auto perm = reference::host_vector(result.partition.perm);
      for (Ordinal i = 0; i < 2 * half; ++i) CHECK(perm[i] == i);  // the caller's order
      CHECK(report.entries - report.entries_after_drop == 2);
    } else {
      CHECK(report.partitioner == Partitioner::Rcm);
      CHECK_THAT(report.reason, FGDD_CONTAINS("RCM slabs"));
    }
    // Asked for, RCM stays RCM however little the chunks couple.
    PartitionOptions rcm = two;
    rcm.partitioner = Partitioner::Rcm;
    CHECK(partition_matrix(ExecSpace(), A, GridInfo{}, rcm).report.partitioner == Partitioner::Rcm);
  }
  // The same chains numbered at random: the caller's halves now cut most rows' couplings.
  // Numbered at random inside each half instead: nothing between the halves, but rows that
  // reach across their whole half, an order worth replacing.
  if (!gpu) {
    const SparseMatrix mixed =
        make_matrix(renumbered(two_chains(half, 1e-9), shuffled(2 * half, 0, 2 * half, 7)));
    CHECK(detail::natural_chunks(ExecSpace(), mixed, 2).coupling > 0.1);
    CHECK(partition_matrix(ExecSpace(), mixed, GridInfo{}, two).report.partitioner ==
          Partitioner::Rcm);
    std::vector<Ordinal> halves = shuffled(2 * half, 0, half, 8);
    const std::vector<Ordinal> second = shuffled(2 * half, half, 2 * half, 9);
    std::copy(second.begin() + half, second.end(), halves.begin() + half);
    const SparseMatrix inside = make_matrix(renumbered(two_chains(half, 0.0), halves));
    const detail::NaturalChunks chunks = detail::natural_chunks(ExecSpace(), inside, 2);
    CHECK(chunks.coupling == 0);
    CHECK(chunks.row_span > local_span_limit);
    const PartitionReport report = partition_matrix(ExecSpace(), inside, GridInfo{}, two).report;
    CHECK(report.partitioner == Partitioner::Rcm);
    CHECK_THAT(report.reason, FGDD_CONTAINS("RCM slabs"));
  }
}
