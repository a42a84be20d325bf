#include "precond/multilevel_ilu_preconditioner.hpp"

#include "core/errors.hpp"

namespace fgdd {

MultilevelIluPreconditioner::MultilevelIluPreconditioner(const ExecSpace& space,
                                                         const SparseMatrix& A,
                                                         const MultilevelIluOptions& options,
                                                         bool with_transpose)
    : ilu_(space, A, options, with_transpose) {}

std::string MultilevelIluPreconditioner::name() const {
  return "multilevel-ilu (" + ilu_.report().summary() + "; setups " + std::to_string(setups_) +
         ", pivot sets held " + std::to_string(held_) + ")";
}

void MultilevelIluPreconditioner::update_values(const ExecSpace& space,
                                                const SparseMatrix& permuted,
                                                const SparseMatrix&) {
  if (Offset(permuted.num_rows()) != ilu_.num_rows())
    throw InvalidInput("multilevel ILU update_values: the matrix has " +
                       std::to_string(permuted.num_rows()) + " rows, the preconditioner " +
                       std::to_string(ilu_.num_rows()));
  ilu_ = MultilevelIlu(space, permuted, ilu_);
  ++setups_;
  if (ilu_.report().pivots_held) ++held_;
}

}  // namespace fgdd
