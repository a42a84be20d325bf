// natural_chunk_coupling against a serial sum, and auto's choice of the caller's order on a few
// CPU threads when its chunks barely couple.
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

// The definition, summed row by row on the host from the matrix as stored (duplicates merged).
double serial_chunk_coupling(const SparseMatrix& A, Ordinal parts) {
  const auto row_map = reference::host_vector(A.row_map());
  const auto cols = reference::host_vector(A.col_ind());
  const auto values = reference::host_vector(A.values());
  const Ordinal n = A.num_block_rows();
  const std::size_t bb = std::size_t(A.block_size()) * A.block_size();
  const auto chunk = [&](Ordinal row) { return std::int64_t(row) * parts / n; };
  double between = 0, all = 0;
  for (Ordinal i = 0; i < n; ++i)
    for (Offset k = row_map[i]; k < row_map[i + 1]; ++k)
      for (std::size_t e = 0; e < bb; ++e) {
        const double w = std::fabs(values[k * bb + e]);
        all += w;
        if (chunk(cols[k]) != chunk(i)) between += w;
      }
  return all > 0 ? between / all : 0;
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

// B = P A Pᵀ for a random permutation P (a scalar matrix).
HostMatrixArrays scrambled(const HostMatrixArrays& a, unsigned seed) {
  const Ordinal n = a.num_block_rows;
  std::vector<Ordinal> new_of(n);
  std::iota(new_of.begin(), new_of.end(), 0);
  std::shuffle(new_of.begin(), new_of.end(), std::mt19937(seed));
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

constexpr bool gpu = !Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemSpace>::accessible;

}  // namespace

TEST_CASE("natural_chunk_coupling: the share of sum |a_ij| between chunks of the natural order",
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
      const double expected = serial_chunk_coupling(A, parts);
      const double got = detail::natural_chunk_coupling(ExecSpace(), A, parts);
      if (parts <= 1) {
        CHECK(got == 0);
        continue;
      }
      if (c.n > 1) CHECK(expected > 0);  // random columns cross the boundaries somewhere
      // Sums of non-negative terms in another order: a few units of rounding each.
      CHECK(got == FGDD_CATCH_APPROX(expected).epsilon(1e-13));
    }
  }
  // Exactly: no coupling, all zeros, no rows.
  CHECK(detail::natural_chunk_coupling(ExecSpace(), make_matrix(two_chains(5, 0.0)), 2) == 0);
  HostMatrixArrays zeros = two_chains(4, 1.0);
  std::fill(zeros.values.begin(), zeros.values.end(), 0.0);
  CHECK(detail::natural_chunk_coupling(ExecSpace(), make_matrix(zeros), 2) == 0);
  CHECK(detail::natural_chunk_coupling(ExecSpace(), make_matrix(two_chains(6, 0.5)), 2) ==
        FGDD_CATCH_APPROX(1.0 / (8 * 6 - 4 + 1.0)).epsilon(1e-14));
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
    REQUIRE(detail::natural_chunk_coupling(ExecSpace(), A, 2) ==
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
      CHECK_THAT(report.reason, FGDD_CONTAINS("0.05 % of sum |a_ij| (under 0.1 %)"));
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
  if (!gpu) {
    const SparseMatrix B = make_matrix(scrambled(two_chains(half, 1e-9), 7));
    CHECK(detail::natural_chunk_coupling(ExecSpace(), B, 2) > 0.1);
    CHECK(partition_matrix(ExecSpace(), B, GridInfo{}, two).report.partitioner == Partitioner::Rcm);
  }
}
