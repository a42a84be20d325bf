// kronecker-gmres-multi-gpu.txt's T_Kx on one device: the Kronecker-form product
// (A ⊗ M + τ B ⊗ L) vec(X) of one Runge-Kutta step, fused (KroneckerOperator, combine after the
// product, one kernel), in the paper's order (Eq. 4 combination pass, then the fused
// multi-vector product), and a baseline that keeps the s columns split (stacked layout): the
// same one-pass combination, then 2s separate fgdd::spmv calls and s vector additions (the
// paper's CU-Solver with Eq. 4). GFLOP/s, GB/s of the fused kernel against a measured copy
// bandwidth, and GMRES(30) to 1e-6 (the paper's setting) with and without the stage
// preconditioner, and on the baseline operator. One JSON line per (problem, s).
#include "bench_common.hpp"

#include "core/errors.hpp"
#include "core/spmv.hpp"
#include "kron/kronecker_kernel.hpp"
#include "kron/kronecker_operator.hpp"
#include "kron/kronecker_problem.hpp"
#include "kron/merged_layout.hpp"
#include "kron/stage_preconditioner.hpp"
#include "kron/union_pattern.hpp"
#include "krylov/gmres.hpp"
#include "krylov/vector_ops.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace {

using namespace fgdd;

struct Options : bench::KroneckerBenchOptions {
  Options() {
    problems = {"gen:lap7:128", "gen:bsr3:64", "gen:lap27:64"};
    stages = {1, 2, 3, 4, 8};
  }
};

// X̃_A = X Aᵀ and X̃_B = X (τB)ᵀ on stacked columns, one pass over X (coefficients: A then τB).
void split_combination(const ExecSpace& space, Offset n, Offset s,
                       Kokkos::View<const Scalar*, DeviceType> c, ConstVector x, Vector x_a,
                       Vector x_b) {
  Kokkos::parallel_for(
      "fgdd::bench::split_combination", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const Offset i) {
        for (Offset k = 0; k < s; ++k) {
          Scalar a = 0, b = 0;
          for (Offset l = 0; l < s; ++l) {
            a += c(k * s + l) * x(l * n + i);
            b += c(s * s + k * s + l) * x(l * n + i);
          }
          x_a(k * n + i) = a;
          x_b(k * n + i) = b;
        }
      });
}

// The baseline on split (stacked) columns: X̃_A = X Aᵀ and X̃_B = X (τB)ᵀ in one pass over X,
// then y_k = M x̃_A,k + L x̃_B,k by two fgdd::spmv calls and an axpy per stage.
class SplitColumnsKronecker final : public Operator {
 public:
  explicit SplitColumnsKronecker(const KroneckerProblem& p)
      : M_(p.M),
        L_(p.L),
        stages_(p.coefficients.stages),
        coefficients_(detail::stage_coefficients_on_device(p.coefficients, p.tau)),
        x_a_("fgdd::bench::x_a", num_rows()),
        x_b_("fgdd::bench::x_b", num_rows()),
        t_("fgdd::bench::t", M_.num_rows()) {}
  Offset num_rows() const override { return Offset(stages_) * M_.num_rows(); }
  void apply(const ExecSpace& space, ConstVector x, Vector y) const override {
    split_combination(space, M_.num_rows(), stages_, coefficients_, x, x_a_, x_b_);
    const Offset n = M_.num_rows();
    for (int k = 0; k < stages_; ++k) {
      const auto range = std::make_pair(k * n, (k + 1) * n);
      const Vector y_k = Kokkos::subview(y, range);
      spmv(space, M_, Kokkos::subview(x_a_, range), y_k);
      spmv(space, L_, Kokkos::subview(x_b_, range), t_);
      detail::axpy(space, 1.0, t_, y_k);
    }
  }
  std::string name() const override { return "split columns"; }

 private:
  SparseMatrix M_, L_;
  int stages_;
  Kokkos::View<Scalar*, DeviceType> coefficients_;
  Vector x_a_, x_b_, t_;
};

