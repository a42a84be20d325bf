// Tests for core/generators: structure from the geometry, entries against the serial references,
// symmetry, dominance, determinism and the spec parser.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "catch_compat.hpp"
#include "core/errors.hpp"
#include "core/generators.hpp"
#include "reference/reference_generators.hpp"

namespace {

using fgdd::GeneratedProblem;
using fgdd::HostMatrixArrays;
using fgdd::Offset;
using fgdd::SparseMatrix;

// The device matrix copied to the host.
HostMatrixArrays to_host(const SparseMatrix& A) {
  HostMatrixArrays host;
  host.num_block_rows = A.num_block_rows();
  host.num_block_cols = A.num_block_rows();
  host.block_size = A.block_size();
  const auto row_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.row_map());
  const auto col_ind = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.col_ind());
  const auto values = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.values());
  host.row_map.assign(row_map.data(), row_map.data() + row_map.extent(0));
  host.col_ind.assign(col_ind.data(), col_ind.data() + col_ind.extent(0));
  host.values.assign(values.data(), values.data() + values.extent(0));
  return host;
}

// Block (i, j) of A, or nullptr if it is not stored.
const double* find_block(const HostMatrixArrays& A, int i, int j) {
  const auto begin = A.col_ind.begin() + A.row_map[i];
  const auto end = A.col_ind.begin() + A.row_map[i + 1];
  const auto it = std::lower_bound(begin, end, j);
  if (it == end || *it != j) return nullptr;
  const std::size_t b2 = std::size_t(A.block_size) * A.block_size;
  return A.values.data() + (it - A.col_ind.begin()) * b2;
}

// Same structure exactly, values equal up to a few rounding errors (the device may fuse
// multiply-adds or sum in another order).
void require_equal_to_reference(const HostMatrixArrays& A, const HostMatrixArrays& reference) {
  REQUIRE(A.num_block_rows == reference.num_block_rows);
  REQUIRE(A.block_size == reference.block_size);
  REQUIRE(A.row_map == reference.row_map);
  REQUIRE(A.col_ind == reference.col_ind);
  REQUIRE(A.values.size() == reference.values.size());
  for (std::size_t k = 0; k < A.values.size(); ++k) {
    INFO("value " << k << ": " << A.values[k] << " vs reference " << reference.values[k]);
    REQUIRE(std::abs(A.values[k] - reference.values[k]) <=
            1e-13 * std::max(1.0, std::abs(reference.values[k])));
  }
}

// True if A == Aᵀ bit for bit (block (i, j) is the transpose of block (j, i)).
bool is_exactly_symmetric(const HostMatrixArrays& A) {
  const int b = A.block_size;
  for (int i = 0; i < A.num_block_rows; ++i) {
    for (Offset k = A.row_map[i]; k < A.row_map[i + 1]; ++k) {
      const int j = A.col_ind[k];
      const double* block = A.values.data() + k * b * b;
      const double* mirror = find_block(A, j, i);
      if (mirror == nullptr) return false;
      for (int r = 0; r < b; ++r) {
        for (int c = 0; c < b; ++c) {
          if (block[r * b + c] != mirror[c * b + r]) return false;
        }
      }
    }
  }
  return true;
}

Offset faces(int nx, int ny, int nz) {
  return Offset(nx - 1) * ny * nz + Offset(nx) * (ny - 1) * nz + Offset(nx) * ny * (nz - 1);
}
// Stored blocks of the 7-point stencil: the diagonal plus both directions of every face.
Offset stencil7_blocks(int nx, int ny, int nz) {
  return Offset(nx) * ny * nz + 2 * faces(nx, ny, nz);
}
// 27-point: per axis, pairs (i, i') with |i - i'| <= 1 number 3n - 2.
Offset stencil27_blocks(int nx, int ny, int nz) {
  return Offset(3 * nx - 2) * (3 * ny - 2) * (3 * nz - 2);
}

