#include "trsv/subdomain_trsv.hpp"

#include "core/block_size_dispatch.hpp"
#include "core/errors.hpp"
#include "core/huge_pages.hpp"
#include "core/team_scratch.hpp"
#include "core/team_size.hpp"
#include "trsv/float_range.hpp"
#include "trsv/row_order_kernel.hpp"
#include "trsv/subdomain_solve_kernel.hpp"

#include <algorithm>
#include <string>
#include <type_traits>

namespace fgdd {

namespace detail {

// The apply's copy of the factor values in one precision: the blocks in edge order, in each
// triangle's slice order (Traversal::Sliced), and D⁻¹.
template <class V>
struct ApplyValues {
  Kokkos::View<V*, DeviceType> edge_values;
  Kokkos::View<V*, DeviceType> inv_diag;
  Kokkos::View<V*, DeviceType> lower_sliced;
  Kokkos::View<V*, DeviceType> upper_sliced;
};

// What every launch reads besides the vectors.
struct TrsvOperands {
  const SubdomainIlu0& f;
  const SubdomainLevels& lower;
  const SubdomainLevels& upper;
  const SlicedLevels& lower_sliced;
  const SlicedLevels& upper_sliced;
  ApplyValues<Scalar> values;
  ApplyValues<float> values_single;  // FactorPrecision::Float
  int team_size;
  int lanes;                         // vector lanes per thread (Traversal::Lanes; 1 otherwise)
  detail::LevelLaunch level_launch;  // EdgeOrdered when team_size is 0 (threads 0: Kokkos chooses)
  int* ordered_team_size;   // level_launch.threads within the ordered kernel's limit (0: not yet)
  int row_team_size;        // Sliced when team_size is 0 (0: Kokkos chooses)
  int* sliced_team_size;    // row_team_size within the sliced kernel's limit (0: not asked yet)
  int* held_team_max;       // the two-entry ordered launch's limit (-1: not asked yet)
  Offset widest_level = 0;  // entries of the widest level of either triangle (EdgeOrdered)

