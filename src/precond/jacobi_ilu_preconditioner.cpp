#include "precond/jacobi_ilu_preconditioner.hpp"

namespace fgdd {

JacobiIluPreconditioner::JacobiIluPreconditioner(const ExecSpace& space, const SparseMatrix& A,
                                                 const FactorOptions& factor,
                                                 const JacobiTrsvOptions& jacobi)
    : global_(std::make_unique<GlobalIlu0>(space, A, factor)),
      trsv_(std::make_unique<JacobiTrsv>(factor_arrays(*global_), jacobi)) {}

JacobiIluPreconditioner::JacobiIluPreconditioner(const ExecSpace& space,
                                                 const SparseMatrix& dropped,
                                                 const Partition& partition,
                                                 const FactorOptions& factor,
                                                 const JacobiTrsvOptions& jacobi)
    : dd_(std::make_unique<SubdomainIlu0>(space, dropped, partition, factor)),
      trsv_(std::make_unique<JacobiTrsv>(factor_arrays(*dd_), jacobi)) {}

void JacobiIluPreconditioner::update_values(const ExecSpace& space, const SparseMatrix& matrix) {
  // The factor arrays keep their addresses, so trsv_ sees the new values.
  if (global_)
    global_->numeric(space, matrix);
  else
    dd_->numeric(space, matrix);
}

void JacobiIluPreconditioner::apply(const ExecSpace& space, ConstVector r, Vector z) const {
  trsv_->apply(space, r, z);
}

std::string JacobiIluPreconditioner::name() const {
  const IluForm form = global_ ? global_->form() : dd_->form();
  const std::string base = form == IluForm::Ilu0    ? "ilu0"
                           : form == IluForm::Ildlt ? "ic0"
                                                    : "ildu0";
  return base + (dd_ ? "-dd" : "") + "+jacobi-trsv";
}

}  // namespace fgdd
