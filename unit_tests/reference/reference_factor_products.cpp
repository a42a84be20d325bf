#include "reference/reference_factor_products.hpp"

#include <algorithm>
#include <cmath>

namespace fgdd::reference {

namespace {

// y_target += op(block) · x_source for one b×b block.
void add_block_product(const double* block, int b, bool transpose, bool absolute,
                       const double* x_source, double* y_target) {
  for (int r = 0; r < b; ++r)
    for (int c = 0; c < b; ++c) {
      double a = transpose ? block[c * b + r] : block[r * b + c];
      double x = x_source[c];
      if (absolute) a = std::abs(a), x = std::abs(x);
      y_target[r] += a * x;
    }
}

Ordinal diagonal_position(const HostBlockCsr& F, Ordinal i) {
  for (Offset k = F.row_map[i]; k < F.row_map[i + 1]; ++k)
    if (F.col_ind[k] == i) return Ordinal(k);
  return -1;
}

}  // namespace

std::vector<double> triangle_times(const HostBlockCsr& F, Part part, bool unit, bool transpose,
                                   bool absolute, const std::vector<double>& x) {
  const int b = F.b, bb = b * b;
  std::vector<double> y(x.size(), 0.0);
  for (Ordinal i = 0; i < F.num_block_rows(); ++i) {
    for (Offset k = F.row_map[i]; k < F.row_map[i + 1]; ++k) {
      const Ordinal j = F.col_ind[k];
      const bool in_part = part == Part::Lower ? j < i : j > i;
      if (!(in_part || (j == i && !unit))) continue;
      // T_ij x_j lands in row i; its transpose T_ijᵀ x_i lands in row j.
      if (transpose)
        add_block_product(&F.values[k * bb], b, true, absolute, &x[i * b], &y[j * b]);
      else
        add_block_product(&F.values[k * bb], b, false, absolute, &x[j * b], &y[i * b]);
    }
    if (unit)
      for (int c = 0; c < b; ++c) y[i * b + c] += absolute ? std::abs(x[i * b + c]) : x[i * b + c];
  }
  return y;
}

std::vector<double> diagonal_times(const HostBlockCsr& F, bool transpose, bool absolute,
                                   const std::vector<double>& x) {
  const int b = F.b;
  std::vector<double> y(x.size(), 0.0);
  for (Ordinal i = 0; i < F.num_block_rows(); ++i)
    add_block_product(&F.values[diagonal_position(F, i) * b * b], b, transpose, absolute, &x[i * b],
                      &y[i * b]);
  return y;
}

std::vector<double> preconditioner_times(const HostFactors& f, bool transpose, bool absolute,
                                         const std::vector<double>& z) {
  const HostBlockCsr& F = f.F;
  if (f.unit_upper) {
    // M = L D U; Mᵀ = Uᵀ Dᵀ Lᵀ.
    if (!transpose) {
      const auto u = triangle_times(F, Part::Upper, true, false, absolute, z);
      return triangle_times(F, Part::Lower, true, false, absolute,
                            diagonal_times(F, false, absolute, u));
    }
    const auto l = triangle_times(F, Part::Lower, true, true, absolute, z);
    return triangle_times(F, Part::Upper, true, true, absolute,
                          diagonal_times(F, true, absolute, l));
  }
  // M = L U with D inside U; Mᵀ = Uᵀ Lᵀ.
  if (!transpose)
    return triangle_times(F, Part::Lower, true, false, absolute,
                          triangle_times(F, Part::Upper, false, false, absolute, z));
  return triangle_times(F, Part::Upper, false, true, absolute,
                        triangle_times(F, Part::Lower, true, true, absolute, z));
}

double pivot_condition(const HostBlockCsr& F, const std::vector<double>& inv_diag) {
  const int b = F.b, bb = b * b;
  double worst = 1;
  for (Ordinal i = 0; i < F.num_block_rows(); ++i) {
    const double* d = &F.values[diagonal_position(F, i) * bb];
    const double* inv = &inv_diag[std::size_t(i) * bb];
    for (int r = 0; r < b; ++r) {
      double row = 0;
      for (int c = 0; c < b; ++c) {
        double sum = 0;
        for (int t = 0; t < b; ++t) sum += std::abs(d[r * b + t]) * std::abs(inv[t * b + c]);
        row += sum;
      }
      worst = std::max(worst, row);
    }
  }
  return worst;
}

int longest_row_terms(const HostBlockCsr& F) {
  Offset longest = 0;
  for (Ordinal i = 0; i < F.num_block_rows(); ++i)
    longest = std::max(longest, F.row_map[i + 1] - F.row_map[i]);
  return int(longest + 1) * F.b;
}

}  // namespace fgdd::reference