  template <class V>
  const ApplyValues<V>& values_of() const {
    if constexpr (std::is_same_v<V, float>)
      return values_single;
    else
      return values;
  }
};

}  // namespace detail

namespace {

using Operands = detail::TrsvOperands;

using detail::Step;
using detail::StepKind;
using detail::StepList;
using detail::Traversal;

void check_length(const SparseMatrix& factors, Offset length, const char* name) {
  if (length != factors.num_rows())
    throw DimensionMismatch(std::string("vector ") + name + " has " + std::to_string(length) +
                            " entries but the factors have " + std::to_string(factors.num_rows()) +
                            " rows");
}

// edge_values(e) = the factor block of edge e, for every edge of both triangles: a row's edges
// are one run of its entries (edge_entry), copied by one thread.
template <class V>
void gather_edge_values(const ExecSpace& space, const SubdomainIlu0& f,
                        const SubdomainLevels& lower, const SubdomainLevels& upper,
                        const Kokkos::View<V*, DeviceType>& edge_values) {
  const auto values = f.factors().values();
  const auto row_map = f.factors().row_map();
  const auto diag = f.diag_position();
  const int bb = f.factors().block_size() * f.factors().block_size();
  for (const SubdomainLevels* triangle : {&lower, &upper}) {
    const SubdomainLevels levels = *triangle;
    Kokkos::parallel_for(
        "fgdd::trsv::gather_edge_values",
        Kokkos::RangePolicy<ExecSpace>(space, 0, Ordinal(levels.rows.extent(0))),
        KOKKOS_LAMBDA(const Ordinal p) {
          const Offset begin = levels.row_edge_begin(p), end = levels.row_edge_end(p);
          if (begin == end) return;
          const Offset from = edge_entry(levels, row_map, diag, p, begin) * bb;
          for (Offset j = 0; j < (end - begin) * bb; ++j)
            edge_values(begin * bb + j) = V(values(from + j));
        });
  }
}

// EdgeOrdered keeps the widest level's products (b scalars an entry) after the vector slice.
detail::TeamScratch ordered_scratch(std::size_t slice_bytes, const Operands& o) {
  return detail::team_scratch_for(slice_bytes + std::size_t(o.widest_level) *
                                                    o.f.factors().block_size() * sizeof(Scalar));
}

template <Traversal traversal, bool InScratch, int B, class V = Scalar, int Held = 1>
detail::SubdomainSolveKernel<traversal, InScratch, B, V, Held> make_kernel(
    const Operands& o, const StepList& steps, ConstVector r, Vector z,
    detail::TeamScratch scratch) {
  const SparseMatrix& factors = o.f.factors();
  const Partition& partition = o.f.partition();
  const detail::ApplyValues<V>& values = o.template values_of<V>();
  detail::SubdomainSolveKernel<traversal, InScratch, B, V, Held> kernel{factors.row_map(),
                                                                        factors.col_ind(),
                                                                        factors.values(),
                                                                        o.f.diag_position(),
                                                                        values.inv_diag,
                                                                        partition.subdomain_offsets,
                                                                        o.lower,
                                                                        o.upper,
                                                                        values.edge_values,
                                                                        r,
                                                                        z,
                                                                        steps,
                                                                        factors.block_size(),
                                                                        scratch.level,
                                                                        o.widest_level};
  kernel.lower_sliced = o.lower_sliced;
  kernel.upper_sliced = o.upper_sliced;
  kernel.lower_sliced_values = values.lower_sliced;
  kernel.upper_sliced_values = values.upper_sliced;
  return kernel;
}

// The most threads a team of this kernel may have on the backend (1 on Serial; on GPUs what
// the kernel's registers and scratch leave). Asking Kokkos for more aborts the process.
template <class Kernel>
int most_threads(const ExecSpace& space, const Kernel& kernel, bool in_scratch,
                 detail::TeamScratch scratch, int lanes) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  Policy probe(space, 1, 1, lanes);
  if (in_scratch) probe.set_scratch_size(scratch.level, Kokkos::PerTeam(scratch.bytes));
  return probe.team_size_max(kernel, Kokkos::ParallelForTag());
}

void check_team_size(int team_size, int most, const std::string& label) {
  if (team_size > most)
    throw InvalidInput("team_size " + std::to_string(team_size) + " exceeds the " +
                       std::to_string(most) + " threads per team that " + ExecSpace::name() +
                       " allows for " + label + " (allowed: 0, Kokkos chooses, or 1 to " +
                       std::to_string(most) + ")");
}

// Whether the ordered kernel's capped and two-entry launches are compiled: scalar blocks on GPU
// backends, the launches they were measured for.
constexpr bool ordered_variants_compiled(Traversal traversal, int B) {
  return !host_memory && traversal == Traversal::EdgeOrdered && B == 1;
}

// The kernel compiled for detail::capped_level_teams_per_sm teams of 128 threads an SM: its
// registers are capped so that the teams detail::level_launch marks are all resident at once.
template <class Kernel>
void launch_capped(const ExecSpace& space, const Kernel& kernel, Ordinal league, int team_size,
                   bool in_scratch, detail::TeamScratch scratch, const char* label) {
  using Capped =
      Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<128, detail::capped_level_teams_per_sm>>;
  Capped policy(space, league, team_size, 1);
  if (in_scratch) policy.set_scratch_size(scratch.level, Kokkos::PerTeam(scratch.bytes));
  Kokkos::parallel_for(label, policy, kernel);
}

// The ordered kernel loading two entries of the next level ahead a thread (Held = 2), for the
// rule's uncapped teams of 64 or 128 on NVIDIA GPUs: where a level takes two passes of the team
// (lap7 or convection-diffusion, about 122 entries, at 64; lap27, about 224, at 128), the second
// pass's loads leave the level-to-level path. Compiled for as many teams an SM as the one-entry
// build reaches at that size (TeamsPerSm), so it keeps its 80 registers and occupancy. The same
// products summed in the same order: the same bits. H100, µs of one apply, two runs each:
// teams of 64, lap7 160³ 316 / 323 → 311 / 311, convection-diffusion 128³ 172 / 173 → 168 /
// 167; teams of 128, lap27 100³ 238 / 237 → 210 / 214, lap27 64³ 119 / 122 → 114 / 119, lap7
// and convection-diffusion 100³ (one pass) within ±5 % both ways (docs/PERFORMANCE.md).
// Kokkos refuses the launch where that many teams' scratch does not fit an SM (subdomains far
// above 1,500 rows); it then returns false and the one-entry build runs. One SubdomainTrsv
// launches one team size (the rule's choice is kept), so one limit is cached.
template <Traversal traversal, bool InScratch, int B, class V, int Threads, int TeamsPerSm>
bool launch_held(const ExecSpace& space, const Operands& o, const StepList& steps, ConstVector r,
                 Vector z, Ordinal league, detail::TeamScratch scratch, const char* label) {
  const auto kernel = make_kernel<traversal, InScratch, B, V, 2>(o, steps, r, z, scratch);
  using HeldPolicy = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<Threads, TeamsPerSm>>;
  const auto with_scratch = [&](HeldPolicy policy) {
    if (InScratch) policy.set_scratch_size(scratch.level, Kokkos::PerTeam(scratch.bytes));
    return policy;
  };
  if (*o.held_team_max < 0)
    *o.held_team_max =
        with_scratch(HeldPolicy(space, 1, 1, 1)).team_size_max(kernel, Kokkos::ParallelForTag());
  if (*o.held_team_max < Threads) return false;
  Kokkos::parallel_for(label, with_scratch(HeldPolicy(space, league, Threads, 1)), kernel);
  return true;
}

template <Traversal traversal, bool InScratch, int B, class V>
void launch_with_block(const ExecSpace& space, const Operands& o, const StepList& steps,
                       ConstVector r, Vector z, detail::TeamScratch scratch, const char* label) {
  const auto kernel = make_kernel<traversal, InScratch, B, V>(o, steps, r, z, scratch);
  const Ordinal league = o.f.partition().num_subdomains;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  const int lanes = traversal == Traversal::Lanes ? o.lanes : 1;
  if (o.team_size > 0)
    check_team_size(o.team_size, most_threads(space, kernel, InScratch, scratch, lanes), label);
  int team_size = o.team_size;
  // The ordered and sliced kernels' own rules. Block size, value type and scratch are the same
  // in every such launch of one SubdomainTrsv, so its limit is asked once, not in every apply.
  const bool ordered = traversal == Traversal::EdgeOrdered, sliced = traversal == Traversal::Sliced;
  const int rule = ordered ? o.level_launch.threads : sliced ? o.row_team_size : 0;
  if (team_size == 0 && rule > 0) {
    int& chosen = ordered ? *o.ordered_team_size : *o.sliced_team_size;
    if (chosen == 0) chosen = std::min(rule, most_threads(space, kernel, InScratch, scratch, 1));
    team_size = chosen;
    if constexpr (ordered_variants_compiled(traversal, B)) {
      if (o.level_launch.capped_registers && team_size <= 128) {
        launch_capped(space, kernel, league, team_size, InScratch, scratch, label);
        return;
      }
      if (detail::simd_width() == 32 && team_size == 64 &&
          launch_held<traversal, InScratch, B, V, 64, detail::held_level_teams_per_sm>(
              space, o, steps, r, z, league, scratch, label))
        return;
      if (detail::simd_width() == 32 && team_size == 128 &&
          launch_held<traversal, InScratch, B, V, 128, detail::level_teams_per_sm>(
              space, o, steps, r, z, league, scratch, label))
        return;
    }
  }
  Policy policy = team_size > 0 ? Policy(space, league, team_size, lanes)
                                : Policy(space, league, Kokkos::AUTO, lanes);
  if (InScratch) policy.set_scratch_size(scratch.level, Kokkos::PerTeam(scratch.bytes));
  Kokkos::parallel_for(label, policy, kernel);
}

// The most threads per team the one-lane fused apply kernels (Auto's among them) allow for
// these factors, so that a team_size too large fails when the preconditioner is built (on
// every rank alike), not in the middle of a solve. The lanes kernel, whose threads each hold
// several lanes, checks its own limit when it is launched.
int most_apply_threads(const ExecSpace& space, const Operands& o, detail::TeamScratch scratch) {
  const auto most = [&](auto block_size) {
    constexpr int B = decltype(block_size)::value;
    const StepList steps = {};
    return std::min(
        {most_threads(space, make_kernel<Traversal::Edge, true, B>(o, steps, {}, {}, scratch), true,
                      scratch, 1),
         most_threads(space, make_kernel<Traversal::Vertex, true, B>(o, steps, {}, {}, scratch),
                      true, scratch, 1),
         most_threads(space,
                      make_kernel<Traversal::EdgeOrdered, true, B>(o, steps, {}, {}, scratch), true,
                      scratch, 1),
         most_threads(space, make_kernel<Traversal::Sliced, true, B>(o, steps, {}, {}, scratch),
                      true, scratch, 1)});
  };
  return detail::with_block_size(o.f.factors().block_size(), most);
}

template <Traversal traversal, bool InScratch, class V = Scalar>
void launch(const ExecSpace& space, const Operands& o, const StepList& steps, ConstVector r,
            Vector z, detail::TeamScratch scratch, const char* label) {
  if (o.f.partition().num_subdomains == 0) return;
  const auto go = [&](auto block_size) {
    launch_with_block<traversal, InScratch, decltype(block_size)::value, V>(space, o, steps, r, z,
                                                                            scratch, label);
  };
  detail::with_block_size(o.f.factors().block_size(), go);
}

// One thread per subdomain, dynamically scheduled: subdomains differ in size. The values are
// split's and inv_diag's, in float where split keeps float values; the columns split's 16-bit
// distances where it has them.
template <class V>
void launch_row_order_in(const ExecSpace& space, const SubdomainIlu0& f,
                         const SplitTriangles& split, Kokkos::View<const V*, DeviceType> lower,
                         Kokkos::View<const V*, DeviceType> upper,
                         Kokkos::View<const V*, DeviceType> inv_diag, const StepList& steps,
                         ConstVector r, Vector z, const char* label) {
  const Ordinal league = f.partition().num_subdomains;
  if (league == 0) return;
  const SparseMatrix& factors = f.factors();
  detail::with_block_size(factors.block_size(), [&](auto block_size) {
    constexpr int B = decltype(block_size)::value;
    detail::with_split_columns<B>(split, [&](const auto& lower_cols, const auto& upper_cols) {
      using I = typename std::decay_t<decltype(lower_cols)>::value_type;
      const detail::RowOrderSolveKernel<B, V, I> kernel{split,
                                                        lower,
                                                        upper,
                                                        lower_cols,
                                                        upper_cols,
                                                        inv_diag,
                                                        f.partition().subdomain_offsets,
                                                        r,
                                                        z,
                                                        steps,
                                                        factors.block_size(),
                                                        factors.num_block_rows()};
      Kokkos::parallel_for(
          label,
          Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>(space, 0, league),
          kernel);
    });
  });
}

// to(e) = from(e) rounded to float. (A free function: CUDA refuses device lambdas inside
// private member functions.)
void round_to_float(const ExecSpace& space, const Kokkos::View<Scalar*, DeviceType>& from,
                    const Kokkos::View<float*, DeviceType>& to) {
  Kokkos::parallel_for(
      "fgdd::trsv::round_to_float", Kokkos::RangePolicy<ExecSpace>(space, 0, from.extent(0)),
      KOKKOS_LAMBDA(const std::size_t e) { to(e) = float(from(e)); });
}

StepList one_step(Step step) {
  StepList list;
  list.step[0] = step;
  list.count = 1;
  return list;
}

// The fused apply (steps) with the level kernel `kernel` names, reading values of type V.
template <class V>
void launch_fused(const ExecSpace& space, const Operands& operands, ApplyKernel kernel,
                  const StepList& fused, bool ildu, ConstVector r, Vector z,
                  std::size_t slice_bytes) {
  const detail::TeamScratch scratch = detail::team_scratch_for(slice_bytes);
  switch (kernel) {
    case ApplyKernel::DagEcIlduFused:
      return launch<Traversal::Edge, true, V>(space, operands, fused, r, z, scratch,
                                              "fgdd::trsv::dag_ec_ILDU0_fused");
    case ApplyKernel::DagVcIlduFused:
      return launch<Traversal::Vertex, true, V>(space, operands, fused, r, z, scratch,
                                                "fgdd::trsv::dag_vc_ILDU0_fused");
    case ApplyKernel::DagLanesIlduFused:
      return launch<Traversal::Lanes, true, V>(space, operands, fused, r, z, scratch,
                                               "fgdd::trsv::dag_lanes_ILDU0_fused");
    case ApplyKernel::DagEcOrderedIlduFused:
      return launch<Traversal::EdgeOrdered, true, V>(space, operands, fused, r, z,
                                                     ordered_scratch(slice_bytes, operands),
                                                     "fgdd::trsv::dag_ec_ordered_ILDU0_fused");
    case ApplyKernel::DagVcSlicedIlduFused:
      return launch<Traversal::Sliced, true, V>(space, operands, fused, r, z, scratch,
                                                "fgdd::trsv::dag_vc_sliced_ILDU0_fused");
    case ApplyKernel::DagEcIldU0: {
      // Two launches through z: the lower solve with the diagonal scaling, then the upper solve
      // in place (each team reads and writes only its own rows).
      StepList first;
      first.step[first.count++] = Step{StepKind::Solve, true, false};
      if (ildu) first.step[first.count++] = Step{StepKind::Scale, true, false};
      launch<Traversal::Edge, true, V>(space, operands, first, r, z, scratch,
                                       "fgdd::trsv::dag_ec_ILD_U0_lower");
      return launch<Traversal::Edge, true, V>(space, operands,
                                              one_step(Step{StepKind::Solve, false, !ildu}), z, z,
                                              scratch, "fgdd::trsv::dag_ec_ILD_U0_upper");
    }
    case ApplyKernel::Auto:
    case ApplyKernel::RowOrderFused:
      return;  // resolved, or launched, by the caller
  }
}

}  // namespace

