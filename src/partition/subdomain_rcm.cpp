#include "partition/subdomain_rcm.hpp"

#include <string>

namespace fgdd::detail {

namespace {

// One thread per subdomain; subdomain s keeps its work in [first, first + m) of degree, mark and
// queue, indexed by a row's position t in the subdomain (partition order). mark: 0 unseen, 1
// placed in the Cuthill–McKee order, s ≥ 2 reached by the breadth-first sweep stamped s.
struct SubdomainRcmKernel {
  static constexpr int placed = 1;
  static constexpr int peripheral_sweeps = 4;

  SparseMatrix::RowMap row_map;
  SparseMatrix::ColumnIndices col_ind;
  Kokkos::View<Ordinal*, DeviceType> perm, iperm, offsets;
  Kokkos::View<Ordinal*, DeviceType> new_perm, new_iperm;
  Kokkos::View<Ordinal*, DeviceType> degree, mark, queue;

  // The position in the subdomain [first, first + m) of the k-th entry's column, or -1.
  KOKKOS_INLINE_FUNCTION Ordinal local_of(Ordinal first, Ordinal m, Offset k) const {
    const Ordinal j = perm(col_ind(k)) - first;
    return j >= 0 && j < m ? j : -1;
  }

  // Calls visit(j) for every neighbour j of t in the subdomain.
  template <class Visit>
  KOKKOS_INLINE_FUNCTION void for_neighbours(Ordinal first, Ordinal m, Ordinal t,
                                             const Visit& visit) const {
    const Ordinal r = iperm(first + t);
    for (Offset k = row_map(r); k < row_map(r + 1); ++k) {
      const Ordinal j = local_of(first, m, k);
      if (j >= 0 && j != t) visit(j);
    }
  }

  // Breadth-first sweep from v over the rows not yet marked `stamp`, queued from position qs;
  // returns its number of levels and leaves the last level in [last_begin, tail).
  KOKKOS_INLINE_FUNCTION int sweep(Ordinal first, Ordinal m, Ordinal v, Ordinal stamp, Ordinal qs,
                                   Ordinal& last_begin, Ordinal& tail) const {
    queue(first + qs) = v;
    mark(first + v) = stamp;
    Ordinal head = qs;
    tail = qs + 1;
    int levels = 0;
    while (head < tail) {
      const Ordinal level_end = tail;
      last_begin = head;
      ++levels;
      for (; head < level_end; ++head)
        for_neighbours(first, m, queue(first + head), [&](Ordinal j) {
          // A placed row is reachable only through an entry of a pattern that is not symmetric.
          if (mark(first + j) == stamp || mark(first + j) == placed) return;
          mark(first + j) = stamp;
          queue(first + tail++) = j;
        });
    }
    return levels;
  }

  // The start of the component of t0: from t0, the least-degree row of the last level while
  // that lengthens the sweep (George and Liu's pseudo-peripheral row).
  KOKKOS_INLINE_FUNCTION Ordinal peripheral(Ordinal first, Ordinal m, Ordinal t0, Ordinal qs,
                                            Ordinal& stamp) const {
    Ordinal v = t0, last_begin = qs, tail = qs;
    int levels = sweep(first, m, v, stamp++, qs, last_begin, tail);
    for (int round = 1; round < peripheral_sweeps; ++round) {
      Ordinal u = -1;
      for (Ordinal q = last_begin; q < tail; ++q) {
        const Ordinal c = queue(first + q);
        if (u < 0 || degree(first + c) < degree(first + u) ||
            (degree(first + c) == degree(first + u) && c < u))
          u = c;
      }
      if (u == v) break;
      const int longer = sweep(first, m, u, stamp++, qs, last_begin, tail);
      if (longer <= levels) break;
      v = u;
      levels = longer;
    }
    return v;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Ordinal s) const {
    const Ordinal first = offsets(s), m = offsets(s + 1) - first;
    for (Ordinal t = 0; t < m; ++t) {
      Ordinal d = 0;
      for_neighbours(first, m, t, [&](Ordinal) { ++d; });
      degree(first + t) = d;
    }
    Ordinal stamp = placed + 1, tail = 0;
    for (Ordinal t0 = 0; t0 < m; ++t0) {
      if (mark(first + t0) == placed) continue;
      const Ordinal start = peripheral(first, m, t0, tail, stamp);
      // Cuthill–McKee from start: each row's unplaced neighbours by ascending (degree, position).
      Ordinal head = tail;
      queue(first + tail++) = start;
      mark(first + start) = placed;
      while (head < tail) {
        const Ordinal t = queue(first + head++), appended = tail;
        for_neighbours(first, m, t, [&](Ordinal j) {
          if (mark(first + j) == placed) return;
          mark(first + j) = placed;
          queue(first + tail++) = j;
        });
        for (Ordinal q = appended + 1; q < tail; ++q) {
          const Ordinal c = queue(first + q), dc = degree(first + c);
          Ordinal p = q;
          for (; p > appended; --p) {
            const Ordinal b = queue(first + p - 1), db = degree(first + b);
            if (db < dc || (db == dc && b < c)) break;
            queue(first + p) = b;
          }
          queue(first + p) = c;
        }
      }
    }
    for (Ordinal q = 0; q < m; ++q) {
      const Ordinal r = iperm(first + queue(first + q)), position = first + m - 1 - q;
      new_perm(r) = position;
      new_iperm(position) = r;
    }
  }
};

}  // namespace

Partition order_rows_by_rcm(const ExecSpace& space, const SparseMatrix& A,
                            const Partition& partition) {
  const Ordinal n = partition.num_block_rows();
  using OrdinalView = Kokkos::View<Ordinal*, DeviceType>;
  const auto scratch = [&](const char* label) {
    return OrdinalView(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), n);
  };
  Partition ordered = with_new_row_order(partition);
  if (partition.num_subdomains == 0) return ordered;
  const SubdomainRcmKernel kernel{A.row_map(),
                                  A.col_ind(),
                                  partition.perm,
                                  partition.iperm,
                                  partition.subdomain_offsets,
                                  ordered.perm,
                                  ordered.iperm,
                                  scratch("fgdd::partition::rcm_degree"),
                                  OrdinalView("fgdd::partition::rcm_mark", n),
                                  scratch("fgdd::partition::rcm_queue")};
  Kokkos::parallel_for("fgdd::partition::subdomain_rcm",
                       Kokkos::RangePolicy<ExecSpace>(space, 0, partition.num_subdomains), kernel);
  return ordered;
}

}  // namespace fgdd::detail
