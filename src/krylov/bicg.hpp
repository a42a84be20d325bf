// Preconditioned BiCG (ilupack-gpu-data-parallel.txt): needs Aᵀ and M⁻ᵀ, so M must have a
// transpose apply (Preconditioner::has_transpose).
#pragma once

#include "core/sparse_matrix.hpp"
#include "krylov/krylov_options.hpp"
#include "krylov/krylov_workspace.hpp"
#include "krylov/operator.hpp"
#include "krylov/preconditioner.hpp"
#include "krylov/solve_result.hpp"

namespace fgdd {

// Solves A x = b from the x given. Throws InvalidInput if A or M has no transpose apply.
// workspace keeps the work vectors between solves (krylov_workspace.hpp); none: this solve's own.
SolveResult bicg(const ExecSpace& space, const Operator& A, const Preconditioner& M, ConstVector b,
                 Vector x, const KrylovOptions& options, KrylovWorkspace* workspace = nullptr);

// The same with A as a MatrixOperator.
SolveResult bicg(const ExecSpace& space, const SparseMatrix& A, const Preconditioner& M,
                 ConstVector b, Vector x, const KrylovOptions& options);

}  // namespace fgdd
