#include "bench_common.hpp"

#include "core/errors.hpp"
#include "core/matrix_build.hpp"
#include "core/matrix_market.hpp"
#include "kron/union_pattern.hpp"
#include "krylov/gmres.hpp"
#include "krylov/krylov_workspace.hpp"
#include "multilevel/host_csr.hpp"
#include "solver/solver_steps.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace fgdd::bench {

Timing time_it(const ExecSpace& space, int warmup, int repeats, const std::function<void()>& run) {
  for (int w = 0; w < warmup; ++w) run();
  space.fence();
  std::vector<double> seconds;
  for (int r = 0; r < std::max(repeats, 1); ++r) {
    Kokkos::Timer timer;
    run();
    space.fence();
    seconds.push_back(timer.seconds());
  }
  std::sort(seconds.begin(), seconds.end());
  return {seconds.front(), seconds[seconds.size() / 2], seconds.back()};
}

#ifdef FGDD_HAVE_MPI
double slowest_rank_seconds(const Communicator& comm, const ExecSpace& space, int warmup,
                            int repeats, const std::function<void()>& run) {
  for (int w = 0; w < warmup; ++w) run();
  double best = 1e300;
  for (int r = 0; r < std::max(repeats, 1); ++r) {
    space.fence();
    MPI_Barrier(comm.get());
    Kokkos::Timer timer;
    run();
    space.fence();
    best = std::min(best, comm.max(timer.seconds()));
  }
  return best;
}

double slowest_rank_seconds_in_turn(const Communicator& comm, const ExecSpace& space, int warmup,
                                    int repeats, const std::function<void()>& run) {
  double mine = 0;
  for (int turn = 0; turn < comm.size(); ++turn) {
    space.fence();
    MPI_Barrier(comm.get());
    if (comm.rank() == turn) mine = time_it(space, warmup, repeats, run).min;
  }
  space.fence();
  MPI_Barrier(comm.get());
  return comm.max(mine);
}
#endif

double copy_bandwidth(const ExecSpace& space, double copy_mb, int warmup, int repeats) {
  const Offset n = Offset(copy_mb * 1e6 / sizeof(double));
  Vector a("fgdd::bench::copy_a", n), b("fgdd::bench::copy_b", n);
  const Timing t = time_it(space, warmup, repeats, [&] { Kokkos::deep_copy(space, b, a); });
  return 2.0 * n * sizeof(double) / t.min / 1e9;
}

double max_relative_difference(ConstVector x, ConstVector reference) {
  const auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  const auto b = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), reference);
  double scale = 0, worst = 0;
  for (std::size_t i = 0; i < b.extent(0); ++i) scale = std::max(scale, std::abs(b(i)));
  for (std::size_t i = 0; i < b.extent(0); ++i) worst = std::max(worst, std::abs(a(i) - b(i)));
  return scale > 0 ? worst / scale : worst;
}

GeneratedProblem load_problem(const std::string& source) {
  if (is_generator_spec(source)) return generate_problem(source);
  return {read_matrix_market(source), GridInfo{}, source};
}

SubdomainRowOrder subdomain_row_order(const std::string& name) {
  SolverOptions options;  // the default preconditioner: the DD one
  options.partition.row_order = subdomain_row_order_names.parse(name);
  return detail::resolved_row_order(options);
}

CommandLine::Parse subdomain_order_parser(SubdomainRowOrder* order) {
  return [order](const std::string& name) { *order = subdomain_row_order(name); };
}

SparseMatrix point_csr(const SparseMatrix& A) {
  if (A.is_csr()) return A;
  return detail::to_device_matrix(detail::scalar_host_csr(A));
}

Vector pattern_vector(Offset length) {
  std::vector<double> host(length);
  for (Offset e = 0; e < length; ++e) host[e] = 1.0 + 0.5 * double((e * 7919) % 101) / 101;
  Vector x(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::bench::pattern"), length);
  Kokkos::deep_copy(
      x, Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
             host.data(), length));
  return x;
}

