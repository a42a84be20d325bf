// Serial reference ILU0 (paper Algorithm 4, IKJ order) for block CSR on the host: obviously
// correct, never fast.
#pragma once

#include "core/sparse_matrix.hpp"

#include <vector>

namespace fgdd::reference {

struct HostBlockCsr {
  int b = 1;
  std::vector<Offset> row_map;
  std::vector<Ordinal> col_ind;
  std::vector<double> values;  // b² per block, row-major
  Ordinal num_block_rows() const { return Ordinal(row_map.size()) - 1; }
};

HostBlockCsr to_host_csr(const SparseMatrix& A);

// ILU0 of A's own pattern: returns the combined factors (strict lower = L with unit diagonal,
// diagonal and upper = U, unscaled).
HostBlockCsr ilu0(const HostBlockCsr& A);

// A + diag(α_i·s_r), the matrix a positive-definite shift factors: per scalar row r of block
// row i, s_r = sign_r·‖row r‖₁ with sign_r = +1 when positive (IC0), else the sign of a_rr (0
// counts as +). alpha: one α per block row (0: unshifted).
HostBlockCsr shifted(const HostBlockCsr& A, const std::vector<double>& alpha, bool positive);

// Dense b×b inverse by Gauss-Jordan (no pivot checks; the tests use nonsingular blocks).
std::vector<double> block_inverse(const double* a, int b);

}  // namespace fgdd::reference
