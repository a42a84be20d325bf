// The multilevel partitioner's stages against serial references: one coarsening level
// (partition/coarsen.hpp) against a plain contraction of the same matching, boundary refinement
// (partition/refine.hpp) against a serial cut count, and the whole partition against METIS.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "catch_compat.hpp"
#include "core/errors.hpp"
#include "core/generators.hpp"
#include "core/matrix_build.hpp"
#include "partition/coarsen.hpp"
#include "partition/metis.hpp"
#include "partition/multilevel.hpp"
#include "partition/refine.hpp"
#include "partition/symmetric_graph.hpp"
#include "reference/dense.hpp"
#include "reference/labeling_checks.hpp"
#include "reference/random_matrix.hpp"
#include "solver/solver.hpp"

using namespace fgdd;

namespace {

struct HostGraph {
  std::vector<Offset> row_map;
  std::vector<Ordinal> adjacency, vertex_weight, edge_weight;
  Ordinal n() const { return Ordinal(row_map.size()) - 1; }
};

HostGraph to_host(const detail::WeightedGraph& g) {
  return {reference::host_vector(g.graph.row_map), reference::host_vector(g.graph.adjacency),
          reference::host_vector(g.vertex_weight), reference::host_vector(g.edge_weight)};
}

detail::WeightedGraph weighted_graph_of(const SparseMatrix& A) {
  return detail::unit_weighted_graph(ExecSpace(), detail::symmetric_graph(ExecSpace(), A));
}

// The contraction written the obvious way: every fine arc (u, v) adds its weight to the coarse
// arc (map u, map v) unless both ends map to one coarse vertex.
HostGraph reference_contraction(const HostGraph& fine, const std::vector<Ordinal>& map,
                                Ordinal num_coarse) {
  std::vector<std::map<Ordinal, Ordinal>> rows(num_coarse);
  HostGraph coarse;
  coarse.vertex_weight.assign(num_coarse, 0);
  for (Ordinal u = 0; u < fine.n(); ++u) {
    coarse.vertex_weight[map[u]] += fine.vertex_weight[u];
    for (Offset k = fine.row_map[u]; k < fine.row_map[u + 1]; ++k)
      if (map[u] != map[fine.adjacency[k]])
        rows[map[u]][map[fine.adjacency[k]]] += fine.edge_weight[k];
  }
  coarse.row_map.push_back(0);
  for (const auto& row : rows) {
    for (const auto& [c, w] : row) {
      coarse.adjacency.push_back(c);
      coarse.edge_weight.push_back(w);
    }
    coarse.row_map.push_back(coarse.adjacency.size());
  }
  return coarse;
}

// One level: the map is onto, members of a coarse vertex are adjacent (or both isolated), no
// coarse vertex exceeds the limit, and the coarse graph equals the reference contraction.
detail::CoarseLevel check_level(const detail::WeightedGraph& fine, Ordinal max_weight) {
  const detail::CoarseLevel level = detail::coarsen_by_matching(ExecSpace(), fine, max_weight);
  const HostGraph host_fine = to_host(fine), coarse = to_host(level.coarse);
  const auto map = reference::host_vector(level.coarse_of_fine);
  const Ordinal nc = level.coarse.num_vertices();
  std::vector<std::vector<Ordinal>> members(nc);
  for (Ordinal u = 0; u < host_fine.n(); ++u) {
    REQUIRE(map[u] >= 0);
    REQUIRE(map[u] < nc);
    members[map[u]].push_back(u);
  }
  for (Ordinal c = 0; c < nc; ++c) {
    INFO("coarse vertex " << c);
    REQUIRE(!members[c].empty());
    REQUIRE(members[c].size() <= 2);
    if (members[c].size() == 2) {
      const Ordinal u = members[c][0], v = members[c][1];
      const auto begin = host_fine.adjacency.begin() + host_fine.row_map[u];
      const auto end = host_fine.adjacency.begin() + host_fine.row_map[u + 1];
      const auto v_begin = host_fine.adjacency.begin() + host_fine.row_map[v];
      const auto v_end = host_fine.adjacency.begin() + host_fine.row_map[v + 1];
      const bool adjacent = std::find(begin, end, v) != end;
      const bool isolated = begin == end && v_begin == v_end;
      const bool two_hop = std::find_first_of(begin, end, v_begin, v_end) != end;
      CHECK((adjacent || isolated || two_hop));
      CHECK(coarse.vertex_weight[c] <= max_weight);
    }
  }
  const HostGraph expected = reference_contraction(host_fine, map, nc);
  CHECK(coarse.row_map == expected.row_map);
  CHECK(coarse.adjacency == expected.adjacency);
  CHECK(coarse.edge_weight == expected.edge_weight);
  CHECK(coarse.vertex_weight == expected.vertex_weight);
  return level;
}

// Weighted cut and part weights, counted serially.
Offset cut_weight(const HostGraph& g, const std::vector<Ordinal>& part) {
  Offset cut = 0;
  for (Ordinal u = 0; u < g.n(); ++u)
    for (Offset k = g.row_map[u]; k < g.row_map[u + 1]; ++k)
      if (part[u] != part[g.adjacency[k]]) cut += g.edge_weight[k];
  return cut / 2;
}

std::vector<Ordinal> part_weights(const HostGraph& g, const std::vector<Ordinal>& part,
                                  Ordinal num_parts) {
  std::vector<Ordinal> weights(num_parts, 0);
  for (Ordinal u = 0; u < g.n(); ++u) weights[part[u]] += g.vertex_weight[u];
  return weights;
}

}  // namespace

