// GlobalRowKernel::Merged against a serial sweep in its documented order: runs of small levels in
// one team, a row of a small level shared by merged_row_lanes lanes (capped by the triangle's
// average row) whose shares are added in lane order, one-lane rows and large levels as
// ThreadPerRow adds them. The same bits on host
// backends (no fused multiply-add), the same bits run to run everywhere, ThreadPerRow's bits for
// block rows; the backward-error bound of every kernel is in test_global_ilu0.cpp.
#include "catch_compat.hpp"
#include "core/generators.hpp"
#include "core/team_size.hpp"
#include "factor/global_ilu0.hpp"
#include "reference/random_matrix.hpp"
#include "reference/dense.hpp"
#include "reference/reference_ilu0.hpp"
#include "trsv/global_pipelined_kernel.hpp"
#include "trsv/global_trsv.hpp"

#include <algorithm>
#include <string>

using namespace fgdd;

namespace {

SparseMatrix make_case(const std::string& name) {
  // Rows of 40 entries in levels of a few rows: lanes capped by the average row.
  if (name == "csr-200-long-rows")
    return make_matrix(reference::random_matrix(200, 1, 40, 17u));
  // Nearly dense rows (900 random columns of 300: about 140 entries a triangle row), a level a
  // row: 32 lanes.
  if (name == "csr-300-dense-rows")
    return make_matrix(reference::random_matrix(300, 1, 900, 19u));
  if (name == "csr-131") return make_matrix(reference::random_matrix(131, 1, 3, 7u));
  if (name == "one-row") return make_matrix(reference::random_matrix(1, 1, 2, 15u));
  if (name == "bsr3-33") return make_matrix(reference::random_matrix(33, 3, 5, 13u));
  // A chain of 3,000 one-row levels: more than one pipelined run (pipelined_run_levels).
  if (name == "chain-3000") return make_matrix(reference::arrow_matrix(3000, 0));
  return generate_problem(name).matrix;
}

struct Sweep {
  Triangle triangle = Triangle::Lower;
  bool scale_rhs = false;     // x_i = D_i⁻¹ r_i − Σ (the Ildu0 upper sweep of an apply)
  bool scale_result = false;  // x_i = D_i⁻¹ (r_i − Σ)
};

// Σ_k F_ik x_k over the row's strictly triangular entries [begin, end), four partial sums as in
// detail::sparse_dot (a one-lane row).
double one_lane_sum(const reference::HostBlockCsr& F, const std::vector<double>& x, Offset begin,
                    Offset end) {
  double s[4] = {0, 0, 0, 0};
  Offset k = begin;
  for (; k + 4 <= end; k += 4)
    for (int q = 0; q < 4; ++q) s[q] += F.values[k + q] * x[F.col_ind[k + q]];
  for (; k < end; ++k) s[0] += F.values[k] * x[F.col_ind[k]];
  return (s[0] + s[1]) + (s[2] + s[3]);
}

// The same sum shared by `lanes` lanes: lane q adds entries q, q + lanes, ...; then the shares in
// lane order.
double shared_sum(const reference::HostBlockCsr& F, const std::vector<double>& x, Offset begin,
                  Offset end, int lanes) {
  double sum = 0;
  for (int q = 0; q < lanes; ++q) {
    double share = 0;
    for (Offset k = begin + q; k < end; k += lanes) share += F.values[k] * x[F.col_ind[k]];
    sum += share;
  }
  return sum;
}

// Scalar factors: the sweep as Merged orders it, level by level.
std::vector<double> merged_order_sweep(const reference::HostBlockCsr& F,
                                       const std::vector<double>& inv_diag,
                                       const GlobalLevels& levels, const Sweep& sweep,
                                       const std::vector<double>& r, int& most_lanes) {
  const bool lower = sweep.triangle == Triangle::Lower;
  const auto rows = reference::host_vector(levels.rows);
  const auto& ptr = levels.host_level_ptr;
  const int cap = detail::merged_lanes_cap(levels.num_dependencies, Ordinal(r.size()));
  std::vector<double> x(r.size(), 0.0);
  const auto range = [&](Ordinal i, Offset& begin, Offset& end) {
    const Offset diag = std::find(F.col_ind.begin() + F.row_map[i],
                                  F.col_ind.begin() + F.row_map[i + 1], i) -
                        F.col_ind.begin();
    begin = lower ? F.row_map[i] : diag + 1;
    end = lower ? diag : F.row_map[i + 1];
  };
  for (Ordinal l = 0; l < levels.num_levels; ++l) {
    const Ordinal count = ptr[l + 1] - ptr[l];
    const int lanes = count <= detail::merged_team_rows ? detail::merged_row_lanes(count, cap) : 1;
    most_lanes = std::max(most_lanes, lanes);
    for (Ordinal p = ptr[l]; p < ptr[l + 1]; ++p) {
      const Ordinal i = rows[p];
      Offset begin, end;
      range(i, begin, end);
      double acc = sweep.scale_rhs ? inv_diag[i] * r[i] : r[i];
      acc -= lanes == 1 ? one_lane_sum(F, x, begin, end) : shared_sum(F, x, begin, end, lanes);
      x[i] = sweep.scale_result ? inv_diag[i] * acc : acc;
    }
  }
  return x;
}

// Whether this build's arithmetic matches the host sweep's bit for bit: a host backend without
// contracted multiply-adds.
constexpr bool same_arithmetic_as_host() {
#if defined(__FP_FAST_FMA)
  return false;
#else
  return host_memory;
#endif
}

// The global ILU(0) of A in the given form.
GlobalIlu0 factored(const SparseMatrix& A, IluForm form) {
  FactorOptions options;
  options.form = form;
  return GlobalIlu0(ExecSpace(), A, options);
}

}  // namespace

