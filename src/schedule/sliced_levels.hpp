// One triangle's level sets laid out as padded columns, one slice per level of each subdomain
// (sliced ELLPACK with a level as the slice), for the vertex kernel that gives a thread a row:
// entry q of the rows of a level lie next to each other, so the team's loads of a level are
// coalesced, and a thread can load its next row's entries before it needs them.
#pragma once

#include "partition/partition.hpp"
#include "schedule/subdomain_levels.hpp"

namespace fgdd {

// Level slot L (SubdomainLevels' level_ptr indexing) with R rows and W = width(L) entries in its
// longest row: entry q of the row at position level_ptr(L) + p lies at slice_ptr(L) + q·R + p,
// for q < W. col is that entry's block column less the subdomain's first row, or -1 past the
// row's last entry; a row's entries keep their order in the factors.
struct SlicedLevels {
  Kokkos::View<Offset*, DeviceType> slice_ptr;  // per level slot: its first padded entry
  Kokkos::View<Ordinal*, DeviceType> width;     // per level slot: its longest row's entries
  Kokkos::View<Ordinal*, DeviceType> col;       // per padded entry
  Offset num_entries = 0;                       // padded entries, both ends of every slice
  double seconds = 0;                           // device time to build this
};

// The slices of `levels` (built for the same partition), on the device.
SlicedLevels build_sliced_levels(const ExecSpace& space, const SubdomainLevels& levels,
                                 const Partition& partition);

// out(k·bb + j) = values(entry of padded entry k · bb + j), 0 for the padding: the factor blocks
// (b×b, bb = b²) of the sliced triangle in slice order, rounded to out's type. out holds
// sliced.num_entries · bb values. factors: the factors the levels were built from (their row map,
// diagonal positions and values).
void gather_sliced_values(const ExecSpace& space, const SubdomainLevels& levels,
                          const SlicedLevels& sliced, const Partition& partition,
                          const SparseMatrix& factors,
                          const Kokkos::View<Offset*, DeviceType>& diag_position,
                          const Kokkos::View<Scalar*, DeviceType>& out);
void gather_sliced_values(const ExecSpace& space, const SubdomainLevels& levels,
                          const SlicedLevels& sliced, const Partition& partition,
                          const SparseMatrix& factors,
                          const Kokkos::View<Offset*, DeviceType>& diag_position,
                          const Kokkos::View<float*, DeviceType>& out);

}  // namespace fgdd