SubdomainTrsv::SubdomainTrsv(const ExecSpace& space, const SubdomainIlu0& factorization,
                             int team_size, FactorPrecision precision)
    : factorization_(&factorization), team_size_(team_size), precision_(precision) {
  if (team_size < 0) throw InvalidInput("team_size must be >= 0, got " + std::to_string(team_size));
  if (precision == FactorPrecision::Auto)
    throw InvalidInput(
        "SubdomainTrsv reads the factors in double or float; resolve "
        "factor_precision auto first (DdIluPreconditioner does)");
  const SparseMatrix& factors = factorization.factors();
  const Partition& partition = factorization.partition();
  const Ordinal largest = partition.largest_subdomain();
  slice_bytes_ = std::size_t(largest) * sizeof(Scalar) * factors.block_size();
  // Lanes cover a row's mean strictly-triangular entries (7-point: 3 → 4 lanes; 27-point: 13
  // → 16), so a level's loads spread like the edge-centric kernel's.
  const Offset rows = factors.num_block_rows();
  const Offset off_diagonal = factors.num_block_entries() - rows;
  lanes_ = detail::lanes_covering(rows > 0 ? (off_diagonal + 2 * rows - 1) / (2 * rows) : 1);
  // The flags follow the slice in one request (get_shmem does not align; the doubles go first).
  spin_bytes_ = slice_bytes_ + std::size_t(largest) * sizeof(int) + 64;
  if (team_size > 0) {
    check_team_size(team_size,
                    most_apply_threads(space, operands(), detail::team_scratch_for(slice_bytes_)),
                    "the subdomain apply");
  }
}

