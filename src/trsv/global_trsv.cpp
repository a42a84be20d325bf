#include "trsv/global_trsv.hpp"

#include "core/block_size_dispatch.hpp"
#include "core/dense_block.hpp"
#include "core/errors.hpp"
#include "core/kokkos_compat.hpp"
#include "core/sync_free_epoch.hpp"
#include "core/team_size.hpp"
#include "trsv/global_pipelined_kernel.hpp"
#include "trsv/global_solve_row.hpp"
#include "trsv/row_order_kernel.hpp"

#include <algorithm>
#include <string>
#include <type_traits>

namespace fgdd {

namespace detail {

// One level of a sweep, vertex-centric, a row per thread (RangePolicy over the level's
// positions in level_rows). Rows of a level only read x of earlier levels, written by earlier
// launches.
template <int B>
struct GlobalSolveThreadKernel {
  GlobalSolveRow<B> row;

  KOKKOS_INLINE_FUNCTION void operator()(const Ordinal p) const {
    row.solve(row.data.level_rows(p));
  }
};

// A run of consecutive levels [first_level, end_level) in one team (GlobalRowKernel::Merged), a
// team barrier between levels, since a level's rows read x that the team's earlier levels wrote.
// A level whose rows get one lane (merged_row_lanes) is solved as in GlobalSolveThreadKernel, a
// row per thread; otherwise each scalar row's lanes leave their shares in scratch and, after a
// barrier, one thread per row adds them in lane order. The lanes follow from the level's size and
// the triangle's average row (max_lanes) alone, and a team of fewer threads than merged_team_rows
// loops over the shares, so every backend adds in the same order.
template <int B>
struct GlobalSolveMergedKernel {
  using Member = Kokkos::TeamPolicy<ExecSpace>::member_type;
  using Shares = Kokkos::View<Scalar*, ExecSpace::scratch_memory_space,
                              Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  GlobalSolveRow<B> row;
  Kokkos::View<Ordinal*, DeviceType> level_ptr;
  Ordinal first_level = 0;
  Ordinal end_level = 0;
  int max_lanes = 1;  // merged_lanes_cap of the triangle

  static std::size_t scratch_bytes() { return Shares::shmem_size(merged_team_rows); }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const GlobalSolveData& data = row.data;
    const Shares shares(team.team_scratch(0), merged_team_rows);
    for (Ordinal l = first_level; l < end_level; ++l) {
      const Ordinal begin = level_ptr(l);
      const Ordinal end = level_ptr(l + 1);
      const int lanes = merged_row_lanes(end - begin, max_lanes);
      if (B != 1 || lanes == 1) {
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, begin, end),
                             [&](const Ordinal p) { row.solve(data.level_rows(p)); });
      } else {
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 0, (end - begin) * lanes),
                             [&](const Ordinal t) {
                               shares(t) = row.strided_dot(data.level_rows(begin + t / lanes),
                                                           t % lanes, lanes);
                             });
        team.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, begin, end), [&](const Ordinal p) {
          row.finish(data.level_rows(p), &shares((p - begin) * lanes), lanes);
        });
      }
      team.team_barrier();
    }
  }
};

// The same level with a row per team thread whose vector lanes reduce the row's products, one
// scalar component at a time (long rows).
template <int B>
struct GlobalSolveLanesKernel {
  using Member = Kokkos::TeamPolicy<ExecSpace>::member_type;

  GlobalSolveRow<B> row;
  Ordinal level_begin = 0;
  Ordinal level_end = 0;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& member) const {
    const Ordinal p = level_begin + member.league_rank() * member.team_size() + member.team_rank();
    if (p >= level_end) return;  // no team barrier below
    const GlobalSolveData& data = row.data;
    const Ordinal i = data.level_rows(p);
    const int n = row.b();
    Scalar acc[GlobalSolveRow<B>::width];
    row.load_rhs(acc, i);  // every lane, before any lane writes x_i (r may alias x)
    for (int c = 0; c < n; ++c) {
      Scalar sum = 0;
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(member, row.deps_begin(i), row.deps_end(i)),
          [&](const Offset k, Scalar& partial) {
            const Scalar* a = &data.values(k * n * n + c * n);
            const Offset j = Offset(data.col_ind(k)) * n;
            for (int e = 0; e < n; ++e) partial += a[e] * data.x(j + e);
          },
          sum);
      acc[c] -= sum;
    }
    Kokkos::single(Kokkos::PerThread(member), [&]() { row.store(acc, i); });
  }
};

