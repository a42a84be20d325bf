// The device check every validation shares: the first row for which a predicate holds, so an
// error can name it.
#pragma once

#include "core/types.hpp"

#include <string>

namespace fgdd::detail {

// The lowest i in [0, n) with bad(i), or n if none; bad runs on space for every row.
template <class Predicate>
Ordinal first_row_where(const ExecSpace& space, Ordinal n, const std::string& label,
                        Predicate bad) {
  Ordinal first = n;
  Kokkos::parallel_reduce(
      label, Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const Ordinal i, Ordinal& found) {
        if (i < found && bad(i)) found = i;
      },
      Kokkos::Min<Ordinal>(first));
  // The reducer starts from its identity (the largest Ordinal), not from n.
  return first < n ? first : n;
}

}  // namespace fgdd::detail
