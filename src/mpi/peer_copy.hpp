// Device memory of the other ranks of one node, through CUDA IPC, for MPI libraries that cannot
// take device pointers: whether the ranks can use it, and the root's scatter of setup arrays
// straight into the other ranks' device memory (instead of device → host → MPI → host → device).
#pragma once

#include "mpi/communicator.hpp"

#include <cstdint>
#include <vector>

namespace fgdd {

// Collective. True on every rank, or false on every rank: more than one rank, all on this node,
// a CUDA build whose MPI cannot take device pointers, and the environment variable named by
// off_switch not set to 0 on any rank.
bool peer_access_wanted(const Communicator& comm, const char* off_switch);

// Collective. Rank r receives my_bytes (its own count) into its device memory at mine, from
// the root's device bytes whole + starts[r] (root only: whole, starts and lengths, one per
// rank; the root's own part is not copied). Every rank returns false when the peer path is not
// wanted (peer_access_wanted(comm, "FGDD_PEER_SCATTER")) or any rank's IPC call failed; then
// the caller sends through MPI. Returns after the bytes arrived (the device is synchronized).
bool peer_scatter_bytes(const Communicator& comm, const void* whole,
                        const std::vector<std::uint64_t>& starts,
                        const std::vector<std::uint64_t>& lengths, std::uint64_t my_bytes,
                        void* mine);

}  // namespace fgdd