// Synchronization-free sweep (ilupack-gpu-data-parallel.txt §6): one launch, a row per team
// thread, each row waiting on the done flags of the rows it reads. Teams take blocks of rows
// from a ticket counter in dependency order (ascending for lower, descending for upper) instead
// of by their launch index, so a row only ever waits on rows of its own team or of a team that
// took its ticket earlier and is therefore running: no deadlock, however the device schedules
// teams. Flags hold the sweep's epoch, so they never need clearing.
template <int B>
struct GlobalSyncFreeKernel {
  using Member = Kokkos::TeamPolicy<ExecSpace>::member_type;

  GlobalSolveRow<B> row;
  Kokkos::View<unsigned*, DeviceType> done;
  Kokkos::View<Ordinal, DeviceType> tickets;
  unsigned epoch = 1;
  Ordinal num_rows = 0;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& member) const {
    const GlobalSolveData& data = row.data;
    Ordinal ticket = 0;
    Kokkos::single(
        Kokkos::PerTeam(member),
        [&](Ordinal& t) { t = Kokkos::atomic_fetch_add(&tickets(), Ordinal(1)); }, ticket);
    const Ordinal t = ticket * member.team_size() + member.team_rank();
    if (t >= num_rows) return;
    const Ordinal i = data.lower ? t : num_rows - 1 - t;
    const int n = row.b();
    Scalar acc[GlobalSolveRow<B>::width];
    row.load_rhs(acc, i);
    for (Offset k = row.deps_begin(i); k < row.deps_end(i); ++k) {
      const Ordinal j = data.col_ind(k);
      while (atomic_load(&done(j)) != epoch) {
      }
      const Scalar* a = &data.values(k * n * n);
      for (int c = 0; c < n; ++c) {
        Scalar sum = 0;
        for (int e = 0; e < n; ++e) sum += a[c * n + e] * atomic_load(&data.x(Offset(j) * n + e));
        acc[c] -= sum;
      }
    }
    row.store(acc, i);
    Kokkos::memory_fence();
    atomic_store(&done(i), epoch);
  }
};

template <int B>
void launch_sync_free_sweep(const ExecSpace& space, const GlobalSolveData& data,
                            const SyncFreeState& state) {
  const Ordinal n = Ordinal(data.row_map.extent(0)) - 1;
  if (n <= 0) return;
  const unsigned epoch = start_sync_free_sweep(space, state.epoch, state.done, state.tickets);
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  GlobalSyncFreeKernel<B> kernel{GlobalSolveRow<B>{data}, state.done, state.tickets, epoch, n};
  const int team_size = independent_team_size(space, kernel, 1, 128);
  Kokkos::parallel_for("fgdd::trsv::global_sync_free",
                       Policy(space, (n + team_size - 1) / team_size, team_size), kernel);
}