detail::TrsvOperands SubdomainTrsv::operands() const {
  const Offset levels = lower_.total_levels + upper_.total_levels;
  const double mean_rows =
      levels > 0 ? 2.0 * double(factorization_->factors().num_block_rows()) / double(levels) : 0;
  return {*factorization_,
          lower_,
          upper_,
          lower_sliced_,
          upper_sliced_,
          {edge_values_, factorization_->inv_diag(), lower_sliced_values_, upper_sliced_values_},
          {edge_values_single_, inv_diag_single_, lower_sliced_values_single_,
           upper_sliced_values_single_},
          team_size_,
          lanes_,
          detail::level_launch(mean_entries_built(), factorization_->partition().num_subdomains,
                               factorization_->factors().block_size() == 1),
          &ordered_team_size_,
          detail::row_team_size(mean_rows),
          &sliced_team_size_,
          &held_team_max_,
          std::max(lower_.widest_level, upper_.widest_level)};
}

void SubdomainTrsv::build_levels(const ExecSpace& space) const {
  if (has_levels()) return;
  const SubdomainIlu0& f = *factorization_;
  const SparseMatrix& factors = f.factors();
  lower_ = f.lower_levels() != nullptr ? *f.lower_levels()
                                       : build_subdomain_levels(space, factors, f.diag_position(),
                                                                f.partition(), Triangle::Lower);
  upper_ = build_subdomain_levels(space, factors, f.diag_position(), f.partition(), Triangle::Upper,
                                  &lower_);
}

