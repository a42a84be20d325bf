#include "krylov/krylov_method.hpp"

#include "krylov/bicg.hpp"
#include "krylov/bicgstab.hpp"
#include "krylov/cg.hpp"
#include "krylov/gmres.hpp"

namespace fgdd {

const char* to_string(KrylovMethod method) noexcept { return method_names.name(method); }

SolveResult solve_with(KrylovMethod method, const ExecSpace& space, const Operator& A,
                       const Preconditioner& M, ConstVector b, Vector x,
                       const KrylovOptions& options, KrylovWorkspace* workspace) {
  switch (method) {
    case KrylovMethod::Gmres:
      return gmres(space, A, M, b, x, options, workspace);
    case KrylovMethod::Cg:
      return cg(space, A, M, b, x, options, workspace);
    case KrylovMethod::Bicg:
      return bicg(space, A, M, b, x, options, workspace);
    case KrylovMethod::Bicgstab:
      break;
  }
  return bicgstab(space, A, M, b, x, options, workspace);
}

}  // namespace fgdd
