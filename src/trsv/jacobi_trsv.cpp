#include "trsv/jacobi_trsv.hpp"

#include "core/dense_block.hpp"
#include "core/errors.hpp"
#include "core/kokkos_compat.hpp"
#include "core/matrix_build.hpp"
#include "factor/global_ilu0.hpp"
#include "factor/subdomain_ilu0.hpp"
#include "core/team_scratch.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace fgdd {
namespace {

using Policy = Kokkos::TeamPolicy<ExecSpace>;
using Member = Policy::member_type;

// The rows team t iterates ([ext_begin, ext_end)) and writes ([own_begin, own_end)). Lower:
// blocks top-down, overlap above the owned rows; upper: blocks bottom-up, overlap below.
struct Block {
  Ordinal ext_begin, ext_end, own_begin, own_end;
};

KOKKOS_INLINE_FUNCTION Block block_of(Ordinal t, bool lower, Ordinal n, Ordinal owned,
                                      Ordinal overlap) {
  Block block;
  if (lower) {
    block.own_begin = t * owned;
    block.own_end = block.own_begin + owned < n ? block.own_begin + owned : n;
    block.ext_begin = block.own_begin > overlap ? block.own_begin - overlap : 0;
    block.ext_end = block.own_end;
  } else {
    block.own_end = n - t * owned;
    block.own_begin = block.own_end > owned ? block.own_end - owned : 0;
    block.ext_begin = block.own_begin;
    block.ext_end = block.own_end + overlap < n ? block.own_end + overlap : n;
  }
  return block;
}

// A team's scratch: the local right-hand side and the two iterates of the extended rows, one
// slice (extended rows · b doubles) each.
struct JacobiScratch {
  Scalar* rhs;
  Scalar* cur;
  Scalar* next;

  static std::size_t bytes(std::size_t slice) { return 3 * slice; }

  KOKKOS_INLINE_FUNCTION JacobiScratch(const Member& team, int level, std::size_t slice)
      : rhs(static_cast<Scalar*>(team.team_scratch(level).get_shmem(slice))),
        cur(static_cast<Scalar*>(team.team_scratch(level).get_shmem(slice))),
        next(static_cast<Scalar*>(team.team_scratch(level).get_shmem(slice))) {}

  KOKKOS_INLINE_FUNCTION void swap() {
    Scalar* old = cur;
    cur = next;
    next = old;
  }
};

}  // namespace

void JacobiTrsvOptions::validate() const {
  const auto fail = [](const std::string& what, const std::string& value) {
    throw InvalidInput("jacobi " + what + ", got " + value);
  };
  if (block_rows < 1) fail("block_rows must be at least 1", std::to_string(block_rows));
  if (sweeps < 1) fail("sweeps must be at least 1", std::to_string(sweeps));
  if (iterations < 1) fail("iterations must be at least 1", std::to_string(iterations));
  if (!(overlap >= 0 && overlap < 1)) fail("overlap must be in [0, 1)", std::to_string(overlap));
  if (!(tolerance >= 0)) fail("tolerance must not be negative", std::to_string(tolerance));
}

FactorArrays factor_arrays(const SubdomainIlu0& f) {
  return {f.factors(), f.inv_diag(), f.diag_position(), f.form()};
}

FactorArrays factor_arrays(const GlobalIlu0& f) {
  return {f.factors(), f.inv_diag(), f.diag_position(), f.form()};
}

JacobiTrsv::JacobiTrsv(const FactorArrays& factors, const JacobiTrsvOptions& options)
    : f_(factors), options_(options) {
  options_.validate();
  const Ordinal n = f_.factors.num_block_rows();
  overlap_rows_ =
      std::min<Ordinal>(Ordinal(options_.overlap * options_.block_rows), options_.block_rows - 1);
  owned_ = options_.block_rows - overlap_rows_;
  num_teams_ = (n + owned_ - 1) / owned_;
  previous_ = Vector("fgdd::trsv::jacobi_previous", f_.factors.num_rows());
  work_ = Vector("fgdd::trsv::jacobi_work", f_.factors.num_rows());
}

