#include "partition/partition_options.hpp"

#include "core/errors.hpp"
#include "core/team_scratch.hpp"

#include <algorithm>

namespace fgdd {

const char* to_string(Partitioner partitioner) noexcept {
  return partitioner_names.name(partitioner);
}

Partitioner parse_partitioner(const std::string& name) { return partitioner_names.parse(name); }

Offset max_subdomain_rows(int block_size) {
  // A slice must fit level-0 scratch, as team_scratch_for decides for the apply kernels.
  const Offset rows = Offset(detail::level0_scratch_bytes() / sizeof(Scalar));
  return rows - rows % Offset(block_size);
}

Offset default_subdomain_rows(int block_size) {
  constexpr bool gpu = !Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemSpace>::accessible;
  const Offset largest = max_subdomain_rows(block_size);
  if (!gpu) return largest;
  const Offset gpu_rows = 1500 - 1500 % Offset(block_size);
  return std::min(largest, std::max(gpu_rows, Offset(block_size)));
}

void PartitionOptions::validate(int block_size) const {
  if (subdomain_rows == 0) return;
  const Offset largest = max_subdomain_rows(block_size);
  if (subdomain_rows < Offset(block_size))
    throw InvalidInput("subdomain_rows must be at least the block size " +
                       std::to_string(block_size) + ", got " + std::to_string(subdomain_rows));
  if (subdomain_rows > largest)
    throw InvalidInput("subdomain_rows " + std::to_string(subdomain_rows) +
                       " exceeds what team scratch holds on " + ExecSpace::name() + " (" +
                       std::to_string(largest) + " rows at block size " +
                       std::to_string(block_size) + ")");
}

Ordinal PartitionOptions::subdomain_block_rows(int block_size) const {
  validate(block_size);
  const Offset rows = subdomain_rows == 0 ? default_subdomain_rows(block_size) : subdomain_rows;
  return Ordinal(rows / Offset(block_size));
}

}  // namespace fgdd
