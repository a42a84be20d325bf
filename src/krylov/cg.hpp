// Preconditioned conjugate gradients for symmetric positive definite A and M (e.g. ic0-dd).
#pragma once

#include "core/sparse_matrix.hpp"
#include "krylov/krylov_options.hpp"
#include "krylov/krylov_workspace.hpp"
#include "krylov/operator.hpp"
#include "krylov/preconditioner.hpp"
#include "krylov/solve_result.hpp"

namespace fgdd {

// Solves A x = b from the x given. A breakdown (<p, A p> ≤ 0 or <r, z> ≤ 0) means A or M is not
// positive definite and comes back as SolveStatus::Breakdown with the reason.
// workspace keeps the work vectors between solves (krylov_workspace.hpp); none: this solve's own.
SolveResult cg(const ExecSpace& space, const Operator& A, const Preconditioner& M, ConstVector b,
               Vector x, const KrylovOptions& options, KrylovWorkspace* workspace = nullptr);

// The same with A as a MatrixOperator.
SolveResult cg(const ExecSpace& space, const SparseMatrix& A, const Preconditioner& M,
               ConstVector b, Vector x, const KrylovOptions& options);

}  // namespace fgdd
