#include "reference/reference_partition.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <numeric>

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

namespace {

// Compares points along axis, then the other axes from the last down, then by index.
struct AlongAxis {
  const std::vector<double>& points;
  int d, axis;
  std::vector<double> key(int i) const {
    std::vector<double> k{points[std::size_t(i) * d + axis]};
    for (int b = d - 1; b >= 0; --b)
      if (b != axis) k.push_back(points[std::size_t(i) * d + b]);
    return k;
  }
  bool operator()(int i, int j) const {
    const std::vector<double> a = key(i), b = key(j);
    if (a != b) return a < b;
    return i < j;
  }
};

void bisect(const std::vector<double>& points, int d, int cap, std::vector<int> set, int parts,
            int first, std::vector<int>& part) {
  if (parts == 1) {
    for (int i : set) part[i] = first;
    return;
  }
  int axis = 0;
  double longest = -1;
  for (int a = 0; a < d; ++a) {
    double lo = points[std::size_t(set[0]) * d + a], hi = lo;
    for (int i : set) {
      lo = std::min(lo, points[std::size_t(i) * d + a]);
      hi = std::max(hi, points[std::size_t(i) * d + a]);
    }
    if (hi - lo >= longest) {
      longest = hi - lo;
      axis = a;
    }
  }
  std::sort(set.begin(), set.end(), AlongAxis{points, d, axis});
  const int size = int(set.size());
  const int left_parts = (parts + 1) / 2, right_parts = parts - left_parts;
  const int target = int(std::int64_t(size) * left_parts / parts);
  const int window = int((std::int64_t(parts) * cap - size) / 2);
  const int lo = std::max({left_parts, size - right_parts * cap, target - window});
  const int hi = std::min({left_parts * cap, size - right_parts, target + window});
  int best = -1;  // the nearest place the coordinate changes, the smaller on ties
  for (int r = lo; r <= hi; ++r) {
    const bool changes =
        points[std::size_t(set[r - 1]) * d + axis] < points[std::size_t(set[r]) * d + axis];
    if (changes && (best < 0 || std::abs(r - target) < std::abs(best - target))) best = r;
  }
  const int left = best < 0 ? target : best;
  bisect(points, d, cap, std::vector<int>(set.begin(), set.begin() + left), left_parts, first,
         part);
  bisect(points, d, cap, std::vector<int>(set.begin() + left, set.end()), parts - left_parts,
         first + left_parts, part);
}

}  // namespace

BisectionLabels coordinate_bisection(const std::vector<double>& points, int d, int cap) {
  const int n = int(points.size() / std::size_t(d));
  BisectionLabels result;
  result.num_parts = ceil_div(n, cap);
  result.part.assign(n, -1);
  result.order_key.assign(n, -1);
  std::vector<int> all(n);
  std::iota(all.begin(), all.end(), 0);
  if (n > 0) bisect(points, d, cap, all, result.num_parts, 0, result.part);
  std::sort(all.begin(), all.end(), AlongAxis{points, d, d - 1});
  for (int r = 0; r < n; ++r) result.order_key[all[r]] = r;
  return result;
}

}  // namespace fgdd::reference
