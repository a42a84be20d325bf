// Rows of (key, weight) pairs sorted by key, collapsed to one pair per distinct key: parallel arcs
// of a contracted graph merged, or the neighbouring parts of a part counted.
#pragma once

#include "core/types.hpp"

#include <string>

namespace fgdd::detail {

class DeviceArena;

struct SortedRuns {
  Kokkos::View<Offset*, DeviceType> offsets;  // rows + 1
  Kokkos::View<Ordinal*, DeviceType> keys;    // distinct keys of each row, ascending
  Kokkos::View<Ordinal*, DeviceType> weights; // the summed weights of each key's run
};

// Row r is keys / weights [offsets(r), offsets(r + 1)), sorted by key (sort_crs_rows). Integer
// sums, so the result is the same every run. With skip_diagonal, key r is left out of row r (the
// self loops of a contracted graph). label prefixes the kernels and allocations. The result's
// arrays come from arena when one is given.
SortedRuns merge_sorted_runs(const ExecSpace& space, const std::string& label,
                             const Kokkos::View<Offset*, DeviceType>& offsets,
                             const Kokkos::View<Ordinal*, DeviceType>& keys,
                             const Kokkos::View<Ordinal*, DeviceType>& weights,
                             bool skip_diagonal, DeviceArena* arena = nullptr);

}  // namespace fgdd::detail
