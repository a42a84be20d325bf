// Tests for partition/geometric and partition/contiguous: every row labelled once, caps and part
// counts from the geometry, Algorithm 1 against its serial reference, cut couplings against the
// geometric count, RCM orders (permutation, bandwidth, disconnected graphs), determinism.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "catch_compat.hpp"
#include "core/errors.hpp"
#include "core/generators.hpp"
#include "core/matrix_build.hpp"
#include "partition/contiguous.hpp"
#include "partition/geometric.hpp"
#include "partition/symmetric_graph.hpp"
#include "reference/dense.hpp"
#include "reference/labeling_checks.hpp"
#include "reference/random_matrix.hpp"
#include "reference/reference_partition.hpp"
#include "reference/reference_rcm.hpp"

namespace {

using fgdd::reference::permuted;
using fgdd::reference::to_host_arrays;

using fgdd::ExecSpace;
using fgdd::GridInfo;
using fgdd::HostMatrixArrays;
using fgdd::Offset;
using fgdd::Ordinal;
using fgdd::SparseMatrix;
using fgdd::detail::Labeling;

struct HostPattern {
  std::vector<Offset> row_map;
  std::vector<Ordinal> col_ind;
};

HostPattern pattern_of(const SparseMatrix& A) {
  const auto row_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.row_map());
  const auto col_ind = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.col_ind());
  return {std::vector<Offset>(row_map.data(), row_map.data() + row_map.extent(0)),
          std::vector<Ordinal>(col_ind.data(), col_ind.data() + col_ind.extent(0))};
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Every row has exactly one label in range, no part is empty or above the cap, and the part
// count is the expected one. Returns the part sizes.
std::vector<Ordinal> check_labeling(const Labeling& labeling, Ordinal n, Ordinal max_block_rows,
                                    Ordinal expected_parts) {
  REQUIRE(labeling.num_parts == expected_parts);
  const auto part = fgdd::reference::host_vector(labeling.part_of_row);
  REQUIRE(Ordinal(part.size()) == n);
  REQUIRE(Ordinal(labeling.order_key.extent(0)) == n);
  std::vector<Ordinal> sizes(labeling.num_parts, 0);
  for (Ordinal i = 0; i < n; ++i) {
    INFO("row " << i << " label " << part[i]);
    REQUIRE(part[i] >= 0);
    REQUIRE(part[i] < labeling.num_parts);
    ++sizes[part[i]];
  }
  for (Ordinal p = 0; p < labeling.num_parts; ++p) {
    INFO("part " << p);
    REQUIRE(sizes[p] >= 1);
    REQUIRE(sizes[p] <= max_block_rows);
  }
  return sizes;
}

// Stored blocks (i, j) of A whose rows lie in different parts.
std::int64_t cut_entries(const SparseMatrix& A, const std::vector<Ordinal>& part) {
  const HostPattern pattern = pattern_of(A);
  std::int64_t cut = 0;
  for (Ordinal i = 0; i < A.num_block_rows(); ++i)
    for (Offset k = pattern.row_map[i]; k < pattern.row_map[i + 1]; ++k)
      cut += part[i] != part[pattern.col_ind[k]];
  return cut;
}

// max |position(i) - position(j)| over the stored blocks of A.
Ordinal bandwidth(const SparseMatrix& A, const std::vector<Ordinal>& position) {
  const HostPattern pattern = pattern_of(A);
  Ordinal band = 0;
  for (Ordinal i = 0; i < A.num_block_rows(); ++i)
    for (Offset k = pattern.row_map[i]; k < pattern.row_map[i + 1]; ++k)
      band = std::max(band, std::abs(position[i] - position[pattern.col_ind[k]]));
  return band;
}

std::vector<Ordinal> identity(Ordinal n) {
  std::vector<Ordinal> v(n);
  std::iota(v.begin(), v.end(), 0);
  return v;
}

// M with its block rows and columns renumbered by a random permutation (std::mt19937(seed)).
SparseMatrix shuffled_rows(const SparseMatrix& M, unsigned seed) {
  std::vector<Ordinal> order = identity(M.num_block_rows());
  std::shuffle(order.begin(), order.end(), std::mt19937(seed));
  return fgdd::make_matrix(permuted(to_host_arrays(M), order));
}

