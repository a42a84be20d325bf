// Test-problem generators: one device stencil-assembly routine (count, scan, fill) shared by all
// problems, each problem a small coefficient policy; plus the host-side spec parser.
#include "core/generators.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "core/errors.hpp"
#include "core/exclusive_scan.hpp"
#include "core/host_copy.hpp"
#include "core/kokkos_compat.hpp"
#include "core/matrix_build.hpp"

namespace fgdd {
// Internals get their own namespace: external linkage (CUDA extended lambdas dislike anonymous
// namespaces) without clashing with other files' fgdd::detail names.
namespace detail::generators {

// Offsets (dx, dy, dz) of a stencil in lexicographic (dz, dy, dx) order. Row (x, y, z) is
// x + nx * (y + ny * z), so visiting in-grid neighbours in this order yields sorted columns.
struct Stencil {
  static constexpr int max_size = 27;
  int size = 0;
  int dx[max_size] = {};
  int dy[max_size] = {};
  int dz[max_size] = {};
};

// The 7-point (faces) or 27-point (faces, edges, corners) stencil, diagonal included.
Stencil make_stencil(bool with_edges_and_corners) {
  Stencil stencil;
  for (int dz = -1; dz <= 1; ++dz) {
    for (int dy = -1; dy <= 1; ++dy) {
      for (int dx = -1; dx <= 1; ++dx) {
        const int distance = (dx != 0) + (dy != 0) + (dz != 0);
        if (!with_edges_and_corners && distance > 1) continue;
        stencil.dx[stencil.size] = dx;
        stencil.dy[stencil.size] = dy;
        stencil.dz[stencil.size] = dz;
        ++stencil.size;
      }
    }
  }
  return stencil;
}

KOKKOS_INLINE_FUNCTION bool inside(Ordinal i, int d, Ordinal n) { return i + d >= 0 && i + d < n; }

// The block rows of planes [first_z, last_z) of a stencil's matrix on a grid, with global
// block columns, on the device (row_map from 0).
struct AssembledRows {
  Kokkos::View<Offset*, DeviceType> row_map;
  SparseMatrix::ColumnIndices col_ind;
  SparseMatrix::Values values;
};

// Assembles the rows, entirely on the device: one kernel counts the in-grid neighbours of every
// row, a scan turns counts into the row map, one kernel writes sorted columns and asks the
// coefficient policy for each b×b block (row-major). A policy is
//   void operator()(Ordinal x, Ordinal y, Ordinal z, int dx, int dy, int dz, Scalar* block) const
// called only for in-grid neighbours; (dx, dy, dz) = (0, 0, 0) is the diagonal block. A row's
// entries depend on its grid point only, so any plane range gives the whole matrix's rows.
template <class Coefficients>
AssembledRows assemble_stencil_rows(const GridInfo& grid, const Stencil& stencil_in,
                                    int block_size, const Coefficients& coefficients_in,
                                    Ordinal first_z, Ordinal last_z) {
  const Ordinal nx = grid.nx;
  const Ordinal ny = grid.ny;
  const Ordinal nz = grid.nz;
  const Ordinal first_row = first_z * nx * ny;
  const Ordinal n = (last_z - first_z) * nx * ny;
  const Stencil stencil = stencil_in;
  const Coefficients coefficients = coefficients_in;
  const Offset block_entries = Offset(block_size) * Offset(block_size);

  AssembledRows rows;
  rows.row_map = Kokkos::View<Offset*, DeviceType>("fgdd::generators::row_map", Offset(n) + 1);
  const auto row_map = rows.row_map;
  Kokkos::parallel_for(
      "fgdd::generators::count_entries", Kokkos::RangePolicy<ExecSpace>(0, n),
      KOKKOS_LAMBDA(const Ordinal local) {
        const Ordinal row = first_row + local;
        const Ordinal x = row % nx;
        const Ordinal y = (row / nx) % ny;
        const Ordinal z = row / nx / ny;
        Offset count = 0;
        for (int s = 0; s < stencil.size; ++s) {
          count += inside(x, stencil.dx[s], nx) && inside(y, stencil.dy[s], ny) &&
                   inside(z, stencil.dz[s], nz);
        }
        row_map(local) = count;
      });
  // row_map(n) is 0 from the allocation, so an exclusive scan over n + 1 entries ends with the
  // entry count.
  const Offset num_blocks =
      exclusive_scan_in_place(ExecSpace(), "fgdd::generators::row_map_scan", row_map);

  rows.col_ind = SparseMatrix::ColumnIndices(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::generators::col_ind"), num_blocks);
  rows.values = SparseMatrix::Values(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::generators::values"),
      num_blocks * block_entries);
  const auto col_ind = rows.col_ind;
  const auto values = rows.values;
  Kokkos::parallel_for(
      "fgdd::generators::fill_entries", Kokkos::RangePolicy<ExecSpace>(0, n),
      KOKKOS_LAMBDA(const Ordinal local) {
        const Ordinal row = first_row + local;
        const Ordinal x = row % nx;
        const Ordinal y = (row / nx) % ny;
        const Ordinal z = row / nx / ny;
        Offset k = row_map(local);
        for (int s = 0; s < stencil.size; ++s) {
          const int dx = stencil.dx[s];
          const int dy = stencil.dy[s];
          const int dz = stencil.dz[s];
          if (!(inside(x, dx, nx) && inside(y, dy, ny) && inside(z, dz, nz))) continue;
          col_ind(k) = (x + dx) + nx * ((y + dy) + ny * (z + dz));
          coefficients(x, y, z, dx, dy, dz, values.data() + k * block_entries);
          ++k;
        }
      });
  return rows;
}

// lap7 / lap27: the classic SPD model problems; the diagonal stays 6 (26) at the boundary, as
// with Dirichlet values eliminated, so boundary rows are strictly diagonally dominant.
struct LaplaceCoefficients {
  double diagonal;
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal, Ordinal, Ordinal, int dx, int dy, int dz,
                                         Scalar* block) const {
    block[0] = (dx == 0 && dy == 0 && dz == 0) ? diagonal : -1.0;
  }
};

// convdiff: h² (-Δu + w·∇u) with w = (p, p, p). Diffusion gives 6 / -1; first-order upwind
// convection adds |p| h to the diagonal and -|p| h to the upwind neighbour per axis (the -1
// side for p >= 0), so interior rows sum to 0 and every off-diagonal is negative: an M-matrix.
struct ConvectionDiffusionCoefficients {
  double cell_peclet;  // |p| h
  int upwind;          // the offset of the upwind neighbour along each axis: -1 or +1
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal, Ordinal, Ordinal, int dx, int dy, int dz,
                                         Scalar* block) const {
    if (dx == 0 && dy == 0 && dz == 0) {
      block[0] = 6.0 + 3.0 * cell_peclet;
    } else {
      block[0] = (dx + dy + dz == upwind) ? -1.0 - cell_peclet : -1.0;
    }
  }
};

// Counter-based random numbers, so every cell's value depends only on (seed, stream, index):
// identical run to run and on every backend (up to libm rounding of log/cos/exp).
KOKKOS_INLINE_FUNCTION std::uint64_t splitmix64(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

KOKKOS_INLINE_FUNCTION std::uint64_t counter_hash(std::uint64_t seed, std::uint64_t stream,
                                                  std::uint64_t counter) {
  return splitmix64(splitmix64(splitmix64(seed) ^ stream) ^ counter);
}

// Box-Muller (cosine branch) from two hashed uniforms; u1 in (0, 1] keeps the log finite.
KOKKOS_INLINE_FUNCTION double standard_normal(std::uint64_t seed, std::uint64_t stream,
                                              std::uint64_t counter) {
  constexpr double two_pow_minus_53 = 1.0 / 9007199254740992.0;
  constexpr double two_pi = 6.283185307179586476925286766559;
  const double u1 = double((counter_hash(seed, stream, 2 * counter) >> 11) + 1) * two_pow_minus_53;
  const double u2 = double(counter_hash(seed, stream, 2 * counter + 1) >> 11) * two_pow_minus_53;
  return detail::sqrt(-2.0 * detail::log(u1)) * detail::cos(two_pi * u2);
}

// Seeds streams of the reservoir's random field.
constexpr std::uint64_t layer_stream = 1;
constexpr std::uint64_t cell_stream = 2;

// A cell's x-permeability: log k = layer mean + N(0, 1), with layer means ~ N(0, 1.5²), which
// gives SPE10-like layers several orders of magnitude apart; the within-layer std of 1.0 gives
// the channel-scale contrast.
KOKKOS_INLINE_FUNCTION double cell_permeability(std::uint64_t seed, Ordinal layer_size,
                                                Ordinal cell) {
  const Ordinal layer = cell / layer_size;
  const double log_k = 1.5 * standard_normal(seed, layer_stream, std::uint64_t(layer)) +
                       1.0 * standard_normal(seed, cell_stream, std::uint64_t(cell));
  return detail::exp(log_k);
}

// The harmonic average 2 k_i k_j / (k_i + k_j) along the face normal (kz = 0.1 kx), written so
// both cells of a face compute the same bits.
KOKKOS_INLINE_FUNCTION double face_transmissibility(double k_cell, double k_neighbour, int dz) {
  const double anisotropy = dz != 0 ? 0.1 : 1.0;
  const double k_i = anisotropy * k_cell;
  const double k_j = anisotropy * k_neighbour;
  return 2.0 * (k_i * k_j) / (k_i + k_j);
}

// reservoir: two-point flux approximation on unit cells. Transmissibility between neighbours is
// face_transmissibility, so A == Aᵀ exactly. Faces on the grid boundary are no-flow (nothing
// added), and the diagonal adds an accumulation term (compressibility / time step) = 1e-3 × mean
// transmissibility, which makes the matrix SPD and nonsingular with every row diagonally
// dominant by that margin.
struct ReservoirCoefficients {
  Ordinal nx, ny, nz;
  Kokkos::View<const double*, DeviceType> permeability;  // kx = ky of cells from first_cell
  Ordinal first_cell;
  double accumulation;

  KOKKOS_INLINE_FUNCTION double transmissibility(Ordinal cell, Ordinal neighbour, int dz) const {
    return face_transmissibility(permeability(cell - first_cell),
                                 permeability(neighbour - first_cell), dz);
  }

  KOKKOS_INLINE_FUNCTION void operator()(Ordinal x, Ordinal y, Ordinal z, int dx, int dy, int dz,
                                         Scalar* block) const {
    const Ordinal cell = x + nx * (y + ny * z);
    if (dx != 0 || dy != 0 || dz != 0) {
      block[0] = -transmissibility(cell, (x + dx) + nx * ((y + dy) + ny * (z + dz)), dz);
      return;
    }
    double sum = accumulation;
    for (int face = 0; face < 6; ++face) {
      const int axis = face / 2;
      const int d = (face % 2 == 0) ? -1 : 1;
      const int fx = axis == 0 ? d : 0;
      const int fy = axis == 1 ? d : 0;
      const int fz = axis == 2 ? d : 0;
      if (!(inside(x, fx, nx) && inside(y, fy, ny) && inside(z, fz, nz))) continue;
      sum += transmissibility(cell, (x + fx) + nx * ((y + fy) + ny * (z + fz)), fz);
    }
    block[0] = sum;
  }
};

// bsr3: 3 coupled unknowns per point. Diagonal block 6 I + C, off-diagonal block -(I + E), with
//   C = [[1.0, 0.2, 0], [0.1, 1.0, 0.3], [0, 0.2, 1.0]]   (nonsymmetric coupling; its diagonal is
//        1.0 rather than 0.5 so that every scalar row is strictly dominant, also in the interior)
//   E = 0.1 (upwind, -1 side) or 0.05 (downwind, +1 side) at (0,1) for x, (1,2) for y, (2,0)
//       for z, so blocks are nonsymmetric and A ≠ Aᵀ also between points.
// Row sums of |off-diagonals| are at most 0.4 + 6 + 0.15 = 6.55 < 7 = the diagonal entry.
struct MulticomponentCoefficients {
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal, Ordinal, Ordinal, int dx, int dy, int dz,
                                         Scalar* block) const {
    if (dx == 0 && dy == 0 && dz == 0) {
      // 6 I + C, row-major.
      constexpr double diagonal_block[9] = {7.0, 0.2, 0.0,  //
                                            0.1, 7.0, 0.3,  //
                                            0.0, 0.2, 7.0};
      for (int i = 0; i < 9; ++i) block[i] = diagonal_block[i];
      return;
    }
    // -(I + E): E's one entry sits at (0,1), (1,2) or (2,0) for an x, y or z neighbour.
    const int position = dx != 0 ? 0 * 3 + 1 : (dy != 0 ? 1 * 3 + 2 : 2 * 3 + 0);
    for (int i = 0; i < 9; ++i) block[i] = (i % 4 == 0) ? -1.0 : 0.0;
    block[position] = (dx + dy + dz < 0) ? -0.1 : -0.05;
  }
};

// Throws unless every dimension is >= 1 and nx*ny*nz*block_size fits in Ordinal.
GridInfo checked_grid(const char* generator, long long nx, long long ny, long long nz,
                      int block_size) {
  const std::string name = std::string(generator) + ": grid " + std::to_string(nx) + "x" +
                           std::to_string(ny) + "x" + std::to_string(nz);
  if (nx < 1 || ny < 1 || nz < 1) {
    throw InvalidInput(name + ": every dimension must be at least 1");
  }
  const long long max = std::numeric_limits<Ordinal>::max();
  long long rows = block_size;
  for (const long long d : {nx, ny, nz}) {
    if (d > max / rows) {
      throw InvalidInput(name +
                         (block_size > 1
                              ? " with " + std::to_string(block_size) + " unknowns per point"
                              : std::string()) +
                         ": the row count overflows int (at most " + std::to_string(max) + ")");
    }
    rows *= d;
  }
  GridInfo grid;
  grid.nx = static_cast<Ordinal>(nx);
  grid.ny = static_cast<Ordinal>(ny);
  grid.nz = static_cast<Ordinal>(nz);
  return grid;
}

std::string grid_text(const GridInfo& grid, const SparseMatrix& A) {
  return std::to_string(grid.nx) + "x" + std::to_string(grid.ny) + "x" + std::to_string(grid.nz) +
         " grid, " + std::to_string(A.num_rows()) + " rows, " + std::to_string(A.num_entries()) +
         " entries";
}

// The permeability of the cells of planes [first_z, last_z), on the device.
Kokkos::View<double*, DeviceType> permeability_planes(const GridInfo& grid, std::uint64_t seed,
                                                      Ordinal first_z, Ordinal last_z) {
  const Ordinal layer_size = grid.nx * grid.ny;
  const Ordinal first_cell = first_z * layer_size;
  Kokkos::View<double*, DeviceType> permeability(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::generators::permeability"),
      Offset(last_z - first_z) * layer_size);
  Kokkos::parallel_for(
      "fgdd::generators::reservoir_permeability",
      Kokkos::RangePolicy<ExecSpace>(0, (last_z - first_z) * layer_size),
      KOKKOS_LAMBDA(const Ordinal i) {
        permeability(i) = cell_permeability(seed, layer_size, first_cell + i);
      });
  return permeability;
}

// The accumulation term: 1e-3 × the mean transmissibility over interior faces (or × the mean
// permeability when the grid has no interior face). Computed from the permeabilities drawn on
// the fly, so that a rank building some planes gets the same bits without the whole field.
double reservoir_accumulation(const GridInfo& grid, std::uint64_t seed) {
  const Ordinal nx = grid.nx;
  const Ordinal ny = grid.ny;
  const Ordinal nz = grid.nz;
  const Ordinal layer_size = nx * ny;
  const Offset faces =
      Offset(nx - 1) * ny * nz + Offset(nx) * (ny - 1) * nz + Offset(nx) * ny * (nz - 1);
  const Ordinal n = static_cast<Ordinal>(grid.num_points());
  double sum = 0.0;
  if (faces == 0) {
    Kokkos::parallel_reduce(
        "fgdd::generators::mean_permeability", Kokkos::RangePolicy<ExecSpace>(0, n),
        KOKKOS_LAMBDA(const Ordinal cell, double& partial) {
          partial += cell_permeability(seed, layer_size, cell);
        },
        sum);
    return 1e-3 * sum / double(n);
  }
  Kokkos::parallel_reduce(
      "fgdd::generators::mean_transmissibility", Kokkos::RangePolicy<ExecSpace>(0, n),
      KOKKOS_LAMBDA(const Ordinal cell, double& partial) {
        const Ordinal x = cell % nx;
        const Ordinal y = (cell / nx) % ny;
        const Ordinal z = cell / nx / ny;
        const double k = cell_permeability(seed, layer_size, cell);
        if (x + 1 < nx)
          partial += face_transmissibility(k, cell_permeability(seed, layer_size, cell + 1), 0);
        if (y + 1 < ny)
          partial += face_transmissibility(k, cell_permeability(seed, layer_size, cell + nx), 0);
        if (z + 1 < nz)
          partial += face_transmissibility(
              k, cell_permeability(seed, layer_size, cell + layer_size), 1);
      },
      sum);
  return 1e-3 * sum / double(faces);
}

}  // namespace detail::generators

