#include "krylov/preconditioner.hpp"

namespace fgdd {

void IdentityPreconditioner::apply(const ExecSpace& space, ConstVector r, Vector z) const {
  Kokkos::deep_copy(space, z, r);
}

}  // namespace fgdd
