#include "kron/kronecker_problem.hpp"

#include "core/errors.hpp"
#include "core/kokkos_compat.hpp"
#include "core/matrix_market.hpp"

#include <cmath>
#include <sstream>

namespace fgdd {

const char* to_string(MassKind kind) noexcept {
  switch (kind) {
    case MassKind::Lumped:
      return "lumped";
    case MassKind::Consistent:
      return "consistent";
  }
  return "unknown";
}

MassKind parse_mass_kind(const std::string& name) {
  if (name == "lumped") return MassKind::Lumped;
  if (name == "consistent") return MassKind::Consistent;
  throw InvalidInput("unknown mass matrix \"" + name + "\"; valid: lumped, consistent");
}

SparseMatrix mass_matrix(const ExecSpace& space, const SparseMatrix& L, MassKind kind) {
  const Ordinal n = L.num_block_rows();
  const int b = L.block_size();
  const Offset b2 = Offset(b) * Offset(b);
  using Policy = Kokkos::RangePolicy<ExecSpace>;
  if (kind == MassKind::Lumped) {
    Kokkos::View<Offset*, DeviceType> row_map("fgdd::kron::mass_row_map", n + 1);
    SparseMatrix::ColumnIndices cols(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::kron::mass_col_ind"), n);
    SparseMatrix::Values values(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::kron::mass_values"), n * b2);
    Kokkos::parallel_for(
        "fgdd::kron::lumped_mass", Policy(space, 0, n + 1), KOKKOS_LAMBDA(const Ordinal i) {
          row_map(i) = Offset(i);
          if (i == n) return;
          cols(i) = i;
          const Scalar w = 1 + 0.25 * detail::kmath::sin(0.7 * i + 0.3);
          for (Offset e = 0; e < b2; ++e) values(i * b2 + e) = e / b == e % b ? w : 0.05 * w;
        });
    return SparseMatrix(SparseMatrix::ValidatedTag{}, n, b, row_map, cols, values);
  }
  const auto row_map = L.row_map();
  const auto cols = L.col_ind();
  Offset longest = 0;
  Kokkos::parallel_reduce(
      "fgdd::kron::longest_row", Policy(space, 0, n),
      KOKKOS_LAMBDA(const Ordinal i, Offset& most) {
        const Offset length = row_map(i + 1) - row_map(i);
        if (length > most) most = length;
      },
      Kokkos::Max<Offset>(longest));
  const Scalar omega = longest > 1 ? 0.5 / double(longest - 1) : 0.0;
  SparseMatrix::Values values(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::kron::mass_values"),
      L.values().extent(0));
  Kokkos::parallel_for(
      "fgdd::kron::consistent_mass", Policy(space, 0, n), KOKKOS_LAMBDA(const Ordinal i) {
        const Scalar w = 1 + 0.25 * detail::kmath::sin(0.7 * i + 0.3);
        for (Offset k = row_map(i); k < row_map(i + 1); ++k)
          for (Offset e = 0; e < b2; ++e) {
            const bool diagonal = e / b == e % b;
            values(k * b2 + e) =
                cols(k) == i ? (diagonal ? w : 0.05 * w) : (diagonal ? omega : 0.0);
          }
      });
  return SparseMatrix(SparseMatrix::ValidatedTag{}, n, b, L.row_map(), L.col_ind(), values);
}

KroneckerProblem make_irk_problem(const ExecSpace& space, const GeneratedProblem& spatial,
                                  IrkScheme scheme, int stages, MassKind mass, double tau) {
  if (!std::isfinite(tau)) throw InvalidInput("make_irk_problem: tau must be finite");
  KroneckerProblem problem;
  problem.coefficients = irk_stage_coefficients(scheme, stages);
  problem.L = spatial.matrix;
  problem.M = mass_matrix(space, spatial.matrix, mass);
  problem.tau = tau;
  problem.grid = spatial.grid;
  std::ostringstream text;
  text << to_string(scheme) << " s=" << stages << ", tau=" << tau << ", " << to_string(mass)
       << " mass, L: " << spatial.description;
  problem.description = text.str();
  return problem;
}

KroneckerProblem read_kronecker_problem(const std::string& M_path, const std::string& L_path,
                                        const std::string& A_path, const std::string& B_path,
                                        double tau) {
  if (!std::isfinite(tau)) throw InvalidInput("read_kronecker_problem: tau must be finite");
  KroneckerProblem problem;
  problem.M = read_matrix_market(M_path);
  problem.L = read_matrix_market(L_path);
  if (problem.M.num_rows() != problem.L.num_rows())
    throw DimensionMismatch(M_path + " has " + std::to_string(problem.M.num_rows()) + " rows, " +
                            L_path + " " + std::to_string(problem.L.num_rows()));
  int a_size = 0, b_size = 0;
  problem.coefficients.A = read_dense_matrix_market(A_path, a_size);
  problem.coefficients.B = read_dense_matrix_market(B_path, b_size);
  if (a_size != b_size)
    throw DimensionMismatch(A_path + " is " + std::to_string(a_size) + "x" +
                            std::to_string(a_size) + ", " + B_path + " " + std::to_string(b_size) +
                            "x" + std::to_string(b_size));
  problem.coefficients.stages = a_size;
  problem.coefficients.validate();
  problem.tau = tau;
  problem.description = "M: " + M_path + ", L: " + L_path + ", A: " + A_path + ", B: " + B_path +
                        ", s=" + std::to_string(a_size);
  return problem;
}

}  // namespace fgdd
