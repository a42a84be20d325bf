// kronecker-gmres-multi-gpu.txt's T_Kx, T_c and T_all on 1, 2, ... GPUs (Figs. 13-15), one MPI
// rank per GPU: DistributedKroneckerOperator (one merged halo message per neighbour for all s
// columns) against the paper's CU-Solver baseline, which keeps the s columns apart: s distributed
// SpMVs of M and s of L, each with its own halo exchange. Times are the slowest rank's, best of
// the repeats; GFLOP/s against the roofline of the measured copy bandwidth. The root prints one
// JSON line per (problem, mass, s).
#include "bench_common.hpp"

#include "core/errors.hpp"
#include "mpi/distributed_kronecker_operator.hpp"
#include "mpi/distributed_operator.hpp"
#include "mpi/halo_exchange.hpp"
#include "kron/kronecker_kernel.hpp"
#include "kron/kronecker_problem.hpp"
#include "kron/merged_layout.hpp"
#include "kron/stage_preconditioner.hpp"
#include "kron/union_pattern.hpp"

#include <mpi.h>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace fgdd;

struct Options : bench::KroneckerBenchOptions {
  Options() {
    problems = {"gen:lap7:200", "gen:bsr3:100"};
    stages = {1, 2, 4, 8};
  }
  Offset subdomain_rows = 0;  // 0: the backend's default (default_subdomain_rows)
};

Options parse_options(int argc, char* argv[]) {
  Options options;
  bench::CommandLine command_line(
      "mpirun -np P fgdd_dist_kronecker_bench",
      "The distributed Kronecker-form product with merged halo messages against s separate "
      "SpMVs of M and L (kronecker-gmres T_Kx, T_c, T_all).");
  bench::declare_kronecker_flags(command_line, options);
  command_line
      .option("--subdomain-rows", &options.subdomain_rows, "N",
              "scalar rows per subdomain at most; 0: the backend's default")
      .parse(argc, argv);
  for (const int s : options.stages)
    if (s < 1 || s > 8)
      throw bench::UsageError("--stages: " + std::to_string(s) + " is not in 1..8");
  return options;
}

// y(i·s + k) = Σ_l a_kl (M X)(l·n + i) + τ b_kl (L X)(l·n + i): the columns of M X and L X
// (stacked, n rows each) combined into merged y in one pass (coefficients: A then τB).
void combine_columns(const ExecSpace& space, Offset n, Offset s,
                     Kokkos::View<const Scalar*, DeviceType> c, ConstVector mx, ConstVector lx,
                     Vector y) {
  Kokkos::parallel_for(
      "fgdd::bench::combine_columns", Kokkos::RangePolicy<ExecSpace>(space, 0, n * s),
      KOKKOS_LAMBDA(const Offset e) {
        const Offset i = e / s, k = e % s;
        Scalar sum = 0;
        for (Offset l = 0; l < s; ++l)
          sum += c(k * s + l) * mx(l * n + i) + c(s * s + k * s + l) * lx(l * n + i);
        y(e) = sum;
      });
}

// The baseline on the same merged vectors (so GMRES and the stage preconditioner take either):
// one pass splits X into its s contiguous columns, then each column goes through M and through
// L as a DistributedOperator, each product with its own halo exchange (2s exchanges per apply;
// M's and L's ghosts travel separately), and one pass combines the 2s products.
class SeparateColumnsKronecker final : public Operator {
 public:
  SeparateColumnsKronecker(const DistributedKroneckerMatrices& matrices,
                           const StageCoefficients& coefficients, double tau)
      : matrices_(matrices),
        stages_(coefficients.stages),
        M_(matrices.M()),
        L_(matrices.L()),
        coefficients_(detail::stage_coefficients_on_device(coefficients, tau)),
        x_columns_("fgdd::bench::x_columns", num_rows()),
        mx_("fgdd::bench::mx", num_rows()),
        lx_("fgdd::bench::lx", num_rows()) {}