bool is_permutation_of_range(std::vector<Ordinal> v) {
  std::sort(v.begin(), v.end());
  return v == identity(Ordinal(v.size()));
}

// Diagonal blocks of several matrices glued into one block-diagonal matrix.
HostMatrixArrays block_diagonal(const std::vector<HostMatrixArrays>& blocks) {
  HostMatrixArrays D;
  D.block_size = blocks.front().block_size;
  D.row_map.push_back(0);
  for (const auto& B : blocks) {
    const Ordinal shift = D.num_block_rows;
    for (Ordinal i = 0; i < B.num_block_rows; ++i) {
      for (Offset k = B.row_map[i]; k < B.row_map[i + 1]; ++k)
        D.col_ind.push_back(B.col_ind[k] + shift);
      D.row_map.push_back(D.col_ind.size());
    }
    D.values.insert(D.values.end(), B.values.begin(), B.values.end());
    D.num_block_rows += B.num_block_rows;
  }
  D.num_block_cols = D.num_block_rows;
  return D;
}

// The identity matrix: rows without off-diagonal blocks.
HostMatrixArrays diagonal_matrix(Ordinal n) {
  HostMatrixArrays D;
  D.num_block_rows = D.num_block_cols = n;
  const std::vector<Ordinal> rows = identity(n + 1);
  D.row_map.assign(rows.begin(), rows.end());
  D.col_ind = identity(n);
  D.values.assign(n, 1.0);
  return D;
}

// Wavefront rows in one plane of a box with x slab width w sit w − 1 block rows apart, b (w − 1)
// doubles, up to min(w, y width) of them: how many share one of 16 banks, the worst over the slab
// widths that cuts slabs of nx give.
int bank_crowding(Ordinal nx, std::int64_t cuts, std::int64_t width_y, int b) {
  int worst = 1;
  for (const std::int64_t width : {ceil_div(nx, cuts), nx / cuts}) {
    if (width < 2) continue;
    int share = 1;
    for (int pair = 16; pair > 1 && share == 1; pair /= 2)
      if ((b * (width - 1)) % pair == 0) share = pair;
    const std::int64_t rows = std::min(width, width_y);
    worst = std::max(worst, int((rows * share + 15) / 16));
  }
  return worst;
}

// The part count of the box with the smallest interior cut area, counted 25 % larger when 4 or
// more rows of a wavefront level share a bank (ties: fewest parts), among all boxes of at most
// max_block_rows points: brute force over all box shapes.
std::int64_t best_box_parts(const GridInfo& grid, Ordinal max_block_rows, int b = 1) {
  std::int64_t best_parts = -1, best_cost = -1;
  for (Ordinal bx = 1; bx <= grid.nx; ++bx)
    for (Ordinal by = 1; by <= grid.ny; ++by)
      for (Ordinal bz = 1; bz <= grid.nz; ++bz) {
        if (std::int64_t(bx) * by * bz > max_block_rows) continue;
        const std::int64_t cx = ceil_div(grid.nx, bx), cy = ceil_div(grid.ny, by),
                           cz = ceil_div(grid.nz, bz);
        const std::int64_t parts = cx * cy * cz;
        const std::int64_t surface = (cx - 1) * grid.ny * grid.nz + (cy - 1) * grid.nx * grid.nz +
                                     (cz - 1) * grid.nx * grid.ny;
        const std::int64_t cost =
            surface * (bank_crowding(grid.nx, cx, ceil_div(grid.ny, cy), b) >= 4 ? 5 : 4);
        if (best_cost < 0 || cost < best_cost || (cost == best_cost && parts < best_parts)) {
          best_cost = cost;
          best_parts = parts;
        }
      }
  return best_parts;
}

