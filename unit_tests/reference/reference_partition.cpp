#include "reference/reference_partition.hpp"

#include <cstdint>

namespace fgdd::reference {

namespace {
int ceil_div(int a, int b) { return (a + b - 1) / b; }
}  // namespace

std::vector<int> geometric_labels_algorithm1(int nx, int ny, int nz, int box_x, int box_y,
                                             int box_z) {
  const int bx = ceil_div(nx, box_x);
  const int by = ceil_div(ny, box_y);
  std::vector<int> part_id(std::size_t(nx) * ny * nz);
  for (int i = 0; i < nx; ++i) {
    const int ibx = i / box_x;
    for (int j = 0; j < ny; ++j) {
      const int jby = j / box_y;
      for (int k = 0; k < nz; ++k) {
        const int kbz = k / box_z;
        const std::size_t gidx = i + std::size_t(nx) * (j + std::size_t(ny) * k);
        part_id[gidx] = ibx + bx * (jby + by * kbz);
      }
    }
  }
  return part_id;
}

std::vector<int> geometric_labels_balanced(int nx, int ny, int nz, int box_x, int box_y,
                                           int box_z) {
  const int cx = ceil_div(nx, box_x);
  const int cy = ceil_div(ny, box_y);
  const int cz = ceil_div(nz, box_z);
  std::vector<int> part_id(std::size_t(nx) * ny * nz);
  for (int i = 0; i < nx; ++i) {
    const int px = int(std::int64_t(i) * cx / nx);
    for (int j = 0; j < ny; ++j) {
      const int py = int(std::int64_t(j) * cy / ny);
      for (int k = 0; k < nz; ++k) {
        const int pz = int(std::int64_t(k) * cz / nz);
        const std::size_t gidx = i + std::size_t(nx) * (j + std::size_t(ny) * k);
        part_id[gidx] = px + cx * (py + cy * pz);
      }
    }
  }
  return part_id;
}

}  // namespace fgdd::reference