double SubdomainTrsv::mean_level_entries(const ExecSpace& space) const {
  build_levels(space);
  return mean_entries_built();
}

double SubdomainTrsv::mean_entries_built() const {
  const Offset levels = lower_.total_levels + upper_.total_levels;
  return levels > 0 ? double(lower_.num_edges + upper_.num_edges) / double(levels) : 0.0;
}

double SubdomainTrsv::sliced_padding() const noexcept {
  const Offset padded = lower_sliced_.num_entries + upper_sliced_.num_entries;
  const Offset listed = lower_.num_edges + upper_.num_edges;
  return lower_sliced_.col.is_allocated() && listed > 0 ? double(padded) / double(listed) : 0.0;
}

namespace {

// The kernels that add into a row by edge (atomics), reading SubdomainLevels::edge_row.
bool scatters_by_edge(ApplyKernel kernel) {
  return kernel == ApplyKernel::DagEcIlduFused || kernel == ApplyKernel::DagEcIldU0;
}
bool scatters_by_edge(TriangularKernel kernel) {
  return kernel == TriangularKernel::DagEcNoLds || kernel == TriangularKernel::DagEcLds ||
         kernel == TriangularKernel::DagEcLdsUd;
}

}  // namespace

void SubdomainTrsv::prepare(const ExecSpace& space, ApplyKernel kernel) const {
  kernel = resolve_auto(kernel);
  if (kernel == ApplyKernel::RowOrderFused)
    split(space);
  else if (kernel == ApplyKernel::DagVcSlicedIlduFused)
    refresh_sliced_values(space);
  else
    refresh_edge_values(space);
  if (scatters_by_edge(kernel)) need_edge_rows(space);
}

