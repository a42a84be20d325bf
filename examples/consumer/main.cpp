// The smallest fgdd application: generate a problem, partition it, solve in the partitioned
// ordering with the subdomain ILDU0 preconditioner, check the status.
#include <fgdd/fgdd.hpp>

#include <cstdio>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const fgdd::ExecSpace space;
  const fgdd::GeneratedProblem problem = fgdd::generate_problem("gen:lap7:16");
  const fgdd::SparseMatrix& A = problem.matrix;
  const int block_size = A.block_size();
  const fgdd::PartitionedMatrix dd = fgdd::partition_matrix(space, A, problem.grid, {});
  const fgdd::SparseMatrix& A_p = dd.system.permuted;

  fgdd::Vector b("b", A.num_rows()), x("x", A.num_rows());
  fgdd::Vector b_p("b_p", A.num_rows()), x_p("x_p", A.num_rows());
  Kokkos::deep_copy(b, 1.0);
  fgdd::permute_vector(space, dd.partition, block_size, b, b_p);
  const fgdd::DdIluPreconditioner ildu0(space, dd.system.dropped, dd.partition, {});
  fgdd::KrylovOptions options;
  options.relative_tolerance = 1e-10;
  const fgdd::SolveResult result = fgdd::bicgstab(space, A_p, ildu0, b_p, x_p, options);
  fgdd::unpermute_vector(space, dd.partition, block_size, x_p, x);

  std::printf("%s, %d subdomains: %s after %d iterations, relative residual %.3e\n",
              problem.description.c_str(), dd.report.num_subdomains,
              fgdd::to_string(result.status), result.iterations, result.relative_true_residual);
  return result.converged() ? 0 : 1;
}
