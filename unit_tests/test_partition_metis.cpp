// METIS k-way labels (partition/metis.hpp) and size balancing (partition/balance.hpp): every row
// labelled, no part empty or above the cap, deterministic, and a sane cut on a Laplacian.
#include <algorithm>
#include <cstdint>
#include <iostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "catch_compat.hpp"
#include "core/errors.hpp"
#include "core/generators.hpp"
#include "core/matrix_build.hpp"
#include "partition/balance.hpp"
#include "partition/metis.hpp"
#include "partition/multilevel.hpp"
#include "partition/symmetric_graph.hpp"
#include "reference/dense.hpp"
#include "reference/labeling_checks.hpp"
#include "reference/random_matrix.hpp"

using namespace fgdd;

namespace {

using reference::check_invariants;
using reference::disjoint_paths;
using reference::dropped_fraction;
using reference::graph_matrix;
using reference::part_sizes;

detail::Labeling make_labeling(Ordinal num_parts, const std::vector<Ordinal>& parts) {
  const Ordinal n = Ordinal(parts.size());
  detail::Labeling labeling;
  labeling.num_parts = num_parts;
  labeling.part_of_row = Kokkos::View<Ordinal*, DeviceType>("part_of_row", n);
  labeling.order_key = Kokkos::View<Ordinal*, DeviceType>("order_key", n);
  const auto host_parts = Kokkos::create_mirror_view(labeling.part_of_row);
  const auto host_keys = Kokkos::create_mirror_view(labeling.order_key);
  for (Ordinal i = 0; i < n; ++i) {
    host_parts(i) = parts[i];
    host_keys(i) = i;
  }
  Kokkos::deep_copy(labeling.part_of_row, host_parts);
  Kokkos::deep_copy(labeling.order_key, host_keys);
  return labeling;
}

}  // namespace

TEST_CASE("metis_num_parts aims at 95% of the cap", "[partition][metis]") {
  CHECK(detail::metis_num_parts(0, 10) == 0);
  CHECK(detail::metis_num_parts(1, 10) == 1);
  CHECK(detail::metis_num_parts(1000, 1) == 1000);
  CHECK(detail::metis_num_parts(1000, 100) == 11);       // target 95
  CHECK(detail::metis_num_parts(1000000, 4096) == 257);  // target 3892
  CHECK_THROWS_AS(detail::metis_num_parts(10, 0), InvalidInput);
}

TEST_CASE("balance_labeling splits one huge part into near-equal consecutive pieces",
          "[partition][metis]") {
  const SparseMatrix A = laplace7(10, 10, 10).matrix;
  const auto graph = detail::symmetric_graph(ExecSpace(), A);
  const auto balanced = detail::balance_labeling(
      ExecSpace(), graph, make_labeling(1, std::vector<Ordinal>(1000, 0)), 64);
  REQUIRE(balanced.num_parts == 16);
  const auto sizes = check_invariants(balanced, 1000, 64);
  for (const Ordinal size : sizes) CHECK((size == 62 || size == 63));
  // Pieces follow order_key (= row index here): labels never decrease along the rows.
  const auto parts = reference::host_vector(balanced.part_of_row);
  CHECK(std::is_sorted(parts.begin(), parts.end()));
  CHECK(parts.front() == 0);
  CHECK(parts.back() == 15);
}

TEST_CASE("balance_labeling merges a chain of single-row parts up to the cap",
          "[partition][metis]") {
  // A path of 100 rows, each its own part: merging from the lowest label builds runs of 40.
  std::vector<std::pair<Ordinal, Ordinal>> edges;
  for (Ordinal i = 1; i < 100; ++i) edges.emplace_back(i - 1, i);
  const auto graph = detail::symmetric_graph(ExecSpace(), graph_matrix(100, edges));
  std::vector<Ordinal> parts(100);
  for (Ordinal i = 0; i < 100; ++i) parts[i] = i;
  const auto balanced = detail::balance_labeling(ExecSpace(), graph, make_labeling(100, parts), 40);
  REQUIRE(balanced.num_parts == 3);
  const auto sizes = check_invariants(balanced, 100, 40);
  CHECK(sizes == std::vector<Ordinal>{40, 40, 20});
  const auto labels = reference::host_vector(balanced.part_of_row);
  CHECK(std::is_sorted(labels.begin(), labels.end()));
}