TEST_CASE("global trsv: merged runs share rows among lanes in a fixed order", "[global]") {
  // lap7 in its grid order has levels of 1 to about 0.75·n² rows: n = 40 mixes runs of small
  // levels with levels of more than 512 rows (a launch each).
  const std::string name =
      GENERATE("gen:lap7:12", "gen:lap7:40", "csr-131", "csr-200-long-rows", "csr-300-dense-rows",
               "one-row");
  const IluForm form = GENERATE(IluForm::Ildu0, IluForm::Ilu0);
  CAPTURE(name, int(form));
  const SparseMatrix A = make_case(name);
  const Offset n = A.num_rows();
  const GlobalIlu0 ilu = factored(A, form);
  const GlobalTrsv merged(ExecSpace(), ilu, GlobalRowKernel::Merged);
  const auto F = reference::to_host_csr(ilu.factors());
  const auto inv_diag = reference::host_vector(ilu.inv_diag());
  const auto r = reference::random_vector(n, 8u);
  const Vector r_device = reference::to_device(r);
  if (name == "gen:lap7:40") CHECK(merged.levels(Triangle::Lower).max_level_rows > 512);

  int most_lanes = 1;
  const bool ildu = form == IluForm::Ildu0;
  const std::vector<double> y =
      merged_order_sweep(F, inv_diag, merged.levels(Triangle::Lower), {}, r, most_lanes);
  const std::vector<double> expected = merged_order_sweep(
      F, inv_diag, merged.levels(Triangle::Upper), {Triangle::Upper, ildu, !ildu}, y, most_lanes);
  Vector z("z", n);
  merged.apply(ExecSpace(), r_device, z);
  const auto z_first = reference::to_host(z);
  merged.apply(ExecSpace(), r_device, z);
  CHECK(reference::to_host(z) == z_first);
  if (same_arithmetic_as_host()) CHECK(z_first == expected);

  for (const Triangle t : {Triangle::Lower, Triangle::Upper})
    for (const Diagonal d : {Diagonal::Unit, Diagonal::Pivots}) {
      CAPTURE(int(t), int(d));
      const Sweep sweep{t, false, d == Diagonal::Pivots};
      const auto x = merged_order_sweep(F, inv_diag, merged.levels(t), sweep, r, most_lanes);
      merged.solve(ExecSpace(), t, d, r_device, z);
      if (same_arithmetic_as_host()) CHECK(reference::to_host(z) == x);
    }
  // The shared rows were exercised: 32 lanes where rows are nearly dense and levels narrow, a
  // few where rows are long.
  if (name == "csr-300-dense-rows") CHECK(most_lanes == 32);
  if (name == "csr-200-long-rows") CHECK(most_lanes > 1);
  // A 7-point stencil's triangle rows (about 3 entries) reach the cap, 2 lanes at one product a
  // lane; rows of under two entries on average keep one lane and ThreadPerRow's bits.
  const auto cap = [&](Triangle t) {
    return detail::merged_lanes_cap(merged.levels(t).num_dependencies, Ordinal(n));
  };
  if (name.rfind("gen:lap7", 0) == 0)
    CHECK(most_lanes == std::max(cap(Triangle::Lower), cap(Triangle::Upper)));
  if (name == "csr-131") {
    REQUIRE(std::max(cap(Triangle::Lower), cap(Triangle::Upper)) == 1);
    CHECK(most_lanes == 1);
    const GlobalTrsv per_level(ExecSpace(), ilu, GlobalRowKernel::ThreadPerRow);
    Vector z_per_level("z_per_level", n);
    per_level.apply(ExecSpace(), r_device, z_per_level);
    CHECK(reference::to_host(z_per_level) == z_first);
  }
}

