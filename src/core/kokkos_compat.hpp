// The one place for differences between Kokkos 3.4 (Debian, Serial) and Kokkos 4.x (CUDA, HIP,
// OpenMP): math functions moved out of Kokkos::Experimental, atomic load/store out of
// Kokkos::Impl, memory orders and team sorts exist only in 4.x, the CRS and bitonic sorts moved
// namespaces, and only 4.x partitions an execution space into instances.
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
#if KOKKOS_VERSION >= 40000
#include <Kokkos_NestedSort.hpp>
#endif

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

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

// An instance of space's execution space whose kernels may run beside space's (its own stream
// on GPUs), for work that should overlap; space itself on host backends, where a second
// instance would only share the same cores, and in Kokkos 3.4, which cannot partition.
template <class ExecSpace>
ExecSpace concurrent_instance(const ExecSpace& space) {
#if KOKKOS_VERSION >= 40000
  if constexpr (!Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                            typename ExecSpace::memory_space>::accessible)
    return Kokkos::Experimental::partition_space(space, 1)[0];
#endif
  return space;
}

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

// Sorts keys[begin, end) ascending in place, moving values[k] with keys[k]: a row already in
// order costs one pass; short rows go by insertion in a copy on the stack (a fully permuted row,
// as RCM leaves them, moves each entry many places: swapping pairs in memory took 2.8x as long
// on a 110K-row SUPG matrix), long ones as pairs placed by key or by std::sort.
template <class Keys, class Values, class Index>
void sort_row_pairs_on_host(const Keys& keys, const Values& values, Index begin, Index end) {
  // Stops at the first descent: counting them all here for the rule below made the sort slower
  // (CSR elasticity 4.3 against 3.3 ms, SUPG 1.9 against 1.4) than a second pass where needed.
  bool sorted = true;
  for (Index k = begin + 1; k < end && sorted; ++k) sorted = !(keys(k) < keys(k - 1));
  if (sorted) return;
  using Key = std::remove_cv_t<std::remove_reference_t<decltype(keys(begin))>>;
  using Value = std::remove_cv_t<std::remove_reference_t<decltype(values(begin))>>;
  const Index n = end - begin;
  // Insertion sorts a short row, and a row of up to nearly_sorted_row entries with at most one
  // descent (an entry below the one before it) in eight: RCM leaves CSR elasticity's rows of 42
  // so, and its sort took 3.5 ms by insertion against 8.7 by std::sort (two threads). Rows with
  // more descents go to std::sort below: P2 Poisson's rows of 65 (17 to 64 descents) moved each
  // entry many places by insertion, no faster.
  constexpr Index short_row = 32, nearly_sorted_row = 128;
  const auto few_descents = [&] {
    Index descents = 0;
    for (Index k = begin + 1; k < end; ++k) descents += Index(keys(k) < keys(k - 1));
    return 8 * descents <= n;
  };
  if (n <= short_row || (n <= nearly_sorted_row && few_descents())) {
    Key key[nearly_sorted_row];
    Value value[nearly_sorted_row];
    for (Index k = 0; k < n; ++k) {
      const Key moving = keys(begin + k);
      const Value carried = values(begin + k);
      Index j = k;
      for (; j > 0 && moving < key[j - 1]; --j) {
        key[j] = key[j - 1];
        value[j] = value[j - 1];
      }
      key[j] = moving;
      value[j] = carried;
    }
    for (Index k = 0; k < n; ++k) {
      keys(begin + k) = key[k];
      values(begin + k) = value[k];
    }
    return;
  }
  // Long rows: a subdomain's rows when partition.cpp orders them. Where the keys are distinct
  // and fill a range [low, low + n) (RCM and natural chunks: a subdomain's positions) each pair
  // is placed by its key, one pass; otherwise std::sort of a copy (55K shuffled pairs: a
  // heapsort in place took 5.6 ms, std::sort 3.5 ms).
  std::vector<std::pair<Key, Value>> pairs(n);
  const auto placed_by_key = [&] {
    if constexpr (std::is_integral_v<Key>) {
      Key low = keys(begin), high = keys(begin);
      for (Index k = begin + 1; k < end; ++k) {
        low = std::min(low, keys(k));
        high = std::max(high, keys(k));
      }
      if (std::uint64_t(high) - std::uint64_t(low) != std::uint64_t(n - 1)) return false;
      std::vector<bool> filled(n, false);
      for (Index k = begin; k < end; ++k) {
        const auto at = std::size_t(std::uint64_t(keys(k)) - std::uint64_t(low));
        if (filled[at]) return false;
        filled[at] = true;
        pairs[at] = {keys(k), values(k)};
      }
      return true;
    }
    return false;
  };
  if (!placed_by_key()) {
    for (Index k = begin; k < end; ++k) pairs[k - begin] = {keys(k), values(k)};
    std::sort(pairs.begin(), pairs.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
  }
  for (Index k = begin; k < end; ++k) {
    keys(k) = pairs[k - begin].first;
    values(k) = pairs[k - begin].second;
  }
}

// Sorts the entries of each CRS row by column, permuting values alike. On host backends rows are
// sorted by their thread in place: Kokkos-Kernels' sort took a large share of a Serial setup
// even on rows already sorted
// (measured: docs/PERFORMANCE_HISTORY.md, "Measurements behind code choices").
template <class ExecSpace, class RowMap, class Entries, class Values>
void sort_crs_rows(const RowMap& row_map, const Entries& entries, const Values& values) {
  using Memory = typename Entries::memory_space;
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, Memory>::accessible &&
                Kokkos::SpaceAccessibility<ExecSpace, Memory>::accessible) {
    using Index = std::remove_const_t<typename RowMap::value_type>;
    const std::int64_t rows = std::int64_t(row_map.extent(0)) - 1;
    if (rows <= 0) return;
    ExecSpace space;
    Kokkos::parallel_for(
        "fgdd::sort_crs_rows_on_host", Kokkos::RangePolicy<ExecSpace>(space, 0, rows),
        [=](const std::int64_t r) {
          sort_row_pairs_on_host(entries, values, Index(row_map(r)), Index(row_map(r + 1)));
        });
    space.fence();
  } else {
#if KOKKOS_VERSION >= 40000
    KokkosSparse::sort_crs_matrix<ExecSpace>(row_map, entries, values);
#else
    KokkosKernels::Impl::sort_crs_matrix<ExecSpace>(row_map, entries, values);
#endif
  }
}