TEST_CASE("balance_labeling merges a tiny part into its most-connected neighbour that fits",
          "[partition][metis]") {
  // Rows 0..7: part 0, a path. Rows 8..17: part 1, a path. Rows 18, 19: tiny part 2, joined to
  // part 0 by one edge and to part 1 by two.
  std::vector<std::pair<Ordinal, Ordinal>> edges;
  for (Ordinal i = 1; i < 8; ++i) edges.emplace_back(i - 1, i);
  for (Ordinal i = 9; i < 18; ++i) edges.emplace_back(i - 1, i);
  edges.emplace_back(18, 19);
  edges.emplace_back(18, 0);
  edges.emplace_back(18, 8);
  edges.emplace_back(19, 9);
  const auto graph = detail::symmetric_graph(ExecSpace(), graph_matrix(20, edges));
  std::vector<Ordinal> parts(20, 0);
  for (Ordinal i = 8; i < 18; ++i) parts[i] = 1;
  parts[18] = parts[19] = 2;

  SECTION("the most-connected neighbour has room") {
    const auto balanced = detail::balance_labeling(ExecSpace(), graph, make_labeling(3, parts), 12);
    REQUIRE(balanced.num_parts == 2);
    CHECK(check_invariants(balanced, 20, 12) == std::vector<Ordinal>{8, 12});
    const auto labels = reference::host_vector(balanced.part_of_row);
    CHECK(labels[18] == labels[8]);
    CHECK(labels[19] == labels[8]);
    CHECK(labels[0] != labels[8]);
  }
  SECTION("the most-connected neighbour is full, the next one takes it") {
    const auto balanced = detail::balance_labeling(ExecSpace(), graph, make_labeling(3, parts), 11);
    REQUIRE(balanced.num_parts == 2);
    CHECK(check_invariants(balanced, 20, 11) == std::vector<Ordinal>{10, 10});
    const auto labels = reference::host_vector(balanced.part_of_row);
    CHECK(labels[18] == labels[0]);
    CHECK(labels[19] == labels[0]);
  }
  SECTION("both neighbours fit: the most-connected one still wins") {
    const auto balanced = detail::balance_labeling(ExecSpace(), graph, make_labeling(3, parts), 20);
    REQUIRE(balanced.num_parts == 2);
    CHECK(check_invariants(balanced, 20, 20) == std::vector<Ordinal>{8, 12});
  }
}

TEST_CASE("balance_labeling leaves a tiny part without room or neighbours alone",
          "[partition][metis]") {
  SECTION("its only neighbour is full") {
    std::vector<std::pair<Ordinal, Ordinal>> edges;
    for (Ordinal i = 1; i < 11; ++i) edges.emplace_back(i - 1, i);
    const auto graph = detail::symmetric_graph(ExecSpace(), graph_matrix(11, edges));
    std::vector<Ordinal> parts(11, 0);
    parts[10] = 1;
    const auto balanced = detail::balance_labeling(ExecSpace(), graph, make_labeling(2, parts), 10);
    REQUIRE(balanced.num_parts == 2);
    CHECK(check_invariants(balanced, 11, 10) == std::vector<Ordinal>{10, 1});
  }
  SECTION("no edges at all") {
    const auto graph = detail::symmetric_graph(ExecSpace(), disjoint_paths({1, 1, 1, 1, 1, 1}));
    const auto balanced =
        detail::balance_labeling(ExecSpace(), graph, make_labeling(3, {0, 0, 0, 1, 2, 2}), 12);
    REQUIRE(balanced.num_parts == 3);
    CHECK(check_invariants(balanced, 6, 12) == std::vector<Ordinal>{3, 1, 2});
  }
}

