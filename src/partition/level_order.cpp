#include "partition/level_order.hpp"

#include "core/team_key_count.hpp"
#include "core/team_scratch.hpp"
#include "core/team_size.hpp"

#include <cstdint>

namespace fgdd::detail {

namespace {

// One team per subdomain. A row's key is computed from the keys of the rows of its subdomain
// before it that it couples to (its entries), in one sweep in partition order:
// - levels: 1 + the highest of them (its level in the lower triangle);
// - colours: the smallest key none of them has (greedy colouring).
// The sweep is sequential, so the team first gathers a chunk of rows into scratch (their
// columns mapped through perm to positions in the subdomain, with parallel loads) and one thread
// then sweeps the chunk there; a row longer than a chunk is swept from global memory on its own.
// A counting sort by key in scratch gives each row its new position.
struct SweepOrderKernel {
  using Member = Kokkos::TeamPolicy<ExecSpace>::member_type;
  static constexpr Ordinal chunk_rows = 256;
  static constexpr Ordinal chunk_entries = 2048;

  SparseMatrix::RowMap row_map;
  SparseMatrix::ColumnIndices col_ind;
  Kokkos::View<Ordinal*, DeviceType> perm, iperm, offsets;
  Kokkos::View<Ordinal*, DeviceType> new_perm, new_iperm;
  int scratch_level;
  bool colours;

  // The key of the row at position t from those of the earlier rows it couples to, local_of(k)
  // giving the position of its k-th entry (outside [0, t): a later row or another subdomain's).
  // A colour is the lowest bit free in a mask of the neighbours' colours below 64, or past the
  // highest neighbour colour when all 64 are taken: never a neighbour's, so the rows of a colour
  // have no entry between them towards earlier rows.
  template <class LocalOf>
  KOKKOS_INLINE_FUNCTION Ordinal sweep_key(const Ordinal* key, Ordinal t, Offset begin, Offset end,
                                           const LocalOf& local_of) const {
    Ordinal highest = -1;
    std::uint64_t taken = 0;
    for (Offset k = begin; k < end; ++k) {
      const Ordinal local = local_of(k);
      if (local < 0 || local >= t) continue;
      const Ordinal c = key[local];
      if (c > highest) highest = c;
      if (c < 64) taken |= std::uint64_t(1) << c;
    }
    if (!colours || taken == ~std::uint64_t(0)) return highest + 1;
    Ordinal c = 0;
    while ((taken >> c) & 1) ++c;
    return c;
  }

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
    Ordinal* level =  // the key: level or colour
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
          if (staged) {
            level[t] = sweep_key(level, t, window[j], window[j + 1],
                                 [&](Offset k) { return chunk_cols[k]; });
          } else {
            const Ordinal r = iperm(first + t);
            level[t] = sweep_key(level, t, row_map(r), row_map(r + 1),
                                 [&](Offset k) { return perm(col_ind(k)) - first; });
          }
        }
      });
      team.team_barrier();
      done += rows;
    }

    // Counting sort by key, rows in partition order within a key.
    const Ordinal count = team_key_count(team, level, m);
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

Partition order_rows_by_sweep(const ExecSpace& space, const SparseMatrix& A,
                              const Partition& partition, bool colours) {
  Partition ordered = with_new_row_order(partition);
  if (partition.num_subdomains == 0) return ordered;
  const TeamScratch scratch =
      team_scratch_for(SweepOrderKernel::scratch_bytes(partition.largest_subdomain()));
  const SweepOrderKernel kernel{
      A.row_map(),  A.col_ind(),   partition.perm, partition.iperm, partition.subdomain_offsets,
      ordered.perm, ordered.iperm, scratch.level,   colours};
  // The team gathers chunks and writes positions; one thread sweeps. CPU teams of one thread.
  const int team_size =
      host_memory ? 1
                  : team_size_within(space, kernel, 1, 128, scratch.level == 0 ? scratch.bytes : 0);
  Kokkos::parallel_for(colours ? "fgdd::partition::colour_order" : "fgdd::partition::level_order",
                       Kokkos::TeamPolicy<ExecSpace>(space, partition.num_subdomains, team_size)
                           .set_scratch_size(scratch.level, Kokkos::PerTeam(scratch.bytes)),
                       kernel);
  return ordered;
}

}  // namespace

Partition order_rows_by_level(const ExecSpace& space, const SparseMatrix& A,
                              const Partition& partition) {
  return order_rows_by_sweep(space, A, partition, false);
}

Partition order_rows_by_colour(const ExecSpace& space, const SparseMatrix& A,
                               const Partition& partition) {
  return order_rows_by_sweep(space, A, partition, true);
}

}  // namespace fgdd::detail