// RCM labeling checks shared by every matrix: order_key is a permutation, parts are the balanced
// chunks of it, caps hold. Returns the RCM positions.
std::vector<Ordinal> check_rcm(const SparseMatrix& A, Ordinal max_block_rows) {
  const Ordinal n = A.num_block_rows();
  const Labeling labeling = fgdd::detail::rcm_labeling(ExecSpace(), A, max_block_rows);
  const Ordinal expected_parts = Ordinal(ceil_div(n, max_block_rows));
  const auto sizes = check_labeling(labeling, n, max_block_rows, expected_parts);
  const auto position = fgdd::reference::host_vector(labeling.order_key);
  REQUIRE(is_permutation_of_range(position));
  const auto part = fgdd::reference::host_vector(labeling.part_of_row);
  for (Ordinal i = 0; i < n; ++i)
    REQUIRE(part[i] == Ordinal(std::int64_t(position[i]) * expected_parts / n));
  const auto [smallest, largest] = std::minmax_element(sizes.begin(), sizes.end());
  if (n > 0) REQUIRE(*largest - *smallest <= 1);
  return position;
}

// The position of every block row in reference::rcm_order of the pattern of A + Aᵀ.
std::vector<Ordinal> reference_rcm_positions(const SparseMatrix& A) {
  const HostMatrixArrays host = to_host_arrays(A);
  const Ordinal n = host.num_block_rows;
  std::vector<std::vector<Ordinal>> neighbours(n);
  for (Ordinal i = 0; i < n; ++i)
    for (Offset k = host.row_map[i]; k < host.row_map[i + 1]; ++k)
      if (host.col_ind[k] != i) {
        neighbours[i].push_back(host.col_ind[k]);
        neighbours[host.col_ind[k]].push_back(i);
      }
  for (auto& row : neighbours) {
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
  }
  const std::vector<Ordinal> order =
      fgdd::reference::rcm_order(neighbours, fgdd::reference::RcmStart::LeastDegree);
  std::vector<Ordinal> position(n);
  for (Ordinal q = 0; q < n; ++q) position[order[q]] = q;
  return position;
}

}  // namespace

TEST_CASE("geometric labels match the serial Algorithm 1 for explicit boxes", "[partition]") {
  struct Case {
    GridInfo grid;
    Ordinal bx, by, bz;
  };
  const std::vector<Case> cases = {
      {{7, 5, 3}, 2, 2, 2},  {{7, 5, 3}, 3, 2, 1},    {{7, 5, 3}, 7, 5, 3},
      {{7, 5, 3}, 1, 1, 1},  {{7, 5, 3}, 10, 10, 10}, {{7, 5, 3}, 4, 3, 2},
      {{1, 1, 1}, 1, 1, 1},  {{13, 1, 1}, 4, 1, 1},   {{13, 1, 1}, 5, 3, 3},
      {{9, 9, 1}, 3, 3, 1},  {{9, 9, 1}, 2, 4, 1},    {{12, 8, 6}, 4, 4, 3},
      {{12, 8, 6}, 3, 2, 2}, {{33, 17, 9}, 8, 8, 4},  {{40, 30, 20}, 16, 7, 5}};
  for (const auto& c : cases) {
    const GridInfo& g = c.grid;
    INFO("grid " << g.nx << "x" << g.ny << "x" << g.nz << " box " << c.bx << "x" << c.by << "x"
                 << c.bz);
    const Ordinal n = Ordinal(g.num_points());
    // Act
    const Labeling labeling =
        fgdd::detail::geometric_labeling_with_boxes(ExecSpace(), g, c.bx, c.by, c.bz);
    // Assert
    const Ordinal expected_parts =
        Ordinal(ceil_div(g.nx, c.bx) * ceil_div(g.ny, c.by) * ceil_div(g.nz, c.bz));
    check_labeling(labeling, n, Ordinal(std::int64_t(c.bx) * c.by * c.bz), expected_parts);
    const auto part = fgdd::reference::host_vector(labeling.part_of_row);
    REQUIRE(part == fgdd::reference::geometric_labels_balanced(g.nx, g.ny, g.nz, c.bx, c.by, c.bz));
    if (g.nx % c.bx == 0 && g.ny % c.by == 0 && g.nz % c.bz == 0) {
      REQUIRE(part ==
              fgdd::reference::geometric_labels_algorithm1(g.nx, g.ny, g.nz, c.bx, c.by, c.bz));
    }
    REQUIRE(fgdd::reference::host_vector(labeling.order_key) == identity(n));
  }
}

