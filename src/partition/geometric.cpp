// Geometric cuts (fine-grained-dd-sptrsv-gpu.txt §3, Algorithm 1): a host search over box shapes
// (scalars), then one device kernel that labels every grid point with its box.
#include "partition/geometric.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "core/errors.hpp"
#include "core/host_copy.hpp"

namespace fgdd {
namespace detail::geometric {

void check_grid(const GridInfo& grid) {
  if (grid.empty() || grid.nx < 1 || grid.ny < 1 || grid.nz < 1) {
    throw InvalidInput("geometric partition: the grid is empty (" + std::to_string(grid.nx) + "x" +
                       std::to_string(grid.ny) + "x" + std::to_string(grid.nz) +
                       "); geometric cuts need a matrix made on a Cartesian grid");
  }
}

// Every distinct slab count c = ceil(n / box) over box = 1..n, with its largest slab width
// ceil(n / c), in increasing c. O(sqrt(n)) entries.
struct AxisChoice {
  Ordinal cuts;
  Ordinal width;
};

std::vector<AxisChoice> axis_choices(Ordinal n) {
  std::vector<AxisChoice> choices;
  const std::int64_t size = n;
  std::int64_t cuts = 1;
  while (cuts <= size) {
    const std::int64_t width = (size + cuts - 1) / cuts;
    choices.push_back({Ordinal(cuts), Ordinal(width)});
    if (width == 1) break;
    cuts = (size + width - 2) / (width - 1);  // smallest count whose width is below this one
  }
  return choices;
}

// How many rows of a wavefront level share a scratch bank, at worst. Inside a box (x fastest) a
// wavefront level (x + slope·y + … constant) has its rows in one z plane w − slope rows apart for
// an x slab of width w, up to min(w, y width) of them, and GPU shared memory has 16 banks of
// doubles, so a fraction gcd(b (w − slope), 16) / 16 of them share one: a 7-point level of
// 17 × 17 boxes is all in one bank. Both slab widths of the axis count; a slab no wider than the
// slope holds one row of a level per plane.
int level_bank_crowding(Ordinal n, const AxisChoice& x, Ordinal width_y, int block_size,
                        int slope) {
  int worst = 1;
  for (const Ordinal width : {x.width, Ordinal(n / x.cuts)}) {
    if (width <= slope) continue;
    const std::int64_t share =
        std::gcd(std::int64_t(block_size) * (width - slope), std::int64_t(16));
    const std::int64_t rows = std::min(width, width_y);
    worst = std::max(worst, int((rows * share + 15) / 16));
  }
  return worst;
}

}  // namespace detail::geometric

namespace detail {

GeometricBoxes choose_geometric_boxes(const GridInfo& grid, Ordinal max_block_rows, int block_size,
                                      int slope) {
  geometric::check_grid(grid);
  if (max_block_rows < 1) {
    throw InvalidInput("geometric partition: max_block_rows must be >= 1, got " +
                       std::to_string(max_block_rows));
  }
  if (block_size < 1 || slope < 1) {
    throw InvalidInput("geometric partition: block size and wavefront slope must be >= 1, got " +
                       std::to_string(block_size) + " and " + std::to_string(slope));
  }
  const std::int64_t nx = grid.nx, ny = grid.ny, nz = grid.nz;
  const std::int64_t cap = max_block_rows;
  GeometricBoxes best;
  // Compared as surface × weight: 5 where 4 or more of a level's rows share a scratch bank, else 4.
  std::int64_t best_cost = std::numeric_limits<std::int64_t>::max();
  std::int64_t best_parts = std::numeric_limits<std::int64_t>::max();
  // Given the x and y slabs, the widest z slab that still fits the cap is always best: it
  // lowers both the subdomain count and the cut area.
  for (const auto& x : geometric::axis_choices(grid.nx)) {
    if (x.width > cap) continue;
    for (const auto& y : geometric::axis_choices(grid.ny)) {
      const std::int64_t area = std::int64_t(x.width) * y.width;
      if (area > cap) continue;
      const int crowding = geometric::level_bank_crowding(grid.nx, x, y.width, block_size, slope);
      const std::int64_t width_z = std::min(nz, cap / area);
      const std::int64_t cuts_z = (nz + width_z - 1) / width_z;
      const std::int64_t parts = std::int64_t(x.cuts) * y.cuts * cuts_z;
      // Area of the interior cut planes = half the couplings a 7-point stencil loses.
      const std::int64_t surface =
          (x.cuts - 1) * ny * nz + (y.cuts - 1) * nx * nz + (cuts_z - 1) * nx * ny;
      const std::int64_t cost = surface * (crowding >= 4 ? 5 : 4);
      if (cost < best_cost || (cost == best_cost && parts < best_parts)) {
        best_cost = cost;
        best_parts = parts;
        best.box_x = x.width;
        best.box_y = y.width;
        best.box_z = Ordinal((nz + cuts_z - 1) / cuts_z);
        best.cuts_x = x.cuts;
        best.cuts_y = y.cuts;
        best.cuts_z = Ordinal(cuts_z);
      }
    }
  }
  return best;
}

Labeling geometric_labeling_with_boxes(const ExecSpace& space, const GridInfo& grid, Ordinal box_x,
                                       Ordinal box_y, Ordinal box_z) {
  geometric::check_grid(grid);
  if (box_x < 1 || box_y < 1 || box_z < 1) {
    throw InvalidInput("geometric partition: box edges must be >= 1, got " + std::to_string(box_x) +
                       "x" + std::to_string(box_y) + "x" + std::to_string(box_z));
  }
  if (grid.num_points() > Offset(std::numeric_limits<Ordinal>::max())) {
    throw InvalidInput("geometric partition: the grid has " + std::to_string(grid.num_points()) +
                       " points, more than an Ordinal can index");
  }
  const Ordinal nx = grid.nx, ny = grid.ny, nz = grid.nz;
  const Ordinal n = Ordinal(grid.num_points());
  const auto ceil_div = [](Ordinal a, Ordinal b) { return Ordinal((std::int64_t(a) + b - 1) / b); };
  const Ordinal cuts_x = ceil_div(nx, box_x);
  const Ordinal cuts_y = ceil_div(ny, box_y);
  const Ordinal cuts_z = ceil_div(nz, box_z);

  Labeling labeling;
  labeling.num_parts = Ordinal(std::int64_t(cuts_x) * cuts_y * cuts_z);
  labeling.part_of_row = Kokkos::View<Ordinal*, DeviceType>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::geometric_part_of_row"), n);
  labeling.order_key = Kokkos::View<Ordinal*, DeviceType>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::geometric_order_key"), n);
  const auto part_of_row = labeling.part_of_row;
  const auto order_key = labeling.order_key;
  // Slab floor(x * c / n) instead of the paper's floor(x / box): the same boxes when box divides
  // n, and otherwise widths ceil(n/c) or floor(n/c) >= 1, so no box is empty or a sliver.
  Kokkos::parallel_for(
      "fgdd::partition::geometric_cuts", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const Ordinal row) {
        const Ordinal x = row % nx;
        const Ordinal y = (row / nx) % ny;
        const Ordinal z = row / nx / ny;
        const Ordinal px = Ordinal(std::int64_t(x) * cuts_x / nx);
        const Ordinal py = Ordinal(std::int64_t(y) * cuts_y / ny);
        const Ordinal pz = Ordinal(std::int64_t(z) * cuts_z / nz);
        part_of_row(row) = px + cuts_x * (py + cuts_y * pz);
        order_key(row) = row;
      });
  return labeling;
}

int wavefront_slope(const SparseMatrix& A, const GridInfo& grid) {
  geometric::check_grid(grid);
  if (grid.num_points() != Offset(A.num_block_rows())) return 1;
  const Ordinal nx = grid.nx, ny = grid.ny;
  const Ordinal x = nx / 2, y = ny / 2, z = grid.nz / 2;
  const Ordinal p = x + nx * (y + ny * z);
  const auto bounds = detail::to_host_vector(
      Kokkos::subview(A.row_map(), std::make_pair(Offset(p), Offset(p) + 2)));
  const auto cols =
      detail::to_host_vector(Kokkos::subview(A.col_ind(), std::make_pair(bounds[0], bounds[1])));
  int slope = 1;
  for (const Ordinal c : cols) {
    const Ordinal dx = c % nx - x, dy = (c / nx) % ny - y, dz = c / nx / ny - z;
    // (x + dx, y + dy) with dy < 0 comes first, so x + slope·y must exceed its value.
    if (dz == 0 && dy < 0 && dx >= 0) slope = std::max(slope, int(dx / -dy) + 1);
  }
  return slope;
}

Labeling geometric_labeling(const ExecSpace& space, const GridInfo& grid, Ordinal num_block_rows,
                            Ordinal max_block_rows, int block_size, int slope) {
  geometric::check_grid(grid);
  if (num_block_rows < 0 || grid.num_points() != Offset(num_block_rows)) {
    throw InvalidInput("geometric partition: the grid " + std::to_string(grid.nx) + "x" +
                       std::to_string(grid.ny) + "x" + std::to_string(grid.nz) + " has " +
                       std::to_string(grid.num_points()) + " points but the matrix has " +
                       std::to_string(num_block_rows) + " block rows");
  }
  const GeometricBoxes boxes = choose_geometric_boxes(grid, max_block_rows, block_size, slope);
  return geometric_labeling_with_boxes(space, grid, boxes.box_x, boxes.box_y, boxes.box_z);
}

}  // namespace detail
}  // namespace fgdd