TEST_CASE("global trsv: merged block rows give ThreadPerRow's bits", "[global]") {
  const std::string name = GENERATE("gen:bsr3:5", "bsr3-33");
  CAPTURE(name);
  const SparseMatrix A = make_case(name);
  const Offset n = A.num_rows();
  const GlobalIlu0 ilu(ExecSpace(), A, FactorOptions{});
  const GlobalTrsv merged(ExecSpace(), ilu, GlobalRowKernel::Merged);
  const GlobalTrsv per_level(ExecSpace(), ilu, GlobalRowKernel::ThreadPerRow);
  const Vector r = reference::to_device(reference::random_vector(n, 8u));
  Vector z_merged("z_merged", n), z_per_level("z_per_level", n);
  merged.apply(ExecSpace(), r, z_merged);
  per_level.apply(ExecSpace(), r, z_per_level);
  CHECK(reference::to_host(z_merged) == reference::to_host(z_per_level));
}

// The pipelined kernel (GPUs: a team of merged_team_rows threads) loads each level's rows,
// ranges and entries levels ahead but adds as GlobalSolveMergedKernel does: the same bits for
// every sweep, lanes and both scalings. Host backends cannot give it its team and keep the other.
TEST_CASE("global trsv: pipelined merged runs give the merged kernel's bits", "[global]") {
  const std::string name = GENERATE("gen:lap7:12", "gen:lap7:40", "csr-131", "csr-200-long-rows",
                                    "csr-300-dense-rows", "one-row", "chain-3000");
  const IluForm form = GENERATE(IluForm::Ildu0, IluForm::Ilu0);
  CAPTURE(name, int(form));
  const SparseMatrix A = make_case(name);
  const Offset n = A.num_rows();
  const GlobalIlu0 ilu = factored(A, form);
  const GlobalTrsv merged(ExecSpace(), ilu, GlobalRowKernel::Merged);
  if (name == "chain-3000")
    REQUIRE(merged.levels(Triangle::Lower).num_levels > detail::pipelined_run_levels);
  const detail::GlobalSolvePipelinedKernel probe{};
  const bool runs_here = detail::team_size_within(ExecSpace(), probe, 1,
                                                  int(detail::merged_team_rows),
                                                  probe.scratch_bytes()) ==
                         int(detail::merged_team_rows);
  CHECK(runs_here == !host_memory);
  const Vector r = reference::to_device(reference::random_vector(n, 8u));
  const auto run = [&](bool pipelining, auto&& sweep) {
    detail::merged_pipelining = pipelining;
    Vector z("z", n);
    sweep(z);
    detail::merged_pipelining = true;
    return reference::to_host(z);
  };
  const auto apply = [&](Vector z) { merged.apply(ExecSpace(), r, z); };
  CHECK(run(true, apply) == run(false, apply));
  for (const Triangle t : {Triangle::Lower, Triangle::Upper})
    for (const Diagonal d : {Diagonal::Unit, Diagonal::Pivots}) {
      CAPTURE(int(t), int(d));
      const auto solve = [&](Vector z) { merged.solve(ExecSpace(), t, d, r, z); };
      CHECK(run(true, solve) == run(false, solve));
      // In place, as the multilevel ILU solves: r read levels ahead of x's writes.
      const auto in_place = [&](Vector z) {
        Kokkos::deep_copy(z, r);
        merged.solve(ExecSpace(), t, d, z, z);
      };
      CHECK(run(true, in_place) == run(false, in_place));
    }
}