TEST_CASE("geometric labeling picks the boxes that cut the fewest couplings", "[partition]") {
  const std::vector<GridInfo> grids = {{7, 5, 3},    {1, 1, 1},  {13, 1, 1}, {9, 9, 1},
                                       {12, 12, 12}, {10, 7, 1}, {5, 6, 7}};
  const std::vector<Ordinal> caps = {1, 2, 3, 4, 7, 8, 9, 16, 27, 60, 64, 100, 1000};
  for (const auto& g : grids) {
    for (const Ordinal cap : caps) {
      INFO("grid " << g.nx << "x" << g.ny << "x" << g.nz << " cap " << cap);
      const Ordinal n = Ordinal(g.num_points());
      const Labeling labeling = fgdd::detail::geometric_labeling(ExecSpace(), g, n, cap);
      const auto boxes = fgdd::detail::choose_geometric_boxes(g, cap);
      REQUIRE(std::int64_t(boxes.box_x) * boxes.box_y * boxes.box_z <= cap);
      REQUIRE(boxes.cuts_x == ceil_div(g.nx, boxes.box_x));
      REQUIRE(boxes.cuts_y == ceil_div(g.ny, boxes.box_y));
      REQUIRE(boxes.cuts_z == ceil_div(g.nz, boxes.box_z));
      const std::int64_t parts = best_box_parts(g, cap);
      REQUIRE(std::int64_t(boxes.cuts_x) * boxes.cuts_y * boxes.cuts_z == parts);
      check_labeling(labeling, n, cap, Ordinal(parts));
      REQUIRE(fgdd::reference::host_vector(labeling.part_of_row) ==
              fgdd::reference::geometric_labels_balanced(g.nx, g.ny, g.nz, boxes.box_x, boxes.box_y,
                                                         boxes.box_z));
    }
  }
  SECTION("cubic boxes win ties") {
    const auto cube = fgdd::detail::choose_geometric_boxes({8, 8, 8}, 64);
    REQUIRE((cube.box_x == 4 && cube.box_y == 4 && cube.box_z == 4));
    const auto square = fgdd::detail::choose_geometric_boxes({9, 9, 1}, 9);
    REQUIRE((square.box_x == 3 && square.box_y == 3 && square.box_z == 1));
    const auto line = fgdd::detail::choose_geometric_boxes({13, 1, 1}, 4);
    REQUIRE((line.box_x == 4 && line.cuts_x == 4));
  }
}

TEST_CASE("geometric boxes keep wavefront levels off a single scratch bank", "[partition]") {
  // 202³ at the H100's cap: the fewest cut couplings come with 17 × 17 × 17 boxes, whose level
  // rows (16 apart) all share a bank; x slabs of 23 cut 3 % more and spread them.
  const auto spread = fgdd::detail::choose_geometric_boxes({202, 202, 202}, 5117);
  CHECK((spread.box_x == 23 && spread.box_y == 17 && spread.box_z == 13));
  CHECK(bank_crowding(202, spread.cuts_x, spread.box_y, 1) < 4);
  CHECK(bank_crowding(202, 12, 17, 1) == 17);
  // Equal cut area either way round: the uncrowded orientation (slabs of 21 and 22 put 4 rows of
  // 16 in a bank, 16 and 15 none).
  const auto turned = fgdd::detail::choose_geometric_boxes({64, 64, 64}, 5117);
  CHECK((turned.box_x == 16 && turned.box_y == 22 && turned.box_z == 13));
  // Unchanged where nothing crowds (200³: x slabs of 20).
  const auto kept = fgdd::detail::choose_geometric_boxes({200, 200, 200}, 5117);
  CHECK((kept.box_x == 20 && kept.box_y == 17 && kept.box_z == 15));
  // The block size scales the stride: 111³ with b = 2 leaves 14-wide slabs (13 · 2 = 26 doubles,
  // and 13-wide ones at 24), which b = 1 keeps.
  const auto blocks = fgdd::detail::choose_geometric_boxes({111, 111, 111}, 2558, 2);
  CHECK((blocks.box_x == 16 && blocks.box_y == 11 && blocks.box_z == 14));
  const auto scalars = fgdd::detail::choose_geometric_boxes({111, 111, 111}, 2558, 1);
  CHECK((scalars.box_x == 16 && scalars.box_y == 14 && scalars.box_z == 11));
  // A 27-point stencil's levels (x + 2y + 4z) put rows w − 2 apart: 17-point slabs are fine there.
  const auto box27 = fgdd::detail::choose_geometric_boxes({202, 202, 202}, 5117, 1, 2);
  CHECK((box27.box_x == 17 && box27.box_y == 17 && box27.box_z == 17));
  for (const int b : {1, 2, 3, 4})
    for (const Ordinal n : {33, 64, 97, 202}) {
      const GridInfo g{n, n, n};
      const Ordinal cap = 5117 / b;
      const auto boxes = fgdd::detail::choose_geometric_boxes(g, cap, b);
      CHECK(std::int64_t(boxes.cuts_x) * boxes.cuts_y * boxes.cuts_z == best_box_parts(g, cap, b));
    }
}

