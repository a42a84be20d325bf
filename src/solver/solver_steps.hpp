// The two steps Solver and DistributedSolver share: building the preconditioner the options
// name, and running the Krylov method they name.
#pragma once

#include "krylov/operator.hpp"
#include "krylov/preconditioner.hpp"
#include "krylov/solve_result.hpp"
#include "partition/partition.hpp"
#include "partition/reorder.hpp"
#include "solver/solver_options.hpp"

#include <memory>

namespace fgdd::detail {

// The partition options setup uses. The exact global preconditioners (ilu0, ildu0, with either
// trsv) are ILU(0) of the matrix the caller gave, in the caller's order: partitioner auto means
// natural for them (the identity ordering). A METIS ordering changes the factors, and on the
// FEM and generated matrices measured it cost iterations and setup time (docs/PERFORMANCE.md).
// A partitioner asked for explicitly is kept. The row order is resolved_row_order's.
PartitionOptions partition_options_for(const SolverOptions& options);

// Whether setup renumbers each subdomain's rows by level (partition/level_order.hpp), for
// a DD preconditioner only (the others keep the caller's or the grid's order, or have no
// subdomains): subdomain_order levels, or auto where the factorization runs level by level
// (GPUs: a level's rows then sit together, and the refactorization of lap7 160³ took 0.98
// instead of 2.36 ms on an H100; docs/PERFORMANCE.md). Row-order factorizations (CPUs) gain
// nothing from it there and keep the partitioner's order, which the FEM files' locality favours.
bool orders_subdomain_rows_by_level(const SolverOptions& options);
// The row order setup uses (never Auto): Partitioner for the preconditioners without
// subdomains, the one asked for, or Auto resolved as above. partition_options_for sets it and
// DistributedSolver uses it for its own partition options.
SubdomainRowOrder resolved_row_order(const SolverOptions& options);

// Deferred for the DD factorizations with exact subdomain solves (ilu0-dd, ildu0-dd, ic0-dd):
// their factors overwrite dropped's values, which they read from A_p instead of a copy
// (reorder.hpp). Copied for the rest (the Jacobi sweeps keep dropped's values).
DroppedValues dropped_values_for(const SolverOptions& options);

// permuted: the operator's matrix (global ILU and Jacobi factor it); dropped and partition:
// the subdomain blocks the DD preconditioners factor, dropped_runs where its values were
// deferred (dropped_values_for). grid: the caller's grid, which the structured ILU needs (it
// throws InvalidInput when grid is empty).
std::unique_ptr<Preconditioner> make_preconditioner(
    const ExecSpace& space, const SolverOptions& options, const SparseMatrix& permuted,
    const SparseMatrix& dropped, const Partition& partition, const GridInfo& grid = {},
    const KeptRuns& dropped_runs = {});

}  // namespace fgdd::detail
