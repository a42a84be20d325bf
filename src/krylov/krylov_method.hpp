// Which Krylov method solves, its name table and the one dispatch from the enum to the method.
// A new method is a file of its own (like bicgstab.cpp), an entry here and a case in
// krylov_method.cpp; the CLI, the options parser and the method loops of the tests read the table.
#pragma once

#include "core/enum_names.hpp"
#include "krylov/krylov_options.hpp"
#include "krylov/krylov_workspace.hpp"
#include "krylov/operator.hpp"
#include "krylov/preconditioner.hpp"
#include "krylov/solve_result.hpp"

namespace fgdd {

enum class KrylovMethod { Bicgstab, Gmres, Cg, Bicg };

// Traits of the method table: what a method asks of A and M.
enum KrylovTrait : unsigned {
  needs_symmetric = 1u << 0,  // A (and M) symmetric positive definite (cg)
  needs_transpose = 1u << 1,  // applies Aᵀ and Mᵀ (bicg)
  keeps_basis = 1u << 2,      // stores KrylovOptions::restart + 1 basis vectors (gmres)
};

inline const auto method_names =
    make_enum_names<KrylovMethod>("method", {{KrylovMethod::Bicgstab, "bicgstab"},
                                             {KrylovMethod::Gmres, "gmres", keeps_basis},
                                             {KrylovMethod::Cg, "cg", needs_symmetric},
                                             {KrylovMethod::Bicg, "bicg", needs_transpose}});

const char* to_string(KrylovMethod method) noexcept;

// Solves A x = b with method, x holding the initial guess; workspace as for the methods.
SolveResult solve_with(KrylovMethod method, const ExecSpace& space, const Operator& A,
                       const Preconditioner& M, ConstVector b, Vector x,
                       const KrylovOptions& options, KrylovWorkspace* workspace = nullptr);

}  // namespace fgdd
