// What every partitioner produces: a subdomain label for each block row and, within a subdomain,
// the order its rows take (make_partition turns this into the permutation).
#pragma once

#include "core/types.hpp"

namespace fgdd::detail {

struct Labeling {
  Ordinal num_parts = 0;
  // part_of_row(i) in [0, num_parts): the subdomain of original block row i.
  Kokkos::View<Ordinal*, DeviceType> part_of_row;
  // Rows of one subdomain are ordered by increasing order_key, e.g. the row's position in an
  // RCM ordering, or the row index itself. Keys are >= 0 and distinct within a subdomain.
  Kokkos::View<Ordinal*, DeviceType> order_key;
};

}  // namespace fgdd::detail