bool is_interior(int row, int nx, int ny, int nz) {
  const int x = row % nx, y = (row / nx) % ny, z = row / nx / ny;
  return x > 0 && x < nx - 1 && y > 0 && y < ny - 1 && z > 0 && z < nz - 1;
}

// Scalar row r's diagonal minus the sum of |off-diagonals|.
std::vector<double> dominance_margins(const HostMatrixArrays& A) {
  const int b = A.block_size;
  std::vector<double> margins;
  for (int i = 0; i < A.num_block_rows; ++i) {
    for (int r = 0; r < b; ++r) {
      double margin = 0.0;
      for (Offset k = A.row_map[i]; k < A.row_map[i + 1]; ++k) {
        for (int c = 0; c < b; ++c) {
          const double v = A.values[k * b * b + r * b + c];
          const bool diagonal = A.col_ind[k] == i && c == r;
          margin += diagonal ? v : -std::abs(v);
        }
      }
      margins.push_back(margin);
    }
  }
  return margins;
}

void require_grid(const GeneratedProblem& problem, int nx, int ny, int nz) {
  REQUIRE(problem.grid.nx == nx);
  REQUIRE(problem.grid.ny == ny);
  REQUIRE(problem.grid.nz == nz);
  REQUIRE(problem.grid.num_points() == Offset(problem.matrix.num_block_rows()));
  REQUIRE_FALSE(problem.description.empty());
}

void require_bitwise_equal(const GeneratedProblem& a, const GeneratedProblem& b) {
  const HostMatrixArrays ha = to_host(a.matrix);
  const HostMatrixArrays hb = to_host(b.matrix);
  REQUIRE(ha.row_map == hb.row_map);
  REQUIRE(ha.col_ind == hb.col_ind);
  REQUIRE(ha.values.size() == hb.values.size());
  REQUIRE(std::memcmp(ha.values.data(), hb.values.data(), ha.values.size() * sizeof(double)) == 0);
}

// The message of the InvalidInput that make() throws ("" if it throws nothing).
template <class Make>
std::string invalid_input_message(const Make& make) {
  try {
    make();
  } catch (const fgdd::InvalidInput& error) {
    return error.what();
  }
  return "";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

struct Grid {
  int nx, ny, nz;
};
const Grid test_grids[] = {{5, 4, 3}, {7, 6, 5}, {1, 1, 1}, {1, 6, 1}, {2, 1, 3}};

}  // namespace

TEST_CASE("laplace7 matches the reference, is symmetric, rows sum to 0 inside",
          "[core][generators]") {
  for (const Grid g : test_grids) {
    INFO("grid " << g.nx << "x" << g.ny << "x" << g.nz);
    const GeneratedProblem problem = fgdd::laplace7(g.nx, g.ny, g.nz);
    const HostMatrixArrays A = to_host(problem.matrix);

    require_grid(problem, g.nx, g.ny, g.nz);
    REQUIRE(problem.matrix.block_size() == 1);
    REQUIRE(problem.matrix.num_entries() == stencil7_blocks(g.nx, g.ny, g.nz));
    require_equal_to_reference(A, fgdd::reference::laplace7(g.nx, g.ny, g.nz));
    REQUIRE(is_exactly_symmetric(A));
    const std::vector<double> margins = dominance_margins(A);
    for (int row = 0; row < A.num_block_rows; ++row) {
      if (is_interior(row, g.nx, g.ny, g.nz)) {
        REQUIRE(margins[row] == 0.0);
      } else {
        REQUIRE(margins[row] > 0.0);
      }
    }
  }
}

TEST_CASE("laplace27 matches the reference and is symmetric", "[core][generators]") {
  for (const Grid g : test_grids) {
    INFO("grid " << g.nx << "x" << g.ny << "x" << g.nz);
    const GeneratedProblem problem = fgdd::laplace27(g.nx, g.ny, g.nz);
    const HostMatrixArrays A = to_host(problem.matrix);

    require_grid(problem, g.nx, g.ny, g.nz);
    REQUIRE(problem.matrix.num_entries() == stencil27_blocks(g.nx, g.ny, g.nz));
    require_equal_to_reference(A, fgdd::reference::laplace27(g.nx, g.ny, g.nz));
    REQUIRE(is_exactly_symmetric(A));
    const std::vector<double> margins = dominance_margins(A);
    for (int row = 0; row < A.num_block_rows; ++row) {
      REQUIRE(margins[row] >= 0.0);
      if (is_interior(row, g.nx, g.ny, g.nz)) REQUIRE(margins[row] == 0.0);
    }
  }
}