void SubdomainTrsv::need_edge_rows(const ExecSpace& space) const {
  build_levels(space);
  if (!lower_.edge_row.is_allocated() && factorization_->partition().num_subdomains > 0)
    fill_edge_rows(space, lower_, upper_);
}

void SubdomainTrsv::refresh_inv_diag_single(const ExecSpace& space) const {
  if (precision_ != FactorPrecision::Float || inv_diag_count_ == factorization_->numeric_count())
    return;
  const SubdomainIlu0& f = *factorization_;
  check_factors_fit_float(space, f);
  round_inv_diag(space);
}

void SubdomainTrsv::round_inv_diag(const ExecSpace& space) const {
  const SubdomainIlu0& f = *factorization_;
  const auto inv_diag = f.inv_diag();
  if (!inv_diag_single_.is_allocated())
    inv_diag_single_ =
        detail::uninitialized_view<float>("fgdd::trsv::inv_diag_single", inv_diag.extent(0));
  round_to_float(space, inv_diag, inv_diag_single_);
  inv_diag_count_ = f.numeric_count();
}

const SplitTriangles& SubdomainTrsv::split(const ExecSpace& space) const {
  const SubdomainIlu0& f = *factorization_;
  const Ordinal n = f.factors().num_block_rows();
  const bool single = precision_ == FactorPrecision::Float;
  // Float: D⁻¹ is checked here and the triangles by the gather as it rounds them, one pass over
  // the factors instead of two; the first row that does not fit, of either, is refused.
  const bool new_inv_diag = single && inv_diag_count_ != f.numeric_count();
  Ordinal beyond = new_inv_diag ? first_row_beyond_float(space, f, false) : n;
  beyond = std::min(beyond, refresh_split(space, f.factors(), f.diag_position(), precision_,
                                          f.numeric_count(), split_, split_count_));
  if (beyond < n) throw_beyond_float(space, f, beyond);
  if (new_inv_diag) round_inv_diag(space);
  return split_;
}

void SubdomainTrsv::refresh_edge_values(const ExecSpace& space) const {
  build_levels(space);
  const SubdomainIlu0& f = *factorization_;
  if (gathered_count_ == f.numeric_count()) return;
  refresh_inv_diag_single(space);
  const std::size_t entries = f.factors().num_entries();
  if (precision_ == FactorPrecision::Float) {
    if (!edge_values_single_.is_allocated())
      edge_values_single_ =
          detail::uninitialized_view<float>("fgdd::trsv::edge_values_single", entries);
    gather_edge_values(space, f, lower_, upper_, edge_values_single_);
  } else {
    if (!edge_values_.is_allocated())
      edge_values_ = detail::uninitialized_view<Scalar>("fgdd::trsv::edge_values", entries);
    gather_edge_values(space, f, lower_, upper_, edge_values_);
  }
  gathered_count_ = f.numeric_count();
}