TEST_CASE("wavefront slope of the generated stencils", "[partition]") {
  CHECK(fgdd::detail::wavefront_slope(fgdd::laplace7(9, 8, 7).matrix, {9, 8, 7}) == 1);
  CHECK(fgdd::detail::wavefront_slope(fgdd::laplace27(9, 8, 7).matrix, {9, 8, 7}) == 2);
  CHECK(fgdd::detail::wavefront_slope(fgdd::laplace27(9, 8, 1).matrix, {9, 8, 1}) == 2);
  CHECK(fgdd::detail::wavefront_slope(fgdd::laplace7(13, 1, 1).matrix, {13, 1, 1}) == 1);
  const auto bsr3 = fgdd::multicomponent_bsr3(5);
  CHECK(fgdd::detail::wavefront_slope(bsr3.matrix, bsr3.grid) == 1);
  const auto reservoir = fgdd::reservoir_pressure(7, 5, 3);
  CHECK(fgdd::detail::wavefront_slope(reservoir.matrix, reservoir.grid) == 1);
  // A grid with another point count does not describe the matrix: the 7-point default.
  CHECK(fgdd::detail::wavefront_slope(fgdd::laplace27(9, 8, 7).matrix, {5, 5, 5}) == 1);
}

TEST_CASE("geometric labeling of generated matrices", "[partition]") {
  const std::vector<fgdd::GeneratedProblem> problems = {
      fgdd::laplace7(7, 5, 3),          fgdd::laplace27(7, 5, 3), fgdd::laplace7(1, 1, 1),
      fgdd::laplace7(13, 1, 1),         fgdd::laplace7(9, 9, 1),  fgdd::multicomponent_bsr3(5),
      fgdd::reservoir_pressure(7, 5, 3)};
  for (const auto& problem : problems) {
    INFO(problem.description);
    const Ordinal n = problem.matrix.num_block_rows();
    for (const Ordinal cap : {1, 5, 16, 64, 4096}) {
      const Labeling labeling = fgdd::detail::geometric_labeling(ExecSpace(), problem.grid, n, cap);
      check_labeling(labeling, n, cap, Ordinal(best_box_parts(problem.grid, cap)));
    }
  }
}