TEST_CASE("convection_diffusion is an upwind nonsymmetric M-matrix", "[core][generators]") {
  SECTION("every test grid") {
    for (const int n : {1, 2, 5, 7}) {
      INFO("n = " << n);
      const GeneratedProblem problem = fgdd::convection_diffusion(n, 10.0);
      const HostMatrixArrays A = to_host(problem.matrix);

      require_grid(problem, n, n, n);
      REQUIRE(problem.matrix.num_entries() == stencil7_blocks(n, n, n));
      require_equal_to_reference(A, fgdd::reference::convection_diffusion(n, 10.0));
      if (n > 1) REQUIRE_FALSE(is_exactly_symmetric(A));
      const std::vector<double> margins = dominance_margins(A);
      for (int row = 0; row < A.num_block_rows; ++row) {
        for (Offset k = A.row_map[row]; k < A.row_map[row + 1]; ++k) {
          if (A.col_ind[k] != row) REQUIRE(A.values[k] < 0.0);
        }
        if (is_interior(row, n, n, n)) {
          REQUIRE(std::abs(margins[row]) <= 1e-13);
        } else {
          REQUIRE(margins[row] > 0.0);
        }
      }
    }
  }

  SECTION("the upwind neighbour is x-1 and carries -1 - peclet*h") {
    const int n = 3;
    const double h = 0.25;
    const HostMatrixArrays A = to_host(fgdd::convection_diffusion(n, 8.0).matrix);
    const int center = 1 + n * (1 + n * 1);
    REQUIRE(*find_block(A, center, center) == FGDD_CATCH_APPROX(6.0 + 3.0 * 8.0 * h));
    REQUIRE(*find_block(A, center, center - 1) == FGDD_CATCH_APPROX(-1.0 - 8.0 * h));
    REQUIRE(*find_block(A, center, center + 1) == -1.0);
    REQUIRE(*find_block(A, center, center - n * n) == FGDD_CATCH_APPROX(-1.0 - 8.0 * h));
    REQUIRE(*find_block(A, center, center + n * n) == -1.0);
  }

  SECTION("reversing the flow transposes the matrix; zero flow is the Laplacian") {
    const HostMatrixArrays forward = to_host(fgdd::convection_diffusion(5, 3.0).matrix);
    const HostMatrixArrays backward = to_host(fgdd::convection_diffusion(5, -3.0).matrix);
    require_equal_to_reference(backward, fgdd::reference::convection_diffusion(5, -3.0));
    for (int i = 0; i < forward.num_block_rows; ++i) {
      for (Offset k = forward.row_map[i]; k < forward.row_map[i + 1]; ++k) {
        REQUIRE(*find_block(backward, forward.col_ind[k], i) == forward.values[k]);
      }
    }
    const HostMatrixArrays still = to_host(fgdd::convection_diffusion(4, 0.0).matrix);
    REQUIRE(still.values == fgdd::reference::laplace7(4, 4, 4).values);
  }

  SECTION("a non-finite Peclet number is rejected") {
    REQUIRE_THROWS_AS(fgdd::convection_diffusion(4, std::numeric_limits<double>::quiet_NaN()),
                      fgdd::InvalidInput);
    REQUIRE_THROWS_AS(fgdd::convection_diffusion(4, std::numeric_limits<double>::infinity()),
                      fgdd::InvalidInput);
  }
}