KrylovOptions KroneckerBenchOptions::paper_gmres_options() {
  KrylovOptions krylov;
  krylov.relative_tolerance = 1e-6;
  krylov.max_iterations = 500;
  krylov.restart = 30;
  return krylov;
}

void declare_kronecker_flags(CommandLine& command_line, KroneckerBenchOptions& options) {
  command_line.repeated("--matrix", &options.problems, "gen:SPEC|FILE.mtx", "a spatial problem")
      .list("--stages", &options.stages, "S,S,...", "Runge-Kutta stage counts")
      .custom("--scheme", "radau|gauss", to_string(options.scheme), "the IRK scheme",
              [&options](const std::string& name) { options.scheme = parse_irk_scheme(name); })
      .custom("--mass", "consistent|lumped|consistent,lumped", to_string(options.masses.front()),
              "the mass matrices",
              [&options](const std::string& names) {
                options.masses.clear();
                for (const std::string& name : split_list(names))
                  options.masses.push_back(parse_mass_kind(name));
              })
      .option("--tau", &options.tau, "T", "the time step tau")
      .at_least("--repeats", &options.repeats, 1, "R", "timed runs, the best is reported")
      .at_least("--warmup", &options.warmup, 0, "W", "untimed runs before them")
      .option("--copy-mb", &options.copy_mb, "MB", "size of the copy-bandwidth reference")
      .toggle("--no-gmres", &options.gmres, false, "skip the GMRES solves")
      .option("--tol", &options.krylov.relative_tolerance, "T", "GMRES relative tolerance")
      .at_least("--max-iters", &options.krylov.max_iterations, 1, "N", "GMRES iterations at most");
}

namespace {

// Bytes a matrix contributes to one pass: values, column indices, row map.
double matrix_bytes(const SparseMatrix& A, bool pattern_counted) {
  const double values = double(A.num_entries()) * sizeof(Scalar);
  if (pattern_counted) return values;
  return values + double(A.num_block_entries()) * sizeof(Ordinal) +
         double(A.num_block_rows() + 1) * sizeof(Offset);
}

}  // namespace

KroneckerCost kronecker_cost(const SparseMatrix& M, const SparseMatrix& L, int stages) {
  const double s = stages, n = double(M.num_rows());
  KroneckerCost cost;
  cost.flops = 2.0 * s * double(M.num_entries() + L.num_entries()) + 4.0 * s * s * n;
  cost.bytes =
      matrix_bytes(M, false) + matrix_bytes(L, shares_pattern(M, L)) + 2 * s * n * sizeof(Scalar);
  return cost;
}

GmresRun run_gmres(const ExecSpace& space, const KrylovOptions& krylov, const std::string& name,
                   const Operator& A, const Preconditioner& P, ConstVector f) {
  GmresRun run;
  run.name = name;
  Vector u("fgdd::bench::u", f.extent(0));
  SolveResult result;
  // One untimed solve first, and the workspace kept, as Solver keeps it: the timed solve pays
  // neither the basis allocation nor the first launches of its kernels.
  KrylovWorkspace workspace;
  run.seconds = time_it(space, 1, 1, [&] {
                  Kokkos::deep_copy(space, u, 0.0);
                  result = gmres(space, A, P, f, u, krylov, &workspace);
                }).min;
  run.iterations = result.iterations;
  run.status = to_string(result.status);
  run.relative_true_residual = result.relative_true_residual;
  return run;
}

JsonObject to_json(const GmresRun& run) {
  JsonObject json;
  json.add("seconds", run.seconds, fixed(6))
      .add("iterations", run.iterations)
      .add("seconds_per_iteration", run.iterations > 0 ? run.seconds / run.iterations : 0.0,
           scientific(6))
      .add("status", run.status)
      .add("relative_true_residual", run.relative_true_residual, scientific(3))
      .add("setup_s", run.setup_seconds, fixed(6));
  return json;
}

}  // namespace fgdd::bench
