// Kronecker-form test problems (A ⊗ M + τ B ⊗ L) vec(X) = vec(F): one implicit Runge-Kutta step
// of M u' + L u = f on a generated grid problem, or M, L, A, B read from Matrix Market files.
#pragma once

#include "core/generators.hpp"
#include "core/sparse_matrix.hpp"
#include "kron/stage_coefficients.hpp"

#include <string>

namespace fgdd {

enum class MassKind {
  Lumped,      // block diagonal
  Consistent,  // L's pattern (sharing L's arrays), like a finite-element mass matrix
};

const char* to_string(MassKind kind) noexcept;
// Accepts lumped|consistent; throws InvalidInput listing them.
MassKind parse_mass_kind(const std::string& name);

// A mass-like matrix for L, on the device. Diagonal block i is w_i (I_b + 0.05 (J_b − I_b)) with
// w_i = 1 + 0.25 sin(0.7 i + 0.3) (J_b all ones); Consistent adds ω I_b on every off-diagonal
// block of L's pattern, ω = 1 / (2 (m − 1)) for the most blocks m in a row. Symmetric positive
// definite (diagonally dominant) when L's pattern is symmetric.
SparseMatrix mass_matrix(const ExecSpace& space, const SparseMatrix& L, MassKind kind);

struct KroneckerProblem {
  SparseMatrix M, L;
  StageCoefficients coefficients;
  double tau = 1;
  GridInfo grid;  // L's grid when generated, else empty
  std::string description;
};

// One step of the scheme for M u' + L u = f with L = spatial.matrix: A = I, B = the Butcher
// matrix (irk_stage_coefficients), M = mass_matrix(L, mass). Throws InvalidInput for stages
// outside 1..8 or a non-finite tau.
KroneckerProblem make_irk_problem(const ExecSpace& space, const GeneratedProblem& spatial,
                                  IrkScheme scheme, int stages, MassKind mass, double tau);

// M and L from coordinate Matrix Market files (read_matrix_market), A and B from dense or
// coordinate files (read_dense_matrix_market). Throws FileError for unreadable files,
// DimensionMismatch when M and L or A and B differ in size.
KroneckerProblem read_kronecker_problem(const std::string& M_path, const std::string& L_path,
                                        const std::string& A_path, const std::string& B_path,
                                        double tau);

}  // namespace fgdd
