// The caller's coordinates of the matrix's rows, one point per block row, for recursive
// coordinate bisection (partition/coordinate_bisection.hpp): what finite-element and reservoir
// codes have when their matrix comes without grid metadata.
#pragma once

#include "core/sparse_matrix.hpp"
#include "core/types.hpp"

#include <string>
#include <utility>
#include <vector>

namespace fgdd {

// Points on the device, point i in row i: points(i, 0..d-1) with d = 1, 2 or 3. One point per
// block row, also for BSR matrices: the point of a block is the node or cell its b unknowns
// belong to (a file with one point per scalar row is refused by validate). An empty
// Coordinates (no points, d = 0) means the caller has none.
class Coordinates {
 public:
  using View = Kokkos::View<const Scalar**, Kokkos::LayoutRight, DeviceType>;

  Coordinates() = default;
  // Takes the view as it is (no copy); validate checks it against a matrix.
  explicit Coordinates(View points) : points_(std::move(points)) {}

  bool empty() const noexcept { return points_.extent(0) == 0 && points_.extent(1) == 0; }
  Ordinal num_points() const noexcept { return Ordinal(points_.extent(0)); }
  int dimension() const noexcept { return int(points_.extent(1)); }
  const View& points() const noexcept { return points_; }

  // Throws InvalidInput unless there is one point per block row (num_points == num_block_rows;
  // block_size only makes the message clearer), the dimension is 1, 2 or 3, and every
  // coordinate is finite; the message names the first row with a NaN or an infinite
  // coordinate. Runs on space.
  void validate(const ExecSpace& space, Ordinal num_block_rows, int block_size = 1) const;

 private:
  View points_;
};

// Coordinates from host values point by point (x0 y0 z0 x1 y1 z1 ...: what a C or C++ code
// holds): num_points × dimension values, copied to the device. Throws InvalidInput when
// values.size() != num_points * dimension or dimension is not 1..3 (the values are checked by
// Coordinates::validate).
Coordinates make_coordinates(const std::vector<Scalar>& values, Ordinal num_points, int dimension);

// The points of a Cartesian grid, block row x + nx (y + ny z) at (x, y, z), in 3 coordinates:
// what a file of a generated problem would carry. Built on space. Throws InvalidInput for an
// empty grid.
Coordinates grid_coordinates(const ExecSpace& space, const GridInfo& grid);

// Reads a Matrix Market array file of num_block_rows rows and d = 1..3 columns (real or integer;
// row i holds the point of block row i, column j its coordinate j, stored column by column as
// the format prescribes). Throws FileError naming the path and line (the size line for a wrong
// row or column count; a bad, missing or non-finite value's own line).
Coordinates read_coordinates(const std::string& path, Ordinal num_block_rows);

}  // namespace fgdd