namespace detail {
Kokkos::View<double*, DeviceType> reservoir_permeability(Ordinal nx, Ordinal ny, Ordinal nz,
                                                         std::uint64_t seed) {
  const GridInfo grid = generators::checked_grid("reservoir_permeability", nx, ny, nz, 1);
  return generators::permeability_planes(grid, seed, 0, grid.nz);
}
}  // namespace detail

namespace detail::generators {

enum class Kind { Lap7, Lap27, ConvDiff, Reservoir, Bsr3 };

// A generator and its parameters.
struct Generator {
  Kind kind;
  double peclet = 10.0;       // ConvDiff
  std::uint64_t seed = 2026;  // Reservoir
};

int block_size_of(Kind kind) { return kind == Kind::Bsr3 ? 3 : 1; }

std::string describe(const Generator& generator) {
  switch (generator.kind) {
    case Kind::Lap7: return "7-point Laplacian (SPD)";
    case Kind::Lap27: return "27-point Laplacian (SPD)";
    case Kind::ConvDiff: {
      std::ostringstream text;
      text << "upwind convection-diffusion (nonsymmetric), Peclet " << generator.peclet;
      return text.str();
    }
    case Kind::Reservoir:
      return "reservoir pressure (TPFA, layered lognormal permeability, seed " +
             std::to_string(generator.seed) + ", SPD)";
    case Kind::Bsr3: return "3-component 7-point system (3x3 nonsymmetric blocks)";
  }
  return "";
}

// The rows of planes [first_z, last_z) of the generator's matrix on grid (checked_grid'ed).
AssembledRows assemble(const Generator& generator, const GridInfo& grid, Ordinal first_z,
                       Ordinal last_z) {
  const Stencil faces = make_stencil(false);
  switch (generator.kind) {
    case Kind::Lap7:
      return assemble_stencil_rows(grid, faces, 1, LaplaceCoefficients{6.0}, first_z, last_z);
    case Kind::Lap27:
      return assemble_stencil_rows(grid, make_stencil(true), 1, LaplaceCoefficients{26.0},
                                   first_z, last_z);
    case Kind::ConvDiff: {
      const double h = 1.0 / (double(grid.nx) + 1.0);
      const ConvectionDiffusionCoefficients coefficients{std::fabs(generator.peclet) * h,
                                                         generator.peclet >= 0 ? -1 : 1};
      return assemble_stencil_rows(grid, faces, 1, coefficients, first_z, last_z);
    }
    case Kind::Reservoir: {
      // The planes' cells and one plane either side (the neighbours' permeability).
      const Ordinal low = std::max(first_z - 1, Ordinal(0));
      const Ordinal high = std::min(last_z + 1, grid.nz);
      const ReservoirCoefficients coefficients{grid.nx,
                                               grid.ny,
                                               grid.nz,
                                               permeability_planes(grid, generator.seed, low, high),
                                               low * grid.nx * grid.ny,
                                               reservoir_accumulation(grid, generator.seed)};
      return assemble_stencil_rows(grid, faces, 1, coefficients, first_z, last_z);
    }
    case Kind::Bsr3:
      return assemble_stencil_rows(grid, faces, 3, MulticomponentCoefficients{}, first_z, last_z);
  }
  throw InvalidInput("unknown generator");
}

GeneratedProblem whole_problem(const Generator& generator, const GridInfo& grid) {
  AssembledRows rows = assemble(generator, grid, 0, grid.nz);
  GeneratedProblem problem;
  problem.grid = grid;
  const Ordinal n = Ordinal(grid.num_points());
  problem.matrix = make_matrix(n, n, block_size_of(generator.kind), rows.row_map, rows.col_ind,
                               rows.values, /*arrays_may_change=*/true);
  problem.description = describe(generator) + ", " + grid_text(grid, problem.matrix);
  return problem;
}

}  // namespace detail::generators

