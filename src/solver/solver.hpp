// The one object most applications need: set up once for a sparsity pattern (partition,
// reorder, factor, level sets, all on the device), refresh values as often as the pattern
// repeats, and solve in the caller's own ordering.
//
//   fgdd::Solver solver(options);        // or SolverOptions::set_all({"method=gmres", ...})
//   solver.setup(space, A);              // once per pattern (or setup(space, A, coordinates))
//   solver.solve(space, b, x);           // x: initial guess in, solution out
//   solver.update_values(space, A_new);  // same pattern, new values: refactor only
#pragma once

#include "core/sparse_matrix.hpp"
#include "krylov/krylov_workspace.hpp"
#include "krylov/preconditioner.hpp"
#include "krylov/solve_result.hpp"
#include "partition/partition_matrix.hpp"
#include "solver/solver_options.hpp"

#include <memory>

namespace fgdd {

class Solver {
 public:
  // Throws InvalidInput for inconsistent options.
  explicit Solver(SolverOptions options = {});

  // Partitions (geometric cuts when grid describes A), reorders, drops and factors. Throws
  // InvalidMatrix/InvalidInput for bad input or options the problem or backend cannot take
  // (GMRES restart above the rows, a team size above the backend's limit: the message gives
  // the allowed range), OutOfMemory when an allocation fails, and ZeroPivot naming the
  // caller's row (the partition report stays readable then; solving needs a setup that
  // completed).
  void setup(const ExecSpace& space, const SparseMatrix& A, const GridInfo& grid = {});

  // The same for a matrix whose rows have points (one per block row): partitioner auto is
  // then recursive coordinate bisection (rcb), unless grid metadata is given too (the grid
  // wins). Throws as above, and InvalidInput for coordinates that Coordinates::validate refuses.
  void setup(const ExecSpace& space, const SparseMatrix& A, const Coordinates& coordinates);
  void setup(const ExecSpace& space, const SparseMatrix& A, const GridInfo& grid,
             const Coordinates& coordinates);

  // New values of the pattern given to setup: one gather into the reordered matrices and a
  // numeric refactor; partition, levels and work vectors are reused. Throws InvalidInput for
  // another pattern (or before setup), ZeroPivot as setup. Where the partition keeps the
  // caller's order (natural chunks in the partitioner's row order: not the GPUs' default level
  // order), the operator is the caller's matrix itself (setup's A, then A here), never
  // written: values changed in place are what the next solve multiplies with.
  void update_values(const ExecSpace& space, const SparseMatrix& A);

  // Solves A x = b in the caller's ordering, x holding the initial guess. A solver failure is a
  // status in the result (x then holds the last finite iterate); bad sizes throw, and an
  // allocation that fails throws OutOfMemory naming the method and the memory it asked for. A
  // GMRES restart above the rows runs as the rows (the default 30 on small problems).
  SolveResult solve(const ExecSpace& space, ConstVector b, Vector x);

  // z = M⁻¹ r, or z = M⁻ᵀ r when transposed, in the caller's ordering: the preconditioner
  // alone, for codes that run their own Krylov method (trilinos/ wraps it as a Tpetra
  // operator). r and z may be the same vector. Uses the solver's work vectors, so calls on one
  // Solver must not overlap. Throws InvalidInput before setup or for a transpose the
  // preconditioner lacks (Preconditioner::has_transpose), DimensionMismatch for bad sizes.
  void apply_preconditioner(const ExecSpace& space, ConstVector r, Vector z,
                            bool transposed = false);

  const SolverOptions& options() const noexcept { return options_; }
  const PartitionReport& partition_report() const;
  const Preconditioner& preconditioner() const;
  double setup_seconds() const noexcept { return setup_seconds_; }
  double update_seconds() const noexcept { return update_seconds_; }

 private:
  SolverOptions options_;
  std::unique_ptr<PartitionedMatrix> partitioned_;
  std::unique_ptr<Preconditioner> preconditioner_;
  Vector b_p_, x_p_;           // the permuted right-hand side and solution, allocated once
  KrylovWorkspace workspace_;  // the Krylov method's vectors, kept from solve to solve
  double setup_seconds_ = 0;
  double update_seconds_ = 0;
};

}  // namespace fgdd