TEST_CASE("geometric cuts of a 7-point Laplacian cut exactly the couplings across box faces",
          "[partition]") {
  struct Case {
    GridInfo grid;
    Ordinal box;
  };
  for (const Case& c : {Case{{12, 12, 12}, 4}, Case{{8, 8, 8}, 2}, Case{{12, 12, 12}, 6},
                        Case{{16, 16, 1}, 4}, Case{{12, 12, 12}, 12}}) {
    const GridInfo& g = c.grid;
    INFO("grid " << g.nx << "x" << g.ny << "x" << g.nz << " box " << c.box);
    const auto problem = fgdd::laplace7(g.nx, g.ny, g.nz);
    const Ordinal bz = std::min(c.box, g.nz);
    const Labeling labeling =
        fgdd::detail::geometric_labeling_with_boxes(ExecSpace(), g, c.box, c.box, bz);
    // (c_d - 1) interior cut planes per direction, each crossed by one edge per point of its
    // face, each edge stored twice (i, j) and (j, i).
    const std::int64_t cx = g.nx / c.box, cy = g.ny / c.box, cz = g.nz / bz;
    const std::int64_t expected =
        2 * ((cx - 1) * g.ny * g.nz + (cy - 1) * g.nx * g.nz + (cz - 1) * g.nx * g.ny);
    REQUIRE(cut_entries(problem.matrix, fgdd::reference::host_vector(labeling.part_of_row)) ==
            expected);
  }
  SECTION("the public cut picks 4x4x4 boxes on 12^3 with 64 rows each") {
    const auto problem = fgdd::laplace7(12, 12, 12);
    const Labeling labeling = fgdd::detail::geometric_labeling(ExecSpace(), problem.grid,
                                                               problem.matrix.num_block_rows(), 64);
    const auto sizes = check_labeling(labeling, 12 * 12 * 12, 64, 27);
    REQUIRE(std::all_of(sizes.begin(), sizes.end(), [](Ordinal s) { return s == 64; }));
    REQUIRE(cut_entries(problem.matrix, fgdd::reference::host_vector(labeling.part_of_row)) ==
            2 * 3 * 2 * 144);
  }
}

TEST_CASE("geometric labeling rejects bad input", "[partition]") {
  const ExecSpace space;
  REQUIRE_THROWS_AS(fgdd::detail::geometric_labeling(space, GridInfo{}, 0, 8), fgdd::InvalidInput);
  REQUIRE_THROWS_AS(fgdd::detail::geometric_labeling(space, GridInfo{4, 0, 1}, 0, 8),
                    fgdd::InvalidInput);
  REQUIRE_THROWS_AS(fgdd::detail::geometric_labeling(space, GridInfo{4, 4, 4}, 64, 0),
                    fgdd::InvalidInput);
  REQUIRE_THROWS_AS(fgdd::detail::geometric_labeling_with_boxes(space, GridInfo{4, 4, 4}, 2, 0, 2),
                    fgdd::InvalidInput);
  try {
    fgdd::detail::geometric_labeling(space, GridInfo{4, 4, 4}, 63, 8);
    FAIL("no exception for a grid that does not match the matrix");
  } catch (const fgdd::InvalidInput& error) {
    const std::string message = error.what();
    INFO(message);
    REQUIRE(message.find("64") != std::string::npos);
    REQUIRE(message.find("63") != std::string::npos);
  }
}

TEST_CASE("natural labeling cuts balanced contiguous chunks", "[partition]") {
  for (const Ordinal n : {0, 1, 7, 13, 100, 1000, 4099}) {
    for (const Ordinal cap : {1, 3, 7, 64, 2000}) {
      INFO("n " << n << " cap " << cap);
      const Labeling labeling = fgdd::detail::natural_labeling(ExecSpace(), n, cap);
      const auto sizes = check_labeling(labeling, n, cap, Ordinal(ceil_div(n, cap)));
      const auto part = fgdd::reference::host_vector(labeling.part_of_row);
      REQUIRE(std::is_sorted(part.begin(), part.end()));
      if (n > 0) {
        const auto [smallest, largest] = std::minmax_element(sizes.begin(), sizes.end());
        REQUIRE(*largest - *smallest <= 1);
      }
      REQUIRE(fgdd::reference::host_vector(labeling.order_key) == identity(n));
    }
  }
  REQUIRE_THROWS_AS(fgdd::detail::natural_labeling(ExecSpace(), 10, 0), fgdd::InvalidInput);
  REQUIRE_THROWS_AS(fgdd::detail::natural_labeling(ExecSpace(), -1, 4), fgdd::InvalidInput);
}