TEST_CASE("coarsen_by_matching equals the reference contraction", "[partition][multilevel]") {
  SECTION("7-point Laplacian, three levels") {
    detail::WeightedGraph g = weighted_graph_of(laplace7(9, 7, 5).matrix);
    for (int level = 0; level < 3; ++level) {
      CAPTURE(level);
      const Ordinal before = g.num_vertices();
      detail::CoarseLevel next = check_level(g, 16);
      // A mesh loses close to half its vertices per level; 0.7 leaves room for odd ends.
      CHECK(next.coarse.num_vertices() <= Ordinal(0.7 * before));
      g = next.coarse;
    }
  }
  SECTION("random nonsymmetric pattern and 2x2 blocks") {
    check_level(weighted_graph_of(make_matrix(reference::random_matrix(301, 1, 5, 3))), 4);
    check_level(weighted_graph_of(make_matrix(reference::random_matrix(97, 2, 3, 8))), 3);
  }
  SECTION("isolated vertices pair among themselves") {
    const detail::CoarseLevel level =
        check_level(weighted_graph_of(reference::disjoint_paths(std::vector<Ordinal>(9, 1))), 2);
    CHECK(level.coarse.num_vertices() == 5);
  }
  SECTION("leaves of a star pair with each other once the hub is taken") {
    std::vector<std::pair<Ordinal, Ordinal>> spokes;
    for (Ordinal leaf = 1; leaf <= 9; ++leaf) spokes.emplace_back(0, leaf);
    const detail::CoarseLevel level =
        check_level(weighted_graph_of(reference::graph_matrix(10, spokes)), 2);
    CHECK(level.coarse.num_vertices() == 5);  // hub + a leaf, then four pairs of leaves
  }
  SECTION("weight limit 1: nothing merges") {
    const detail::WeightedGraph g = weighted_graph_of(laplace7(4, 3, 2).matrix);
    CHECK(check_level(g, 1).coarse.num_vertices() == g.num_vertices());
  }
  SECTION("one vertex and no vertices") {
    CHECK(check_level(weighted_graph_of(reference::disjoint_paths({1})), 8).coarse.num_vertices() ==
          1);
    detail::WeightedGraph empty;
    CHECK(detail::coarsen_by_matching(ExecSpace(), empty, 8).coarse.num_vertices() == 0);
  }
  SECTION("the same coarse graph every run") {
    const detail::WeightedGraph g =
        weighted_graph_of(make_matrix(reference::random_matrix(500, 1, 6, 21)));
    const auto a = detail::coarsen_by_matching(ExecSpace(), g, 8);
    const auto b = detail::coarsen_by_matching(ExecSpace(), g, 8);
    CHECK(reference::host_vector(a.coarse_of_fine) == reference::host_vector(b.coarse_of_fine));
  }
  SECTION("a limit below 1 is refused") {
    CHECK_THROWS_AS(
        detail::coarsen_by_matching(ExecSpace(), weighted_graph_of(laplace7(2, 2, 2).matrix), 0),
        InvalidInput);
  }
}

