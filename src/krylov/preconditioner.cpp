#include "krylov/preconditioner.hpp"

#include "core/errors.hpp"

namespace fgdd {

void IdentityPreconditioner::apply(const ExecSpace& space, ConstVector r, Vector z) const {
  Kokkos::deep_copy(space, z, r);
}

void Preconditioner::apply_transpose(const ExecSpace&, ConstVector, Vector) const {
  throw InvalidInput("preconditioner '" + name() + "' has no transpose apply");
}

}  // namespace fgdd
