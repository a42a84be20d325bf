#include "partition/level_order.hpp"

#include "core/team_scratch.hpp"
#include "core/team_size.hpp"

namespace fgdd::detail {

namespace {

// One team per subdomain. A row's level is 1 + the highest level among the rows of its
// subdomain before it that it couples to, found in one sweep in partition order. The sweep is
// sequential, so the team first gathers a chunk of rows into scratch (their columns mapped
// through perm to positions in the subdomain, with parallel loads) and one thread then sweeps
// the chunk there; a row longer than a chunk is swept from global memory on its own. A counting
// sort by level in scratch gives each row its new position.
struct LevelOrderKernel {
  using Member = Kokkos::TeamPolicy<ExecSpace>::member_type;
  static constexpr Ordinal chunk_rows = 256;
  static constexpr Ordinal chunk_entries = 2048;

  SparseMatrix::RowMap row_map;
  SparseMatrix::ColumnIndices col_ind;
  Kokkos::View<Ordinal*, DeviceType> perm, iperm, offsets;
  Kokkos::View<Ordinal*, DeviceType> new_perm, new_iperm;
  int scratch_level;

  // Scratch of a subdomain of m rows: the chunk's entry offsets, the level of each row (then
  // its new position), and either the chunk's mapped columns (sweep) or the counting sort's
  // cursor per level (after it).
  KOKKOS_INLINE_FUNCTION static std::size_t scratch_ordinals(Ordinal m) {
    const std::size_t sort = std::size_t(m) + 1;
    return std::size_t(m) + (sort > std::size_t(chunk_entries) ? sort : chunk_entries);
  }
  static std::size_t scratch_bytes(Ordinal m) {
    return sizeof(Offset) * (chunk_rows + 1) + sizeof(Ordinal) * scratch_ordinals(m);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const Ordinal s = team.league_rank();
    const Ordinal first = offsets(s), m = offsets(s + 1) - first;
    auto& scratch = team.team_scratch(scratch_level);
    Offset* window = static_cast<Offset*>(scratch.get_shmem(sizeof(Offset) * (chunk_rows + 1)));
    Ordinal* level =
        static_cast<Ordinal*>(scratch.get_shmem(sizeof(Ordinal) * scratch_ordinals(m)));
    Ordinal* chunk_cols = level + m;  // sweep
    Ordinal* cursor = level + m;      // counting sort

    Ordinal done = 0;
    while (done < m) {
      const Ordinal span = m - done < chunk_rows ? m - done : chunk_rows;
      // window[j]: entries of the chunk's rows before its row j.
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, span), [&](const Ordinal j) {
        const Ordinal r = iperm(first + done + j);
        window[j + 1] = row_map(r + 1) - row_map(r);
      });
      team.team_barrier();
      Kokkos::single(Kokkos::PerTeam(team), [&]() {
        window[0] = 0;
        for (Ordinal j = 0; j < span; ++j) window[j + 1] += window[j];
      });
      team.team_barrier();
      // The most rows whose entries fit (at least one), by bisection: the offsets increase.
      Ordinal rows = 1, hi = span;
      while (rows < hi) {
        const Ordinal mid = (rows + hi + 1) / 2;
        if (window[mid] <= chunk_entries)
          rows = mid;
        else
          hi = mid - 1;
      }
      const bool staged = window[rows] <= chunk_entries;
      if (staged)
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rows), [&](const Ordinal j) {
          const Ordinal r = iperm(first + done + j);
          const Offset begin = row_map(r);
          const Ordinal length = Ordinal(row_map(r + 1) - begin);
          Ordinal* cols = chunk_cols + window[j];
          for (Ordinal k = 0; k < length; ++k) cols[k] = perm(col_ind(begin + k)) - first;
        });
      team.team_barrier();
      Kokkos::single(Kokkos::PerTeam(team), [&]() {
        for (Ordinal j = 0; j < rows; ++j) {
          const Ordinal t = done + j;
          Ordinal l = 0;
          // Positions outside [0, t) are later rows or other subdomains' (dropped).
          if (staged) {
            for (Offset k = window[j]; k < window[j + 1]; ++k) {
              const Ordinal local = chunk_cols[k];
              if (local >= 0 && local < t && level[local] >= l) l = level[local] + 1;
            }
          } else {
            const Ordinal r = iperm(first + t);
            for (Offset k = row_map(r); k < row_map(r + 1); ++k) {
              const Ordinal local = perm(col_ind(k)) - first;
              if (local >= 0 && local < t && level[local] >= l) l = level[local] + 1;
            }
          }
          level[t] = l;
        }
      });
      team.team_barrier();
      done += rows;
    }

    // Counting sort by level, rows in partition order within a level.
    Ordinal deepest = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, m),
        [&](const Ordinal t, Ordinal& most) {
          if (level[t] > most) most = level[t];
        },
        Kokkos::Max<Ordinal>(deepest));
    const Ordinal count = m > 0 ? deepest + 1 : 0;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, count + 1),
                         [&](const Ordinal l) { cursor[l] = 0; });
    team.team_barrier();
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      for (Ordinal t = 0; t < m; ++t) ++cursor[level[t] + 1];
      for (Ordinal l = 0; l < count; ++l) cursor[l + 1] += cursor[l];
      for (Ordinal t = 0; t < m; ++t) level[t] = cursor[level[t]]++;
    });
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, m), [&](const Ordinal t) {
      const Ordinal r = iperm(first + t), position = first + level[t];
      new_perm(r) = position;
      new_iperm(position) = r;
    });
  }
};

}  // namespace

Partition order_rows_by_level(const ExecSpace& space, const SparseMatrix& A,
                              const Partition& partition) {
  const Ordinal n = partition.num_block_rows();
  Partition ordered = partition;
  ordered.perm = Kokkos::View<Ordinal*, DeviceType>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::perm"), n);
  ordered.iperm = Kokkos::View<Ordinal*, DeviceType>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::iperm"), n);
  if (partition.num_subdomains == 0) return ordered;
  const TeamScratch scratch =
      team_scratch_for(LevelOrderKernel::scratch_bytes(partition.largest_subdomain()));
  const LevelOrderKernel kernel{
      A.row_map(),  A.col_ind(),   partition.perm, partition.iperm, partition.subdomain_offsets,
      ordered.perm, ordered.iperm, scratch.level};
  // The team gathers chunks and writes positions; one thread sweeps. CPU teams of one thread.
  const int team_size =
      host_memory ? 1
                  : team_size_within(space, kernel, 1, 128, scratch.level == 0 ? scratch.bytes : 0);
  Kokkos::parallel_for("fgdd::partition::level_order",
                       Kokkos::TeamPolicy<ExecSpace>(space, partition.num_subdomains, team_size)
                           .set_scratch_size(scratch.level, Kokkos::PerTeam(scratch.bytes)),
                       kernel);
  return ordered;
}

}  // namespace fgdd::detail
