#include "krylov/preconditioner.hpp"

#include "core/errors.hpp"

namespace fgdd {

void IdentityPreconditioner::apply(const ExecSpace& space, ConstVector r, Vector z) const {
  Kokkos::deep_copy(space, z, r);
}

void Preconditioner::apply_transpose(const ExecSpace&, ConstVector, Vector) const {
  throw InvalidInput("preconditioner '" + name() + "' has no transpose apply");
}

void Preconditioner::update_values(const ExecSpace&, const SparseMatrix&, const SparseMatrix&) {
  throw InvalidInput("preconditioner '" + name() + "' cannot take new values; set it up again");
}

}  // namespace fgdd
