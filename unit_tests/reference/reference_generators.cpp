// Serial references for core/generators (see the header).
#include "reference/reference_generators.hpp"

#include <cmath>
#include <functional>

namespace fgdd::reference {
namespace {

// block(x, y, z, dx, dy, dz) gives the b*b row-major block coupling (x, y, z) to its neighbour.
using BlockFunction = std::function<std::vector<double>(int, int, int, int, int, int)>;

HostMatrixArrays assemble(int nx, int ny, int nz, int block_size, bool full_stencil,
                          const BlockFunction& block) {
  HostMatrixArrays A;
  A.num_block_rows = nx * ny * nz;
  A.num_block_cols = A.num_block_rows;
  A.block_size = block_size;
  A.row_map.push_back(0);
  for (int z = 0; z < nz; ++z) {
    for (int y = 0; y < ny; ++y) {
      for (int x = 0; x < nx; ++x) {
        for (int dz = -1; dz <= 1; ++dz) {
          for (int dy = -1; dy <= 1; ++dy) {
            for (int dx = -1; dx <= 1; ++dx) {
              if (!full_stencil && std::abs(dx) + std::abs(dy) + std::abs(dz) > 1) continue;
              const int xn = x + dx, yn = y + dy, zn = z + dz;
              if (xn < 0 || xn >= nx || yn < 0 || yn >= ny || zn < 0 || zn >= nz) continue;
              A.col_ind.push_back(xn + nx * (yn + ny * zn));
              for (double v : block(x, y, z, dx, dy, dz)) A.values.push_back(v);
            }
          }
        }
        A.row_map.push_back(A.col_ind.size());
      }
    }
  }
  return A;
}

std::uint64_t splitmix64(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double standard_normal(std::uint64_t seed, std::uint64_t stream, std::uint64_t counter) {
  const auto hash = [&](std::uint64_t c) {
    return splitmix64(splitmix64(splitmix64(seed) ^ stream) ^ c);
  };
  const double u1 = double((hash(2 * counter) >> 11) + 1) / 9007199254740992.0;
  const double u2 = double(hash(2 * counter + 1) >> 11) / 9007199254740992.0;
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586476925286766559 * u2);
}

}  // namespace

HostMatrixArrays laplace7(int nx, int ny, int nz) {
  return assemble(nx, ny, nz, 1, false, [](int, int, int, int dx, int dy, int dz) {
    return std::vector<double>{dx == 0 && dy == 0 && dz == 0 ? 6.0 : -1.0};
  });
}

HostMatrixArrays laplace27(int nx, int ny, int nz) {
  return assemble(nx, ny, nz, 1, true, [](int, int, int, int dx, int dy, int dz) {
    return std::vector<double>{dx == 0 && dy == 0 && dz == 0 ? 26.0 : -1.0};
  });
}

HostMatrixArrays convection_diffusion(int n, double peclet) {
  const double h = 1.0 / (n + 1);
  const double w = std::abs(peclet) * h;
  const int upwind = peclet >= 0 ? -1 : 1;
  return assemble(n, n, n, 1, false, [=](int, int, int, int dx, int dy, int dz) {
    if (dx == 0 && dy == 0 && dz == 0) return std::vector<double>{6.0 + 3.0 * w};
    const bool from_upwind = dx == upwind || dy == upwind || dz == upwind;
    return std::vector<double>{from_upwind ? -1.0 - w : -1.0};
  });
}

std::vector<double> reservoir_permeability(int nx, int ny, int nz, std::uint64_t seed) {
  std::vector<double> k;
  for (int z = 0; z < nz; ++z) {
    const double layer_mean = 1.5 * standard_normal(seed, 1, z);
    for (int y = 0; y < ny; ++y) {
      for (int x = 0; x < nx; ++x) {
        const std::uint64_t cell = x + std::uint64_t(nx) * (y + std::uint64_t(ny) * z);
        k.push_back(std::exp(layer_mean + standard_normal(seed, 2, cell)));
      }
    }
  }
  return k;
}

HostMatrixArrays reservoir_pressure(int nx, int ny, int nz, std::uint64_t seed) {
  const std::vector<double> k = reservoir_permeability(nx, ny, nz, seed);
  const auto cell = [=](int x, int y, int z) { return x + nx * (y + ny * z); };
  const auto transmissibility = [&](int a, int b, bool vertical) {
    const double ka = (vertical ? 0.1 : 1.0) * k[a];
    const double kb = (vertical ? 0.1 : 1.0) * k[b];
    return 2.0 * ka * kb / (ka + kb);
  };
  double sum = 0.0;
  long faces = 0;
  double sum_k = 0.0;
  for (int z = 0; z < nz; ++z) {
    for (int y = 0; y < ny; ++y) {
      for (int x = 0; x < nx; ++x) {
        sum_k += k[cell(x, y, z)];
        if (x + 1 < nx) sum += transmissibility(cell(x, y, z), cell(x + 1, y, z), false), ++faces;
        if (y + 1 < ny) sum += transmissibility(cell(x, y, z), cell(x, y + 1, z), false), ++faces;
        if (z + 1 < nz) sum += transmissibility(cell(x, y, z), cell(x, y, z + 1), true), ++faces;
      }
    }
  }
  const double accumulation = faces > 0 ? 1e-3 * sum / faces : 1e-3 * sum_k / (nx * ny * nz);
  return assemble(nx, ny, nz, 1, false, [&](int x, int y, int z, int dx, int dy, int dz) {
    if (dx != 0 || dy != 0 || dz != 0) {
      return std::vector<double>{
          -transmissibility(cell(x, y, z), cell(x + dx, y + dy, z + dz), dz != 0)};
    }
    double diagonal = accumulation;
    for (int d = -1; d <= 1; d += 2) {
      if (x + d >= 0 && x + d < nx)
        diagonal += transmissibility(cell(x, y, z), cell(x + d, y, z), false);
      if (y + d >= 0 && y + d < ny)
        diagonal += transmissibility(cell(x, y, z), cell(x, y + d, z), false);
      if (z + d >= 0 && z + d < nz)
        diagonal += transmissibility(cell(x, y, z), cell(x, y, z + d), true);
    }
    return std::vector<double>{diagonal};
  });
}

HostMatrixArrays multicomponent_bsr3(int n) {
  return assemble(n, n, n, 3, false, [](int, int, int, int dx, int dy, int dz) {
    if (dx == 0 && dy == 0 && dz == 0) {
      return std::vector<double>{7.0, 0.2, 0.0,  //
                                 0.1, 7.0, 0.3,  //
                                 0.0, 0.2, 7.0};
    }
    std::vector<double> block{-1.0, 0.0,  0.0,  //
                              0.0,  -1.0, 0.0,  //
                              0.0,  0.0,  -1.0};
    const double e = (dx < 0 || dy < 0 || dz < 0) ? -0.1 : -0.05;
    if (dx != 0) block[0 * 3 + 1] = e;
    if (dy != 0) block[1 * 3 + 2] = e;
    if (dz != 0) block[2 * 3 + 0] = e;
    return block;
  });
}

}  // namespace fgdd::reference
