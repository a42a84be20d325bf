#include "schedule/subdomain_levels.hpp"

#include "core/errors.hpp"
#include "core/huge_pages.hpp"
#include "core/team_scratch.hpp"

namespace fgdd {

namespace detail {

// One team per subdomain; its first thread sweeps the rows in dependency order (ascending for
// Lower, descending for Upper), so a row's level is 1 + the highest level among its
// dependencies in one pass: O(entries), whatever the DAG's depth (the paper's Algorithm 2
// repeats a team-wide pass per level, O(levels × entries), which hurts long chains). A counting
// sort by level then lists rows (ascending within a level, so the lists are deterministic) and
// their strictly triangular entries.
struct BuildLevelsKernel {
  using Member = Kokkos::TeamPolicy<ExecSpace>::member_type;

  SparseMatrix::RowMap row_map;
  SparseMatrix::ColumnIndices col_ind;
  Kokkos::View<Offset*, DeviceType> diag;
  Kokkos::View<Ordinal*, DeviceType> offsets;
  bool lower;
  int scratch_level;
  SubdomainLevels out;

  KOKKOS_INLINE_FUNCTION Offset deps_begin(Ordinal i) const {
    return lower ? row_map(i) : diag(i) + 1;
  }
  KOKKOS_INLINE_FUNCTION Offset deps_end(Ordinal i) const {
    return lower ? diag(i) : row_map(i + 1);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const Ordinal s = team.league_rank();
    const Ordinal first = offsets(s), last = offsets(s + 1), m = last - first;
    Ordinal* level = static_cast<Ordinal*>(
        team.team_scratch(scratch_level).get_shmem(sizeof(Ordinal) * (2 * std::size_t(m) + 1)));
    Ordinal* cursor = level + m;
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      Ordinal deepest = 0;
      for (Ordinal t = 0; t < m; ++t) {
        const Ordinal i = lower ? first + t : last - 1 - t;
        Ordinal l = 0;
        for (Offset k = deps_begin(i); k < deps_end(i); ++k) {
          const Ordinal below = level[col_ind(k) - first] + 1;
          if (below > l) l = below;
        }
        level[i - first] = l;
        if (l > deepest) deepest = l;
      }
      const Ordinal count = m > 0 ? deepest + 1 : 0;
      for (Ordinal l = 0; l <= count; ++l) cursor[l] = 0;
      for (Ordinal t = 0; t < m; ++t) ++cursor[level[t] + 1];
      for (Ordinal l = 0; l < count; ++l) cursor[l + 1] += cursor[l];
      const Ordinal base = first + s;
      for (Ordinal l = 0; l <= count; ++l) out.level_ptr(base + l) = first + cursor[l];
      for (Ordinal t = 0; t < m; ++t) out.rows(first + cursor[level[t]]++) = first + t;
      // Entries of the subdomain's rows are contiguous, so its edges fit in the same range; the
      // upper edges start after the lower ones, so one array in edge order holds both triangles.
      Offset e = row_map(first);
      if (!lower)
        for (Ordinal i = first; i < last; ++i) e += diag(i) - row_map(i);
      for (Ordinal l = 0; l < count; ++l) {
        out.edge_ptr(base + l) = e;
        for (Ordinal p = out.level_ptr(base + l); p < out.level_ptr(base + l + 1); ++p) {
          const Ordinal i = out.rows(p);
          out.row_edge_begin(p) = e;
          for (Offset k = deps_begin(i); k < deps_end(i); ++k) out.edge_col(e++) = col_ind(k);
          out.row_edge_end(p) = e;
        }
      }
      out.edge_ptr(base + count) = e;
      out.num_levels(s) = count;
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
    throw InvalidInput("build_subdomain_levels: other_triangle is not the other triangle of these "
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

  const detail::TeamScratch scratch = detail::team_scratch_for(
      sizeof(Ordinal) * (2 * std::size_t(partition.largest_subdomain()) + 1));

  detail::BuildLevelsKernel kernel{
      factors.row_map(),           factors.col_ind(), diag_position, partition.subdomain_offsets,
      triangle == Triangle::Lower, scratch.level,     levels};
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  Kokkos::parallel_for(
      triangle == Triangle::Lower ? "fgdd::trsv::lower_levels" : "fgdd::trsv::upper_levels",
      Policy(space, num_subdomains, 1)
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
