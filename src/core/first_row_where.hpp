// The device check every validation shares: the first row for which a predicate holds, so an
// error can name it.
#pragma once

#include "core/types.hpp"

#include <string>

namespace fgdd::detail {

// Min-reduction body for first_row_where; a functor because device lambdas stay out of headers
// (core/types.hpp).
template <class Predicate>
struct FirstRowWhereBody {
  Predicate bad;
  KOKKOS_INLINE_FUNCTION void operator()(const Ordinal i, Ordinal& found) const {
    if (i < found && bad(i)) found = i;
  }
};

// The lowest i in [0, n) with bad(i), or n if none; bad runs on space for every row.
template <class Predicate>
Ordinal first_row_where(const ExecSpace& space, Ordinal n, const std::string& label,
                        Predicate bad) {
  Ordinal first = n;
  Kokkos::parallel_reduce(label, Kokkos::RangePolicy<ExecSpace>(space, 0, n),
                          FirstRowWhereBody<Predicate>{bad}, Kokkos::Min<Ordinal>(first));
  // The reducer starts from its identity (the largest Ordinal), not from n.
  return first < n ? first : n;
}

}  // namespace fgdd::detail