  Offset num_rows() const override { return Offset(stages_) * matrices_.num_rows(); }
  void apply(const ExecSpace& space, ConstVector x, Vector y) const override {
    const Offset n = matrices_.num_rows();
    merged_to_stacked(space, stages_, x, x_columns_);
    for (int k = 0; k < stages_; ++k) {
      const auto column = std::make_pair(k * n, (k + 1) * n);
      M_.apply(space, Kokkos::subview(x_columns_, column), Kokkos::subview(mx_, column));
      L_.apply(space, Kokkos::subview(x_columns_, column), Kokkos::subview(lx_, column));
    }
    combine_columns(space, n, stages_, coefficients_, mx_, lx_, y);
  }
  std::string name() const override { return "separate columns"; }
  void sum_over_ranks(double* values, int count) const override {
    matrices_.comm().sum(values, count);
  }

 private:
  const DistributedKroneckerMatrices& matrices_;
  int stages_;
  DistributedOperator M_, L_;
  Kokkos::View<Scalar*, DeviceType> coefficients_;
  Vector x_columns_, mx_, lx_;
};

// The MPI sends one forward exchange of plan posts on this rank.
int sends(const HaloPlan& plan) {
  int count = 0;
  for (std::size_t k = 0; k < plan.neighbors.size(); ++k)
    if (plan.send_offsets[k + 1] > plan.send_offsets[k]) ++count;
  return count;
}

// One forward halo exchange on its own: pack, messages, ghosts in place.
void exchange(const ExecSpace& space, HaloExchange& halo, ConstVector x, Vector ghosts) {
  halo.start_forward(space, x);
  halo.finish_forward(ghosts);
}

// Collective. A GMRES solve timed on the slowest rank, all ranks starting together.
bench::GmresRun slowest_rank_gmres(const Communicator& comm, const ExecSpace& space,
                                   const KrylovOptions& krylov, const std::string& name,
                                   const Operator& A, const Preconditioner& P, ConstVector f) {
  space.fence();
  MPI_Barrier(comm.get());
  bench::GmresRun run = bench::run_gmres(space, krylov, name, A, P, f);
  run.seconds = comm.max(run.seconds);
  return run;
}

// The root's model of one product (bench::kronecker_cost on the whole M and L) and sizes.
struct ProblemFacts {
  std::vector<bench::KroneckerCost> costs;  // one per options.stages entry
  std::size_t nnz_M = 0, nnz_L = 0;
  bool shared_pattern = false;
};