namespace {

// values, sized for sliced's padded blocks (allocated on first use), gathered in its order.
template <class V>
void gather_sliced(const ExecSpace& space, const SubdomainIlu0& f, const SubdomainLevels& levels,
                   const SlicedLevels& sliced, Kokkos::View<V*, DeviceType>& values,
                   const char* label) {
  const int b = f.factors().block_size();
  if (!values.is_allocated())
    values = detail::uninitialized_view<V>(label, std::size_t(sliced.num_entries) * b * b);
  gather_sliced_values(space, levels, sliced, f.partition(), f.factors(), f.diag_position(),
                       values);
}

}  // namespace

void SubdomainTrsv::refresh_sliced_values(const ExecSpace& space) const {
  build_levels(space);
  const SubdomainIlu0& f = *factorization_;
  if (!lower_sliced_.col.is_allocated() && f.partition().num_subdomains > 0) {
    lower_sliced_ = build_sliced_levels(space, lower_, f.partition());
    upper_sliced_ = build_sliced_levels(space, upper_, f.partition());
  }
  if (sliced_count_ == f.numeric_count()) return;
  refresh_inv_diag_single(space);
  if (precision_ == FactorPrecision::Float) {
    gather_sliced(space, f, lower_, lower_sliced_, lower_sliced_values_single_,
                  "fgdd::trsv::lower_sliced_values_single");
    gather_sliced(space, f, upper_, upper_sliced_, upper_sliced_values_single_,
                  "fgdd::trsv::upper_sliced_values_single");
  } else {
    gather_sliced(space, f, lower_, lower_sliced_, lower_sliced_values_,
                  "fgdd::trsv::lower_sliced_values");
    gather_sliced(space, f, upper_, upper_sliced_, upper_sliced_values_,
                  "fgdd::trsv::upper_sliced_values");
  }
  sliced_count_ = f.numeric_count();
}

void SubdomainTrsv::launch_row_order(const ExecSpace& space, const StepList& steps, ConstVector r,
                                     Vector z, const char* label) const {
  const SplitTriangles& s = split(space);
  if (precision_ == FactorPrecision::Float)
    return launch_row_order_in<float>(space, *factorization_, s, s.lower_values_single,
                                      s.upper_values_single, inv_diag_single_, steps, r, z, label);
  launch_row_order_in<Scalar>(space, *factorization_, s, s.lower_values, s.upper_values,
                              factorization_->inv_diag(), steps, r, z, label);
}

void SubdomainTrsv::solve(const ExecSpace& space, Triangle triangle, Diagonal diagonal,
                          TriangularKernel kernel, ConstVector r, Vector x) const {
  const SubdomainIlu0& f = *factorization_;
  check_length(f.factors(), r.extent(0), "r");
  check_length(f.factors(), x.extent(0), "x");
  if (precision_ != FactorPrecision::Double)
    throw InvalidInput(
        "triangular solves read the factors in double; this SubdomainTrsv keeps "
        "them in " +
        to_string(precision_) + " (factor_precision)");
  const StepList steps =
      one_step(Step{StepKind::Solve, triangle == Triangle::Lower, diagonal == Diagonal::Pivots});
  if (kernel == TriangularKernel::RowOrder)
    return launch_row_order(space, steps, r, x, "fgdd::trsv::row_order");
  if (kernel == TriangularKernel::DagVcSlicedLds)
    refresh_sliced_values(space);
  else
    refresh_edge_values(space);
  if (scatters_by_edge(kernel)) need_edge_rows(space);
  const Operands o = operands();
  const detail::TeamScratch scratch = detail::team_scratch_for(slice_bytes_);
  switch (kernel) {
    case TriangularKernel::SpinLoopLds:
      return launch<Traversal::Spin, true>(space, o, steps, r, x,
                                           detail::team_scratch_for(spin_bytes_),
                                           "fgdd::trsv::spin_loop_lds");
    case TriangularKernel::DagEcNoLds:
      return launch<Traversal::Edge, false>(space, o, steps, r, x, scratch,
                                            "fgdd::trsv::dag_ec_no_lds");
    case TriangularKernel::DagEcLdsUd: {
      StepList deferred;
      const bool lower = triangle == Triangle::Lower;
      const bool scale = diagonal == Diagonal::Pivots;
      if (scale && !lower) deferred.step[deferred.count++] = Step{StepKind::Scale, false, false};
      deferred.step[deferred.count++] = Step{StepKind::Solve, lower, false};
      if (scale && lower) deferred.step[deferred.count++] = Step{StepKind::Scale, true, false};
      return launch<Traversal::Edge, true>(space, o, deferred, r, x, scratch,
                                           "fgdd::trsv::dag_ec_lds_ud");
    }
    case TriangularKernel::DagEcLds:
      return launch<Traversal::Edge, true>(space, o, steps, r, x, scratch,
                                           "fgdd::trsv::dag_ec_lds");
    case TriangularKernel::DagVcLds:
      return launch<Traversal::Vertex, true>(space, o, steps, r, x, scratch,
                                             "fgdd::trsv::dag_vc_lds");
    case TriangularKernel::DagLanesLds:
      return launch<Traversal::Lanes, true>(space, o, steps, r, x, scratch,
                                            "fgdd::trsv::dag_lanes_lds");
    case TriangularKernel::DagEcOrderedLds:
      return launch<Traversal::EdgeOrdered, true>(space, o, steps, r, x,
                                                  ordered_scratch(slice_bytes_, o),
                                                  "fgdd::trsv::dag_ec_ordered_lds");
    case TriangularKernel::DagVcSlicedLds:
      return launch<Traversal::Sliced, true>(space, o, steps, r, x, scratch,
                                             "fgdd::trsv::dag_vc_sliced_lds");
    case TriangularKernel::RowOrder:
      return;  // launched above
  }
}

