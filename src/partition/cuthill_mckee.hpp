// The Cuthill–McKee order of one graph, serial, on the host or inside a device thread: the
// subdomain row order (subdomain_rcm.cpp, a thread per subdomain) and the RCM slabs of the whole
// matrix (contiguous.cpp, on the host) share it.
#pragma once

#include "core/types.hpp"

namespace fgdd::detail {

// Orders the m vertices 0..m-1 of a graph. neighbours(t, visit) calls visit(j) for every
// neighbour j ≠ t of t (0 ≤ j < m, each once); degree, mark and queue hold m entries each, mark
// all zero on entry. Each component starts either (starts == nullptr) from its lowest vertex,
// moved to a pseudo-peripheral vertex by up to four breadth-first sweeps (each from the last
// level's vertex of least degree, while the level count grows: George and Liu), or from the first
// unplaced vertex of the list starts (all m vertices, in the order they are tried). From the
// start, a breadth-first order takes each vertex's unvisited neighbours by ascending degree, ties
// by number. On return queue lists the Cuthill–McKee order; the reverse order (RCM) puts
// queue[q] at position m - 1 - q. mark: 1 placed in the order, s ≥ 2 reached by the sweep
// stamped s.
template <class Neighbours>
struct CuthillMcKee {
  static constexpr Ordinal placed = 1;
  static constexpr int peripheral_sweeps = 4;

  Neighbours neighbours;
  Ordinal m;
  Ordinal* degree;
  Ordinal* mark;
  Ordinal* queue;
  const Ordinal* starts = nullptr;

  // Breadth-first sweep from v over the vertices not yet marked `stamp`, queued from position
  // qs; returns its number of levels and leaves the last level in [last_begin, tail).
  KOKKOS_INLINE_FUNCTION int sweep(Ordinal v, Ordinal stamp, Ordinal qs, Ordinal& last_begin,
                                   Ordinal& tail) const {
    queue[qs] = v;
    mark[v] = stamp;
    Ordinal head = qs;
    tail = qs + 1;
    int levels = 0;
    while (head < tail) {
      const Ordinal level_end = tail;
      last_begin = head;
      ++levels;
      for (; head < level_end; ++head)
        neighbours(queue[head], [&](Ordinal j) {
          // A placed vertex is reachable only through an arc whose mirror is missing.
          if (mark[j] == stamp || mark[j] == placed) return;
          mark[j] = stamp;
          queue[tail++] = j;
        });
    }
    return levels;
  }

  KOKKOS_INLINE_FUNCTION Ordinal peripheral(Ordinal t0, Ordinal qs, Ordinal& stamp) const {
    Ordinal v = t0, last_begin = qs, tail = qs;
    int levels = sweep(v, stamp++, qs, last_begin, tail);
    for (int round = 1; round < peripheral_sweeps; ++round) {
      Ordinal u = -1;
      for (Ordinal q = last_begin; q < tail; ++q) {
        const Ordinal c = queue[q];
        if (u < 0 || degree[c] < degree[u] || (degree[c] == degree[u] && c < u)) u = c;
      }
      if (u == v) break;
      const int longer = sweep(u, stamp++, qs, last_begin, tail);
      if (longer <= levels) break;
      v = u;
      levels = longer;
    }
    return v;
  }

  KOKKOS_INLINE_FUNCTION void order() const {
    for (Ordinal t = 0; t < m; ++t) {
      Ordinal d = 0;
      neighbours(t, [&](Ordinal) { ++d; });
      degree[t] = d;
    }
    Ordinal stamp = placed + 1, tail = 0;
    for (Ordinal k = 0; k < m; ++k) {
      const Ordinal t0 = starts ? starts[k] : k;
      if (mark[t0] == placed) continue;
      const Ordinal start = starts ? t0 : peripheral(t0, tail, stamp);
      Ordinal head = tail;
      queue[tail++] = start;
      mark[start] = placed;
      while (head < tail) {
        const Ordinal t = queue[head++], appended = tail;
        neighbours(t, [&](Ordinal j) {
          if (mark[j] == placed) return;
          mark[j] = placed;
          queue[tail++] = j;
        });
        // Insertion sort of the few vertices just appended, by (degree, number).
        for (Ordinal q = appended + 1; q < tail; ++q) {
          const Ordinal c = queue[q], dc = degree[c];
          Ordinal p = q;
          for (; p > appended; --p) {
            const Ordinal b = queue[p - 1], db = degree[b];
            if (db < dc || (db == dc && b < c)) break;
            queue[p] = b;
          }
          queue[p] = c;
        }
      }
    }
  }
};

}  // namespace fgdd::detail
