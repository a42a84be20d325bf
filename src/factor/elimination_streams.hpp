// What each row's elimination updates, found once per pattern so that the numeric factorization
// in level order reads a short list instead of merging rows. Merging row i with each U_j chases
// col_ind(kk) and col_ind(target) one dependent load after another; with a thread per row that
// chain of memory latencies, not the bytes, set the refactorization time on GPUs
// (docs/PERFORMANCE.md, "Refactorization from update lists").
#pragma once

#include "core/sparse_matrix.hpp"
#include "schedule/subdomain_levels.hpp"

#include <cstdint>

namespace fgdd::detail {

// The row at position p of levels.rows (row i) has the codes codes(start(p)) ..
// codes(start(p + 1) - 1). For each block entry kj of L_i in ascending order (j = col_ind(kj)):
// the number of updates c, then c pairs (target − row_map(i), kk − row_map(j)), meaning
// A_i,target −= L_ij · U_j,kk, in the order the IKJ merge meets them (so the factors are the same
// bits as the merge's). Codes are 16-bit; a value of 0xFFFF or more takes three (0xFFFF, then
// its low and high 16 bits), so rows of any length are listed.
struct EliminationStreams {
  Kokkos::View<Offset*, DeviceType> start;  // n + 1
  Kokkos::View<std::uint16_t*, DeviceType> codes;
};

inline constexpr std::uint32_t long_code = 0xFFFF;

KOKKOS_INLINE_FUNCTION int code_length(Offset value) { return value < long_code ? 1 : 3; }

KOKKOS_INLINE_FUNCTION void put_code(std::uint16_t*& at, Offset value) {
  if (value < long_code) {
    *at++ = std::uint16_t(value);
    return;
  }
  *at++ = std::uint16_t(long_code);
  *at++ = std::uint16_t(value & 0xFFFF);
  *at++ = std::uint16_t((value >> 16) & 0xFFFF);
}

KOKKOS_INLINE_FUNCTION Offset take_code(const std::uint16_t*& at) {
  const std::uint16_t value = *at++;
  if (value != long_code) return value;
  const Offset low = at[0], high = at[1];
  at += 2;
  return low | (high << 16);
}

// For the lower triangle's levels of factors (diag_position: the diagonal blocks).
EliminationStreams build_elimination_streams(const ExecSpace& space, const SparseMatrix& factors,
                                             const Kokkos::View<Offset*, DeviceType>& diag_position,
                                             const SubdomainLevels& levels);

}  // namespace fgdd::detail
