// The one place for differences between Kokkos 3.4 (Debian, Serial) and Kokkos 4.x (CUDA, HIP,
// OpenMP): math functions moved out of Kokkos::Experimental, atomic load/store out of
// Kokkos::Impl, memory orders exist only in 4.x, and the CRS and bitonic sorts moved namespaces.
#pragma once

#include <Kokkos_Core.hpp>
#include <KokkosKernels_config.h>

#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_spmv.hpp>

#if KOKKOS_VERSION >= 40000
#include <KokkosSparse_SortCrs.hpp>
#else
#include <KokkosKernels_SparseUtils.hpp>
#endif
#include <KokkosKernels_Sorting.hpp>

#include <cstdint>

namespace fgdd::detail {

#if KOKKOS_VERSION >= 40000
namespace kmath = ::Kokkos;
#else
namespace kmath = ::Kokkos::Experimental;
#endif

KOKKOS_INLINE_FUNCTION double sqrt(double x) { return kmath::sqrt(x); }
KOKKOS_INLINE_FUNCTION double log(double x) { return kmath::log(x); }
KOKKOS_INLINE_FUNCTION double exp(double x) { return kmath::exp(x); }
KOKKOS_INLINE_FUNCTION double cos(double x) { return kmath::cos(x); }
KOKKOS_INLINE_FUNCTION double fabs(double x) { return kmath::fabs(x); }
KOKKOS_INLINE_FUNCTION bool isfinite(double x) { return kmath::isfinite(x); }

// Relaxed atomic load and store (public in Kokkos 4, in Kokkos::Impl in 3.4).
#if KOKKOS_VERSION >= 40000
using ::Kokkos::atomic_load;
using ::Kokkos::atomic_store;
#else
using ::Kokkos::Impl::atomic_load;
using ::Kokkos::Impl::atomic_store;
#endif

// An acquire load and a release store at device scope, for flags that publish other data. On
// GPUs they are ld.acquire / st.release, which cost less than a relaxed access beside a
// sequentially consistent fence (Kokkos::memory_fence); a release after a team barrier covers
// what the team's threads wrote before it. Kokkos 3.4 has no memory orders: fence and relaxed.
template <class T>
KOKKOS_INLINE_FUNCTION T acquire_load(T* p) {
#if KOKKOS_VERSION >= 40000
  return desul::atomic_load(p, desul::MemoryOrderAcquire(), desul::MemoryScopeDevice());
#else
  const T v = atomic_load(p);
  Kokkos::memory_fence();
  return v;
#endif
}
template <class T>
KOKKOS_INLINE_FUNCTION void release_store(T* p, T v) {
#if KOKKOS_VERSION >= 40000
  desul::atomic_store(p, v, desul::MemoryOrderRelease(), desul::MemoryScopeDevice());
#else
  Kokkos::memory_fence();
  atomic_store(p, v);
#endif
}

// Sorts the entries of each CRS row by column, permuting values alike.
template <class ExecSpace, class RowMap, class Entries, class Values>
void sort_crs_rows(const RowMap& row_map, const Entries& entries, const Values& values) {
#if KOKKOS_VERSION >= 40000
  KokkosSparse::sort_crs_matrix<ExecSpace>(row_map, entries, values);
#else
  KokkosKernels::Impl::sort_crs_matrix<ExecSpace>(row_map, entries, values);
#endif
}

// Sorts v in place by comp (a strict weak order) with Kokkos-Kernels' device bitonic sort, on
// the default instance of ExecSpace. A bitonic network compares fixed pairs, so the result depends
// only on the input; with keys that comp never finds equal it is the one sorted order.
template <class ExecSpace, class View, class Comparator>
void bitonic_sort(const View& v, const Comparator& comp) {
#if KOKKOS_VERSION >= 30500
  KokkosKernels::bitonicSort<View, ExecSpace, std::int64_t, Comparator>(v, comp);
#else
  KokkosKernels::Impl::bitonicSort<View, ExecSpace, std::int64_t, Comparator>(v, comp);
#endif
}

// y = alpha*A*x + beta*y with Kokkos-Kernels; only 4.x takes the execution space instance.
template <class ExecSpace, class CrsMatrix, class XVector, class YVector>
void kk_spmv(const ExecSpace& space, double alpha, const CrsMatrix& A, const XVector& x,
             double beta, const YVector& y) {
#if KOKKOS_VERSION >= 40000
  KokkosSparse::spmv(space, "N", alpha, A, x, beta, y);
#else
  (void)space;
  KokkosSparse::spmv("N", alpha, A, x, beta, y);
#endif
}

}  // namespace fgdd::detail
