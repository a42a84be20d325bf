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

Offset default_subdomain_rows(int block_size, Offset num_rows, int ranks) {
  const Offset b = Offset(block_size);
  const Offset devices = std::max(Offset(ranks), Offset(1));
  if (host_memory) {
    // One subdomain per thread: each thread factors and solves its own block in sequence, so
    // more subdomains than threads only drop couplings (block Jacobi with one block per rank,
    // as PETSc runs on CPUs; Serial gets the exact ILU(0) of the whole matrix). 6 % above an
    // even share, because METIS is asked for parts of 95 % of the cap (metis_num_parts).
    const Offset threads =
        std::max(Offset(ExecSpace().concurrency()), Offset(1)) * devices;
    const Offset block_rows = (num_rows + b - 1) / b;
    if (threads == 1) return std::max(block_rows, Offset(1)) * b;
    const Offset share = (block_rows * 106 + threads * 100 - 1) / (threads * 100);
    return std::max(share, Offset(1)) * b;
  }
  // Enough subdomains for each device: one per 512 of its concurrent threads (four per SM of
  // 2,048 threads on NVIDIA GPUs), else most SMs idle during the apply.
  const Offset wanted =
      std::max(Offset(ExecSpace().concurrency()) / gpu_threads_per_subdomain, Offset(1)) * devices;
  const Offset filling = (num_rows + wanted - 1) / wanted;
  const Offset rows = std::clamp(filling, gpu_min_default_rows, gpu_max_default_rows);
  return std::min(max_subdomain_rows(block_size), std::max(rows - rows % b, b));
}

void PartitionOptions::validate(int block_size) const {
  if (subdomain_rows == 0) return;
  if (subdomain_rows < Offset(block_size))
    throw InvalidInput("subdomain_rows must be at least the block size " +
                       std::to_string(block_size) + ", got " + std::to_string(subdomain_rows));
  // On CPU backends a slice beyond level-0 scratch goes to level 1 (host memory, as fast).
  if (host_memory) return;
  const Offset largest = max_subdomain_rows(block_size);
  if (subdomain_rows > largest)
    throw InvalidInput("subdomain_rows " + std::to_string(subdomain_rows) +
                       " exceeds what team scratch holds on " + ExecSpace::name() + " (" +
                       std::to_string(largest) + " rows at block size " +
                       std::to_string(block_size) + ")");
}

Ordinal PartitionOptions::subdomain_block_rows(int block_size, Offset num_rows) const {
  validate(block_size);
  const Offset rows =
      subdomain_rows == 0 ? default_subdomain_rows(block_size, num_rows) : subdomain_rows;
  return Ordinal(rows / Offset(block_size));
}

}  // namespace fgdd