TEST_CASE("strength_weighted_graph weighs edges by coupling strength", "[partition][multilevel]") {
  // Path 0 - 1 - 2 with diagonals 4: |a_01| = 4 (s = 1, weight 16), |a_12| = 0.04 and |a_21| =
  // 0.4 (the larger counts: s = 0.1, weight 1 + round(1.5) = 3).
  HostMatrixArrays m;
  m.num_block_rows = m.num_block_cols = 3;
  m.row_map = {0, 2, 5, 7};
  m.col_ind = {0, 1, 0, 1, 2, 1, 2};
  m.values = {4, -4, -4, 4, -0.04, -0.4, 4};
  const SparseMatrix A = make_matrix(m);
  const auto g = to_host(
      detail::strength_weighted_graph(ExecSpace(), A, detail::symmetric_graph(ExecSpace(), A)));
  CHECK(g.adjacency == std::vector<Ordinal>{1, 0, 2, 1});
  CHECK(g.edge_weight == std::vector<Ordinal>{16, 16, 3, 3});
  CHECK(g.vertex_weight == std::vector<Ordinal>{1, 1, 1});
  SECTION("2x2 blocks: Frobenius norms") {
    // Diagonal blocks 2·I (norm 2√2), off-diagonal blocks with one entry 0.4√2: s = 0.2, w = 4.
    HostMatrixArrays b;
    b.num_block_rows = b.num_block_cols = 2;
    b.block_size = 2;
    b.row_map = {0, 2, 4};
    b.col_ind = {0, 1, 0, 1};
    const double e = 0.4 * std::sqrt(2.0);
    b.values = {2, 0, 0, 2, e, 0, 0, 0, 0, e, 0, 0, 2, 0, 0, 2};
    const auto gb = to_host(detail::strength_weighted_graph(
        ExecSpace(), make_matrix(b), detail::symmetric_graph(ExecSpace(), make_matrix(b))));
    CHECK(gb.edge_weight == std::vector<Ordinal>{4, 4});
  }
}

namespace {

// The weight of every arc of the block graph written the obvious way: both blocks looked up in
// a map of A's entries, s = max(‖A_ij‖, ‖A_ji‖) / sqrt(‖A_ii‖ ‖A_jj‖) clamped to 1 (1 where a
// diagonal block is missing or zero), weight 1 + round(15 s).
std::vector<Ordinal> reference_strength_weights(const HostMatrixArrays& a, const HostGraph& g) {
  const int bb = a.block_size * a.block_size;
  std::map<std::pair<Ordinal, Ordinal>, double> norm;
  for (Ordinal i = 0; i < a.num_block_rows; ++i)
    for (Offset k = a.row_map[i]; k < a.row_map[i + 1]; ++k) {
      double sum = 0;
      for (int e = 0; e < bb; ++e) sum += a.values[k * bb + e] * a.values[k * bb + e];
      norm[{i, a.col_ind[k]}] = std::sqrt(sum);
    }
  const auto at = [&](Ordinal i, Ordinal j) {
    const auto it = norm.find({i, j});
    return it == norm.end() ? 0.0 : it->second;
  };
  std::vector<Ordinal> weights;
  for (Ordinal i = 0; i < g.n(); ++i)
    for (Offset k = g.row_map[i]; k < g.row_map[i + 1]; ++k) {
      const Ordinal j = g.adjacency[k];
      const double scale = std::sqrt(at(i, i) * at(j, j));
      const double s = scale > 0 ? std::min(1.0, std::max(at(i, j), at(j, i)) / scale) : 1.0;
      weights.push_back(1 + Ordinal(std::lround(detail::strength_weight_range * s)));
    }
  return weights;
}

// a with every block's mirror added (random values, both signs) and the diagonal blocks of odd
// rows zero: a structurally symmetric pattern whose values are not symmetric.
HostMatrixArrays symmetrized(const HostMatrixArrays& a, unsigned seed) {
  HostMatrixArrays out = reference::from_rows(reference::union_with_transpose(a), a.block_size);
  out.values = reference::random_vector(out.values.size(), seed);
  const std::size_t bb = std::size_t(a.block_size) * std::size_t(a.block_size);
  for (Ordinal i = 1; i < out.num_block_rows; i += 2)
    for (Offset k = out.row_map[i]; k < out.row_map[i + 1]; ++k)
      if (out.col_ind[k] == i) std::fill_n(out.values.begin() + k * bb, bb, 0.0);
  return out;
}

}  // namespace

