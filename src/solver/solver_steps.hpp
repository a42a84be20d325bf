// The two steps Solver and DistributedSolver share: building the preconditioner the options
// name, and running the Krylov method they name.
#pragma once

#include "krylov/operator.hpp"
#include "krylov/preconditioner.hpp"
#include "krylov/solve_result.hpp"
#include "partition/partition.hpp"
#include "solver/solver_options.hpp"

#include <memory>

namespace fgdd::detail {

// The partition options setup uses. The exact global preconditioners (ilu0, ildu0, with either
// trsv) are ILU(0) of the matrix the caller gave, in the caller's order: partitioner auto means
// natural for them (the identity ordering). A METIS ordering changes the factors, and on the
// FEM and generated matrices measured it cost iterations and setup time (docs/PERFORMANCE.md).
// A partitioner asked for explicitly is kept.
PartitionOptions partition_options_for(const SolverOptions& options);

// Whether setup renumbers each subdomain's rows by level (order_subdomain_rows_by_level):
// subdomain_order levels with a DD preconditioner (the others keep the caller's or the grid's
// order, or have no subdomains).
bool orders_subdomain_rows_by_level(const SolverOptions& options);

// permuted: the operator's matrix (global ILU and Jacobi factor it); dropped and partition:
// the subdomain blocks the DD preconditioners factor. grid: the caller's grid, which the
// structured ILU needs (it throws InvalidInput when grid is empty).
std::unique_ptr<Preconditioner> make_preconditioner(
    const ExecSpace& space, const SolverOptions& options, const SparseMatrix& permuted,
    const SparseMatrix& dropped, const Partition& partition, const GridInfo& grid = {});

}  // namespace fgdd::detail