TEST_CASE("reservoir_pressure matches the reference, is symmetric and dominant",
          "[core][generators]") {
  SECTION("every test grid") {
    for (const Grid g : test_grids) {
      INFO("grid " << g.nx << "x" << g.ny << "x" << g.nz);
      const GeneratedProblem problem = fgdd::reservoir_pressure(g.nx, g.ny, g.nz, 2026);
      const HostMatrixArrays A = to_host(problem.matrix);

      require_grid(problem, g.nx, g.ny, g.nz);
      REQUIRE(problem.matrix.num_entries() == stencil7_blocks(g.nx, g.ny, g.nz));
      const HostMatrixArrays reference =
          fgdd::reference::reservoir_pressure(g.nx, g.ny, g.nz, 2026);
      require_equal_to_reference(A, reference);
      REQUIRE(is_exactly_symmetric(A));
      // Every row is dominant by exactly the accumulation term, the same for all rows.
      const std::vector<double> margins = dominance_margins(A);
      const std::vector<double> reference_margins = dominance_margins(reference);
      REQUIRE(reference_margins[0] > 0.0);
      for (std::size_t row = 0; row < margins.size(); ++row) {
        REQUIRE(margins[row] > 0.0);
        REQUIRE(margins[row] == FGDD_CATCH_APPROX(reference_margins[0]).epsilon(1e-6));
      }
    }
  }

  SECTION("vertical transmissibilities are 10x weaker, as kz = 0.1 kx") {
    const auto k = fgdd::reference::reservoir_permeability(3, 3, 3, 2026);
    const HostMatrixArrays A = to_host(fgdd::reservoir_pressure(3, 3, 3, 2026).matrix);
    const int c = 13, up = c + 9, right = c + 1;
    const auto harmonic = [](double a, double b) { return 2 * a * b / (a + b); };
    REQUIRE(-*find_block(A, c, right) == FGDD_CATCH_APPROX(harmonic(k[c], k[right])));
    REQUIRE(-*find_block(A, c, up) == FGDD_CATCH_APPROX(0.1 * harmonic(k[c], k[up])));
  }

  SECTION("another seed gives another matrix") {
    const HostMatrixArrays a = to_host(fgdd::reservoir_pressure(5, 4, 3, 1).matrix);
    const HostMatrixArrays b = to_host(fgdd::reservoir_pressure(5, 4, 3, 2).matrix);
    REQUIRE(a.col_ind == b.col_ind);
    REQUIRE(a.values != b.values);
  }
}

TEST_CASE("reservoir permeability is lognormal with layered means", "[core][generators]") {
  const int nx = 40, ny = 40, nz = 6;
  const auto device_k = fgdd::detail::reservoir_permeability(nx, ny, nz, 2026);
  const auto k = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), device_k);
  const auto reference = fgdd::reference::reservoir_permeability(nx, ny, nz, 2026);
  std::vector<double> layer_means;
  for (int z = 0; z < nz; ++z) {
    double sum = 0.0, sum_squares = 0.0;
    for (int cell = z * nx * ny; cell < (z + 1) * nx * ny; ++cell) {
      REQUIRE(k(cell) == FGDD_CATCH_APPROX(reference[cell]).epsilon(1e-13));
      sum += std::log(k(cell));
      sum_squares += std::log(k(cell)) * std::log(k(cell));
    }
    const double mean = sum / (nx * ny);
    const double std_dev = std::sqrt(sum_squares / (nx * ny) - mean * mean);
    INFO("layer " << z << ": mean of log k " << mean << ", std " << std_dev);
    REQUIRE(std_dev > 0.9);
    REQUIRE(std_dev < 1.1);
    layer_means.push_back(mean);
  }
  const auto [lowest, highest] = std::minmax_element(layer_means.begin(), layer_means.end());
  REQUIRE(*highest - *lowest > 1.0);  // layers differ by more than the within-layer noise
}

