// Serial references for partition/: geometric cuts (fine-grained-dd-sptrsv-gpu.txt §3,
// Algorithm 1) as plain triple loops over the grid, and recursive coordinate bisection as plain
// recursion, written for obviousness, never speed.
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

// Recursive coordinate bisection of n points (points[i * d + a] is coordinate a of point i) into
// ceil(n / cap) parts, as partition/coordinate_bisection.hpp specifies it: a set of k > 1 parts
// and s points is sorted along the longest edge of its bounding box (ties: the higher axis), by
// that coordinate, then the others from the last axis down, then the point index; its first
// `left` points get ceil(k/2) parts, the rest floor(k/2), where left is the place nearest to
// t = floor(s * ceil(k/2) / k) (ties: the smaller) where the coordinate changes, within
// t ± (k * cap - s) / 2 and the sizes both halves can take, else t. Parts are numbered left
// before right.
struct BisectionLabels {
  int num_parts = 0;
  std::vector<int> part;       // per point
  std::vector<int> order_key;  // the rank in lexicographic order, last coordinate slowest
};
BisectionLabels coordinate_bisection(const std::vector<double>& points, int d, int cap);

}  // namespace fgdd::reference
