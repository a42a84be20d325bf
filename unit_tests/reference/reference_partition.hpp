// Serial references for partition/: geometric cuts (fine-grained-dd-sptrsv-gpu.txt §3,
// Algorithm 1) as plain triple loops over the grid, written for obviousness, never speed.
#pragma once

#include <vector>

namespace fgdd::reference {

// Algorithm 1 as printed: point (i, j, k) lies in box (i / box_x, j / box_y, k / box_z), label
// ibx + bx * (jby + by * kbz) with bx = ceil(nx / box_x) boxes along x (the paper's nx / nblk_x
// when box_x divides nx). Returned per grid point i + nx * (j + ny * k).
std::vector<int> geometric_labels_algorithm1(int nx, int ny, int nz, int box_x, int box_y,
                                             int box_z);

// The balanced variant fgdd computes: c_d = ceil(n_d / box_d) slabs per axis and point i in slab
// floor(i * c_x / n_x). Equal to Algorithm 1 when every box edge divides its grid dimension.
std::vector<int> geometric_labels_balanced(int nx, int ny, int nz, int box_x, int box_y, int box_z);

}  // namespace fgdd::reference
