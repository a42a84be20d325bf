#include "solver/solver_steps.hpp"

#include "factor/factor_options.hpp"
#include "precond/block_jacobi.hpp"
#include "precond/dd_ilu_preconditioner.hpp"
#include "precond/global_ilu_preconditioner.hpp"
#include "precond/jacobi_ilu_preconditioner.hpp"
#include "precond/multilevel_ilu_preconditioner.hpp"
#include "precond/struct_ilu0_preconditioner.hpp"

namespace fgdd::detail {

namespace {

IluForm form_of(PreconditionerKind kind) {
  switch (kind) {
    case PreconditionerKind::Ilu0Dd:
    case PreconditionerKind::Ilu0:
    case PreconditionerKind::StructIlu0:
      return IluForm::Ilu0;
    case PreconditionerKind::Ic0Dd:
    case PreconditionerKind::StructIc0:
      return IluForm::Ildlt;
    default:
      return IluForm::Ildu0;
  }
}

}  // namespace

PartitionOptions partition_options_for(const SolverOptions& options) {
  PartitionOptions partition = options.partition;
  // The global factorizations keep the caller's order (the multilevel ILU reorders per level).
  const bool global = options.preconditioner == PreconditionerKind::Ilu0 ||
                      options.preconditioner == PreconditionerKind::Ildu0 ||
                      options.preconditioner == PreconditionerKind::MultilevelIlu;
  if (global && partition.partitioner == Partitioner::Auto)
    partition.partitioner = Partitioner::Natural;
  partition.row_order = resolved_row_order(options);
  return partition;
}

bool orders_subdomain_rows_by_level(const SolverOptions& options) {
  return resolved_row_order(options) == SubdomainRowOrder::Levels;
}

SubdomainRowOrder resolved_row_order(const SolverOptions& options) {
  if (!preconditioner_names.has(options.preconditioner, subdomain_factors))
    return SubdomainRowOrder::Partitioner;
  switch (options.partition.row_order) {
    case SubdomainRowOrder::Levels:
    case SubdomainRowOrder::Colours:
    case SubdomainRowOrder::Rcm:
    case SubdomainRowOrder::Partitioner:
      return options.partition.row_order;
    case SubdomainRowOrder::Auto:
      break;
  }
  // Elsewhere (row-order factorization: CPU backends) partition_matrix resolves it, once it
  // knows the partitioner and the subdomain count.
  return resolve_auto(options.dd.factor.order) == FactorOrder::Levels ? SubdomainRowOrder::Levels
                                                                      : SubdomainRowOrder::Auto;
}

DroppedValues dropped_values_for(const SolverOptions& options) {
  const bool dd = preconditioner_names.has(options.preconditioner, subdomain_factors);
  return dd && options.trsv != TrsvMethod::Jacobi ? DroppedValues::Deferred : DroppedValues::Copied;
}

std::unique_ptr<Preconditioner> make_preconditioner(
    const ExecSpace& space, const SolverOptions& options, const SparseMatrix& permuted,
    const SparseMatrix& dropped, const Partition& partition, const GridInfo& grid,
    const KeptRuns& dropped_runs) {
  DdIluOptions dd = options.dd;
  dd.factor.form = form_of(options.preconditioner);
  if (options.trsv == TrsvMethod::Jacobi) {
    const bool global = options.preconditioner == PreconditionerKind::Ilu0 ||
                        options.preconditioner == PreconditionerKind::Ildu0;
    if (global)
      return std::make_unique<JacobiIluPreconditioner>(space, permuted, dd.factor, options.jacobi);
    return std::make_unique<JacobiIluPreconditioner>(space, dropped, partition, dd.factor,
                                                     options.jacobi);
  }
  switch (options.preconditioner) {
    case PreconditionerKind::Ildu0Dd:
    case PreconditionerKind::Ilu0Dd:
    case PreconditionerKind::Ic0Dd:
      // The caller refills dropped before every refactor; when nothing was dropped it is the
      // operator's matrix itself and must stay.
      dd.factor.factor_in_place = dropped.values().data() != permuted.values().data();
      return std::make_unique<DdIluPreconditioner>(space, dropped, partition, dd, dropped_runs);
    case PreconditionerKind::Ilu0:
    case PreconditionerKind::Ildu0: {
      GlobalIluOptions global;
      global.factor = dd.factor;
      global.kernel = options.global_kernel;
      return std::make_unique<GlobalIluPreconditioner>(space, permuted, global);
    }
    case PreconditionerKind::StructIlu0:
    case PreconditionerKind::StructIc0: {
      StructIluOptions structured;
      structured.factor = dd.factor;
      structured.schedule = options.struct_schedule;
      structured.layout = options.struct_layout;
      structured.factor_launch = options.struct_factor_launch;
      // The solver works in the partition's ordering; the structured factors in grid order.
      return std::make_unique<StructIlu0Preconditioner>(space, permuted, grid, structured,
                                                        partition.perm);
    }
    case PreconditionerKind::MultilevelIlu:
      return std::make_unique<MultilevelIluPreconditioner>(
          space, permuted, options.multilevel, method_names.has(options.method, needs_transpose));
    case PreconditionerKind::Jacobi:
      return std::make_unique<BlockJacobi>(permuted);
    case PreconditionerKind::None:
      break;
  }
  return std::make_unique<IdentityPreconditioner>();
}

}  // namespace fgdd::detail
