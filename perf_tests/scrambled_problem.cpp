#include "scrambled_problem.hpp"

#include "core/errors.hpp"
#include "partition/partition.hpp"
#include "partition/reorder.hpp"

#include <Kokkos_Core.hpp>

#include <string>
#include <utility>

namespace fgdd::bench {

namespace {

// Steele, Lea and Flood's splitmix64: small, fast, and fully specified.
std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

std::vector<Ordinal> random_permutation(Ordinal n, std::uint64_t seed) {
  std::vector<Ordinal> position(n > 0 ? n : 0);
  for (Ordinal i = 0; i < n; ++i) position[i] = i;
  std::uint64_t state = seed;
  // Modulo bias is below n / 2⁶⁴: irrelevant for a benchmark's shuffle.
  for (Ordinal i = n - 1; i > 0; --i)
    std::swap(position[i], position[splitmix64(state) % std::uint64_t(i + 1)]);
  return position;
}

ScrambledSystem scramble(const ExecSpace& space, const SparseMatrix& A, ConstVector b,
                         const std::vector<Ordinal>& position) {
  const Ordinal n = A.num_block_rows();
  if (Ordinal(position.size()) != n)
    throw InvalidInput("a permutation of " + std::to_string(position.size()) +
                       " rows for a matrix of " + std::to_string(n) + " block rows");
  if (Offset(b.extent(0)) != A.num_rows())
    throw InvalidInput("b has " + std::to_string(b.extent(0)) + " rows, A " +
                       std::to_string(A.num_rows()));
  std::vector<char> seen(n, 0);
  for (Ordinal i = 0; i < n; ++i) {
    if (position[i] < 0 || position[i] >= n || seen[position[i]])
      throw InvalidInput("not a permutation: row " + std::to_string(i) + " goes to " +
                         std::to_string(position[i]));
    seen[position[i]] = 1;
  }
  // One subdomain ordered by the new positions: the partition stage's permutation is then
  // exactly position, and reorder_and_drop and permute_vector apply it on the device.
  detail::Labeling labeling;
  labeling.num_parts = 1;
  labeling.part_of_row = Kokkos::View<Ordinal*, DeviceType>("fgdd::bench::scramble_part", n);
  labeling.order_key = Kokkos::View<Ordinal*, DeviceType>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::bench::scramble_key"), n);
  Kokkos::deep_copy(
      space, labeling.order_key,
      Kokkos::View<const Ordinal*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
          position.data(), n));
  const Partition partition = detail::make_partition(space, labeling);
  ScrambledSystem out;
  out.matrix = reorder_and_drop(space, A, partition).permuted;
  out.rhs = Vector(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::bench::scrambled_b"),
                   A.num_rows());
  permute_vector(space, partition, A.block_size(), b, out.rhs);
  space.fence();
  return out;
}

}  // namespace fgdd::bench