TEST_CASE("strength weights equal a host reference on random patterns",
          "[partition][multilevel]") {
  // Symmetric patterns take the half-search path (each pair weighed from its upper end and
  // written to both arcs), the others the search for every mirror; both against the reference.
  for (const int b : {1, 2, 3})
    for (const bool symmetric : {true, false})
      for (const Ordinal n : {1, 2, 7, 300}) {
        CAPTURE(b, symmetric, n);
        const HostMatrixArrays random = reference::random_matrix(n, b, 5, 40 + unsigned(n) + b);
        const HostMatrixArrays a = symmetric ? symmetrized(random, 7 + b) : random;
        const SparseMatrix A = make_matrix(a);
        const detail::SymmetricGraph graph = detail::symmetric_graph(ExecSpace(), A);
        if (n > 2) CHECK(graph.rows_of_matrix == symmetric);
        const HostGraph g = to_host(detail::strength_weighted_graph(ExecSpace(), A, graph));
        CHECK(g.edge_weight == reference_strength_weights(a, g));
      }
}

TEST_CASE("refine_labeling lowers the cut and keeps the limit", "[partition][multilevel]") {
  const SparseMatrix A = laplace7(12, 12, 1).matrix;
  const detail::WeightedGraph g = weighted_graph_of(A);
  const HostGraph host = to_host(g);
  const Ordinal n = g.num_vertices();
  // A checkerboard of a 12x12 grid: every edge is cut (264); each vertex gains by moving.
  std::vector<Ordinal> checkerboard(n);
  for (Ordinal u = 0; u < n; ++u) checkerboard[u] = (u / 12 + u % 12) % 2;
  SECTION("a checkerboard labeling") {
    const std::vector<Ordinal>& labels = checkerboard;
    const auto part = reference::to_device(labels);
    const Offset before = cut_weight(host, labels);
    const Offset moved = detail::refine_labeling(ExecSpace(), g, part, 2, 80, 50);
    const auto after = reference::host_vector(part);
    CHECK(moved > 0);
    CHECK(cut_weight(host, after) < before);
    for (const Ordinal w : part_weights(host, after, 2)) CHECK(w <= 80);
  }
  SECTION("a limit that leaves no room: nothing moves") {
    const std::vector<Ordinal>& labels = checkerboard;
    const auto part = reference::to_device(labels);
    CHECK(detail::refine_labeling(ExecSpace(), g, part, 2, 72, 10) == 0);
    CHECK(reference::host_vector(part) == labels);
  }
  SECTION("an optimal labeling stays") {
    std::vector<Ordinal> labels(n);
    for (Ordinal u = 0; u < n; ++u) labels[u] = u < n / 2 ? 0 : 1;
    const auto part = reference::to_device(labels);
    CHECK(detail::refine_labeling(ExecSpace(), g, part, 2, n, 10) == 0);
  }
  SECTION("a part above the limit sheds its excess to parts with room") {
    // Three vertical bands of 48, 72 and 24 columns' worth of vertices; limit 60.
    std::vector<Ordinal> labels(n);
    for (Ordinal u = 0; u < n; ++u) labels[u] = u % 12 < 4 ? 0 : (u % 12 < 10 ? 1 : 2);
    const auto part = reference::to_device(labels);
    detail::refine_labeling(ExecSpace(), g, part, 3, 60, 30);
    const auto weights = part_weights(host, reference::host_vector(part), 3);
    CAPTURE(weights[0], weights[1], weights[2]);
    for (const Ordinal w : weights) CHECK(w <= 60);
  }
  SECTION("labels outside the parts are refused") {
    CHECK_THROWS_AS(detail::refine_labeling(
                        ExecSpace(), g, reference::to_device(std::vector<Ordinal>(n, 2)), 2, n, 1),
                    InvalidInput);
  }
}

TEST_CASE("refine_labeling leaves vertices of very high degree in place",
          "[partition][multilevel]") {
  // A star: hub 0 coupled to every leaf, the hub alone in part 1. A hub of 400 leaves moves to
  // part 0 (all its neighbours are there); a hub of 600 (above the 512 that refinement compares
  // part by part, d²/2 work) stays, and its leaves join it instead. Either way the cut ends 0.
  const Ordinal leaves = GENERATE(Ordinal(400), Ordinal(600));
  CAPTURE(leaves);
  HostMatrixArrays star;
  star.num_block_rows = star.num_block_cols = leaves + 1;
  star.row_map.push_back(0);
  for (Ordinal j = 0; j <= leaves; ++j) {
    star.col_ind.push_back(j);
    star.values.push_back(j == 0 ? 1.0 : -1.0);
  }
  star.row_map.push_back(Offset(star.col_ind.size()));
  for (Ordinal i = 1; i <= leaves; ++i) {
    star.col_ind.insert(star.col_ind.end(), {0, i});
    star.values.insert(star.values.end(), {-1.0, 2.0});
    star.row_map.push_back(Offset(star.col_ind.size()));
  }
  const detail::WeightedGraph g = weighted_graph_of(make_matrix(star));
  std::vector<Ordinal> labels(leaves + 1, 0);
  labels[0] = 1;
  const auto part = reference::to_device(labels);
  detail::refine_labeling(ExecSpace(), g, part, 2, leaves + 1, 10);
  const auto after = reference::host_vector(part);
  CHECK(after[0] == (leaves > 512 ? 1 : 0));
  CHECK(cut_weight(to_host(g), after) == 0);
}

