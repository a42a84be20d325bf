// The block graph of A (partition/symmetric_graph.hpp) against a host union of A's pattern and
// its transpose: structurally symmetric patterns, which take the no-copy path, and patterns
// whose mirrors are missing, including ones with as many lower as upper blocks.
#include <set>
#include <utility>
#include <vector>

#include "catch_compat.hpp"
#include "core/matrix_build.hpp"
#include "partition/symmetric_graph.hpp"
#include "reference/dense.hpp"
#include "reference/random_matrix.hpp"

using namespace fgdd;

namespace {

void check_graph(const HostMatrixArrays& a) {
  const detail::SymmetricGraph graph = detail::symmetric_graph(ExecSpace(), make_matrix(a));
  const auto row_map = reference::host_vector(graph.row_map);
  const auto adjacency = reference::host_vector(graph.adjacency);
  const auto expected = reference::union_with_transpose(a);
  REQUIRE(graph.num_vertices == a.num_block_rows);
  REQUIRE(row_map.size() == expected.size() + 1);
  for (std::size_t i = 0; i < expected.size(); ++i) {
    CAPTURE(i);
    std::set<Ordinal> neighbours = expected[i];
    neighbours.erase(Ordinal(i));
    const std::vector<Ordinal> row(adjacency.begin() + row_map[i],
                                   adjacency.begin() + row_map[i + 1]);
    REQUIRE(row == std::vector<Ordinal>(neighbours.begin(), neighbours.end()));
  }
  // The no-copy path is taken exactly when A's pattern is its own transpose's; host backends
  // merge in pieces of rows (one per thread), so every piece count gives the same verdict.
  bool symmetric = true;
  for (std::size_t i = 0; i < expected.size(); ++i)
    symmetric = symmetric && expected[i] == std::set<Ordinal>(a.col_ind.begin() + a.row_map[i],
                                                               a.col_ind.begin() + a.row_map[i + 1]);
  CHECK(graph.rows_of_matrix == symmetric);
  for (const int chunks : {1, 2, 3, 7}) {
    CAPTURE(chunks);
    CHECK(detail::structurally_symmetric(ExecSpace(), make_matrix(a), chunks) == symmetric);
  }
}

// n × n CSR with the diagonal and the given off-diagonal entries.
HostMatrixArrays pattern(Ordinal n, const std::vector<std::pair<Ordinal, Ordinal>>& entries) {
  std::vector<std::set<Ordinal>> rows(static_cast<std::size_t>(n));
  for (Ordinal i = 0; i < n; ++i) rows[i].insert(i);
  for (const auto& [i, j] : entries) rows[i].insert(j);
  return reference::from_rows(rows, 1);
}

}  // namespace

TEST_CASE("symmetric_graph is the union of A's pattern and its transpose", "[partition][graph]") {
  SECTION("random patterns, CSR and BSR, as generated (mirrors missing) and mirrored") {
    for (const int b : {1, 3})
      for (const Ordinal n : {Ordinal(1), Ordinal(2), Ordinal(17), Ordinal(300)})
        for (const unsigned seed : {1u, 2u}) {
          CAPTURE(b, n, seed);
          const HostMatrixArrays a = reference::random_matrix(n, b, 4, seed);
          check_graph(a);
          check_graph(reference::from_rows(reference::union_with_transpose(a), b));
        }
  }
  SECTION("as many lower as upper blocks, but one upper block's mirror is another block") {
    // (0, 1) and (2, 0): one upper and one lower block, neither mirrored.
    check_graph(pattern(3, {{0, 1}, {2, 0}}));
    // (0, 2), (2, 0) mirrored; (1, 3) upper and (3, 0) lower are not.
    check_graph(pattern(4, {{0, 2}, {2, 0}, {1, 3}, {3, 0}}));
  }
  SECTION("diagonal only, and one mirrored pair") {
    check_graph(pattern(5, {}));
    check_graph(pattern(2, {{0, 1}, {1, 0}}));
  }
  SECTION("mirrors that cross the merge's pieces, one missing or misplaced at either end") {
    const std::vector<std::pair<Ordinal, Ordinal>> band = {
        {0, 6}, {6, 0}, {1, 2}, {2, 1}, {2, 5}, {5, 2}, {3, 4}, {4, 3}, {0, 3}, {3, 0}};
    check_graph(pattern(7, band));
    for (std::size_t drop = 0; drop < band.size(); ++drop) {
      CAPTURE(drop);
      auto one_less = band;
      one_less.erase(one_less.begin() + std::ptrdiff_t(drop));
      check_graph(pattern(7, one_less));
      // The missing block's mirror moved to another row of the same column.
      auto moved = one_less;
      const auto [i, j] = band[drop];
      moved.emplace_back((i + 1) % 7 == j ? (i + 2) % 7 : (i + 1) % 7, j);
      check_graph(pattern(7, moved));
    }
  }
}
