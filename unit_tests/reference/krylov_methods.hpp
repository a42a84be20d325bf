// Every Krylov method of fgdd's table as a test callable on a SparseMatrix, so the method loops
// of the tests pick up a new method from the table.
#pragma once

#include "krylov/krylov_method.hpp"

#include <functional>
#include <string>
#include <vector>

namespace fgdd::reference {

using KrylovSolve =
    std::function<SolveResult(const ExecSpace&, const SparseMatrix&, const Preconditioner&,
                              ConstVector, Vector, const KrylovOptions&)>;

struct NamedKrylovMethod {
  KrylovMethod method;
  std::string name;
  KrylovSolve solve;
};

// The methods of the table whose entries carry none of the bits of without (KrylovTrait).
inline std::vector<NamedKrylovMethod> krylov_methods(unsigned without = 0) {
  std::vector<NamedKrylovMethod> methods;
  for (const KrylovMethod method : method_names.values()) {
    if (method_names.traits(method) & without) continue;
    methods.push_back(
        {method, to_string(method),
         [method](const ExecSpace& space, const SparseMatrix& A, const Preconditioner& M,
                  ConstVector b, Vector x, const KrylovOptions& options) {
           return solve_with(method, space, MatrixOperator(A), M, b, x, options);
         }});
  }
  return methods;
}

}  // namespace fgdd::reference
