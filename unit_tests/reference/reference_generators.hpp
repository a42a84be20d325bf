// Serial references for core/generators: each matrix assembled by a plain triple loop over the
// grid on the host, written for obviousness, never speed.
#pragma once

#include <cstdint>
#include <vector>

#include "core/matrix_build.hpp"

namespace fgdd::reference {

HostMatrixArrays laplace7(int nx, int ny, int nz);
HostMatrixArrays laplace27(int nx, int ny, int nz);
HostMatrixArrays convection_diffusion(int n, double peclet);
HostMatrixArrays reservoir_pressure(int nx, int ny, int nz, std::uint64_t seed);
HostMatrixArrays multicomponent_bsr3(int n);

// The reservoir's x-permeability per cell, cell = x + nx * (y + ny * z).
std::vector<double> reservoir_permeability(int nx, int ny, int nz, std::uint64_t seed);

}  // namespace fgdd::reference