namespace gen = detail::generators;

GeneratedProblem laplace7(Ordinal nx, Ordinal ny, Ordinal nz) {
  return gen::whole_problem({gen::Kind::Lap7}, gen::checked_grid("laplace7", nx, ny, nz, 1));
}

GeneratedProblem laplace27(Ordinal nx, Ordinal ny, Ordinal nz) {
  return gen::whole_problem({gen::Kind::Lap27}, gen::checked_grid("laplace27", nx, ny, nz, 1));
}

GeneratedProblem convection_diffusion(Ordinal n, double peclet) {
  if (!std::isfinite(peclet)) {
    throw InvalidInput("convection_diffusion: the Peclet number must be finite, got " +
                       std::to_string(peclet));
  }
  return gen::whole_problem({gen::Kind::ConvDiff, peclet},
                            gen::checked_grid("convection_diffusion", n, n, n, 1));
}

GeneratedProblem reservoir_pressure(Ordinal nx, Ordinal ny, Ordinal nz, std::uint64_t seed) {
  return gen::whole_problem({gen::Kind::Reservoir, 10.0, seed},
                            gen::checked_grid("reservoir_pressure", nx, ny, nz, 1));
}

GeneratedProblem multicomponent_bsr3(Ordinal n) {
  return gen::whole_problem({gen::Kind::Bsr3},
                            gen::checked_grid("multicomponent_bsr3", n, n, n, 3));
}