template <int B>
void launch_global_sweep(const ExecSpace& space, const GlobalSolveData& data,
                         const GlobalLevels& levels, GlobalRowKernel kernel_kind, int lanes,
                         const SyncFreeState& state) {
  if (kernel_kind == GlobalRowKernel::SyncFree)
    return launch_sync_free_sweep<B>(space, data, state);
  const std::vector<Ordinal>& level_ptr = levels.host_level_ptr;
  if (kernel_kind == GlobalRowKernel::LanesPerRow) {
    GlobalSolveLanesKernel<B> kernel{GlobalSolveRow<B>{data}, 0, 0};
    using Policy = Kokkos::TeamPolicy<ExecSpace>;
    const int team_size = independent_team_size(space, kernel, lanes, 128 / lanes);
    for (Ordinal l = 0; l < levels.num_levels; ++l) {
      kernel.level_begin = level_ptr[l];
      kernel.level_end = level_ptr[l + 1];
      const Ordinal league = (kernel.level_end - kernel.level_begin + team_size - 1) / team_size;
      Kokkos::parallel_for("fgdd::trsv::global_level_lanes",
                           Policy(space, league, team_size, lanes), kernel);
    }
    return;
  }
  const GlobalSolveThreadKernel<B> kernel{GlobalSolveRow<B>{data}};
  const auto launch_level = [&](Ordinal l) {
    Kokkos::parallel_for("fgdd::trsv::global_level",
                         Kokkos::RangePolicy<ExecSpace>(space, level_ptr[l], level_ptr[l + 1]),
                         kernel);
  };
  if (kernel_kind != GlobalRowKernel::Merged) {
    for (Ordinal l = 0; l < levels.num_levels; ++l) launch_level(l);
    return;
  }
  // A level of a team's rows or fewer joins a run.
  const int cap =
      merged_lanes_cap(levels.num_dependencies, level_ptr.empty() ? 0 : level_ptr.back());
  GlobalSolveMergedKernel<B> merged{GlobalSolveRow<B>{data}, levels.level_ptr, 0, 0, cap};
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  // Scalar rows take the pipelined kernel where the backend gives it a slot per thread (GPUs);
  // the backend is asked for one of the two team sizes a sweep, not both.
  GlobalSolvePipelinedKernel pipelined{GlobalSolveRow<1>{data}, levels.level_ptr, 0, 0, cap};
  const bool pipeline = B == 1 && merged_pipelining &&
                        team_size_within(space, pipelined, 1, int(merged_team_rows),
                                         pipelined.scratch_bytes()) == int(merged_team_rows);
  const int team_size =
      pipeline ? int(merged_team_rows)
               : team_size_within(space, merged, 1, int(merged_team_rows), merged.scratch_bytes());
  const Ordinal longest_run = pipeline ? pipelined_run_levels : levels.num_levels;
  for (Ordinal l = 0; l < levels.num_levels;) {
    Ordinal end = l;
    while (end < levels.num_levels && end - l < longest_run &&
           level_ptr[end + 1] - level_ptr[end] <= merged_team_rows)
      ++end;
    if (end == l) {  // a large level: a launch of its own
      launch_level(l++);
      continue;
    }
    if (pipeline) {
      pipelined.first_level = l;
      pipelined.end_level = end;
      Policy policy(space, 1, team_size);
      policy.set_scratch_size(0, Kokkos::PerTeam(pipelined.scratch_bytes()));
      Kokkos::parallel_for("fgdd::trsv::global_levels_pipelined", policy, pipelined);
    } else {
      merged.first_level = l;
      merged.end_level = end;
      Policy policy(space, 1, team_size);
      policy.set_scratch_size(0, Kokkos::PerTeam(merged.scratch_bytes()));
      Kokkos::parallel_for("fgdd::trsv::global_levels_merged", policy, merged);
    }
    l = end;
  }
}

void global_sweep(const ExecSpace& space, const GlobalSolveData& data, const GlobalLevels& levels,
                  GlobalRowKernel kernel, int lanes, const SyncFreeState& state) {
  with_block_size(data.runtime_b, [&](auto fast) {
    launch_global_sweep<decltype(fast)::value>(space, data, levels, kernel, lanes, state);
  });
}