TEST_CASE("balance_labeling keeps an already balanced labeling and drops empty labels",
          "[partition][metis]") {
  // 8x8x8 grid in 4x4x4 boxes, labels spread over 0, 2, ..., 14 (odd labels empty).
  const SparseMatrix A = laplace7(8, 8, 8).matrix;
  const auto graph = detail::symmetric_graph(ExecSpace(), A);
  std::vector<Ordinal> parts(512);
  for (Ordinal z = 0; z < 8; ++z)
    for (Ordinal y = 0; y < 8; ++y)
      for (Ordinal x = 0; x < 8; ++x)
        parts[x + 8 * (y + 8 * z)] = 2 * (x / 4 + 2 * (y / 4) + 4 * (z / 4));
  const auto balanced = detail::balance_labeling(ExecSpace(), graph, make_labeling(16, parts), 64);
  REQUIRE(balanced.num_parts == 8);
  check_invariants(balanced, 512, 64);
  const auto labels = reference::host_vector(balanced.part_of_row);
  for (Ordinal i = 0; i < 512; ++i) {
    INFO("row " << i);
    CHECK(labels[i] == parts[i] / 2);
  }
}

TEST_CASE("balance_labeling rejects bad input", "[partition][metis]") {
  const auto graph = detail::symmetric_graph(ExecSpace(), disjoint_paths({5}));
  CHECK_THROWS_AS(
      detail::balance_labeling(ExecSpace(), graph, make_labeling(2, {0, 0, 1, 1, 2}), 4),
      InvalidInput);
  CHECK_THROWS_AS(detail::balance_labeling(ExecSpace(), graph, make_labeling(1, {0, 0, 0, 0}), 4),
                  InvalidInput);
  CHECK_THROWS_AS(
      detail::balance_labeling(ExecSpace(), graph, make_labeling(1, {0, 0, 0, 0, 0}), 0),
      InvalidInput);
}

#ifdef FGDD_HAVE_METIS

namespace {

using Labeler = detail::Labeling (*)(const ExecSpace&, const SparseMatrix&, Ordinal);

detail::Labeling metis(const ExecSpace& space, const SparseMatrix& A, Ordinal cap) {
  return detail::metis_labeling(space, A, cap);
}
detail::Labeling multilevel(const ExecSpace& space, const SparseMatrix& A, Ordinal cap) {
  return detail::multilevel_labeling(space, A, cap);
}

// Labels twice: the invariants, a reasonable part count, identical results.
detail::Labeling check_labeler(Labeler labeler, const SparseMatrix& A, Ordinal cap) {
  const Ordinal n = A.num_block_rows();
  const auto first = labeler(ExecSpace(), A, cap);
  check_invariants(first, n, cap);
  const Ordinal ideal = (n + cap - 1) / cap;
  CHECK(first.num_parts >= ideal);
  CHECK(first.num_parts <= 2 * ideal);
  const auto keys = reference::host_vector(first.order_key);
  for (Ordinal i = 0; i < n; ++i) REQUIRE(keys[i] == i);
  const auto second = labeler(ExecSpace(), A, cap);
  CHECK(second.num_parts == first.num_parts);
  CHECK(reference::host_vector(second.part_of_row) == reference::host_vector(first.part_of_row));
  return first;
}

}  // namespace