// ---- spec parsing (host) ----

namespace {

const char* const valid_forms =
    "valid forms: gen:lap7:N, gen:lap7:NX:NY:NZ, gen:lap27:N, gen:lap27:NX:NY:NZ, "
    "gen:convdiff:N, gen:convdiff:N:peP (Peclet P, default 10), gen:reservoir (60x220x85), "
    "gen:reservoir:NX:NY:NZ, gen:bsr3:N";

[[noreturn]] void bad_spec(const std::string& spec, const std::string& why) {
  throw InvalidInput("invalid generator spec \"" + spec + "\": " + why + "; " + valid_forms);
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string::size_type start = 0;
  while (true) {
    const auto end = text.find(separator, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

long long parse_size(const std::string& spec, const std::string& token) {
  if (token.empty()) bad_spec(spec, "empty size \"\"");
  long long value = 0;
  const char* begin = token.data();
  const char* end = token.data() + token.size();
  const auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec == std::errc::result_out_of_range) {
    bad_spec(spec, "size \"" + token + "\" overflows int");
  }
  if (ec != std::errc() || ptr != end) {
    bad_spec(spec, "size \"" + token + "\" is not a whole number");
  }
  if (value < 1) bad_spec(spec, "size \"" + token + "\" must be at least 1");
  if (value > std::numeric_limits<Ordinal>::max()) {
    bad_spec(spec, "size \"" + token + "\" overflows int");
  }
  return value;
}

struct GeneratorKind {
  const char* name;
  const char* forms;  // for messages
  bool takes_none;    // gen:KIND alone is valid (uses defaults)
  bool takes_one;     // gen:KIND:N
  bool takes_three;   // gen:KIND:NX:NY:NZ
  gen::Kind kind;
};

const GeneratorKind kinds[] = {
    {"lap7", "gen:lap7:N or gen:lap7:NX:NY:NZ", false, true, true, gen::Kind::Lap7},
    {"lap27", "gen:lap27:N or gen:lap27:NX:NY:NZ", false, true, true, gen::Kind::Lap27},
    {"convdiff", "gen:convdiff:N or gen:convdiff:N:peP", false, true, false, gen::Kind::ConvDiff},
    {"reservoir", "gen:reservoir or gen:reservoir:NX:NY:NZ", true, false, true,
     gen::Kind::Reservoir},
    {"bsr3", "gen:bsr3:N", false, true, false, gen::Kind::Bsr3},
};

// A parsed spec: its generator (default parameters) and checked grid.
struct ParsedSpec {
  gen::Generator generator;
  GridInfo grid;
};

ParsedSpec parse_spec(const std::string& spec) {
  const std::vector<std::string> parts = split(spec, ':');
  if (parts[0] != "gen") bad_spec(spec, "a spec starts with \"gen:\"");
  if (parts.size() < 2) bad_spec(spec, "missing generator kind after \"gen:\"");
  const GeneratorKind* kind = nullptr;
  for (const GeneratorKind& candidate : kinds) {
    if (parts[1] == candidate.name) kind = &candidate;
  }
  if (kind == nullptr) bad_spec(spec, "unknown generator kind \"" + parts[1] + "\"");

  std::vector<std::string> tokens(parts.begin() + 2, parts.end());
  // convdiff's optional last part: peP, the Péclet number.
  double peclet = 10.0;
  if (kind->kind == gen::Kind::ConvDiff && !tokens.empty() && tokens.back().rfind("pe", 0) == 0) {
    const std::string number = tokens.back().substr(2);
    const char* end = number.data() + number.size();
    const auto [ptr, ec] = std::from_chars(number.data(), end, peclet);
    if (number.empty() || ec != std::errc() || ptr != end || !std::isfinite(peclet))
      bad_spec(spec, "Peclet \"" + tokens.back() + "\" is not pe followed by a finite number");
    tokens.pop_back();
  }
  const std::size_t max_sizes = kind->takes_three ? 3 : (kind->takes_one ? 1 : 0);
  if (tokens.size() > max_sizes) {
    bad_spec(spec, "unexpected extra part \"" + tokens[max_sizes] + "\" (" + kind->forms + ")");
  }
  std::vector<long long> sizes;
  for (const std::string& token : tokens) sizes.push_back(parse_size(spec, token));
  const bool count_ok = (sizes.empty() && kind->takes_none) ||
                        (sizes.size() == 1 && kind->takes_one) ||
                        (sizes.size() == 3 && kind->takes_three);
  if (!count_ok) {
    const std::string given =
        sizes.empty() ? "no size"
                      : std::to_string(sizes.size()) + (sizes.size() == 1 ? " size" : " sizes");
    bad_spec(spec, std::string("gen:") + kind->name + " takes " + kind->forms + ", got " + given);
  }
  if (sizes.empty()) sizes = {60, 220, 85};  // SPE10 model 2's grid
  if (sizes.size() == 1) sizes = {sizes[0], sizes[0], sizes[0]};
  ParsedSpec parsed{{kind->kind}, GridInfo{}};
  if (kind->kind == gen::Kind::ConvDiff) parsed.generator.peclet = peclet;
  try {
    parsed.grid = gen::checked_grid(kind->name, sizes[0], sizes[1], sizes[2],
                                    gen::block_size_of(kind->kind));
  } catch (const InvalidInput& error) {
    bad_spec(spec, error.what());
  }
  return parsed;
}

}  // namespace

bool is_generator_spec(const std::string& spec) { return spec.rfind("gen:", 0) == 0; }

GeneratedProblem generate_problem(const std::string& spec) {
  const ParsedSpec parsed = parse_spec(spec);
  return gen::whole_problem(parsed.generator, parsed.grid);
}

GridInfo generated_grid(const std::string& spec) { return parse_spec(spec).grid; }

int generated_block_size(const std::string& spec) {
  return gen::block_size_of(parse_spec(spec).generator.kind);
}

GeneratedPlanes generate_planes(const std::string& spec, Ordinal first_z, Ordinal last_z) {
  const ParsedSpec parsed = parse_spec(spec);
  const GridInfo& grid = parsed.grid;
  if (first_z < 0 || first_z >= last_z || last_z > grid.nz)
    throw InvalidInput("generate_planes: planes [" + std::to_string(first_z) + ", " +
                       std::to_string(last_z) + ") are not a nonempty range of the " +
                       std::to_string(grid.nz) + " planes of " + spec);
  const gen::AssembledRows rows = gen::assemble(parsed.generator, grid, first_z, last_z);
  GeneratedPlanes planes;
  planes.grid = grid;
  planes.first_z = first_z;
  planes.last_z = last_z;
  HostMatrixArrays& arrays = planes.rows;
  arrays.num_block_rows = (last_z - first_z) * grid.nx * grid.ny;
  arrays.num_block_cols = Ordinal(grid.num_points());
  arrays.block_size = gen::block_size_of(parsed.generator.kind);
  arrays.row_map = detail::to_host_vector(rows.row_map);
  arrays.col_ind = detail::to_host_vector(rows.col_ind);
  arrays.values = detail::to_host_vector(rows.values);
  planes.description = gen::describe(parsed.generator) + ", planes " + std::to_string(first_z) +
                       "-" + std::to_string(last_z - 1) + " of a " + std::to_string(grid.nx) +
                       "x" + std::to_string(grid.ny) + "x" + std::to_string(grid.nz) + " grid";
  return planes;
}

}  // namespace fgdd
