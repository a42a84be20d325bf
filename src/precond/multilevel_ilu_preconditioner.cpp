#include "precond/multilevel_ilu_preconditioner.hpp"

#include "core/errors.hpp"

namespace fgdd {

MultilevelIluPreconditioner::MultilevelIluPreconditioner(const ExecSpace& space,
                                                         const SparseMatrix& A,
                                                         const MultilevelIluOptions& options,
                                                         bool with_transpose)
    : options_(options), ilu_(space, A, options, with_transpose) {}

std::string MultilevelIluPreconditioner::name() const {
  return "multilevel-ilu (" + ilu_.report().summary() + "; setups " + std::to_string(setups_) +
         ")";
}

void MultilevelIluPreconditioner::update_values(const ExecSpace& space,
                                                const SparseMatrix& permuted,
                                                const SparseMatrix&) {
  if (Offset(permuted.num_rows()) != ilu_.num_rows())
    throw InvalidInput("multilevel ILU update_values: the matrix has " +
                       std::to_string(permuted.num_rows()) + " rows, the preconditioner " +
                       std::to_string(ilu_.num_rows()));
  ilu_ = MultilevelIlu(space, permuted, options_, ilu_.has_transpose());
  ++setups_;
}

}  // namespace fgdd