namespace {

void generated_cases(Labeler labeler) {
  SECTION("7-point Laplacian 7x5x3") { check_labeler(labeler, laplace7(7, 5, 3).matrix, 16); }
  SECTION("reservoir 12x10x6") { check_labeler(labeler, reservoir_pressure(12, 10, 6).matrix, 64); }
  SECTION("3x3 blocks: the block graph is partitioned") {
    const SparseMatrix A = multicomponent_bsr3(6).matrix;
    REQUIRE(A.block_size() == 3);
    check_labeler(labeler, A, 20);
  }
  SECTION("random unstructured (nonsymmetric pattern)") {
    check_labeler(labeler, make_matrix(reference::random_matrix(300, 1, 4, 11)), 32);
  }
  SECTION("random BSR with 2x2 blocks") {
    check_labeler(labeler, make_matrix(reference::random_matrix(200, 2, 3, 5)), 25);
  }
}

void degenerate_cases(Labeler labeler) {
  SECTION("disconnected block-diagonal matrix") {
    const SparseMatrix A = disjoint_paths({3, 40, 1, 17, 60, 2});
    check_labeler(labeler, A, 16);
    check_labeler(labeler, A, 200);
  }
  SECTION("a star: 200 rows coupled only through row 0") {
    std::vector<std::pair<Ordinal, Ordinal>> spokes;
    for (Ordinal leaf = 1; leaf < 200; ++leaf) spokes.emplace_back(0, leaf);
    check_labeler(labeler, graph_matrix(200, spokes), 16);
  }
  SECTION("diagonal only: no edges at all") {
    const SparseMatrix A = disjoint_paths(std::vector<Ordinal>(50, 1));
    check_labeler(labeler, A, 8);
    check_labeler(labeler, A, 50);
  }
  SECTION("one row") {
    const SparseMatrix A = disjoint_paths({1});
    CHECK(check_labeler(labeler, A, 1).num_parts == 1);
    CHECK(check_labeler(labeler, A, 100).num_parts == 1);
  }
  SECTION("cap 1: one row per part") {
    CHECK(check_labeler(labeler, laplace7(3, 3, 2).matrix, 1).num_parts == 18);
  }
  SECTION("cap 2 and 3: METIS asked for many tiny parts") {
    check_labeler(labeler, laplace7(5, 4, 3).matrix, 2);
    check_labeler(labeler, laplace7(5, 4, 3).matrix, 3);
  }
  SECTION("cap above n: one part without METIS") {
    CHECK(check_labeler(labeler, laplace7(4, 4, 4).matrix, 64).num_parts == 1);
  }
  SECTION("invalid cap") {
    CHECK_THROWS_AS(labeler(ExecSpace(), laplace7(3, 3, 3).matrix, 0), InvalidInput);
  }
}

}  // namespace

TEST_CASE("metis and multilevel labelings on generated matrices", "[partition][metis]") {
  SECTION("metis") { generated_cases(metis); }
  SECTION("multilevel") { generated_cases(multilevel); }
}

TEST_CASE("metis and multilevel labelings on degenerate graphs", "[partition][metis]") {
  SECTION("metis") { degenerate_cases(metis); }
  SECTION("multilevel") { degenerate_cases(multilevel); }
}

TEST_CASE("metis_labeling cuts few couplings of a 7-point Laplacian 24^3", "[partition][metis]") {
  const SparseMatrix A = laplace7(24, 24, 24).matrix;
  const auto labeling = check_labeler(metis, A, 512);
  const double dropped = dropped_fraction(A, labeling);
  std::cout << "METIS on 7-point 24^3, cap 512: " << labeling.num_parts << " parts, "
            << 100.0 * dropped << "% of the entries dropped\n";
  CHECK(dropped < 0.25);
}

// A 20 × 10 grid (5-point) whose couplings across the line between rows y = 4 and y = 5 are
// 1e-4 of the others: unit weights make METIS's two halves meet along the short side (10 cut
// edges, x = 10), strength weights along the weak line (20 edges of weight 1 against 10 of
// weight 5: strength 1/4 on the others).
TEST_CASE("metis_labeling cuts weak couplings first", "[partition][metis]") {
  const Ordinal nx = 20, ny = 10;
  HostMatrixArrays grid;
  grid.num_block_rows = grid.num_block_cols = nx * ny;
  grid.row_map.push_back(0);
  const auto weak = [](Ordinal y0, Ordinal y1) { return std::min(y0, y1) == 4 && y0 != y1; };
  for (Ordinal y = 0; y < ny; ++y)
    for (Ordinal x = 0; x < nx; ++x) {
      const std::pair<Ordinal, Ordinal> neighbours[] = {{x, y - 1}, {x - 1, y}, {x, y}, {x + 1, y},
                                                        {x, y + 1}};
      for (const auto& [u, v] : neighbours) {
        if (u < 0 || u >= nx || v < 0 || v >= ny) continue;
        grid.col_ind.push_back(u + nx * v);
        grid.values.push_back(u == x && v == y ? 4.0 : weak(y, v) ? -1e-4 : -1.0);
      }
      grid.row_map.push_back(Offset(grid.col_ind.size()));
    }
  const SparseMatrix A = make_matrix(grid);
  const detail::Labeling labeling = detail::metis_labeling(ExecSpace(), A, 105);
  REQUIRE(labeling.num_parts == 2);
  const auto part = reference::host_vector(labeling.part_of_row);
  std::size_t weak_cut = 0, strong_cut = 0;
  for (Ordinal y = 0; y < ny; ++y)
    for (Ordinal x = 0; x < nx; ++x) {
      const Ordinal i = x + nx * y;
      if (x + 1 < nx && part[i] != part[i + 1]) ++strong_cut;
      if (y + 1 < ny && part[i] != part[i + nx]) ++(weak(y, y + 1) ? weak_cut : strong_cut);
    }
  CHECK(strong_cut == 0);
  CHECK(weak_cut == std::size_t(nx));
}

