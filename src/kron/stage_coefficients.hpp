// The small dense s×s matrices A and B of a Kronecker-form system (A ⊗ M + τ B ⊗ L) vec(X) =
// vec(F) (kronecker-gmres-multi-gpu.txt, Eq. 2): implicit Runge-Kutta tableaus (Radau IIA,
// Gauss) and a reader for Matrix Market files that hold them.
#pragma once

#include <string>
#include <vector>

namespace fgdd {

// A and B row-major: A[k * stages + l] = a_kl.
struct StageCoefficients {
  int stages = 1;
  std::vector<double> A, B;

  double a(int k, int l) const { return A[std::size_t(k) * stages + l]; }
  double b(int k, int l) const { return B[std::size_t(k) * stages + l]; }

  // Throws InvalidInput for stages < 1, arrays of the wrong length or non-finite values.
  void validate() const;
};

// s-stage collocation methods: Radau IIA (order 2s − 1, L-stable; s = 1 is backward Euler) and
// Gauss-Legendre (order 2s; s = 1 is the implicit midpoint rule).
enum class IrkScheme { RadauIIA, Gauss };

const char* to_string(IrkScheme scheme) noexcept;
// Accepts radau|radau-iia|gauss; throws InvalidInput listing them.
IrkScheme parse_irk_scheme(const std::string& name);

// The collocation nodes c (0 < c_1 < ... < c_s ≤ 1) and the Butcher matrix (row-major) with
// a_ij = ∫₀^{c_i} ℓ_j(t) dt for the Lagrange basis ℓ_j of the nodes. stages in 1..8 (larger
// tableaus lose digits to the Vandermonde solve); throws InvalidInput otherwise.
std::vector<double> collocation_nodes(IrkScheme scheme, int stages);
std::vector<double> butcher_matrix(IrkScheme scheme, int stages);

// The stage system of one step of M u' + L u = f with the scheme: the stage derivatives k
// solve (I ⊗ M + τ A_rk ⊗ L) vec(K) = vec(F), so A = I and B = A_rk (τ the time step).
StageCoefficients irk_stage_coefficients(IrkScheme scheme, int stages);

// Reads a small dense square matrix, row-major, from `matrix array real|integer general`
// (values column by column, as Matrix Market orders them) or `matrix coordinate
// real|integer|pattern general|symmetric|skew-symmetric` (absent entries are 0). Sets size.
// Throws FileError naming the path and line.
std::vector<double> read_dense_matrix_market(const std::string& path, int& size);

}  // namespace fgdd