// Collective: times, checks and prints one (problem, mass, s) line on the root.
bool measure(const Communicator& comm, const ExecSpace& space, const Options& options,
             const std::string& spec, MassKind mass, const DistributedKroneckerMatrices& matrices,
             const ProblemFacts& facts, std::size_t stage_index, double copy_gbs_sum) {
  const int s = options.stages[stage_index], b = matrices.block_size();
  const StageCoefficients coefficients = irk_stage_coefficients(options.scheme, s);
  const DistributedKroneckerOperator fused(matrices, coefficients, options.tau);
  const SeparateColumnsKronecker baseline(matrices, coefficients, options.tau);
  const Offset n_local = matrices.num_rows(), length = n_local * s;
  const Offset n = Offset(matrices.global_num_block_rows()) * b;

  // The same whole x on any number of ranks, scattered from the root.
  const Vector x = matrices.scatter_stacked(
      space, s, comm.is_root() ? bench::pattern_vector(n * s) : Vector("fgdd::bench::none", 0));
  Vector y_fused("fgdd::bench::y_fused", length), y_base("fgdd::bench::y_base", length);
  const auto slowest = [&](const std::function<void()>& run) {
    return bench::slowest_rank_seconds(comm, space, options.warmup, options.repeats, run);
  };
  const double t_kx_fused = slowest([&] { fused.apply(space, x, y_fused); });
  const double t_kx_base = slowest([&] { baseline.apply(space, x, y_base); });
  const double max_rel_diff = comm.max(bench::max_relative_difference(y_fused, y_base));
  const bool verified = max_rel_diff <= 1e-12;

  // T_c: the exchanges alone, on the plans the operators use.
  const DistributedMatrix &M = matrices.M(), &L = matrices.L();
  HaloExchange merged_halo(matrices.comm(), matrices.halo(), b * s);
  HaloExchange M_halo(matrices.comm(), M.halo(), b), L_halo(matrices.comm(), L.halo(), b);
  Vector merged_ghosts("fgdd::bench::merged_ghosts", matrices.halo().num_ghosts() * b * s),
      M_ghosts("fgdd::bench::M_ghosts", M.halo().num_ghosts() * b),
      L_ghosts("fgdd::bench::L_ghosts", L.halo().num_ghosts() * b),
      x_columns("fgdd::bench::x_columns", length);
  merged_to_stacked(space, s, x, x_columns);
  const double t_c_fused = slowest([&] { exchange(space, merged_halo, x, merged_ghosts); });
  const double t_c_base = slowest([&] {
    for (int k = 0; k < s; ++k) {
      const auto column =
          Kokkos::subview(x_columns, std::make_pair(k * n_local, (k + 1) * n_local));
      exchange(space, M_halo, column, M_ghosts);
      exchange(space, L_halo, column, L_ghosts);
    }
  });
  // Over all ranks: MPI sends and bytes sent per apply.
  double traffic[4] = {
      double(fused.messages_per_apply()), double(s) * (sends(M.halo()) + sends(L.halo())),
      double(matrices.halo().num_send_rows() * b * s * sizeof(Scalar)),
      double((M.halo().num_send_rows() + L.halo().num_send_rows()) * b * s * sizeof(Scalar))};
  comm.sum(traffic, 4);

  bench::JsonObject gmres;
  if (options.gmres) {
    Vector f("fgdd::bench::f", length);
    Kokkos::deep_copy(f, 1.0);
    const IdentityPreconditioner none;
    std::vector<bench::GmresRun> runs;
    runs.push_back(slowest_rank_gmres(comm, space, options.krylov, "fused_none", fused, none, f));
    runs.push_back(
        slowest_rank_gmres(comm, space, options.krylov, "baseline_none", baseline, none, f));
    std::unique_ptr<KroneckerStagePreconditioner> P;
    space.fence();
    MPI_Barrier(comm.get());
    Kokkos::Timer timer;
    comm.run_collectively([&] {  // a zero pivot on one rank stops every rank
      P = std::make_unique<KroneckerStagePreconditioner>(space, M.dropped(), L.dropped(),
                                                         M.partition(), coefficients, options.tau,
                                                         DdIluOptions{});
      space.fence();
    });
    const double setup = comm.max(timer.seconds());
    runs.push_back(slowest_rank_gmres(comm, space, options.krylov, "fused_stage_dd", fused, *P, f));
    runs.push_back(
        slowest_rank_gmres(comm, space, options.krylov, "baseline_stage_dd", baseline, *P, f));
    runs[2].setup_seconds = runs[3].setup_seconds = setup;
    for (const bench::GmresRun& run : runs) gmres.add(run.name, bench::to_json(run));
  }

  if (comm.is_root()) {
    const bench::KroneckerCost& cost = facts.costs[stage_index];
    const double intensity = cost.flops / cost.bytes, roofline = intensity * copy_gbs_sum;
    using bench::fixed;
    using bench::scientific;
    bench::JsonObject line;
    line.add("bench", "dist_kronecker")
        .add("device", bench::device_name())
        .add("commit", bench::commit())
        .add("ranks", comm.size())
        .add("gpu_aware_mpi", comm.device_pointers_ok())
        .add("problem", spec)
        .add("scheme", to_string(options.scheme))
        .add("mass", to_string(mass))
        .add("tau", options.tau, bench::significant(6))
        .add("n", std::size_t(n))
        .add("block_size", b)
        .add("s", s)
        .add("nnz_M", facts.nnz_M)
        .add("nnz_L", facts.nnz_L)
        .add("shared_pattern", facts.shared_pattern)
        .add("baseline_exchanges", "one per column and matrix (2s)")
        .add("messages_per_apply_fused", traffic[0], fixed(0))
        .add("messages_per_apply_baseline", traffic[1], fixed(0))
        .add("halo_bytes_fused", traffic[2], fixed(0))
        .add("halo_bytes_baseline", traffic[3], fixed(0))
        .add("t_kx_fused_s", t_kx_fused, scientific(6))
        .add("t_kx_baseline_s", t_kx_base, scientific(6))
        .add("speedup", t_kx_base / t_kx_fused, fixed(3))
        .add("t_c_fused_s", t_c_fused, scientific(6))
        .add("t_c_baseline_s", t_c_base, scientific(6))
        .add("t_c_speedup", t_c_fused > 0 ? t_c_base / t_c_fused : 0.0, fixed(3))
        .add("gflops_fused", cost.flops / t_kx_fused / 1e9, fixed(2))
        .add("gflops_baseline", cost.flops / t_kx_base / 1e9, fixed(2))
        .add("flops", cost.flops, fixed(0))
        .add("bytes", cost.bytes, fixed(0))
        .add("gbs_fused", cost.bytes / t_kx_fused / 1e9, fixed(1))
        .add("copy_gbs_all_ranks", copy_gbs_sum, fixed(1))
        .add("arithmetic_intensity", intensity, fixed(4))
        .add("roofline_gflops", roofline, fixed(2))
        .add("fraction_of_roofline", cost.flops / t_kx_fused / 1e9 / roofline, fixed(3))
        .add("max_rel_diff", max_rel_diff, scientific(2))
        .add("verified", verified);
    if (options.gmres) line.add("gmres", gmres);
    bench::print_line(line);
  }
  return verified;
}

