#include "precond/dd_ilu_preconditioner.hpp"

namespace fgdd {

DdIluPreconditioner::DdIluPreconditioner(const ExecSpace& space, const SparseMatrix& dropped,
                                         const Partition& partition, const DdIluOptions& options)
    : options_(options),
      factorization_(std::make_unique<SubdomainIlu0>(space, dropped, partition, options.factor)),
      trsv_(std::make_unique<SubdomainTrsv>(space, *factorization_, options.team_size,
                                            options.factor_precision)) {
  trsv_->prepare(space, options_.apply);
}

void DdIluPreconditioner::update_values(const ExecSpace& space, const SparseMatrix& dropped) {
  factorization_->numeric(space, dropped);
  trsv_->prepare(space, options_.apply);
}

void DdIluPreconditioner::apply(const ExecSpace& space, ConstVector r, Vector z) const {
  trsv_->apply(space, options_.apply, r, z);
}

void DdIluPreconditioner::apply_transpose(const ExecSpace& space, ConstVector r, Vector z) const {
  trsv_->apply_transpose(space, options_.apply, r, z);
}

std::string DdIluPreconditioner::name() const {
  const IluForm form = options_.factor.form;
  const char* kind = form == IluForm::Ildu0  ? "ildu0-dd"
                     : form == IluForm::Ilu0 ? "ilu0-dd"
                                             : "ic0-dd";
  const bool single = options_.factor_precision == FactorPrecision::Float;
  return std::string(kind) + " (" + to_string(options_.apply) + (single ? ", float factors" : "") +
         ")";
}

}  // namespace fgdd
