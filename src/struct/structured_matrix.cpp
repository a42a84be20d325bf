#include "struct/structured_matrix.hpp"

#include "core/dense_block.hpp"
#include "core/errors.hpp"
#include "core/exclusive_scan.hpp"
#include "core/kokkos_compat.hpp"

#include <limits>
#include <string>

namespace fgdd {

namespace detail {

// splitmix64: a few integer steps to a value in [-1, 1), the same on every backend.
KOKKOS_INLINE_FUNCTION std::uint64_t mix(std::uint64_t h) {
  h += 0x9E3779B97F4A7C15ull;
  h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
  h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
  return h ^ (h >> 31);
}
KOKKOS_INLINE_FUNCTION Scalar hashed_value(std::uint64_t seed, std::uint64_t a, std::uint64_t b,
                                           std::uint64_t c) {
  const std::uint64_t h = mix(mix(mix(mix(seed) ^ a) ^ b) ^ c);
  return Scalar(h >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

void check_grid(const GridInfo& grid) {
  if (grid.nx < 1 || grid.ny < 1 || grid.nz < 1)
    throw InvalidInput("structured grid dimensions must be >= 1, got " + std::to_string(grid.nx) +
                       "x" + std::to_string(grid.ny) + "x" + std::to_string(grid.nz));
}

// Lookup cube of side 2R+1: stencil index of offset (dx, dy, dz), -1 when absent.
struct OffsetLookup {
  int radius = 0;
  Kokkos::View<int*, DeviceType> index;
  KOKKOS_INLINE_FUNCTION int operator()(long long dx, long long dy, long long dz) const {
    if (dx < -radius || dx > radius || dy < -radius || dy > radius || dz < -radius || dz > radius)
      return -1;
    const int side = 2 * radius + 1;
    return index(int((dz + radius) * side + (dy + radius)) * side + int(dx + radius));
  }
};

OffsetLookup make_lookup(const Stencil& stencil) {
  OffsetLookup lookup;
  lookup.radius = stencil.radius();
  const int side = 2 * lookup.radius + 1;
  lookup.index = Kokkos::View<int*, DeviceType>("fgdd::struct::offset_lookup", side * side * side);
  auto host = Kokkos::create_mirror_view(lookup.index);
  for (int k = 0; k < side * side * side; ++k) host(k) = -1;
  for (int e = 0; e < stencil.size(); ++e) {
    const StencilOffset& o = stencil.offsets()[e];
    host(((o.dz + lookup.radius) * side + (o.dy + lookup.radius)) * side + o.dx + lookup.radius) =
        e;
  }
  Kokkos::deep_copy(lookup.index, host);
  return lookup;
}

Kokkos::View<Ordinal*, DeviceType> inverse_permutation(
    const ExecSpace& space, const Kokkos::View<const Ordinal*, DeviceType>& perm) {
  Kokkos::View<Ordinal*, DeviceType> iperm(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::struct::iperm"), perm.extent(0));
  Kokkos::parallel_for(
      "fgdd::struct::inverse_permutation",
      Kokkos::RangePolicy<ExecSpace>(space, 0, Ordinal(perm.extent(0))),
      KOKKOS_LAMBDA(const Ordinal p) { iperm(perm(p)) = p; });
  return iperm;
}

std::string point_text(const GridCoordinates& g, Offset p) {
  Ordinal x, y, z;
  g.of(p, x, y, z);
  return "(" + std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z) + ")";
}

template <class View>
typename View::non_const_value_type read_one(const View& view, Offset k) {
  typename View::non_const_value_type value{};
  Kokkos::deep_copy(value, Kokkos::subview(view, k));
  return value;
}

// The block row of A holding block entry k.
Ordinal row_of_entry(const ExecSpace& space, const SparseMatrix& A, Offset k) {
  const auto row_map = A.row_map();
  Ordinal row = 0;
  Kokkos::parallel_reduce(
      "fgdd::struct::row_of_entry", Kokkos::RangePolicy<ExecSpace>(space, 0, A.num_block_rows()),
      KOKKOS_LAMBDA(const Ordinal i, Ordinal& r) {
        if (row_map(i) <= k && k < row_map(i + 1) && i > r) r = i;
      },
      Kokkos::Max<Ordinal>(row));
  return row;
}

void fill_problem(const ExecSpace& space, StructuredMatrix& S, bool symmetric, std::uint64_t seed) {
  const GridCoordinates g{S.grid().nx, S.grid().ny, S.grid().nz};
  const auto offsets = S.device_stencil().offsets;
  const auto linear = S.device_stencil().linear_offset;
  const auto values = S.values();
  const int s = S.stencil().size(), center = S.stencil().center(), b = S.block_size();
  const Offset np = S.num_points();
  Kokkos::parallel_for(
      "fgdd::struct::structured_problem", Kokkos::RangePolicy<ExecSpace>(space, 0, np),
      KOKKOS_LAMBDA(const Offset p) {
        Ordinal x, y, z;
        g.of(p, x, y, z);
        Scalar row_sum[max_block_size] = {};
        const auto at = [&](int e, int r, int c) -> Scalar& {
          return values(((Offset(e) * b + r) * b + c) * np + p);
        };
        for (int e = 0; e < s; ++e) {
          if (!g.inside(x + offsets(e, 0), y + offsets(e, 1), z + offsets(e, 2))) continue;
          const Offset q = Offset((long long)p + linear(e));
          for (int r = 0; r < b; ++r)
            for (int c = 0; c < b; ++c) {
              if (e == center && r == c) continue;
              Scalar v;
              if (!symmetric) {
                v = hashed_value(seed, p, std::uint64_t(e), std::uint64_t(r * b + c));
              } else if (e == center) {  // the pivot block itself symmetric
                const int lo = r < c ? r : c, hi = r < c ? c : r;
                v = hashed_value(seed, p, p, std::uint64_t(lo * b + hi));
              } else {  // key on the unordered pair of points, (r, c) as seen from the lower
                v = p < q ? hashed_value(seed, p, q, std::uint64_t(r * b + c))
                          : hashed_value(seed, q, p, std::uint64_t(c * b + r));
              }
              at(e, r, c) = v;
              row_sum[r] += fabs(v);
            }
        }
        for (int r = 0; r < b; ++r) at(center, r, r) = 1 + row_sum[r];
      });
}

void fill_from_sparse(const ExecSpace& space, const SparseMatrix& A,
                      const Kokkos::View<const Ordinal*, DeviceType>& perm, StructuredMatrix& S) {
  const GridInfo& grid = S.grid();
  const Ordinal n = A.num_block_rows();
  if (Offset(n) != grid.num_points() || A.block_size() != S.block_size())
    throw DimensionMismatch("matrix with " + std::to_string(n) + " block rows of size " +
                            std::to_string(A.block_size()) + " does not fit a " +
                            std::to_string(grid.nx) + "x" + std::to_string(grid.ny) + "x" +
                            std::to_string(grid.nz) + " grid with block size " +
                            std::to_string(S.block_size()));
  if (perm.extent(0) != 0 && perm.extent(0) != Offset(n))
    throw DimensionMismatch("permutation has " + std::to_string(perm.extent(0)) + " entries for " +
                            std::to_string(n) + " block rows");
  const bool permuted = perm.extent(0) != 0;
  const Kokkos::View<const Ordinal*, DeviceType> iperm =
      permuted ? Kokkos::View<const Ordinal*, DeviceType>(inverse_permutation(space, perm)) : perm;
  const GridCoordinates g{grid.nx, grid.ny, grid.nz};
  const OffsetLookup lookup = make_lookup(S.stencil());
  const auto row_map = A.row_map();
  const auto col_ind = A.col_ind();
  const auto a_values = A.values();
  const auto values = S.values();
  const int b = S.block_size(), bb = b * b;
  const Offset np = S.num_points();
  Kokkos::deep_copy(space, values, Scalar(0));
  const Offset none = std::numeric_limits<Offset>::max();
  Offset failed = none;
  Kokkos::parallel_reduce(
      "fgdd::struct::fill_from_sparse", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const Ordinal p, Offset& first_failure) {
        const Ordinal i = permuted ? perm(p) : p;
        Ordinal x, y, z;
        g.of(Offset(p), x, y, z);
        for (Offset k = row_map(i); k < row_map(i + 1); ++k) {
          const Ordinal j = col_ind(k);
          Ordinal qx, qy, qz;
          g.of(Offset(permuted ? iperm(j) : j), qx, qy, qz);
          const int e = lookup((long long)qx - x, (long long)qy - y, (long long)qz - z);
          if (e < 0) {
            if (k < first_failure) first_failure = k;
            continue;
          }
          for (int rc = 0; rc < bb; ++rc)
            values((Offset(e) * bb + rc) * np + Offset(p)) = a_values(k * bb + rc);
        }
      },
      Kokkos::Min<Offset>(failed));
  if (failed != none) {
    const Ordinal row = row_of_entry(space, A, failed);
    const Ordinal column = read_one(col_ind, failed);
    const Offset p = permuted ? Offset(read_one(iperm, row)) : Offset(row);
    const Offset q = permuted ? Offset(read_one(iperm, column)) : Offset(column);
    throw InvalidMatrix("block coupling grid point " + point_text(g, p) + " to " +
                            point_text(g, q) + " is not in stencil " + S.stencil().name(),
                        row, column);
  }
}

SparseMatrix build_sparse(const ExecSpace& space, const StructuredMatrix& S) {
  const GridCoordinates g{S.grid().nx, S.grid().ny, S.grid().nz};
  const auto offsets = S.device_stencil().offsets;
  const auto linear = S.device_stencil().linear_offset;
  const auto values = S.values();
  const int s = S.stencil().size(), b = S.block_size(), bb = b * b;
  const Offset np = S.num_points();
  Kokkos::View<Offset*, DeviceType> row_map("fgdd::struct::row_map", np + 1);
  Kokkos::parallel_for(
      "fgdd::struct::count_neighbours", Kokkos::RangePolicy<ExecSpace>(space, 0, np),
      KOKKOS_LAMBDA(const Offset p) {
        Ordinal x, y, z;
        g.of(p, x, y, z);
        Offset count = 0;
        for (int e = 0; e < s; ++e)
          if (g.inside(x + offsets(e, 0), y + offsets(e, 1), z + offsets(e, 2))) ++count;
        row_map(p) = count;
      });
  const Offset entries = exclusive_scan_in_place(space, "fgdd::struct::row_map_scan", row_map);
  SparseMatrix::ColumnIndices col_ind(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::struct::col_ind"), entries);
  SparseMatrix::Values a_values(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::struct::values"), entries * bb);
  Kokkos::parallel_for(
      "fgdd::struct::fill_sparse", Kokkos::RangePolicy<ExecSpace>(space, 0, np),
      KOKKOS_LAMBDA(const Offset p) {
        Ordinal x, y, z;
        g.of(p, x, y, z);
        Offset k = row_map(p);
        for (int e = 0; e < s; ++e) {  // stencil order is column order
          if (!g.inside(x + offsets(e, 0), y + offsets(e, 1), z + offsets(e, 2))) continue;
          col_ind(k) = Ordinal((long long)p + linear(e));
          for (int rc = 0; rc < bb; ++rc)
            a_values(k * bb + rc) = values((Offset(e) * bb + rc) * np + p);
          ++k;
        }
      });
  return SparseMatrix(SparseMatrix::ValidatedTag{}, Ordinal(np), b, row_map, col_ind, a_values);
}

Stencil detect(const ExecSpace& space, const SparseMatrix& A, const GridInfo& grid, int max_radius,
               const Kokkos::View<const Ordinal*, DeviceType>& perm) {
  const Ordinal n = A.num_block_rows();
  if (grid.empty() || Offset(n) != grid.num_points())
    throw DimensionMismatch("matrix with " + std::to_string(n) + " block rows does not fit a " +
                            std::to_string(grid.nx) + "x" + std::to_string(grid.ny) + "x" +
                            std::to_string(grid.nz) + " grid");
  if (perm.extent(0) != 0 && perm.extent(0) != Offset(n))
    throw DimensionMismatch("permutation has " + std::to_string(perm.extent(0)) + " entries for " +
                            std::to_string(n) + " block rows");
  if (max_radius < 0 || max_radius > Stencil::max_radius)
    throw InvalidInput("max_radius must be in [0, " + std::to_string(Stencil::max_radius) +
                       "], got " + std::to_string(max_radius));
  const bool permuted = perm.extent(0) != 0;
  const Kokkos::View<const Ordinal*, DeviceType> iperm =
      permuted ? Kokkos::View<const Ordinal*, DeviceType>(inverse_permutation(space, perm)) : perm;
  const GridCoordinates g{grid.nx, grid.ny, grid.nz};
  const int side = 2 * max_radius + 1;
  Kokkos::View<int*, DeviceType> seen("fgdd::struct::seen_offsets", side * side * side);
  const auto row_map = A.row_map();
  const auto col_ind = A.col_ind();
  const Offset none = std::numeric_limits<Offset>::max();
  Offset failed = none;
  Kokkos::parallel_reduce(
      "fgdd::struct::detect_stencil", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const Ordinal p, Offset& first_failure) {
        const Ordinal i = permuted ? perm(p) : p;
        Ordinal x, y, z;
        g.of(Offset(p), x, y, z);
        for (Offset k = row_map(i); k < row_map(i + 1); ++k) {
          const Ordinal j = col_ind(k);
          Ordinal qx, qy, qz;
          g.of(Offset(permuted ? iperm(j) : j), qx, qy, qz);
          const int dx = qx - x, dy = qy - y, dz = qz - z;
          if (dx < -max_radius || dx > max_radius || dy < -max_radius || dy > max_radius ||
              dz < -max_radius || dz > max_radius) {
            if (k < first_failure) first_failure = k;
            continue;
          }
          const int slot = ((dz + max_radius) * side + dy + max_radius) * side + dx + max_radius;
          if (atomic_load(&seen(slot)) == 0) atomic_store(&seen(slot), 1);
        }
      },
      Kokkos::Min<Offset>(failed));
  if (failed != none) {
    const Ordinal row = row_of_entry(space, A, failed);
    const Ordinal column = read_one(col_ind, failed);
    const Offset p = permuted ? Offset(read_one(iperm, row)) : Offset(row);
    const Offset q = permuted ? Offset(read_one(iperm, column)) : Offset(column);
    throw InvalidMatrix("block coupling grid point " + point_text(g, p) + " to " +
                            point_text(g, q) + " is no stencil neighbour within radius " +
                            std::to_string(max_radius),
                        row, column);
  }
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), seen);
  std::vector<StencilOffset> offsets;
  for (int dz = -max_radius; dz <= max_radius; ++dz)
    for (int dy = -max_radius; dy <= max_radius; ++dy)
      for (int dx = -max_radius; dx <= max_radius; ++dx)
        if (host(((dz + max_radius) * side + dy + max_radius) * side + dx + max_radius) ||
            (dx == 0 && dy == 0 && dz == 0))
          offsets.push_back({dx, dy, dz});
  // Name it after a built-in stencil when it is one.
  const Stencil found = Stencil::from_offsets(offsets, "detected");
  for (const char* name : {"star7", "star13", "diamond13", "diamond25", "box27"}) {
    const Stencil known = Stencil::named(name);
    if (known.offsets() == found.offsets()) return known;
  }
  return found;
}

}  // namespace detail

StructuredMatrix::StructuredMatrix(const GridInfo& grid, const Stencil& stencil, int block_size)
    : grid_(grid), stencil_(stencil), block_size_(block_size) {
  detail::check_grid(grid);
  if (block_size < 1 || block_size > detail::max_block_size)
    throw InvalidInput("block size must be in [1, " + std::to_string(detail::max_block_size) +
                       "], got " + std::to_string(block_size));
  if (grid.num_points() * Offset(block_size) > Offset(std::numeric_limits<Ordinal>::max()))
    throw InvalidInput("a " + std::to_string(grid.nx) + "x" + std::to_string(grid.ny) + "x" +
                       std::to_string(grid.nz) + " grid with block size " +
                       std::to_string(block_size) + " has more rows than Ordinal holds");
  const int s = stencil.size();
  device_stencil_.size = s;
  device_stencil_.num_lower = stencil.num_lower();
  device_stencil_.offsets = Kokkos::View<int* [3], DeviceType>("fgdd::struct::offsets", s);
  device_stencil_.linear_offset =
      Kokkos::View<long long*, DeviceType>("fgdd::struct::linear_offset", s);
  auto offsets = Kokkos::create_mirror_view(device_stencil_.offsets);
  auto linear = Kokkos::create_mirror_view(device_stencil_.linear_offset);
  for (int e = 0; e < s; ++e) {
    const StencilOffset& o = stencil.offsets()[e];
    offsets(e, 0) = o.dx;
    offsets(e, 1) = o.dy;
    offsets(e, 2) = o.dz;
    linear(e) = o.dx + (long long)grid.nx * (o.dy + (long long)grid.ny * o.dz);
  }
  Kokkos::deep_copy(device_stencil_.offsets, offsets);
  Kokkos::deep_copy(device_stencil_.linear_offset, linear);
  allocate_values();
}

StructuredMatrix StructuredMatrix::shape() const {
  StructuredMatrix shape = *this;
  shape.values_ = Values();
  return shape;
}

void StructuredMatrix::allocate_values() {
  if (values_.extent(0) == 0)
    values_ = Values("fgdd::struct::values",
                     Offset(stencil_.size()) * block_size_ * block_size_ * num_points());
}

bool StructuredMatrix::same_structure(const StructuredMatrix& other) const noexcept {
  return grid_.nx == other.grid_.nx && grid_.ny == other.grid_.ny && grid_.nz == other.grid_.nz &&
         block_size_ == other.block_size_ && stencil_.offsets() == other.stencil_.offsets();
}

StructuredMatrix structured_problem(const ExecSpace& space, const GridInfo& grid,
                                    const Stencil& stencil, int block_size, StructuredValues kind,
                                    std::uint64_t seed) {
  if (kind == StructuredValues::Symmetric && !stencil.is_symmetric())
    throw InvalidInput("a symmetric problem needs a symmetric stencil; " + stencil.name() +
                       " is not");
  StructuredMatrix S(grid, stencil, block_size);
  detail::fill_problem(space, S, kind == StructuredValues::Symmetric, seed);
  return S;
}

Stencil detect_stencil(const ExecSpace& space, const SparseMatrix& A, const GridInfo& grid,
                       int max_radius, const Kokkos::View<const Ordinal*, DeviceType>& perm) {
  return detail::detect(space, A, grid, max_radius, perm);
}

StructuredMatrix to_structured(const ExecSpace& space, const SparseMatrix& A, const GridInfo& grid,
                               const Stencil& stencil,
                               const Kokkos::View<const Ordinal*, DeviceType>& perm) {
  detail::check_grid(grid);
  if (Offset(A.num_block_rows()) != grid.num_points())
    throw DimensionMismatch("matrix with " + std::to_string(A.num_block_rows()) +
                            " block rows does not fit a " + std::to_string(grid.nx) + "x" +
                            std::to_string(grid.ny) + "x" + std::to_string(grid.nz) + " grid");
  StructuredMatrix S(grid, stencil, A.block_size());
  detail::fill_from_sparse(space, A, perm, S);
  return S;
}

void fill_structured(const ExecSpace& space, const SparseMatrix& A,
                     const Kokkos::View<const Ordinal*, DeviceType>& perm, StructuredMatrix& S) {
  detail::fill_from_sparse(space, A, perm, S);
}

SparseMatrix to_sparse(const ExecSpace& space, const StructuredMatrix& S) {
  return detail::build_sparse(space, S);
}

}  // namespace fgdd
