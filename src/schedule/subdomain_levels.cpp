#include "schedule/subdomain_levels.hpp"

#include "core/errors.hpp"
#include "core/huge_pages.hpp"
#include "core/team_key_count.hpp"
#include "core/team_scratch.hpp"
#include "core/team_size.hpp"

#include <limits>
#include <string>

namespace fgdd {

namespace detail {

// One team per subdomain. A row's level is 1 + the highest level among its dependencies, found in
// one sweep over the rows in dependency order (ascending for Lower, descending for Upper):
// O(entries) whatever the DAG's depth (the paper's Algorithm 2 repeats a team-wide pass per
// level, O(levels × entries), which hurts long chains). The sweep is sequential, so the team
// first copies a chunk of rows (their row pointers, diagonals and columns) into scratch with
// coalesced loads, and one thread then sweeps the chunk in scratch: reading the matrix row by row
// from global memory, one thread's chain of dependent loads took 5 ms on lap7 160³ (H100). A
// counting sort by level then lists rows (ascending within a level, so the lists are
// deterministic) and the team copies their strictly triangular entries.
struct BuildLevelsKernel {
  using Member = Kokkos::TeamPolicy<ExecSpace>::member_type;
  // A chunk: at most chunk_rows rows whose entries together fit chunk_entries. A longer row is
  // swept from global memory on its own.
  static constexpr Ordinal chunk_rows = 256;
  static constexpr Ordinal chunk_entries = 2048;

  SparseMatrix::RowMap row_map;
  SparseMatrix::ColumnIndices col_ind;
  Kokkos::View<Offset*, DeviceType> diag;
  Kokkos::View<Ordinal*, DeviceType> offsets;
  bool lower;
  int scratch_level;
  SubdomainLevels out;

  // Scratch of a subdomain of m rows: the chunk's row pointers, then level and degree per row,
  // then either the chunk's diagonals and columns (during the sweep) or the counting sort's two
  // cursors per level (after it).
  KOKKOS_INLINE_FUNCTION static std::size_t scratch_ordinals(Ordinal m) {
    const std::size_t sweep = std::size_t(chunk_rows) + chunk_entries;
    const std::size_t sort = 2 * std::size_t(m) + 2;
    return 2 * std::size_t(m) + (sweep > sort ? sweep : sort);
  }
  static std::size_t scratch_bytes(Ordinal m) {
    return sizeof(Offset) * (chunk_rows + 1) + sizeof(Ordinal) * scratch_ordinals(m);
  }

