// Right-preconditioned restarted GMRES(m): the basis and its orthogonalization (CGS2 or MGS,
// KrylovOptions::orthogonalization) on the device, the small Hessenberg least-squares problem
// with Givens rotations on the host.
#pragma once

#include "core/sparse_matrix.hpp"
#include "krylov/krylov_options.hpp"
#include "krylov/krylov_workspace.hpp"
#include "krylov/operator.hpp"
#include "krylov/preconditioner.hpp"
#include "krylov/solve_result.hpp"

namespace fgdd {

// Solves A x = b from the x given, restarting every options.restart iterations. The stopping
// test uses GMRES's residual estimate; convergence is confirmed with the true residual at the
// end of the cycle (a cycle whose estimate converged but whose true residual did not restarts).
// workspace keeps the work vectors between solves (krylov_workspace.hpp); none: this solve's own.
SolveResult gmres(const ExecSpace& space, const Operator& A, const Preconditioner& M, ConstVector b,
                  Vector x, const KrylovOptions& options, KrylovWorkspace* workspace = nullptr);

// The same with A as a MatrixOperator.
SolveResult gmres(const ExecSpace& space, const SparseMatrix& A, const Preconditioner& M,
                  ConstVector b, Vector x, const KrylovOptions& options);

}  // namespace fgdd
