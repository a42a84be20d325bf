// The smallest fgdd application: generate a problem, solve it, check the status.
#include <fgdd/fgdd.hpp>

#include <cstdio>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const fgdd::ExecSpace space;
  const fgdd::GeneratedProblem problem = fgdd::generate_problem("gen:lap7:16");
  const fgdd::SparseMatrix& A = problem.matrix;

  fgdd::Vector b("b", A.num_rows()), x("x", A.num_rows());
  Kokkos::deep_copy(b, 1.0);
  const fgdd::BlockJacobi jacobi(A);
  fgdd::KrylovOptions options;
  options.relative_tolerance = 1e-10;
  const fgdd::SolveResult result = fgdd::bicgstab(space, A, jacobi, b, x, options);

  std::printf("%s: %s after %d iterations, relative residual %.3e\n",
              problem.description.c_str(), fgdd::to_string(result.status), result.iterations,
              result.relative_true_residual);
  return result.converged() ? 0 : 1;
}