TEST_CASE("multicomponent_bsr3 has nonsymmetric 3x3 blocks and dominant rows",
          "[core][generators]") {
  SECTION("every test grid") {
    for (const int n : {1, 2, 5}) {
      INFO("n = " << n);
      const GeneratedProblem problem = fgdd::multicomponent_bsr3(n);
      const HostMatrixArrays A = to_host(problem.matrix);

      require_grid(problem, n, n, n);
      REQUIRE(problem.matrix.block_size() == 3);
      REQUIRE(problem.matrix.num_rows() == Offset(3) * n * n * n);
      REQUIRE(problem.matrix.num_block_entries() == stencil7_blocks(n, n, n));
      REQUIRE(problem.matrix.num_entries() == 9 * stencil7_blocks(n, n, n));
      require_equal_to_reference(A, fgdd::reference::multicomponent_bsr3(n));
      REQUIRE_FALSE(is_exactly_symmetric(A));
      for (const double margin : dominance_margins(A)) REQUIRE(margin >= 0.45 - 1e-12);
    }
  }

  SECTION("the diagonal block and an off-diagonal block are themselves nonsymmetric") {
    const HostMatrixArrays A = to_host(fgdd::multicomponent_bsr3(3).matrix);
    const double* diagonal = find_block(A, 13, 13);
    const double* west = find_block(A, 13, 12);
    const double* east = find_block(A, 13, 14);
    REQUIRE(diagonal[1] != diagonal[3]);
    REQUIRE(west[1] != west[3]);
    REQUIRE(west[1] != east[1]);  // upwind and downwind differ
  }
}

TEST_CASE("generators are deterministic", "[core][generators]") {
  require_bitwise_equal(fgdd::laplace7(7, 6, 5), fgdd::laplace7(7, 6, 5));
  require_bitwise_equal(fgdd::laplace27(7, 6, 5), fgdd::laplace27(7, 6, 5));
  require_bitwise_equal(fgdd::convection_diffusion(6, 10.0), fgdd::convection_diffusion(6, 10.0));
  require_bitwise_equal(fgdd::reservoir_pressure(7, 6, 5, 9), fgdd::reservoir_pressure(7, 6, 5, 9));
  require_bitwise_equal(fgdd::multicomponent_bsr3(5), fgdd::multicomponent_bsr3(5));
}

TEST_CASE("generators reject bad dimensions", "[core][generators]") {
  REQUIRE_THROWS_AS(fgdd::laplace7(0, 3, 3), fgdd::InvalidInput);
  REQUIRE_THROWS_AS(fgdd::laplace27(3, -1, 3), fgdd::InvalidInput);
  REQUIRE_THROWS_AS(fgdd::reservoir_pressure(3, 3, 0), fgdd::InvalidInput);
  REQUIRE_THROWS_AS(fgdd::convection_diffusion(0), fgdd::InvalidInput);
  REQUIRE_THROWS_AS(fgdd::multicomponent_bsr3(0), fgdd::InvalidInput);
  REQUIRE(
      contains(invalid_input_message([] { fgdd::laplace7(2000, 2000, 2000); }), "overflows int"));
  // 900³ points fit in int, 3 × 900³ scalar rows do not.
  REQUIRE(contains(invalid_input_message([] { fgdd::multicomponent_bsr3(900); }), "overflows int"));
}