// The row-order sweeps (steps) of the whole matrix as one "subdomain" [0, n), by one thread.
void row_order_sweep(const ExecSpace& space, const GlobalFactors& f, const SplitTriangles& split,
                     const Kokkos::View<Ordinal*, DeviceType>& whole_range, const StepList& steps,
                     ConstVector r, Vector x) {
  const SparseMatrix& factors = f.factors();
  with_block_size(factors.block_size(), [&](auto block_size) {
    constexpr int B = decltype(block_size)::value;
    with_split_columns<B>(split, [&](const auto& lower_cols, const auto& upper_cols) {
      using I = typename std::decay_t<decltype(lower_cols)>::value_type;
      const RowOrderSolveKernel<B, Scalar, I> kernel{split,
                                                     split.lower_values,
                                                     split.upper_values,
                                                     lower_cols,
                                                     upper_cols,
                                                     f.inv_diag(),
                                                     whole_range,
                                                     r,
                                                     x,
                                                     steps,
                                                     factors.block_size(),
                                                     factors.num_block_rows()};
      Kokkos::parallel_for("fgdd::trsv::global_row_order",
                           Kokkos::RangePolicy<ExecSpace>(space, 0, 1), kernel);
    });
  });
}

}  // namespace detail

namespace {

void check_length(const SparseMatrix& factors, Offset length, const char* name) {
  if (length != factors.num_rows())
    throw DimensionMismatch(std::string("vector ") + name + " has " + std::to_string(length) +
                            " entries but the factors have " + std::to_string(factors.num_rows()) +
                            " rows");
}

// Auto: row order on CPUs (a level's rows are scattered through memory, and one thread reading
// the factors front to back was 2-4x faster than level launches on 1 and 2 cores); on GPUs
// vector lanes pay off only for long rows, and short rows take Merged (its runs of small levels
// save a launch each; large levels are launched as ThreadPerRow's). lanes: a power of two near
// the average number of strictly triangular blocks per row, at most 32 and what the backend
// allows.
void choose_kernel(GlobalRowKernel requested, const GlobalLevels& levels, Ordinal n,
                   GlobalRowKernel& kernel, int& lanes) {
  const Offset average = n > 0 ? (levels.num_dependencies + Offset(n) - 1) / Offset(n) : 0;
  kernel = requested;
  if (kernel == GlobalRowKernel::Auto && host_memory)
    kernel = GlobalRowKernel::RowOrder;
  else if (kernel == GlobalRowKernel::Auto)
    kernel = average >= 16 ? GlobalRowKernel::LanesPerRow : GlobalRowKernel::Merged;
  lanes = detail::lanes_covering(average);
}

}  // namespace

GlobalTrsv::GlobalTrsv(const ExecSpace& space, const GlobalIlu0& factorization,
                       GlobalRowKernel kernel)
    : GlobalTrsv(space, factorization.global_factors(), &factorization, kernel) {}

GlobalTrsv::GlobalTrsv(const ExecSpace& space, const GlobalFactors& factors,
                       GlobalRowKernel kernel)
    : GlobalTrsv(space, factors, nullptr, kernel) {}

GlobalTrsv::GlobalTrsv(const ExecSpace& space, const GlobalFactors& factorization,
                       const GlobalIlu0* source, GlobalRowKernel kernel)
    : factorization_(factorization), source_(source) {
  const SparseMatrix& factors = factorization.factors();
  const Ordinal n = factors.num_block_rows();
  if (kernel == GlobalRowKernel::RowOrder || (kernel == GlobalRowKernel::Auto && host_memory)) {
    // No levels: the sweep takes the rows in order.
    lower_kernel_ = upper_kernel_ = GlobalRowKernel::RowOrder;
    whole_range_ = Kokkos::View<Ordinal*, DeviceType>("fgdd::trsv::global_whole_range", 2);
    Kokkos::deep_copy(space, Kokkos::subview(whole_range_, 1), n);
    return;
  }
  build_levels(space);
  choose_kernel(kernel, lower_, n, lower_kernel_, lower_lanes_);
  choose_kernel(kernel, upper_, n, upper_kernel_, upper_lanes_);
  if (kernel == GlobalRowKernel::SyncFree) {
    sync_free_.done = Kokkos::View<unsigned*, DeviceType>("fgdd::trsv::sync_free_done", n);
    sync_free_.tickets = Kokkos::View<Ordinal, DeviceType>("fgdd::trsv::sync_free_tickets");
  }
}