#if KOKKOS_VERSION >= 40000
// sort_crs_rows_on sorts rows of up to this many entries by one thread each, longer ones by teams.
inline constexpr std::int64_t thread_sorted_row = 32;
// Teams that stride over the rows looking for long ones.
inline constexpr std::int64_t long_row_teams = 8192;

template <class RowMap, class Entries, class Values>
struct SortShortRows {
  RowMap row_map;
  Entries entries;
  Values values;

  // Insertion sort of a copy in thread-local arrays (interleaved across a warp on GPUs), so the
  // row is read once and written once, only if it was out of order, instead of shifted in place
  // through strided global accesses.
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t r) const {
    const auto begin = row_map(r), end = row_map(r + 1);
    const int length = int(end - begin);
    if (length < 2 || length > thread_sorted_row) return;
    typename Entries::non_const_value_type key[thread_sorted_row];
    typename Values::non_const_value_type value[thread_sorted_row];
    for (int k = 0; k < length; ++k) key[k] = entries(begin + k), value[k] = values(begin + k);
    bool moved = false;
    for (int k = 1; k < length; ++k) {
      const auto next_key = key[k];
      const auto next_value = value[k];
      int j = k;
      for (; j > 0 && next_key < key[j - 1]; --j) key[j] = key[j - 1], value[j] = value[j - 1];
      if (j == k) continue;
      key[j] = next_key;
      value[j] = next_value;
      moved = true;
    }
    if (!moved) return;
    for (int k = 0; k < length; ++k) entries(begin + k) = key[k], values(begin + k) = value[k];
  }
};

template <class RowMap, class Entries, class Values>
struct SortLongRows {
  RowMap row_map;
  Entries entries;
  Values values;
  std::int64_t rows;

  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    for (std::int64_t r = team.league_rank(); r < rows; r += team.league_size()) {
      const auto row = Kokkos::make_pair(row_map(r), row_map(r + 1));
      if (row.second - row.first <= thread_sorted_row) continue;
      Kokkos::Experimental::sort_by_key_team(team, Kokkos::subview(entries, row),
                                             Kokkos::subview(values, row));
    }
  }
};

// The device path of sort_crs_rows_on (any backend; used where memory is not the host's).
template <class ExecSpace, class RowMap, class Entries, class Values>
void sort_crs_rows_by_length(const ExecSpace& space, const RowMap& row_map,
                             const Entries& entries, const Values& values) {
  const std::int64_t rows = std::int64_t(row_map.extent(0)) - 1;
  if (rows <= 0) return;
  Kokkos::parallel_for(
      "fgdd::sort_crs_short_rows",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, rows),
      SortShortRows<RowMap, Entries, Values>{row_map, entries, values});
  Kokkos::parallel_for(
      "fgdd::sort_crs_long_rows",
      Kokkos::TeamPolicy<ExecSpace>(space, int(std::min(rows, long_row_teams)), Kokkos::AUTO),
      SortLongRows<RowMap, Entries, Values>{row_map, entries, values, rows});
}
#endif

// sort_crs_rows on the instance space without waiting for it on GPUs: Kokkos-Kernels' sort reads
// the longest row back to the host first, a synchronization per call that loops of small sorts
// (a refinement pass) cannot afford. Where keys are distinct within a row the order is the same.
template <class ExecSpace, class RowMap, class Entries, class Values>
void sort_crs_rows_on(const ExecSpace& space, const RowMap& row_map, const Entries& entries,
                      const Values& values) {
#if KOKKOS_VERSION >= 40000
  using Memory = typename Entries::memory_space;
  if constexpr (!Kokkos::SpaceAccessibility<Kokkos::HostSpace, Memory>::accessible) {
    sort_crs_rows_by_length(space, row_map, entries, values);
    return;
  }
#endif
  (void)space;
  sort_crs_rows<ExecSpace>(row_map, entries, values);
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
