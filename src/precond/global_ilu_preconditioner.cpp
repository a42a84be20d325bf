#include "precond/global_ilu_preconditioner.hpp"

namespace fgdd {

GlobalIluPreconditioner::GlobalIluPreconditioner(const ExecSpace& space, const SparseMatrix& A,
                                                 const GlobalIluOptions& options)
    : options_(options),
      factorization_(std::make_unique<GlobalIlu0>(space, A, options.factor)),
      trsv_(std::make_unique<GlobalTrsv>(space, *factorization_, options.kernel)) {}

void GlobalIluPreconditioner::update_values(const ExecSpace& space, const SparseMatrix& A) {
  factorization_->numeric(space, A);
}

void GlobalIluPreconditioner::apply(const ExecSpace& space, ConstVector r, Vector z) const {
  trsv_->apply(space, r, z);
}

std::string GlobalIluPreconditioner::name() const {
  return options_.factor.form == IluForm::Ildu0 ? "ildu0" : "ilu0";
}

}  // namespace fgdd
