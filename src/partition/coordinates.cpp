#include "partition/coordinates.hpp"

#include "core/errors.hpp"
#include "core/first_row_where.hpp"
#include "core/kokkos_compat.hpp"
#include "core/matrix_market.hpp"

#include <algorithm>
#include <cstdint>

namespace fgdd {

namespace {

constexpr int max_dimension = 3;

void check_dimension(int dimension) {
  if (dimension < 1 || dimension > max_dimension)
    throw InvalidInput("coordinates: the dimension must be 1, 2 or 3, got " +
                       std::to_string(dimension));
}

using HostPoints = Kokkos::View<Scalar**, Kokkos::LayoutRight, Kokkos::HostSpace>;

Coordinates copy_to_device(const HostPoints& host) {
  Kokkos::View<Scalar**, Kokkos::LayoutRight, DeviceType> points(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::coordinates"),
      host.extent(0), host.extent(1));
  Kokkos::deep_copy(points, host);
  return Coordinates(points);
}

}  // namespace

void Coordinates::validate(const ExecSpace& space, Ordinal num_block_rows, int block_size) const {
  if (num_points() != num_block_rows) {
    std::string hint;
    if (block_size > 1 && std::int64_t(num_points()) == std::int64_t(num_block_rows) * block_size)
      hint = " (one point per scalar row; give one per block of " + std::to_string(block_size) +
             " rows instead)";
    throw DimensionMismatch("coordinates: " + std::to_string(num_points()) + " points for " +
                            std::to_string(num_block_rows) +
                            " block rows; give one point per block row" + hint);
  }
  check_dimension(dimension());
  const auto x = points_;
  const int d = dimension();
  const Ordinal bad = detail::first_row_where(
      space, num_points(), "fgdd::partition::check_coordinates", KOKKOS_LAMBDA(const Ordinal i) {
        bool finite = true;
        for (int a = 0; a < d; ++a) finite = finite && detail::isfinite(x(i, a));
        return !finite;
      });
  if (bad < num_points())
    throw InvalidInput("coordinates: the point of row " + std::to_string(bad) +
                       " has a coordinate that is not finite (NaN or Inf)");
}

Coordinates make_coordinates(const std::vector<Scalar>& values, Ordinal num_points, int dimension) {
  check_dimension(dimension);
  if (num_points < 0 || std::int64_t(values.size()) != std::int64_t(num_points) * dimension)
    throw InvalidInput("coordinates: " + std::to_string(values.size()) + " values for " +
                       std::to_string(num_points) + " points of dimension " +
                       std::to_string(dimension));
  HostPoints host(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::points_host"),
                  num_points, dimension);
  std::copy(values.begin(), values.end(), host.data());
  return copy_to_device(host);
}

Coordinates grid_coordinates(const ExecSpace& space, const GridInfo& grid) {
  if (grid.empty() || grid.ny < 1 || grid.nz < 1)
    throw InvalidInput("grid_coordinates: the grid " + std::to_string(grid.nx) + " x " +
                       std::to_string(grid.ny) + " x " + std::to_string(grid.nz) +
                       " has no points");
  const Ordinal nx = grid.nx, ny = grid.ny;
  const Ordinal n = Ordinal(grid.num_points());
  Kokkos::View<Scalar**, Kokkos::LayoutRight, DeviceType> points(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::grid_coordinates"), n, 3);
  Kokkos::parallel_for(
      "fgdd::partition::grid_coordinates", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const Ordinal i) {
        points(i, 0) = Scalar(i % nx);
        points(i, 1) = Scalar(i / nx % ny);
        points(i, 2) = Scalar(i / nx / ny);
      });
  return Coordinates(points);
}

Coordinates read_coordinates(const std::string& path, Ordinal num_block_rows) {
  const DenseArrays file = read_matrix_market_array(path, num_block_rows, max_dimension);
  const std::int64_t n = file.rows;
  const int d = int(file.columns);
  HostPoints host(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::points_host"),
                  n, d);
  // The file stores the matrix column by column; the device view holds it point by point.
  for (int a = 0; a < d; ++a)
    for (std::int64_t i = 0; i < n; ++i) host(i, a) = file.values[std::size_t(i + a * n)];
  return copy_to_device(host);
}

}  // namespace fgdd
