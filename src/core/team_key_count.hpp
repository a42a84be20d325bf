// How many keys (levels, colours) a team's rows use: the largest key + 1, reduced over the team.
#pragma once

#include "core/types.hpp"

namespace fgdd::detail {

// keys[0..rows) are dense from 0 (a counting sort's bins); no rows gives no keys. Every thread
// of the team gets the count.
template <class Member>
KOKKOS_INLINE_FUNCTION Ordinal team_key_count(const Member& team, const Ordinal* keys,
                                              Ordinal rows) {
  Ordinal deepest = 0;
  Kokkos::parallel_reduce(
      Kokkos::TeamThreadRange(team, rows),
      [&](const Ordinal t, Ordinal& most) {
        if (keys[t] > most) most = keys[t];
      },
      Kokkos::Max<Ordinal>(deepest));
  return rows > 0 ? deepest + 1 : 0;
}

}  // namespace fgdd::detail
