// fgdd's Solver over MPI ranks. The root partitions the whole matrix into subdomains, each rank
// receives whole subdomains, factors them and applies its DD preconditioner with no
// communication; the Krylov method exchanges halos in the SpMV and sums dot products.
//
//   fgdd::Communicator comm;                        // MPI_COMM_WORLD
//   fgdd::DistributedSolver solver(comm, options);
//   solver.setup(space, comm.is_root() ? &A : nullptr);
//   solver.solve(space, b, x);                      // b, x on the root, caller's ordering
//
// Or, where no rank should hold the whole matrix, each rank passes its own rows:
//   solver.setup(space, my_rows);                   // fgdd::LocalRows
//   solver.solve_rows(space, b_mine, x_mine);       // this rank's rows, its ordering
//
// Setup, solves, new values and destruction are collective: every rank does them in the same
// order (destruction too, where halos go between the ranks' device memory: peer_halo.hpp).
#pragma once

#include "krylov/krylov_workspace.hpp"
#include "krylov/preconditioner.hpp"
#include "krylov/solve_result.hpp"
#include "mpi/distributed_matrix.hpp"
#include "mpi/distributed_operator.hpp"
#include "solver/solver_options.hpp"

#include <memory>

namespace fgdd {

class DistributedSolver {
 public:
  // Throws InvalidInput for inconsistent options, and for struct-ilu0/struct-ic0 (they factor
  // the whole grid, which no rank holds).
  DistributedSolver(const Communicator& comm, SolverOptions options = {});

  // Collective. The root passes A (and its grid, if any), the other ranks nullptr. Every rank
  // throws the same error when any rank fails (a zero pivot names the caller's row), when the
  // ranks' options differ (InvalidInput naming the first differing key), when an option does not
  // fit the problem or backend (as Solver::setup; restart against the global rows), or when a
  // rank could not allocate the solve's work vectors (OutOfMemory).
  // ilu0 / ildu0 are the exact ILU of each rank's diagonal block (no communication).
  void setup(const ExecSpace& space, const SparseMatrix* A_on_root, const GridInfo& grid = {});

  // Collective. Each rank passes its own rows (local_rows.hpp; DistributedMatrix's LocalRows
  // constructor), so that no rank holds the whole matrix; local_grid: the rank's rows as a grid
  // (geometric subdomains), or empty. Errors as above.
  void setup(const ExecSpace& space, const LocalRows& mine, const GridInfo& local_grid = {});

  // Collective. New values of the pattern given to setup (the root passes A, the others
  // nullptr): the root gathers them into its partitioned matrix, each rank refreshes its slice
  // and refactors; partition, levels, halo plan and work vectors are reused. Errors as setup.
  void update_values(const ExecSpace& space, const SparseMatrix* A_on_root);

  // Collective, after the LocalRows setup: new values of the same pattern on every rank (else
  // InvalidInput naming the block row); nothing travels between ranks. Errors as setup.
  void update_values(const ExecSpace& space, const LocalRows& mine);

  // Collective, after the LocalRows setup: b and x (initial guess in, solution out) are this
  // rank's rows in the order it passed them. Every rank returns the same result.
  SolveResult solve_rows(const ExecSpace& space, ConstVector b_mine, Vector x_mine);

  // Collective. b and x (initial guess in, solution out) are the whole vectors in the caller's
  // ordering on the root; other ranks pass empty views. Every rank returns the same result.
  SolveResult solve(const ExecSpace& space, ConstVector b, Vector x);

  // Collective. b and x are this rank's rows of A_p (matrix().first_block_row() on).
  SolveResult solve_local(const ExecSpace& space, ConstVector b_local, Vector x_local);

  const DistributedMatrix& matrix() const;
  const Preconditioner& preconditioner() const;
  // The root's partition report (other ranks: an empty report); after the LocalRows setup,
  // the ranks' reports together on every rank (counts summed, sizes over all subdomains, times
  // the slowest rank's; each rank's own is matrix().local_report()).
  const PartitionReport& partition_report() const noexcept { return report_; }
  double setup_seconds() const noexcept { return setup_seconds_; }
  double update_seconds() const noexcept { return update_seconds_; }
  // Where this rank's setup went besides the matrix's own steps (matrix().setup_steps()).
  struct SetupSteps {
    double root_partition = 0;  // root input, on the root: partitioning the whole matrix
    double preconditioner = 0;  // its preconditioner: level sets and factorization
    double operator_setup = 0;  // its operator: halo buffers, peer mappings between GPUs
  };
  const SetupSteps& setup_steps() const noexcept { return steps_; }

 private:
  // What either setup builds, dropped before it starts again.
  void clear_setup();
  // The caller's partition options with the row order resolved as Solver's (solver_steps.hpp).
  PartitionOptions partition_options() const;
  // The rest of either setup once matrix_ is built: preconditioner and operator.
  void finish_setup(const ExecSpace& space, const Kokkos::Timer& timer);
  // The rest of either update_values once matrix_ has the values: the refactorization.
  void finish_update(const ExecSpace& space, const Kokkos::Timer& timer);
  // Whether setup took the root's whole matrix (or none yet), not each rank's LocalRows.
  bool whole_on_root_setup() const;

  Communicator comm_;
  SolverOptions options_;
  PartitionReport report_;
  std::unique_ptr<PartitionedMatrix> whole_;  // the root's partitioned A (null elsewhere)
  std::unique_ptr<DistributedMatrix> matrix_;
  std::unique_ptr<DistributedOperator> operator_;
  std::unique_ptr<Preconditioner> preconditioner_;
  Vector rows_b_, rows_x_;     // solve_rows' vectors in A_p's local order
  KrylovWorkspace workspace_;  // the Krylov method's vectors, kept from solve to solve
  double setup_seconds_ = 0;
  double update_seconds_ = 0;
  SetupSteps steps_;
};

}  // namespace fgdd