void GlobalTrsv::build_levels(const ExecSpace& space) const {
  if (has_levels_) return;
  const SparseMatrix& factors = factorization_.factors();
  lower_ = source_ != nullptr ? source_->lower_levels()
                              : build_global_levels(space, factors, factorization_.diag_position(),
                                                    Triangle::Lower);
  upper_ = build_global_levels(space, factors, factorization_.diag_position(), Triangle::Upper);
  has_levels_ = true;
}

void GlobalTrsv::solve(const ExecSpace& space, Triangle triangle, Diagonal diagonal, ConstVector r,
                       Vector x) const {
  const GlobalFactors& f = factorization_;
  check_length(f.factors(), r.extent(0), "r");
  check_length(f.factors(), x.extent(0), "x");
  const bool lower = triangle == Triangle::Lower;
  if (row_kernel(triangle) == GlobalRowKernel::RowOrder) {
    detail::StepList steps;
    steps.step[steps.count++] = detail::Step{detail::StepKind::Solve, lower,
                                             diagonal == Diagonal::Pivots};
    return detail::row_order_sweep(space, f, split(space), whole_range_, steps, r, x);
  }
  detail::GlobalSolveData data = sweep_data(triangle, r, x);
  data.scale_result = diagonal == Diagonal::Pivots;
  detail::global_sweep(space, data, levels(triangle), row_kernel(triangle),
                       lower ? lower_lanes_ : upper_lanes_, sync_free_);
}

void GlobalTrsv::apply(const ExecSpace& space, ConstVector r, Vector z) const {
  const GlobalFactors& f = factorization_;
  check_length(f.factors(), r.extent(0), "r");
  check_length(f.factors(), z.extent(0), "z");
  const bool ildu = f.form() == IluForm::Ildu0;
  if (lower_kernel_ == GlobalRowKernel::RowOrder) {
    // L unit, then Ildu0: D⁻¹ and U unit; Ilu0: U with its pivots.
    detail::StepList steps;
    steps.step[steps.count++] = detail::Step{detail::StepKind::Solve, true, false};
    if (ildu) steps.step[steps.count++] = detail::Step{detail::StepKind::Scale, true, false};
    steps.step[steps.count++] = detail::Step{detail::StepKind::Solve, false, !ildu};
    return detail::row_order_sweep(space, f, split(space), whole_range_, steps, r, z);
  }
  // L y = r (unit lower) into z.
  detail::GlobalSolveData data = sweep_data(Triangle::Lower, r, z);
  detail::global_sweep(space, data, lower_, lower_kernel_, lower_lanes_, sync_free_);
  // In place on z. Ildu0: z_i = D_i⁻¹ y_i − Σ U_ik z_k with U unit; Ilu0: z_i = D_i⁻¹ (y_i −
  // Σ U_ik z_k) with U holding the pivots.
  data = sweep_data(Triangle::Upper, z, z);
  data.scale_rhs = ildu;
  data.scale_result = !ildu;
  detail::global_sweep(space, data, upper_, upper_kernel_, upper_lanes_, sync_free_);
}

detail::GlobalSolveData GlobalTrsv::sweep_data(Triangle triangle, ConstVector r, Vector x) const {
  const GlobalFactors& f = factorization_;
  const bool lower = triangle == Triangle::Lower;
  detail::GlobalSolveData data;
  data.row_map = f.factors().row_map();
  data.col_ind = f.factors().col_ind();
  data.values = f.factors().values();
  data.diag = f.diag_position();
  data.inv_diag = f.inv_diag();
  data.level_rows = lower ? lower_.rows : upper_.rows;
  data.r = r;
  data.x = x;
  data.lower = lower;
  data.runtime_b = f.factors().block_size();
  return data;
}

const SplitTriangles& GlobalTrsv::split(const ExecSpace& space) const {
  const GlobalFactors& f = factorization_;
  refresh_split(space, f.factors(), f.diag_position(), FactorPrecision::Double, f.numeric_count(),
                split_, split_count_);
  return split_;
}

}  // namespace fgdd
