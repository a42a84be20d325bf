// What every benchmark driver shares: timing over repeats after warm-up (on MPI, the slowest
// rank's), the copy bandwidth the GB/s figures are compared with, problem loading, result
// checks, and what the Kronecker-form drivers share: their flags, the flop and byte model of one
// product, and a timed GMRES run. The command line, the JSON writer and main are in bench_main.
#pragma once

#include "bench_main.hpp"

#include "core/generators.hpp"
#include "core/sparse_matrix.hpp"
#include "kron/kronecker_problem.hpp"
#include "krylov/krylov_options.hpp"
#include "krylov/operator.hpp"
#include "krylov/preconditioner.hpp"
#include "partition/partition_options.hpp"

#ifdef FGDD_HAVE_MPI
#include "mpi/communicator.hpp"
#endif

#include <functional>
#include <string>
#include <vector>

namespace fgdd::bench {

struct Timing {
  double min = 0, median = 0, max = 0;
};

// Runs run warmup times, then repeats times, each fenced and timed.
Timing time_it(const ExecSpace& space, int warmup, int repeats, const std::function<void()>& run);

#ifdef FGDD_HAVE_MPI
// Collective. The slowest rank's time of run, best of the repeats, after warmup untimed runs;
// every timed run starts together (fence, then MPI_Barrier).
double slowest_rank_seconds(const Communicator& comm, const ExecSpace& space, int warmup,
                            int repeats, const std::function<void()>& run);
// The same for work without communication, with the ranks timing it one after another while
// the others wait: what each rank's GPU would take alone, when the ranks share one GPU.
double slowest_rank_seconds_in_turn(const Communicator& comm, const ExecSpace& space, int warmup,
                                    int repeats, const std::function<void()>& run);
#endif

// Read + write bandwidth of a device copy of copy_mb megabytes, best of the repeats, GB/s.
double copy_bandwidth(const ExecSpace& space, double copy_mb, int warmup, int repeats);

// max |x − reference| / max |reference| (or the absolute difference when reference is 0).
double max_relative_difference(ConstVector x, ConstVector reference);

// A generator spec (gen:...) or a Matrix Market file, which has no grid metadata.
GeneratedProblem load_problem(const std::string& source);

// A --subdomain-order name as the row order partition_matrix takes: auto as Solver resolves it
// for the DD preconditioners (levels where the factorization runs by levels, on GPUs).
// Throws InvalidInput naming the choices.
SubdomainRowOrder subdomain_row_order(const std::string& name);

// The --subdomain-order flag of the drivers that partition: its help, and a parser into *order
// (subdomain_row_order) for CommandLine::custom with subdomain_row_order_names.joined().
inline constexpr const char* subdomain_order_help =
    "order of the rows inside each subdomain (SolverOptions subdomain_order)";
CommandLine::Parse subdomain_order_parser(SubdomainRowOrder* order);

// The scalar CSR matrix with the same entries as A (A itself when it is CSR), for baselines
// that only take CSR. Built on the host.
SparseMatrix point_csr(const SparseMatrix& A);

// length deterministic entries in [1, 1.5), the same whatever the backend: an input vector.
Vector pattern_vector(Offset length);

// The options of the Kronecker-form drivers; each sets its own default problems and stages.
struct KroneckerBenchOptions {
  std::vector<std::string> problems;
  bool problems_given = false;  // the first --matrix replaces the defaults
  std::vector<int> stages;
  IrkScheme scheme = IrkScheme::RadauIIA;
  std::vector<MassKind> masses = {MassKind::Consistent};
  double tau = 1.0;
  int repeats = 10;
  int warmup = 3;
  double copy_mb = 512;
  bool gmres = true;
  // GMRES(30) to a relative 1e-6, the paper's setting, at most 500 iterations.
  KrylovOptions krylov = paper_gmres_options();

  static KrylovOptions paper_gmres_options();
};

// Declares the Kronecker-form drivers' flags on command_line, into options (whose values now are
// the defaults): --matrix, --stages, --scheme, --mass, --tau, --repeats, --warmup, --copy-mb,
// --no-gmres, --tol, --max-iters.
void declare_kronecker_flags(CommandLine& command_line, KroneckerBenchOptions& options);

// The model of one product (A ⊗ M + τ B ⊗ L) x with s stages that GFLOP/s and GB/s divide by:
// 2s flops per entry of M and of L and 4s²n for the stage combination; one pass over M and L
// (values, columns, row map; a pattern M and L share counted once) and over x and y.
struct KroneckerCost {
  double flops = 0, bytes = 0;
};
KroneckerCost kronecker_cost(const SparseMatrix& M, const SparseMatrix& L, int stages);

// One timed GMRES solve from x = 0, for the JSON lines.
struct GmresRun {
  std::string name;
  double seconds = 0;
  int iterations = 0;
  std::string status;
  double relative_true_residual = 0;
  double setup_seconds = 0;  // the preconditioner's, when the driver measures it
};

// One GMRES solve of A x = f from x = 0, timed after an untimed one (the workspace kept).
GmresRun run_gmres(const ExecSpace& space, const KrylovOptions& krylov, const std::string& name,
                   const Operator& A, const Preconditioner& P, ConstVector f);

// {"seconds":...,"iterations":...,...}, the value of the run's name in a report.
JsonObject to_json(const GmresRun& run);

}  // namespace fgdd::bench