  KOKKOS_INLINE_FUNCTION Offset deps_begin(Ordinal i) const {
    return lower ? row_map(i) : diag(i) + 1;
  }
  KOKKOS_INLINE_FUNCTION Offset deps_end(Ordinal i) const {
    return lower ? diag(i) : row_map(i + 1);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const Ordinal s = team.league_rank();
    const Ordinal first = offsets(s), last = offsets(s + 1), m = last - first;
    auto& scratch = team.team_scratch(scratch_level);
    Offset* window = static_cast<Offset*>(scratch.get_shmem(sizeof(Offset) * (chunk_rows + 1)));
    Ordinal* level =
        static_cast<Ordinal*>(scratch.get_shmem(sizeof(Ordinal) * scratch_ordinals(m)));
    Ordinal* degree = level + m;
    Ordinal* chunk_diag = degree + m;  // sweep
    Ordinal* chunk_cols = chunk_diag + chunk_rows;
    Ordinal* cursor = degree + m;  // counting sort
    Ordinal* edge_cursor = cursor + m + 1;

    // Sweep: rows [a, b) per chunk, moving up (Lower) or down (Upper) the subdomain.
    Ordinal done = 0;
    while (done < m) {
      const Ordinal span = m - done < chunk_rows ? m - done : chunk_rows;
      // The window holds span + 1 row pointers starting at local row w0, relative to row w0.
      const Ordinal w0 = lower ? done : m - done - span;
      const Offset window_base = row_map(first + w0);
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, span + 1), [&](const Ordinal j) {
        window[j] = row_map(first + w0 + j) - window_base;
      });
      team.team_barrier();
      // The most rows from the sweep's end of the window whose entries fit (at least one row),
      // by bisection: the window's pointers increase.
      Ordinal a = w0, b = w0 + span;
      if (lower) {
        Ordinal j = 1, hi = span;
        while (j < hi) {
          const Ordinal mid = (j + hi + 1) / 2;
          if (window[mid] <= chunk_entries)
            j = mid;
          else
            hi = mid - 1;
        }
        b = w0 + j;
      } else {
        Ordinal lo = 0, j = span - 1;
        while (lo < j) {
          const Ordinal mid = (lo + j) / 2;
          if (window[span] - window[mid] <= chunk_entries)
            j = mid;
          else
            lo = mid + 1;
        }
        a = w0 + j;
      }
      const Offset entry_base = window_base + window[a - w0];
      const Offset entries = window[b - w0] - window[a - w0];
      const bool staged = entries <= chunk_entries;
      if (staged) {
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, b - a), [&](const Ordinal j) {
          chunk_diag[j] = Ordinal(diag(first + a + j) - entry_base);
        });
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, Ordinal(entries)), [&](const Ordinal k) {
          chunk_cols[k] = col_ind(entry_base + k) - first;
        });
      }
      team.team_barrier();
      Kokkos::single(Kokkos::PerTeam(team), [&]() {
        for (Ordinal q = 0; q < b - a; ++q) {
          const Ordinal t = lower ? a + q : b - 1 - q;
          const Ordinal j = t - a;
          Ordinal l = 0, count = 0;
          if (staged) {
            const Ordinal row_begin = Ordinal(window[t - w0] - window[a - w0]);
            const Ordinal row_end = Ordinal(window[t + 1 - w0] - window[a - w0]);
            const Ordinal begin = lower ? row_begin : chunk_diag[j] + 1;
            const Ordinal end = lower ? chunk_diag[j] : row_end;
            for (Ordinal k = begin; k < end; ++k) {
              const Ordinal below = level[chunk_cols[k]] + 1;
              if (below > l) l = below;
            }
            count = end - begin;
          } else {
            const Ordinal i = first + t;
            for (Offset k = deps_begin(i); k < deps_end(i); ++k) {
              const Ordinal below = level[col_ind(k) - first] + 1;
              if (below > l) l = below;
            }
            count = Ordinal(deps_end(i) - deps_begin(i));
          }
          level[t] = l;
          degree[t] = count;
        }
      });
      team.team_barrier();
      done += b - a;
    }

    // Counting sort by level: rows ascending within a level, each row's edges in one run.
    const Ordinal count = team_key_count(team, level, m);
    // Entries of the subdomain's rows are contiguous, so its edges fit in the same range; the
    // upper edges start after the lower ones, so one array in edge order holds both triangles.
    Offset lower_entries = 0;
    if (!lower)
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(team, m),
          [&](const Ordinal t, Offset& sum) { sum += diag(first + t) - row_map(first + t); },
          lower_entries);
    const Offset edge_base = row_map(first) + lower_entries;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, count + 1), [&](const Ordinal l) {
      cursor[l] = 0;
      edge_cursor[l] = 0;
    });
    team.team_barrier();
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      for (Ordinal t = 0; t < m; ++t) {
        ++cursor[level[t] + 1];
        edge_cursor[level[t] + 1] += degree[t];
      }
      for (Ordinal l = 0; l < count; ++l) {
        cursor[l + 1] += cursor[l];
        edge_cursor[l + 1] += edge_cursor[l];
      }
    });
    team.team_barrier();
    const Ordinal base = first + s;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, count + 1), [&](const Ordinal l) {
      out.level_ptr(base + l) = first + cursor[l];
      out.edge_ptr(base + l) = edge_base + edge_cursor[l];
    });
    team.team_barrier();
    // level[t] becomes the offset of row t's first edge from edge_base.
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      for (Ordinal t = 0; t < m; ++t) {
        const Ordinal l = level[t];
        const Ordinal p = first + cursor[l]++;
        const Ordinal e = edge_cursor[l];
        edge_cursor[l] += degree[t];
        out.rows(p) = first + t;
        out.row_edge_begin(p) = edge_base + e;
        out.row_edge_end(p) = edge_base + e + degree[t];
        level[t] = e;
      }
      out.num_levels(s) = count;
    });
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, m), [&](const Ordinal t) {
      const Ordinal i = first + t;
      const Offset begin = deps_begin(i), edge = edge_base + level[t];
      for (Ordinal q = 0; q < degree[t]; ++q) out.edge_col(edge + q) = col_ind(begin + q);
    });
  }
};

}  // namespace detail