TEST_CASE("generate_problem parses every valid spec", "[core][generators]") {
  const GeneratedProblem lap7 = fgdd::generate_problem("gen:lap7:4");
  require_grid(lap7, 4, 4, 4);
  REQUIRE(lap7.matrix.num_entries() == stencil7_blocks(4, 4, 4));

  const GeneratedProblem lap7_box = fgdd::generate_problem("gen:lap7:5:4:3");
  require_grid(lap7_box, 5, 4, 3);
  require_equal_to_reference(to_host(lap7_box.matrix), fgdd::reference::laplace7(5, 4, 3));

  const GeneratedProblem lap27 = fgdd::generate_problem("gen:lap27:3");
  require_grid(lap27, 3, 3, 3);
  REQUIRE(lap27.matrix.num_entries() == stencil27_blocks(3, 3, 3));

  const GeneratedProblem lap27_box = fgdd::generate_problem("gen:lap27:5:4:3");
  require_grid(lap27_box, 5, 4, 3);
  require_equal_to_reference(to_host(lap27_box.matrix), fgdd::reference::laplace27(5, 4, 3));

  const GeneratedProblem convdiff = fgdd::generate_problem("gen:convdiff:4");
  require_grid(convdiff, 4, 4, 4);
  require_equal_to_reference(to_host(convdiff.matrix),
                             fgdd::reference::convection_diffusion(4, 10.0));
  const GeneratedProblem high_peclet = fgdd::generate_problem("gen:convdiff:4:pe1000");
  require_grid(high_peclet, 4, 4, 4);
  require_equal_to_reference(to_host(high_peclet.matrix),
                             fgdd::reference::convection_diffusion(4, 1000.0));
  require_equal_to_reference(to_host(fgdd::generate_problem("gen:convdiff:3:pe-2.5").matrix),
                             fgdd::reference::convection_diffusion(3, -2.5));

  const GeneratedProblem reservoir = fgdd::generate_problem("gen:reservoir:5:4:3");
  require_grid(reservoir, 5, 4, 3);
  require_equal_to_reference(to_host(reservoir.matrix),
                             fgdd::reference::reservoir_pressure(5, 4, 3, 2026));

  const GeneratedProblem bsr3 = fgdd::generate_problem("gen:bsr3:3");
  require_grid(bsr3, 3, 3, 3);
  REQUIRE(bsr3.matrix.block_size() == 3);

  const GeneratedProblem spe10 = fgdd::generate_problem("gen:reservoir");
  require_grid(spe10, 60, 220, 85);
  REQUIRE(spe10.matrix.num_entries() == stencil7_blocks(60, 220, 85));

  REQUIRE(fgdd::is_generator_spec("gen:lap7:4"));
  REQUIRE_FALSE(fgdd::is_generator_spec("matrix.mtx"));
}

TEST_CASE("generate_problem names the bad part of an invalid spec", "[core][generators]") {
  struct BadSpec {
    const char* spec;
    const char* named;  // what the message must contain
  };
  const BadSpec bad_specs[] = {
      {"", "\"gen:\""},
      {"lap7:4", "\"gen:\""},
      {"gen", "missing generator kind"},
      {"gen:", "unknown generator kind \"\""},
      {"gen:lap9:4", "\"lap9\""},
      {"gen:lap7", "no size"},
      {"gen:lap7:", "empty size"},
      {"gen:lap7::4:4", "empty size"},
      {"gen:lap7:0", "\"0\" must be at least 1"},
      {"gen:lap7:-3", "\"-3\" must be at least 1"},
      {"gen:lap7:abc", "\"abc\" is not a whole number"},
      {"gen:lap7:4x", "\"4x\" is not a whole number"},
      {"gen:lap7:4 ", "\"4 \" is not a whole number"},
      {"gen:lap7:+4", "\"+4\" is not a whole number"},
      {"gen:lap7:4.0", "\"4.0\" is not a whole number"},
      {"gen:lap7:4:5", "got 2 sizes"},
      {"gen:lap7:1:2:3:9", "extra part \"9\""},
      {"gen:lap27:3:3", "got 2 sizes"},
      {"gen:convdiff:3:8:9", "extra part \"8\""},
      {"gen:convdiff:3:pe", "Peclet \"pe\""},
      {"gen:convdiff:3:pe1e3x", "Peclet \"pe1e3x\""},
      {"gen:convdiff:3:penan", "Peclet \"penan\""},
      {"gen:convdiff:pe100", "no size"},
      {"gen:lap7:4:pe100", "\"pe100\" is not a whole number"},
      {"gen:bsr3:4:7", "extra part \"7\""},
      {"gen:reservoir:5", "got 1 size"},
      {"gen:reservoir:5:4:3:2", "extra part \"2\""},
      {"gen:lap7:2000", "overflows int"},
      {"gen:lap7:3000000000", "\"3000000000\" overflows int"},
      {"gen:lap7:99999999999999999999999", "overflows int"},
      {"gen:bsr3:900", "overflows int"},
  };
  for (const BadSpec& bad : bad_specs) {
    INFO("spec \"" << bad.spec << "\"");
    const std::string message = invalid_input_message([&] { fgdd::generate_problem(bad.spec); });
    INFO("message: " << message);
    REQUIRE(contains(message, bad.named));
    REQUIRE(contains(message, "valid forms: gen:lap7:N, gen:lap7:NX:NY:NZ"));
  }
}

