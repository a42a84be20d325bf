#include "solve_input.hpp"

namespace fgdd::cli {

GeneratedProblem load_matrix(const SolveCommand& command) {
  const std::string& source = command.matrix;
  if (is_generator_spec(source)) return generate_problem(source);
  return {read_matrix_market(source, command.read_block_size()), GridInfo{}, source};
}

Vector load_rhs(const SolveCommand& command, const SparseMatrix& A) {
  Vector b(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::solve::b"), A.num_rows());
  if (command.rhs.empty()) {
    Kokkos::deep_copy(b, 1.0);
    return b;
  }
  // The length is checked against the size line before the reader allocates anything.
  const std::vector<Scalar> host = read_matrix_market_vector(command.rhs, A.num_rows());
  check_vector_size(A, host.size(), "b from " + command.rhs);
  Kokkos::deep_copy(
      b, Kokkos::View<const Scalar*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
             host.data(), host.size()));
  return b;
}

Coordinates load_coordinates(const SolveCommand& command, const SparseMatrix& A) {
  if (command.coordinates.empty()) return Coordinates();
  return read_coordinates(command.coordinates, A.num_block_rows());
}

}  // namespace fgdd::cli