int benchmark_main(int argc, char* argv[]) {
  Options options;
  bench::CommandLine command_line(
      "fgdd_kronecker_bench",
      "The Kronecker-form product of an IRK step, fused, in the paper's order and on split "
      "columns, and GMRES on it (kronecker-gmres T_Kx).");
  bench::declare_kronecker_flags(command_line, options);
  command_line.parse(argc, argv);
  const ExecSpace space;
  const std::string device = bench::device_name();
  const double copy_gbs =
      bench::copy_bandwidth(space, options.copy_mb, options.warmup, options.repeats);
  bool all_verified = true;
  for (const std::string& spec : options.problems) {
    std::fprintf(stderr, "%s ...\n", spec.c_str());
    const GeneratedProblem spatial = bench::load_problem(spec);
    for (const MassKind mass : options.masses)
      for (const int s : options.stages) {
        const KroneckerProblem p =
            make_irk_problem(space, spatial, options.scheme, s, mass, options.tau);
        const Offset n = p.M.num_rows(), length = n * Offset(s);
        const KroneckerOperator fused(p.M, p.L, p.coefficients, p.tau);
        const KroneckerOperator paper(p.M, p.L, p.coefficients, p.tau,
                                      KroneckerOrder::CombineBefore);
        const SplitColumnsKronecker baseline(p);

        const Vector x_stacked = bench::pattern_vector(length);
        Vector x("fgdd::bench::x", length);
        stacked_to_merged(space, s, x_stacked, x);
        Vector y_fused("fgdd::bench::y_fused", length), y_paper("fgdd::bench::y_paper", length),
            y_split("fgdd::bench::y_split", length), y_base("fgdd::bench::y_base", length);

        const auto t_fused = bench::time_it(space, options.warmup, options.repeats,
                                            [&] { fused.apply(space, x, y_fused); });
        const auto t_paper = bench::time_it(space, options.warmup, options.repeats,
                                            [&] { paper.apply(space, x, y_paper); });
        const auto t_base = bench::time_it(space, options.warmup, options.repeats,
                                           [&] { baseline.apply(space, x_stacked, y_split); });
        stacked_to_merged(space, s, y_split, y_base);
        const double diff_base = bench::max_relative_difference(y_fused, y_base);
        const double diff_paper = bench::max_relative_difference(y_paper, y_base);
        const bool verified = diff_base < 1e-12 && diff_paper < 1e-12;
        all_verified = all_verified && verified;

        const bool shared = shares_pattern(p.M, p.L);
        const bench::KroneckerCost cost = bench::kronecker_cost(p.M, p.L, s);
        const double flops = cost.flops, bytes = cost.bytes;

        bench::JsonObject gmres;
        if (options.gmres) {
          Vector f("fgdd::bench::f", length), f_stacked("fgdd::bench::f_stacked", length);
          Kokkos::deep_copy(f, 1.0);
          Kokkos::deep_copy(f_stacked, 1.0);
          const IdentityPreconditioner none;
          std::vector<bench::GmresRun> runs;
          runs.push_back(bench::run_gmres(space, options.krylov, "fused_none", fused, none, f));
          runs.push_back(
              bench::run_gmres(space, options.krylov, "baseline_none", baseline, none, f_stacked));
          Kokkos::Timer timer;
          StagePreconditionerOptions pre;
          const KroneckerStagePreconditioner P(space, p.M, p.L, p.coefficients, p.tau, p.grid, pre);
          space.fence();
          const double setup = timer.seconds();
          runs.push_back(bench::run_gmres(space, options.krylov, "fused_stage_dd", fused, P, f));
          runs.back().setup_seconds = setup;
          for (const bench::GmresRun& run : runs) gmres.add(run.name, bench::to_json(run));
        }

        using bench::fixed;
        using bench::scientific;
        bench::JsonObject line;
        line.add("bench", "kronecker")
            .add("device", device)
            .add("commit", bench::commit())
            .add("problem", spec)
            .add("scheme", to_string(options.scheme))
            .add("mass", to_string(mass))
            .add("tau", p.tau, bench::significant(6))
            .add("n", std::size_t(n))
            .add("block_size", p.M.block_size())
            .add("s", s)
            .add("nnz_M", std::size_t(p.M.num_entries()))
            .add("nnz_L", std::size_t(p.L.num_entries()))
            .add("shared_pattern", shared)
            .add("t_kx_fused_s", t_fused.min, scientific(6))
            .add("t_kx_fused_median_s", t_fused.median, scientific(6))
            .add("t_kx_paper_s", t_paper.min, scientific(6))
            .add("t_kx_baseline_s", t_base.min, scientific(6))
            .add("speedup_vs_baseline", t_base.min / t_fused.min, fixed(3))
            .add("speedup_paper_vs_baseline", t_base.min / t_paper.min, fixed(3))
            .add("gflops_fused", flops / t_fused.min / 1e9, fixed(2))
            .add("gflops_paper", flops / t_paper.min / 1e9, fixed(2))
            .add("gflops_baseline", flops / t_base.min / 1e9, fixed(2))
            .add("bytes_fused", bytes, fixed(0))
            .add("gbs_fused", bytes / t_fused.min / 1e9, fixed(1))
            .add("copy_gbs", copy_gbs, fixed(1))
            .add("fraction_of_copy", bytes / t_fused.min / 1e9 / copy_gbs, fixed(3))
            .add("max_rel_diff", std::max(diff_base, diff_paper), scientific(2))
            .add("verified", verified);
        if (options.gmres) line.add("gmres", gmres);
        bench::print_line(line);
      }
  }
  return all_verified ? 0 : 1;
}

}  // namespace

int main(int argc, char* argv[]) { return fgdd::bench::run_benchmark(argc, argv, benchmark_main); }