TEST_CASE("generate_planes gives the whole problem's rows bitwise, with global columns",
          "[core][generators]") {
  // Every generator kind on odd grids; plane ranges: one plane at either end and inside, an
  // uneven split into three, and all planes.
  for (const char* spec : {"gen:lap7:5:4:7", "gen:lap27:3:5:6", "gen:convdiff:5",
                           "gen:reservoir:4:3:7", "gen:bsr3:3", "gen:lap7:3:2:1"}) {
    INFO(spec);
    const GeneratedProblem whole = fgdd::generate_problem(spec);
    const HostMatrixArrays all = to_host(whole.matrix);
    const fgdd::GridInfo grid = fgdd::generated_grid(spec);
    REQUIRE(grid.nx == whole.grid.nx);
    REQUIRE(grid.ny == whole.grid.ny);
    REQUIRE(grid.nz == whole.grid.nz);
    const int nz = grid.nz, plane = grid.nx * grid.ny;
    const std::size_t b2 = std::size_t(all.block_size) * all.block_size;
    std::vector<std::pair<int, int>> ranges = {{0, 1}, {nz - 1, nz}, {nz / 2, nz / 2 + 1},
                                               {0, nz}, {0, nz / 3}, {nz / 3, nz - 1}};
    for (const auto& [first, last] : ranges) {
      if (first >= last) continue;
      INFO("planes [" << first << ", " << last << ")");
      const fgdd::GeneratedPlanes planes = fgdd::generate_planes(spec, first, last);
      const HostMatrixArrays& rows = planes.rows;
      REQUIRE(planes.first_z == first);
      REQUIRE(planes.last_z == last);
      REQUIRE(planes.grid.nz == nz);
      REQUIRE(rows.block_size == all.block_size);
      REQUIRE(rows.num_block_rows == (last - first) * plane);
      REQUIRE(rows.num_block_cols == all.num_block_rows);
      REQUIRE(contains(planes.description, "planes"));
      const Offset begin = all.row_map[std::size_t(first) * plane];
      const Offset end = all.row_map[std::size_t(last) * plane];
      REQUIRE(rows.row_map.size() == std::size_t(rows.num_block_rows) + 1);
      for (std::size_t r = 0; r < rows.row_map.size(); ++r)
        REQUIRE(rows.row_map[r] == all.row_map[std::size_t(first) * plane + r] - begin);
      REQUIRE(rows.col_ind == std::vector<fgdd::Ordinal>(all.col_ind.begin() + begin,
                                                         all.col_ind.begin() + end));
      REQUIRE(rows.values.size() == std::size_t(end - begin) * b2);
      REQUIRE(std::memcmp(rows.values.data(), all.values.data() + begin * b2,
                          rows.values.size() * sizeof(double)) == 0);
    }
  }
}

TEST_CASE("generate_planes refuses a plane range outside the grid or empty",
          "[core][generators]") {
  for (const std::pair<int, int>& range : {std::pair{-1, 2}, {0, 0}, {3, 2}, {0, 5}, {4, 5}}) {
    const int first = range.first, last = range.second;  // lambdas cannot capture bindings
    INFO("planes [" << first << ", " << last << ")");
    const std::string message =
        invalid_input_message([&] { fgdd::generate_planes("gen:lap7:3:3:4", first, last); });
    REQUIRE(contains(message, "not a nonempty range of the 4 planes of gen:lap7:3:3:4"));
  }
  REQUIRE(contains(invalid_input_message([] { fgdd::generate_planes("gen:lap9:4", 0, 1); }),
                   "unknown generator kind"));
  REQUIRE(contains(invalid_input_message([] { fgdd::generated_grid("gen:lap7:0"); }),
                   "must be at least 1"));
}
