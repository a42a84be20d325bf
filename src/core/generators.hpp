// Test-problem generators on Cartesian grids: 7- and 27-point Laplacians, upwind
// convection-diffusion, an SPE10-like reservoir pressure matrix and a 3x3-block system.
// Every matrix is assembled on the device by one shared stencil routine (DESIGN.md).
#pragma once

#include <cstdint>
#include <string>

#include "core/matrix_build.hpp"
#include "core/sparse_matrix.hpp"
#include "core/types.hpp"

namespace fgdd {

// A generated matrix with the grid it lives on; block row (x, y, z) is x + nx * (y + ny * z).
struct GeneratedProblem {
  SparseMatrix matrix;
  GridInfo grid;
  std::string description;  // one line for logs, e.g. "7-point Laplacian on 64x64x64 ..."
};

// Every generator treats the grid as the interior of a box with homogeneous Dirichlet
// boundaries: neighbours outside the grid are simply dropped. All of them throw InvalidInput if
// a dimension is < 1 or the scalar row count does not fit in Ordinal (int).

// 7-point Laplacian: 6 on the diagonal, -1 to each face neighbour. SPD.
GeneratedProblem laplace7(Ordinal nx, Ordinal ny, Ordinal nz);

// 27-point Laplacian: 26 on the diagonal, -1 to each of the 26 neighbours. SPD.
GeneratedProblem laplace27(Ordinal nx, Ordinal ny, Ordinal nz);

// -Δu + w·∇u on the unit cube, n³ interior points, h = 1/(n+1), w = (1,1,1)*peclet, scaled by
// h²: central differences for diffusion, first-order upwind for convection. Nonsymmetric
// M-matrix whose interior rows sum to zero. Throws InvalidInput if peclet is not finite.
GeneratedProblem convection_diffusion(Ordinal n, double peclet = 10.0);

// Pressure equation of a heterogeneous reservoir: two-point flux approximation on a 7-point
// stencil with a lognormal, layered permeability drawn from seed (bitwise reproducible). SPD.
GeneratedProblem reservoir_pressure(Ordinal nx, Ordinal ny, Ordinal nz, std::uint64_t seed = 2026);

// 7-point grid with 3 unknowns per point (block_size 3) and nonsymmetric 3x3 blocks; every
// scalar row is strictly diagonally dominant.
GeneratedProblem multicomponent_bsr3(Ordinal n);

// Parses a generator spec and builds the problem. Valid forms:
//   gen:lap7:N  gen:lap7:NX:NY:NZ  gen:lap27:N  gen:lap27:NX:NY:NZ  gen:convdiff:N
//   gen:convdiff:N:peP (Péclet P; default 10)  gen:reservoir (60:220:85, SPE10's size)
//   gen:reservoir:NX:NY:NZ  gen:bsr3:N
// Throws InvalidInput naming the offending part of the spec and listing the valid forms.
GeneratedProblem generate_problem(const std::string& spec);

// The grid of a generator spec, without building the matrix. Throws as generate_problem.
GridInfo generated_grid(const std::string& spec);

// The block size of the matrix a generator spec builds (3 for gen:bsr3, else 1), without
// building it. Throws as generate_problem.
int generated_block_size(const std::string& spec);

// Block rows of the z planes [first_z, last_z) of generate_problem(spec): the same rows, columns
// and values bitwise, with global block columns, so that each rank of a distributed run builds
// only its share (block row (x, y, z) of the planes is rows.row_map's entry
// x + nx (y + ny (z − first_z))).
struct GeneratedPlanes {
  HostMatrixArrays rows;  // (last_z − first_z)·nx·ny block rows, nx·ny·nz block columns
  GridInfo grid;          // the whole grid
  Ordinal first_z = 0, last_z = 0;
  std::string description;
};
// Throws InvalidInput for a bad spec (as generate_problem) or planes that are not a nonempty
// range within [0, nz).
GeneratedPlanes generate_planes(const std::string& spec, Ordinal first_z, Ordinal last_z);

// True if spec starts with "gen:", i.e. is meant for generate_problem rather than a file.
bool is_generator_spec(const std::string& spec);

namespace detail {

// The reservoir's x-permeability per cell (ky = kx, kz = 0.1 kx), on the device; exposed so
// tests can check its statistics.
Kokkos::View<double*, DeviceType> reservoir_permeability(Ordinal nx, Ordinal ny, Ordinal nz,
                                                         std::uint64_t seed);

}  // namespace detail

}  // namespace fgdd