void JacobiTrsv::global_iteration(const ExecSpace& space, Triangle triangle, ConstVector r,
                                  ConstVector from, Vector to) const {
  const bool lower = triangle == Triangle::Lower;
  const bool with_pivots = !lower && f_.form == IluForm::Ilu0;
  const bool async = from.data() == to.data();
  const auto row_map = f_.factors.row_map();
  const auto cols = f_.factors.col_ind();
  const auto values = f_.factors.values();
  const auto diag = f_.diag_position;
  const auto inv_diag = f_.inv_diag;
  const int b = f_.factors.block_size();
  const Ordinal n = f_.factors.num_block_rows(), owned = owned_, overlap = overlap_rows_;
  const int sweeps = options_.sweeps;
  const Ordinal widest = std::min<Ordinal>(owned + overlap, n);
  const std::size_t slice = std::size_t(widest) * b * sizeof(Scalar);
  const detail::TeamScratch scratch = detail::team_scratch_for(JacobiScratch::bytes(slice));
  const int level = scratch.level;
  Policy policy(space, num_teams_, Kokkos::AUTO);
  policy.set_scratch_size(level, Kokkos::PerTeam(scratch.bytes));
  Kokkos::parallel_for(
      lower ? "fgdd::trsv::jacobi_lower" : "fgdd::trsv::jacobi_upper", policy,
      KOKKOS_LAMBDA(const Member& team) {
        const Block block = block_of(team.league_rank(), lower, n, owned, overlap);
        const Offset first = Offset(block.ext_begin) * b;
        JacobiScratch scratch(team, level, slice);
        // A value of x outside this team's rows: the newest one (asynchronous; another team
        // may be writing it, hence the relaxed atomic) or the previous iterate (synchronous).
        const auto outside = [&](Offset k) {
          return async ? detail::atomic_load(&to(k)) : from(k);
        };
        const auto inside = [&](Ordinal j) { return j >= block.ext_begin && j < block.ext_end; };
        const auto triangle_begin = [&](Ordinal i) { return lower ? row_map(i) : diag(i) + 1; };
        const auto triangle_end = [&](Ordinal i) { return lower ? diag(i) : row_map(i + 1); };
        // Once per global iteration: x on the extended rows, and the local right-hand side
        // s = r − (the triangle's columns outside the extended rows) x. The local problem is
        // then T_local x_local = s, iterated in scratch only.
        const auto load_row = [&](const Ordinal i) {
          const Offset at = Offset(i) * b - first;
          Scalar acc[detail::max_block_size];
          for (int c = 0; c < b; ++c) {
            scratch.cur[at + c] = outside(Offset(i) * b + c);
            acc[c] = r(Offset(i) * b + c);
          }
          for (Offset k = triangle_begin(i); k < triangle_end(i); ++k) {
            const Ordinal j = cols(k);
            if (inside(j)) continue;
            const Scalar* a = &values(k * b * b);
            for (int c = 0; c < b; ++c) {
              Scalar sum = 0;
              for (int q = 0; q < b; ++q) sum += a[c * b + q] * outside(Offset(j) * b + q);
              acc[c] -= sum;
            }
          }
          for (int c = 0; c < b; ++c) scratch.rhs[at + c] = acc[c];
        };
        // One local Jacobi sweep of row i: next_i = D_i⁻¹ (s_i − Σ_inside T_ij cur_j), D = I for
        // the unit triangles.
        const auto sweep_row = [&](const Ordinal i) {
          const Offset at = Offset(i) * b - first;
          Scalar acc[detail::max_block_size];
          for (int c = 0; c < b; ++c) acc[c] = scratch.rhs[at + c];
          for (Offset k = triangle_begin(i); k < triangle_end(i); ++k) {
            const Ordinal j = cols(k);
            if (!inside(j)) continue;
            const Scalar* a = &values(k * b * b);
            const Scalar* xj = scratch.cur + (Offset(j) * b - first);
            for (int c = 0; c < b; ++c) {
              Scalar sum = 0;
              for (int q = 0; q < b; ++q) sum += a[c * b + q] * xj[q];
              acc[c] -= sum;
            }
          }
          Scalar* out = scratch.next + at;
          if (with_pivots) {
            const Scalar* d = &inv_diag(Offset(i) * b * b);
            for (int c = 0; c < b; ++c) {
              Scalar sum = 0;
              for (int q = 0; q < b; ++q) sum += d[c * b + q] * acc[q];
              out[c] = sum;
            }
          } else {
            for (int c = 0; c < b; ++c) out[c] = acc[c];
          }
        };
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, block.ext_begin, block.ext_end),
                             load_row);
        team.team_barrier();
        for (int sweep = 0; sweep < sweeps; ++sweep) {
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, block.ext_begin, block.ext_end),
                               sweep_row);
          // Also orders this sweep's reads of cur before the next sweep writes into it.
          team.team_barrier();
          scratch.swap();
        }
        // Restricted write-back: the owned rows only; overlap rows belong to another team.
        const Offset own_first = Offset(block.own_begin) * b;
        Kokkos::parallel_for(
            Kokkos::TeamThreadRange(team, Offset(block.own_end - block.own_begin) * b),
            [&](const Offset k) {
              const Scalar value = scratch.cur[own_first - first + k];
              if (async)
                detail::atomic_store(&to(own_first + k), value);
              else
                to(own_first + k) = value;
            });
      });
}