#ifdef FGDD_HAVE_METIS

TEST_CASE("multilevel_labeling cuts about as few couplings as METIS", "[partition][multilevel]") {
  // Clusters pack parts less tightly than METIS's k-way (up to ~10 % more, smaller parts), and
  // smaller parts cut more couplings; 1.15x leaves room for that, while a broken refinement or
  // matching (random parts cut most couplings) fails by far. Iterations are checked below.
  const std::vector<std::pair<std::string, SparseMatrix>> problems = {
      {"7-point 24^3", laplace7(24, 24, 24).matrix},
      {"27-point 14^3", laplace27(14, 14, 14).matrix},
      {"bsr3 12^3", multicomponent_bsr3(12).matrix},
  };
  for (const auto& [name, original] : problems) {
    std::vector<Ordinal> new_of_old;
    const SparseMatrix scrambled = reference::scrambled(original, 7, new_of_old);
    for (const SparseMatrix* A : {&original, &scrambled}) {
      CAPTURE(name, A == &scrambled);
      const Ordinal cap = 256;
      detail::MultilevelStats stats;
      const auto multilevel = detail::multilevel_labeling(ExecSpace(), *A, cap, &stats);
      const auto metis = detail::metis_labeling(ExecSpace(), *A, cap);
      reference::check_invariants(multilevel, A->num_block_rows(), cap);
      const double ours = reference::dropped_fraction(*A, multilevel);
      const double theirs = reference::dropped_fraction(*A, metis);
      std::cout << "multilevel on " << name << (A == &scrambled ? " (scrambled)" : "") << ", cap "
                << cap << ": " << multilevel.num_parts << " parts (METIS " << metis.num_parts
                << "), " << 100 * ours << "% dropped (METIS " << 100 * theirs << "%), "
                << stats.levels << " levels to " << stats.parts << " clusters, "
                << stats.refine_moves << " refinement moves\n";
      CHECK(stats.levels >= 1);
      CHECK(ours <= 1.15 * theirs);
      CHECK(multilevel.num_parts <= metis.num_parts + metis.num_parts / 5 + 1);
    }
  }
}

TEST_CASE("multilevel partitions keep BiCGSTAB within 1.1x METIS's iterations",
          "[partition][multilevel]") {
  // The bar, on a scrambled convection-diffusion grid (no locality left in the row
  // order); +2 absorbs the step of one iteration on runs of ~40.
  std::vector<Ordinal> new_of_old;
  const std::vector<std::pair<std::string, SparseMatrix>> problems = {
      {"scrambled convdiff 24^3",
       reference::scrambled(convection_diffusion(24).matrix, 3, new_of_old)},
      // Layered permeability: the strength weights keep strong couplings inside subdomains.
      {"scrambled reservoir 30x30x12",
       reference::scrambled(reservoir_pressure(30, 30, 12).matrix, 5, new_of_old)}};
  for (const auto& [name, A] : problems) {
    const auto iterations = [&, &A = A](Partitioner partitioner) {
      SolverOptions options;
      options.partition.partitioner = partitioner;
      options.partition.subdomain_rows = 500;
      Solver solver(options);
      solver.setup(ExecSpace(), A);
      Vector b("b", A.num_rows()), x("x", A.num_rows());
      Kokkos::deep_copy(b, 1.0);
      const SolveResult result = solver.solve(ExecSpace(), b, x);
      REQUIRE(result.status == SolveStatus::Converged);
      return result.iterations;
    };
    const int ours = iterations(Partitioner::Multilevel), theirs = iterations(Partitioner::Metis);
    std::cout << "BiCGSTAB on " << name << ", 500-row cap: multilevel " << ours
              << " iterations, METIS " << theirs << "\n";
    CHECK(ours <= 1.1 * theirs + 2);
  }
}

#endif  // FGDD_HAVE_METIS
