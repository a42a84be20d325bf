// Software prefetch for CPU gathers (internal, device code).
#pragma once

#include "core/types.hpp"

namespace fgdd::detail {

// Asks a CPU core to start loading the two cache lines from p, and does nothing in GPU code
// (there other warps hide a load's latency). For loops that copy whole rows visited in a
// permuted order: each row's first load misses the cache and waits, and a prefetch of a row a
// few iterations ahead overlaps those waits (measured: docs/PERFORMANCE.md, "Prefetched
// gathers").
KOKKOS_FORCEINLINE_FUNCTION void prefetch_on_host(const void* p) {
#if !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__) && \
    !defined(__SYCL_DEVICE_ONLY__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_prefetch(p);
  __builtin_prefetch(static_cast<const char*>(p) + 64);
#else
  (void)p;
#endif
}

// Rows visited this many iterations ahead are prefetched: on SUPG (two threads) the gather took
// 2.5-3.6 ms a call at 8, 3.5-4.3 at 4 and 3.7-4.2 at 16.
inline constexpr int prefetch_rows_ahead = 8;

// In a loop over rows r of [0, n) on a CPU backend, prefetches the row prefetch_rows_ahead
// iterations later; address(row) names where that row's data begins. Nothing on GPUs.
template <class Address>
KOKKOS_FORCEINLINE_FUNCTION void prefetch_row_ahead(Ordinal r, Ordinal n, const Address& address) {
  if constexpr (host_memory) {
    if (r + prefetch_rows_ahead < n) prefetch_on_host(address(r + prefetch_rows_ahead));
  }
}

}  // namespace fgdd::detail