int JacobiTrsv::solve(const ExecSpace& space, Triangle triangle, ConstVector r, Vector x) const {
  check_vector_size(f_.factors, r.extent(0), "r");
  check_vector_size(f_.factors, x.extent(0), "x");
  const bool sync = options_.schedule == JacobiSchedule::Synchronous;
  Kokkos::deep_copy(space, x, 0.0);
  // From x = 0 the residual is r itself.
  const double target =
      options_.tolerance > 0 ? options_.tolerance * residual_norm(space, triangle, r, x) : 0;
  int iteration = 0;
  while (iteration < options_.iterations) {
    ++iteration;
    if (sync) {
      Kokkos::deep_copy(space, previous_, x);
      global_iteration(space, triangle, r, previous_, x);
    } else {
      global_iteration(space, triangle, r, x, x);
    }
    if (target > 0 && residual_norm(space, triangle, r, x) <= target) break;
  }
  return iteration;
}

double JacobiTrsv::residual_norm(const ExecSpace& space, Triangle triangle, ConstVector r,
                                 ConstVector x) const {
  const bool lower = triangle == Triangle::Lower;
  const bool with_pivots = !lower && f_.form == IluForm::Ilu0;
  const auto row_map = f_.factors.row_map();
  const auto cols = f_.factors.col_ind();
  const auto values = f_.factors.values();
  const auto diag = f_.diag_position;
  const int b = f_.factors.block_size();
  double sum = 0;
  Kokkos::parallel_reduce(
      "fgdd::trsv::jacobi_residual",
      Kokkos::RangePolicy<ExecSpace>(space, 0, f_.factors.num_block_rows()),
      KOKKOS_LAMBDA(const Ordinal i, double& total) {
        const Offset begin = lower ? row_map(i) : diag(i) + (with_pivots ? 0 : 1);
        const Offset end = lower ? diag(i) : row_map(i + 1);
        for (int c = 0; c < b; ++c) {
          // T x = (strict triangle) x + x_i (unit) or D_i x_i (the pivots, Ilu0's U).
          Scalar value = r(Offset(i) * b + c) - (with_pivots ? 0 : x(Offset(i) * b + c));
          for (Offset k = begin; k < end; ++k)
            for (int q = 0; q < b; ++q)
              value -= values(k * b * b + c * b + q) * x(Offset(cols(k)) * b + q);
          total += value * value;
        }
      },
      sum);
  return std::sqrt(sum);
}

void JacobiTrsv::apply(const ExecSpace& space, ConstVector r, Vector z) const {
  solve(space, Triangle::Lower, r, work_);
  if (f_.form != IluForm::Ilu0) {  // w = D⁻¹ w between the unit triangles
    const auto inv_diag = f_.inv_diag;
    const auto w = work_;
    const int b = f_.factors.block_size();
    Kokkos::parallel_for(
        "fgdd::trsv::jacobi_scale",
        Kokkos::RangePolicy<ExecSpace>(space, 0, f_.factors.num_block_rows()),
        KOKKOS_LAMBDA(const Ordinal i) {
          Scalar in[detail::max_block_size];
          for (int c = 0; c < b; ++c) in[c] = w(Offset(i) * b + c);
          for (int c = 0; c < b; ++c) {
            Scalar sum = 0;
            for (int q = 0; q < b; ++q) sum += inv_diag(Offset(i) * b * b + c * b + q) * in[q];
            w(Offset(i) * b + c) = sum;
          }
        });
  }
  solve(space, Triangle::Upper, work_, z);
}

}  // namespace fgdd
