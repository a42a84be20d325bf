// Right-preconditioned BiCGSTAB (fine-grained-dd-sptrsv-gpu.txt Algorithm 1, as in OPM).
#pragma once

#include "core/sparse_matrix.hpp"
#include "krylov/krylov_options.hpp"
#include "krylov/krylov_workspace.hpp"
#include "krylov/operator.hpp"
#include "krylov/preconditioner.hpp"
#include "krylov/solve_result.hpp"

namespace fgdd {

// Solves A x = b starting from the x given. All vector work runs on space. Throws
// DimensionMismatch / InvalidInput for bad arguments; a solver failure is a status in the
// result, and x then holds the last finite iterate.
// workspace keeps the work vectors between solves (krylov_workspace.hpp); none: this solve's own.
SolveResult bicgstab(const ExecSpace& space, const Operator& A, const Preconditioner& M,
                     ConstVector b, Vector x, const KrylovOptions& options,
                     KrylovWorkspace* workspace = nullptr);

// The same with A as a MatrixOperator.
SolveResult bicgstab(const ExecSpace& space, const SparseMatrix& A, const Preconditioner& M,
                     ConstVector b, Vector x, const KrylovOptions& options);

}  // namespace fgdd
