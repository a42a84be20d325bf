#include "solver/solver.hpp"

#include "core/errors.hpp"
#include "core/matrix_build.hpp"
#include "krylov/bicg.hpp"
#include "krylov/bicgstab.hpp"
#include "krylov/block_jacobi.hpp"
#include "krylov/cg.hpp"
#include "krylov/global_ilu_preconditioner.hpp"
#include "krylov/gmres.hpp"

namespace fgdd {

namespace {

IluForm form_of(PreconditionerKind kind) {
  switch (kind) {
    case PreconditionerKind::Ilu0Dd:
    case PreconditionerKind::Ilu0:
      return IluForm::Ilu0;
    case PreconditionerKind::Ic0Dd:
      return IluForm::Ildlt;
    default:
      return IluForm::Ildu0;
  }
}

std::unique_ptr<Preconditioner> make_preconditioner(const ExecSpace& space,
                                                    const SolverOptions& options,
                                                    const PartitionedMatrix& partitioned) {
  DdIluOptions dd = options.dd;
  dd.factor.form = form_of(options.preconditioner);
  switch (options.preconditioner) {
    case PreconditionerKind::Ildu0Dd:
    case PreconditionerKind::Ilu0Dd:
    case PreconditionerKind::Ic0Dd:
      return std::make_unique<DdIluPreconditioner>(space, partitioned.system.dropped,
                                                   partitioned.partition, dd);
    case PreconditionerKind::Ilu0:
    case PreconditionerKind::Ildu0: {
      GlobalIluOptions global;
      global.factor = dd.factor;
      global.kernel = options.global_kernel;
      return std::make_unique<GlobalIluPreconditioner>(space, partitioned.system.permuted, global);
    }
    case PreconditionerKind::Jacobi:
      return std::make_unique<BlockJacobi>(partitioned.system.permuted);
    case PreconditionerKind::None:
      break;
  }
  return std::make_unique<IdentityPreconditioner>();
}

}  // namespace

Solver::Solver(SolverOptions options) : options_(std::move(options)) { options_.validate(); }

void Solver::setup(const ExecSpace& space, const SparseMatrix& A, const GridInfo& grid) {
  Kokkos::Timer timer;
  preconditioner_.reset();
  partitioned_ =
      std::make_unique<PartitionedMatrix>(partition_matrix(space, A, grid, options_.partition));
  // The partition stays (and its report readable) if the factorization throws; solve and
  // update_values then refuse until a setup completes.
  preconditioner_ = make_preconditioner(space, options_, *partitioned_);
  b_p_ = Vector(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::solver::b_p"), A.num_rows());
  x_p_ = Vector(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::solver::x_p"), A.num_rows());
  space.fence();
  setup_seconds_ = timer.seconds();
}

void Solver::update_values(const ExecSpace& space, const SparseMatrix& A) {
  if (!preconditioner_) throw InvalidInput("update_values before setup completed");
  Kokkos::Timer timer;
  ReorderedSystem& system = partitioned_->system;
  fgdd::update_values(space, A, system);
  if (auto* dd = dynamic_cast<DdIluPreconditioner*>(preconditioner_.get()))
    dd->update_values(space, system.dropped);
  else if (auto* global = dynamic_cast<GlobalIluPreconditioner*>(preconditioner_.get()))
    global->update_values(space, system.permuted);
  else if (dynamic_cast<BlockJacobi*>(preconditioner_.get()))
    preconditioner_ = std::make_unique<BlockJacobi>(system.permuted);
  space.fence();
  update_seconds_ = timer.seconds();
}

SolveResult Solver::solve(const ExecSpace& space, ConstVector b, Vector x) {
  if (!preconditioner_) throw InvalidInput("solve before setup completed");
  const SparseMatrix& A_p = partitioned_->system.permuted;
  check_vector_size(A_p, b.extent(0), "b");
  check_vector_size(A_p, x.extent(0), "x");
  const Partition& partition = partitioned_->partition;
  const int block_size = A_p.block_size();
  permute_vector(space, partition, block_size, b, b_p_);
  permute_vector(space, partition, block_size, x, x_p_);
  const MatrixOperator A_op(A_p);
  const Preconditioner& M = *preconditioner_;
  const KrylovOptions& krylov = options_.krylov;
  SolveResult result;
  switch (options_.method) {
    case KrylovMethod::Gmres:
      result = gmres(space, A_op, M, b_p_, x_p_, krylov);
      break;
    case KrylovMethod::Cg:
      result = cg(space, A_op, M, b_p_, x_p_, krylov);
      break;
    case KrylovMethod::Bicg:
      result = bicg(space, A_op, M, b_p_, x_p_, krylov);
      break;
    case KrylovMethod::Bicgstab:
      result = bicgstab(space, A_op, M, b_p_, x_p_, krylov);
      break;
  }
  unpermute_vector(space, partition, block_size, x_p_, x);
  return result;
}

const PartitionReport& Solver::partition_report() const {
  if (!partitioned_) throw InvalidInput("partition_report before setup");
  return partitioned_->report;
}

const Preconditioner& Solver::preconditioner() const {
  if (!preconditioner_) throw InvalidInput("preconditioner before setup");
  return *preconditioner_;
}

}  // namespace fgdd