int benchmark_main(const Communicator& comm, int argc, char* argv[]) {
  const Options options = parse_options(argc, argv);
  bool all_verified = true;
  const ExecSpace space;
  // Every rank measures its own device at once: the roofline of all of them together.
  double copy_gbs_sum =
      bench::copy_bandwidth(space, options.copy_mb, options.warmup, options.repeats);
  comm.sum(&copy_gbs_sum, 1);
  PartitionOptions partition;
  partition.subdomain_rows = options.subdomain_rows;
  for (const std::string& spec : options.problems) {
    GeneratedProblem spatial;  // the root's
    for (const MassKind mass : options.masses) {
      KroneckerProblem problem;  // the root's; M and L do not depend on s
      ProblemFacts facts;
      std::unique_ptr<DistributedKroneckerMatrices> matrices;
      try {  // every rank throws the same error, so all skip the problem together
        comm.run_collectively([&] {
          if (!comm.is_root()) return;
          if (spatial.matrix.num_rows() == 0) spatial = bench::load_problem(spec);
          problem = make_irk_problem(space, spatial, options.scheme, options.stages.front(), mass,
                                     options.tau);
          for (const int s : options.stages)
            facts.costs.push_back(bench::kronecker_cost(problem.M, problem.L, s));
          facts.nnz_M = problem.M.num_entries();
          facts.nnz_L = problem.L.num_entries();
          facts.shared_pattern = shares_pattern(problem.M, problem.L);
        });
        matrices = std::make_unique<DistributedKroneckerMatrices>(
            space, comm, comm.is_root() ? &problem.M : nullptr,
            comm.is_root() ? &problem.L : nullptr, problem.grid, partition);
      } catch (const Error& error) {
        if (comm.is_root())
          bench::print_line(bench::JsonObject()
                                .add("bench", "dist_kronecker")
                                .add("ranks", comm.size())
                                .add("problem", spec)
                                .add("skipped", error.what()));
        continue;
      }
      problem = KroneckerProblem{};  // the whole matrices are no longer needed
      for (std::size_t k = 0; k < options.stages.size(); ++k) {
        try {
          all_verified =
              measure(comm, space, options, spec, mass, *matrices, facts, k, copy_gbs_sum) &&
              all_verified;
        } catch (const Error& error) {  // thrown on every rank alike (a stage's zero pivot)
          if (comm.is_root())
            bench::print_line(bench::JsonObject()
                                  .add("bench", "dist_kronecker")
                                  .add("ranks", comm.size())
                                  .add("problem", spec)
                                  .add("s", options.stages[k])
                                  .add("skipped", error.what()));
        }
      }
    }
  }
  return all_verified ? 0 : 1;
}

}  // namespace

int main(int argc, char* argv[]) {
  return fgdd::bench::run_mpi_benchmark(argc, argv, benchmark_main);
}
