// A partition of the block rows into subdomains and the permutation that makes every subdomain
// a contiguous range (fine-grained-dd-sptrsv-gpu.txt §3, Algorithm 2's pmap / inv_pmap).
#pragma once

#include "partition/labeling.hpp"

#include <algorithm>
#include <vector>

namespace fgdd {

struct Partition {
  Ordinal num_subdomains = 0;
  // Original block row -> subdomain.
  Kokkos::View<Ordinal*, DeviceType> part_of_row;
  // perm(original block row) = new block row; iperm(new) = original.
  Kokkos::View<Ordinal*, DeviceType> perm;
  Kokkos::View<Ordinal*, DeviceType> iperm;
  // Subdomain s holds new block rows [subdomain_offsets(s), subdomain_offsets(s+1)).
  Kokkos::View<Ordinal*, DeviceType> subdomain_offsets;
  // The same offsets on the host (small: one entry per subdomain), for reports and launches.
  std::vector<Ordinal> host_subdomain_offsets;

  Ordinal num_block_rows() const noexcept { return Ordinal(perm.extent(0)); }
  // Block rows of the largest subdomain (0 without subdomains), from the host offsets.
  Ordinal largest_subdomain() const noexcept {
    Ordinal largest = 0;
    for (std::size_t s = 0; s + 1 < host_subdomain_offsets.size(); ++s)
      largest = std::max(largest, host_subdomain_offsets[s + 1] - host_subdomain_offsets[s]);
    return largest;
  }
};

namespace detail {
// Builds perm, iperm and offsets on the device from a labeling. Labels with no rows are
// dropped (subdomains are renumbered densely), so no subdomain is ever empty.
// Throws InvalidInput if a label is outside [0, num_parts).
Partition make_partition(const ExecSpace& space, const Labeling& labeling);

// The same subdomains as partition with perm and iperm freshly allocated (not filled): what a
// renumbering inside the subdomains (level_order.hpp, subdomain_rcm.hpp) writes into.
Partition with_new_row_order(const Partition& partition);

// keys(i) = i for i < n: the order key of partitioners that keep the caller's row order.
Kokkos::View<Ordinal*, DeviceType> row_index_keys(const ExecSpace& space, Ordinal n);
}  // namespace detail

}  // namespace fgdd
