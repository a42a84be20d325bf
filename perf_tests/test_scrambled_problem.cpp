// The scrambled row orders of the setup benchmark: a reproducible permutation, and P A Pᵀ, P b
// holding A's entries at the permuted places (whole blocks for BSR).
#include "catch_compat.hpp"

#include "scrambled_problem.hpp"

#include "core/errors.hpp"
#include "core/generators.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

using namespace fgdd;

namespace {

// (scalar row, scalar column) -> value of A.
std::map<std::pair<Offset, Offset>, Scalar> entries_of(const SparseMatrix& A) {
  const auto row_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.row_map());
  const auto col_ind = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.col_ind());
  const auto values = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.values());
  const Offset b = A.block_size();
  std::map<std::pair<Offset, Offset>, Scalar> entries;
  for (Ordinal i = 0; i < A.num_block_rows(); ++i)
    for (Offset k = row_map(i); k < row_map(i + 1); ++k)
      for (Offset r = 0; r < b; ++r)
        for (Offset c = 0; c < b; ++c)
          entries[{i * b + r, col_ind(k) * b + c}] = values(k * b * b + r * b + c);
  return entries;
}

}  // namespace

TEST_CASE("random_permutation is a permutation fixed by its seed", "[bench][scramble]") {
  const std::vector<Ordinal> p = bench::random_permutation(1000, 42);
  std::vector<Ordinal> sorted = p;
  std::sort(sorted.begin(), sorted.end());
  for (Ordinal i = 0; i < 1000; ++i) REQUIRE(sorted[i] == i);
  CHECK(bench::random_permutation(1000, 42) == p);
  CHECK(bench::random_permutation(1000, 43) != p);
  // Pinned (computed independently in Python from splitmix64 + Fisher-Yates): the files a seed
  // gives must not change between platforms or versions.
  CHECK(bench::random_permutation(8, 7) == std::vector<Ordinal>{1, 4, 5, 2, 6, 0, 3, 7});
  // Far from the identity: few rows keep their place.
  Ordinal fixed = 0;
  for (Ordinal i = 0; i < 1000; ++i) fixed += p[i] == i;
  CHECK(fixed < 10);
}

TEST_CASE("scramble moves every entry to its permuted place", "[bench][scramble]") {
  const ExecSpace space;
  const auto [spec, seed] =
      GENERATE(std::make_pair("gen:convdiff:4", 3), std::make_pair("gen:bsr3:3", 5));
  const GeneratedProblem problem = generate_problem(spec);
  const SparseMatrix& A = problem.matrix;
  const std::vector<Ordinal> position = bench::random_permutation(A.num_block_rows(), seed);
  const Vector b("b", A.num_rows());
  auto host_b = Kokkos::create_mirror_view(b);
  for (Offset i = 0; i < A.num_rows(); ++i) host_b(i) = 1.0 + double(i);
  Kokkos::deep_copy(b, host_b);

  const bench::ScrambledSystem scrambled = bench::scramble(space, A, b, position);

  REQUIRE(scrambled.matrix.block_size() == A.block_size());
  REQUIRE(scrambled.matrix.num_entries() == A.num_entries());
  const Offset bs = A.block_size();
  const auto moved = [&](Offset scalar) { return position[scalar / bs] * bs + scalar % bs; };
  const auto original = entries_of(A);
  const auto permuted = entries_of(scrambled.matrix);
  for (const auto& [place, value] : original) {
    const auto found = permuted.find({moved(place.first), moved(place.second)});
    REQUIRE(found != permuted.end());
    CHECK(found->second == value);
  }
  const auto host_rhs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), scrambled.rhs);
  for (Offset i = 0; i < A.num_rows(); ++i) CHECK(host_rhs(moved(i)) == host_b(i));
}

TEST_CASE("scramble refuses what is not a permutation of the rows", "[bench][scramble]") {
  const ExecSpace space;
  const GeneratedProblem problem = generate_problem("gen:lap7:2");
  const Vector b("b", problem.matrix.num_rows());
  CHECK_THROWS_AS(bench::scramble(space, problem.matrix, b, {0, 1, 2}), InvalidInput);
  CHECK_THROWS_AS(bench::scramble(space, problem.matrix, b, {0, 1, 2, 3, 4, 5, 7, 7}),
                  InvalidInput);
}