TEST_CASE("RCM labeling restores a narrow band on a randomly permuted Laplacian", "[partition]") {
  // Arrange: a 7-point Laplacian with its rows shuffled.
  const auto problem = fgdd::laplace7(9, 7, 5);
  const Ordinal n = problem.matrix.num_block_rows();
  const SparseMatrix A = shuffled_rows(problem.matrix, 7);
  for (const Ordinal cap : {1, 16, 63, 64, 100, n}) {
    INFO("cap " << cap);
    // Act
    const auto position = check_rcm(A, cap);
    // Assert: RCM narrows the band far below the shuffled one, down to about a grid plane.
    REQUIRE(bandwidth(A, position) <= bandwidth(A, identity(n)));
    REQUIRE(bandwidth(A, position) <= 2 * 9 * 7);
  }
  SECTION("a shuffled path becomes tridiagonal") {
    const SparseMatrix P = shuffled_rows(fgdd::laplace7(50, 1, 1).matrix, 3);
    REQUIRE(bandwidth(P, check_rcm(P, 8)) == 1);
  }
  SECTION("order_key is the position the reference RCM gives each vertex") {
    for (const SparseMatrix& M :
         {A, fgdd::make_matrix(fgdd::reference::random_matrix(300, 1, 3, 11)),
          fgdd::make_matrix(fgdd::reference::random_matrix(120, 3, 2, 12)),
          fgdd::reservoir_pressure(7, 5, 3).matrix,
          // Components and isolated rows: the restarts at the least-degree unplaced row.
          fgdd::make_matrix(
              block_diagonal({diagonal_matrix(2), to_host_arrays(A), diagonal_matrix(3),
                              to_host_arrays(fgdd::laplace7(7, 1, 1).matrix)}))}) {
      const Labeling labeling = fgdd::detail::rcm_labeling(ExecSpace(), M, 64);
      REQUIRE(fgdd::reference::host_vector(labeling.order_key) == reference_rcm_positions(M));
    }
  }
}

TEST_CASE("RCM labeling of disconnected graphs and diagonal-only rows", "[partition]") {
  SECTION("block-diagonal with isolated rows between the blocks") {
    const auto a = to_host_arrays(fgdd::laplace7(5, 4, 3).matrix);
    const auto b = to_host_arrays(fgdd::laplace7(7, 1, 1).matrix);
    const auto c = to_host_arrays(fgdd::laplace27(3, 3, 2).matrix);
    const SparseMatrix D = fgdd::make_matrix(
        block_diagonal({diagonal_matrix(2), a, diagonal_matrix(3), b, c, diagonal_matrix(1)}));
    for (const Ordinal cap : {1, 4, 10, 32, 1000}) {
      INFO("cap " << cap);
      const auto position = check_rcm(D, cap);
      // Each component occupies a contiguous range of positions.
      const std::vector<std::pair<Ordinal, Ordinal>> components = {
          {2, 2 + 60}, {65, 65 + 7}, {72, 72 + 18}};
      for (const auto& [begin, end] : components) {
        const auto [low, high] =
            std::minmax_element(position.begin() + begin, position.begin() + end);
        REQUIRE(*high - *low == end - begin - 1);
      }
    }
  }
  SECTION("only diagonal blocks") {
    for (const Ordinal n : {1, 2, 10, 33}) {
      INFO("n " << n);
      check_rcm(fgdd::make_matrix(diagonal_matrix(n)), 3);
    }
  }
  SECTION("random unstructured CSR and BSR, generated matrices") {
    check_rcm(fgdd::make_matrix(fgdd::reference::random_matrix(500, 1, 3, 11)), 37);
    check_rcm(fgdd::make_matrix(fgdd::reference::random_matrix(300, 3, 2, 12)), 64);
    check_rcm(fgdd::make_matrix(fgdd::reference::random_matrix(200, 1, 0, 13)), 16);
    check_rcm(fgdd::multicomponent_bsr3(5).matrix, 9);
    check_rcm(fgdd::reservoir_pressure(7, 5, 3).matrix, 20);
    check_rcm(fgdd::laplace27(7, 5, 3).matrix, 13);
  }
  SECTION("empty matrix and bad cap") {
    const SparseMatrix empty = fgdd::make_matrix(HostMatrixArrays{0, 0, 1, {0}, {}, {}});
    const Labeling labeling = fgdd::detail::rcm_labeling(ExecSpace(), empty, 8);
    REQUIRE(labeling.num_parts == 0);
    REQUIRE(labeling.part_of_row.extent(0) == 0);
    REQUIRE(labeling.order_key.extent(0) == 0);
    REQUIRE_THROWS_AS(fgdd::detail::rcm_labeling(ExecSpace(), empty, 0), fgdd::InvalidInput);
  }
}