void SubdomainTrsv::apply(const ExecSpace& space, ApplyKernel kernel, ConstVector r,
                          Vector z) const {
  const SubdomainIlu0& f = *factorization_;
  check_length(f.factors(), r.extent(0), "r");
  check_length(f.factors(), z.extent(0), "z");
  // Ildu0 and Ildlt: L (unit), D⁻¹, U (unit). Ilu0: L (unit), U with its pivots on the diagonal.
  const bool ildu = f.form() != IluForm::Ilu0;
  StepList fused;
  fused.step[fused.count++] = Step{StepKind::Solve, true, false};
  if (ildu) fused.step[fused.count++] = Step{StepKind::Scale, true, false};
  fused.step[fused.count++] = Step{StepKind::Solve, false, !ildu};
  kernel = resolve_auto(kernel);
  if (kernel == ApplyKernel::RowOrderFused)
    return launch_row_order(space, fused, r, z, "fgdd::trsv::row_order_ILDU0_fused");
  prepare(space, kernel);
  if (precision_ == FactorPrecision::Float)
    return launch_fused<float>(space, operands(), kernel, fused, ildu, r, z, slice_bytes_);
  launch_fused<Scalar>(space, operands(), kernel, fused, ildu, r, z, slice_bytes_);
}

void SubdomainTrsv::apply_transpose(const ExecSpace& space, ApplyKernel kernel, ConstVector r,
                                    Vector z) const {
  const SubdomainIlu0& f = *factorization_;
  check_length(f.factors(), r.extent(0), "r");
  check_length(f.factors(), z.extent(0), "z");
  // Mᵀ = Uᵀ Dᵀ Lᵀ (Ildu0, Ildlt) or Uᵀ Lᵀ with the pivots inside Uᵀ (Ilu0): solve Uᵀ first.
  const bool ildu = f.form() != IluForm::Ilu0;
  StepList steps;
  steps.step[steps.count++] = Step{StepKind::SolveTransposed, false, !ildu};
  if (ildu) steps.step[steps.count++] = Step{StepKind::ScaleTransposed, true, false};
  steps.step[steps.count++] = Step{StepKind::SolveTransposed, true, false};
  if (resolve_auto(kernel) == ApplyKernel::RowOrderFused)
    return launch_row_order(space, steps, r, z, "fgdd::trsv::row_order_ILDU0_fused_transpose");
  refresh_edge_values(space);
  need_edge_rows(space);
  const detail::TeamScratch scratch = detail::team_scratch_for(slice_bytes_);
  const char* label = "fgdd::trsv::dag_ec_ILDU0_fused_transpose";
  if (precision_ == FactorPrecision::Float)
    return launch<Traversal::Edge, true, float>(space, operands(), steps, r, z, scratch, label);
  launch<Traversal::Edge, true>(space, operands(), steps, r, z, scratch, label);
}

}  // namespace fgdd
