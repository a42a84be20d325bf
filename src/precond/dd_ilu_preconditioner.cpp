#include "precond/dd_ilu_preconditioner.hpp"

#include "core/errors.hpp"

namespace fgdd {

FactorPrecisionChoice resolve_factor_precision(FactorPrecision requested, int block_size,
                                               bool on_host) {
  if (requested != FactorPrecision::Auto) return {requested, ""};
  if (on_host)
    return {FactorPrecision::Float, "auto: a CPU backend, float halves what the sweeps read"};
  const std::string b = std::to_string(block_size);
  if (block_size >= 3)
    return {FactorPrecision::Float, "auto: " + b + "x" + b + " blocks, float halves their bytes"};
  return {FactorPrecision::Double,
          "auto: " + std::string(block_size == 1 ? "scalar entries" : b + "x" + b + " blocks") +
              ", float saves too little of the apply"};
}

DdIluPreconditioner::DdIluPreconditioner(const ExecSpace& space, const SparseMatrix& dropped,
                                         const Partition& partition, const DdIluOptions& options,
                                         const KeptRuns& runs)
    : options_(options),
      runs_start_(runs.start),
      precision_(resolve_factor_precision(options.factor_precision, dropped.block_size())),
      factorization_(
          std::make_unique<SubdomainIlu0>(space, dropped, partition, options.factor, runs)) {
  build_trsv(space);
}

void DdIluPreconditioner::build_trsv(const ExecSpace& space) {
  trsv_ = std::make_unique<SubdomainTrsv>(space, *factorization_, options_.team_size,
                                          precision_.precision);
  try {
    trsv_->prepare(space, options_.apply);
  } catch (const ZeroPivot& error) {
    const bool automatic = options_.factor_precision == FactorPrecision::Auto;
    if (!automatic || precision_.precision != FactorPrecision::Float) throw;
    precision_ = {FactorPrecision::Double,
                  std::string("auto: double, the factors do not fit float: ") + error.what()};
    build_trsv(space);
  }
}

void DdIluPreconditioner::update_values(const ExecSpace& space, const SparseMatrix& dropped) {
  if (runs_start_.extent(0) > 0)
    throw InvalidInput(
        "update_values: this preconditioner reads its values from A_p (deferred dropped values): "
        "pass the permuted matrix too");
  refactor(space, dropped, {});
}

void DdIluPreconditioner::update_values(const ExecSpace& space, const SparseMatrix& permuted,
                                        const SparseMatrix& dropped) {
  refactor(space, dropped,
           runs_start_.extent(0) > 0 ? KeptRuns{permuted.values(), runs_start_} : KeptRuns{});
}

void DdIluPreconditioner::refactor(const ExecSpace& space, const SparseMatrix& dropped,
                                   const KeptRuns& runs) {
  factorization_->numeric(space, dropped, runs);
  try {
    trsv_->prepare(space, options_.apply);
  } catch (const ZeroPivot&) {
    // An automatic float that no longer fits falls back to double (and stays there, so later
    // refactorizations do not rebuild the level sets again).
    if (options_.factor_precision != FactorPrecision::Auto) throw;
    build_trsv(space);
  }
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
  const bool single = precision_.precision == FactorPrecision::Float;
  std::string precision = single ? ", float factors" : "";
  if (!precision_.reason.empty())
    precision = std::string(", ") + (single ? "float" : "double") + " factors (" +
                precision_.reason + ")";
  return std::string(kind) + " (" + to_string(options_.apply) + precision + ")";
}

}  // namespace fgdd