TEST_CASE("labelings are deterministic", "[partition]") {
  const ExecSpace space;
  const auto problem = fgdd::laplace7(11, 6, 5);
  const Ordinal n = problem.matrix.num_block_rows();
  const SparseMatrix R = fgdd::make_matrix(fgdd::reference::random_matrix(400, 1, 4, 21));
  const auto same = [](const Labeling& a, const Labeling& b) {
    return a.num_parts == b.num_parts &&
           fgdd::reference::host_vector(a.part_of_row) ==
               fgdd::reference::host_vector(b.part_of_row) &&
           fgdd::reference::host_vector(a.order_key) == fgdd::reference::host_vector(b.order_key);
  };
  REQUIRE(same(fgdd::detail::geometric_labeling(space, problem.grid, n, 50),
               fgdd::detail::geometric_labeling(space, problem.grid, n, 50)));
  REQUIRE(same(fgdd::detail::natural_labeling(space, n, 50),
               fgdd::detail::natural_labeling(space, n, 50)));
  REQUIRE(same(fgdd::detail::rcm_labeling(space, problem.matrix, 50),
               fgdd::detail::rcm_labeling(space, problem.matrix, 50)));
  REQUIRE(same(fgdd::detail::rcm_labeling(space, R, 50), fgdd::detail::rcm_labeling(space, R, 50)));
}

TEST_CASE("chunk_partition builds make_partition's partition of natural and RCM chunks",
          "[partition]") {
  const ExecSpace space;
  const auto same = [](const fgdd::Partition& a, const fgdd::Partition& b) {
    REQUIRE(a.num_subdomains == b.num_subdomains);
    REQUIRE(a.host_subdomain_offsets == b.host_subdomain_offsets);
    REQUIRE(fgdd::reference::host_vector(a.subdomain_offsets) ==
            fgdd::reference::host_vector(b.subdomain_offsets));
    REQUIRE(fgdd::reference::host_vector(a.part_of_row) ==
            fgdd::reference::host_vector(b.part_of_row));
    REQUIRE(fgdd::reference::host_vector(a.perm) == fgdd::reference::host_vector(b.perm));
    REQUIRE(fgdd::reference::host_vector(a.iperm) == fgdd::reference::host_vector(b.iperm));
  };
  for (const Ordinal n : {0, 1, 7, 13, 100, 1000, 4099})
    for (const Ordinal cap : {1, 3, 7, 64, 2000}) {
      INFO("natural, n " << n << " cap " << cap);
      const Labeling labeling = fgdd::detail::natural_labeling(space, n, cap);
      same(fgdd::detail::chunk_partition(space, labeling),
           fgdd::detail::make_partition(space, labeling));
    }
  for (const SparseMatrix& M :
       {shuffled_rows(fgdd::laplace7(9, 7, 5).matrix, 5), fgdd::make_matrix(fgdd::reference::random_matrix(301, 1, 3, 11)),
        fgdd::make_matrix(fgdd::reference::random_matrix(121, 3, 2, 12)),
        fgdd::make_matrix(diagonal_matrix(5)), fgdd::reservoir_pressure(7, 5, 3).matrix})
    for (const Ordinal cap : {1, 16, 63, 150, 100000}) {
      INFO("RCM, n " << M.num_block_rows() << " cap " << cap);
      const Labeling labeling = fgdd::detail::rcm_labeling(space, M, cap);
      same(fgdd::detail::chunk_partition(space, labeling),
           fgdd::detail::make_partition(space, labeling));
    }
}