#else  // FGDD_HAVE_METIS

TEST_CASE("metis_labeling without METIS says so", "[partition][metis]") {
  try {
    detail::metis_labeling(ExecSpace(), laplace7(3, 3, 3).matrix, 8);
    FAIL("expected NotCompiled");
  } catch (const NotCompiled& error) {
    CHECK(std::string(error.what()).find("without METIS") != std::string::npos);
    CHECK(std::string(error.what()).find("geometric") != std::string::npos);
  }
}

#endif  // FGDD_HAVE_METIS

TEST_CASE("symmetric_graph is the pattern of A + Aᵀ without self loops", "[partition]") {
  // Structurally symmetric patterns (copied as they are) and unsymmetric ones (scattered both
  // ways, sorted, deduplicated) against a host reference built from sets.
  HostMatrixArrays one_way;  // entries (i, i+2) only: no mirror anywhere
  one_way.num_block_rows = one_way.num_block_cols = 7;
  one_way.row_map.push_back(0);
  for (Ordinal i = 0; i < 7; ++i) {
    one_way.col_ind.push_back(i);
    if (i + 2 < 7) one_way.col_ind.push_back(i + 2);
    one_way.row_map.push_back(one_way.col_ind.size());
  }
  one_way.values.assign(one_way.col_ind.size(), 1.0);
  HostMatrixArrays one_row;
  one_row.num_block_rows = one_row.num_block_cols = 1;
  one_row.row_map = {0, 1};
  one_row.col_ind = {0};
  one_row.values = {2.0};
  const std::vector<std::pair<std::string, SparseMatrix>> cases = {
      {"7-point 6x5x4", laplace7(6, 5, 4).matrix},
      {"bsr3 4x4x4", multicomponent_bsr3(4).matrix},
      {"random unsymmetric", make_matrix(reference::random_matrix(83, 1, 5, 17u))},
      {"random unsymmetric BSR", make_matrix(reference::random_matrix(29, 2, 4, 19u))},
      {"one direction only", make_matrix(one_way)},
      {"one row", make_matrix(one_row)}};
  for (const auto& [name, A] : cases) {
    INFO(name);
    const Ordinal n = A.num_block_rows();
    const auto row_map = reference::host_vector(A.row_map());
    const auto col_ind = reference::host_vector(A.col_ind());
    std::vector<std::set<Ordinal>> expected(n);
    for (Ordinal i = 0; i < n; ++i)
      for (Offset k = row_map[i]; k < row_map[i + 1]; ++k)
        if (col_ind[k] != i) {
          expected[i].insert(col_ind[k]);
          expected[col_ind[k]].insert(i);
        }
    const auto graph = detail::symmetric_graph(ExecSpace(), A);
    REQUIRE(graph.num_vertices == n);
    const auto g_row_map = reference::host_vector(graph.row_map);
    const auto adjacency = reference::host_vector(graph.adjacency);
    REQUIRE(g_row_map.size() == std::size_t(n) + 1);
    for (Ordinal i = 0; i < n; ++i) {
      CAPTURE(i);
      const std::vector<Ordinal> got(adjacency.begin() + g_row_map[i],
                                     adjacency.begin() + g_row_map[i + 1]);
      CHECK(got == std::vector<Ordinal>(expected[i].begin(), expected[i].end()));
    }
  }
}