SubdomainLevels build_subdomain_levels(const ExecSpace& space, const SparseMatrix& factors,
                                       const Kokkos::View<Offset*, DeviceType>& diag_position,
                                       const Partition& partition, Triangle triangle,
                                       const SubdomainLevels* other_triangle) {
  Kokkos::Timer timer;
  const Ordinal n = factors.num_block_rows();
  const Ordinal num_subdomains = partition.num_subdomains;
  if (other_triangle != nullptr &&
      (other_triangle->triangle == triangle ||
       other_triangle->edge_col.extent(0) != std::size_t(factors.num_block_entries())))
    throw InvalidInput(
        "build_subdomain_levels: other_triangle is not the other triangle of these "
        "factors");
  SubdomainLevels levels;
  levels.triangle = triangle;
  levels.num_levels = Kokkos::View<Ordinal*, DeviceType>("fgdd::trsv::num_levels", num_subdomains);
  levels.level_ptr =
      Kokkos::View<Ordinal*, DeviceType>("fgdd::trsv::level_ptr", n + num_subdomains + 1);
  levels.rows = Kokkos::View<Ordinal*, DeviceType>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::trsv::level_rows"), n);
  levels.edge_ptr =
      Kokkos::View<Offset*, DeviceType>("fgdd::trsv::edge_ptr", n + num_subdomains + 1);
  if (other_triangle != nullptr) {
    levels.edge_row = other_triangle->edge_row;
    levels.edge_col = other_triangle->edge_col;
  } else {
    const Offset entries = factors.num_block_entries();
    levels.edge_col = detail::uninitialized_view<Ordinal>("fgdd::trsv::edge_col", entries);
  }
  levels.row_edge_begin = Kokkos::View<Offset*, DeviceType>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::trsv::row_edge_begin"), n);
  levels.row_edge_end = Kokkos::View<Offset*, DeviceType>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::trsv::row_edge_end"), n);
  if (num_subdomains == 0) return levels;
  // The kernel counts a subdomain's edges in Ordinal scratch.
  Offset widest_subdomain = 0;
  {
    const auto row_map = factors.row_map();
    const auto offsets = partition.subdomain_offsets;
    Kokkos::parallel_reduce(
        "fgdd::trsv::subdomain_entries", Kokkos::RangePolicy<ExecSpace>(space, 0, num_subdomains),
        KOKKOS_LAMBDA(const Ordinal s, Offset& most) {
          const Offset entries = row_map(offsets(s + 1)) - row_map(offsets(s));
          if (entries > most) most = entries;
        },
        Kokkos::Max<Offset>(widest_subdomain));
  }
  if (widest_subdomain > Offset(std::numeric_limits<Ordinal>::max()))
    throw InvalidInput("build_subdomain_levels: a subdomain holds " +
                       std::to_string(widest_subdomain) + " block entries, more than " +
                       std::to_string(std::numeric_limits<Ordinal>::max()) +
                       "; use smaller subdomains (subdomain_rows)");

  const detail::TeamScratch scratch = detail::team_scratch_for(
      detail::BuildLevelsKernel::scratch_bytes(partition.largest_subdomain()));

  detail::BuildLevelsKernel kernel{
      factors.row_map(),           factors.col_ind(), diag_position, partition.subdomain_offsets,
      triangle == Triangle::Lower, scratch.level,     levels};
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  // The team loads chunks and copies edges; one thread sweeps. CPU teams of one thread.
  const int team_size =
      host_memory
          ? 1
          : detail::team_size_within(space, kernel, 1, 128, scratch.level == 0 ? scratch.bytes : 0);
  Kokkos::parallel_for(
      triangle == Triangle::Lower ? "fgdd::trsv::lower_levels" : "fgdd::trsv::upper_levels",
      Policy(space, num_subdomains, team_size)
          .set_scratch_size(scratch.level, Kokkos::PerTeam(scratch.bytes)),
      kernel);

  Ordinal max_levels = 0;
  Offset num_edges = 0;
  const auto num_levels = levels.num_levels;
  const auto edge_ptr = levels.edge_ptr;
  const auto offsets = partition.subdomain_offsets;
  Kokkos::parallel_reduce(
      "fgdd::trsv::max_levels", Kokkos::RangePolicy<ExecSpace>(space, 0, num_subdomains),
      KOKKOS_LAMBDA(const Ordinal s, Ordinal& m) {
        if (num_levels(s) > m) m = num_levels(s);
      },
      Kokkos::Max<Ordinal>(max_levels));
  Kokkos::parallel_reduce(
      "fgdd::trsv::count_edges", Kokkos::RangePolicy<ExecSpace>(space, 0, num_subdomains),
      KOKKOS_LAMBDA(const Ordinal s, Offset& sum) {
        const Ordinal base = offsets(s) + s;
        sum += edge_ptr(base + num_levels(s)) - edge_ptr(base);
      },
      num_edges);
  Offset total_levels = 0;
  Kokkos::parallel_reduce(
      "fgdd::trsv::total_levels", Kokkos::RangePolicy<ExecSpace>(space, 0, num_subdomains),
      KOKKOS_LAMBDA(const Ordinal s, Offset& sum) { sum += num_levels(s); }, total_levels);
  Offset widest_level = 0;
  Kokkos::parallel_reduce(
      "fgdd::trsv::widest_level", Kokkos::RangePolicy<ExecSpace>(space, 0, num_subdomains),
      KOKKOS_LAMBDA(const Ordinal s, Offset& widest) {
        const Ordinal base = offsets(s) + s;
        for (Ordinal l = 0; l < num_levels(s); ++l) {
          const Offset width = edge_ptr(base + l + 1) - edge_ptr(base + l);
          if (width > widest) widest = width;
        }
      },
      Kokkos::Max<Offset>(widest_level));
  levels.max_levels = max_levels;
  levels.num_edges = num_edges;
  levels.widest_level = widest_level;
  levels.total_levels = total_levels;
  space.fence();
  levels.seconds = timer.seconds();
  return levels;
}

void fill_edge_rows(const ExecSpace& space, SubdomainLevels& lower, SubdomainLevels& upper) {
  const Kokkos::View<Ordinal*, DeviceType> edge_row =
      detail::uninitialized_view<Ordinal>("fgdd::trsv::edge_row", lower.edge_col.extent(0));
  for (const SubdomainLevels* levels : {&lower, &upper}) {
    const auto rows = levels->rows;
    const auto begin = levels->row_edge_begin;
    const auto end = levels->row_edge_end;
    Kokkos::parallel_for(
        "fgdd::trsv::fill_edge_rows",
        Kokkos::RangePolicy<ExecSpace>(space, 0, Ordinal(rows.extent(0))),
        KOKKOS_LAMBDA(const Ordinal p) {
          for (Offset e = begin(p); e < end(p); ++e) edge_row(e) = rows(p);
        });
  }
  lower.edge_row = upper.edge_row = edge_row;
}

}  // namespace fgdd
