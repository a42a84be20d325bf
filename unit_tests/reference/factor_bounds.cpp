#include "reference/factor_bounds.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fgdd::reference {

namespace {

constexpr double unit_roundoff = std::numeric_limits<double>::epsilon() / 2;

Offset widest_block_row(const HostBlockCsr& F) {
  Offset widest = 0;
  for (Ordinal i = 0; i < F.num_block_rows(); ++i)
    widest = std::max(widest, F.row_map[i + 1] - F.row_map[i]);
  return widest;
}

}  // namespace

LongVector multiply_part(const HostBlockCsr& F, FactorPart part, const LongVector& v,
                         bool absolute) {
  const int b = F.b;
  LongVector y(v.size(), 0.0L);
  for (Ordinal i = 0; i < F.num_block_rows(); ++i)
    for (Offset k = F.row_map[i]; k < F.row_map[i + 1]; ++k) {
      const Ordinal j = F.col_ind[k];
      const bool take = part == FactorPart::StrictLower ? j < i
                        : part == FactorPart::Diagonal  ? j == i
                                                        : j > i;
      if (!take) continue;
      for (int r = 0; r < b; ++r)
        for (int c = 0; c < b; ++c) {
          const long double a = F.values[k * b * b + r * b + c];
          y[Offset(i) * b + r] += (absolute ? std::fabs(a) : a) * v[Offset(j) * b + c];
        }
    }
  return y;
}

LongVector plus(LongVector a, const LongVector& b) {
  for (std::size_t e = 0; e < a.size(); ++e) a[e] += b[e];
  return a;
}

LongVector widen(const std::vector<double>& x) { return LongVector(x.begin(), x.end()); }

LongVector magnitudes(const std::vector<double>& x) {
  LongVector m(x.size());
  for (std::size_t e = 0; e < x.size(); ++e) m[e] = std::fabs(x[e]);
  return m;
}

LongVector multiply_m(const HostBlockCsr& F, IluForm form, const LongVector& v, bool absolute) {
  if (form == IluForm::Ildu0) {
    const LongVector u = plus(v, multiply_part(F, FactorPart::StrictUpper, v, absolute));
    const LongVector d = multiply_part(F, FactorPart::Diagonal, u, absolute);
    return plus(d, multiply_part(F, FactorPart::StrictLower, d, absolute));
  }
  const LongVector u = plus(multiply_part(F, FactorPart::Diagonal, v, absolute),
                            multiply_part(F, FactorPart::StrictUpper, v, absolute));
  return plus(u, multiply_part(F, FactorPart::StrictLower, u, absolute));
}

double factor_tolerance(const HostBlockCsr& F) {
  const std::size_t n = std::size_t(F.num_block_rows()) * F.b;
  long double largest = 0;
  for (std::size_t j = 0; j < n; ++j) {  // column j of |L||U|, evaluated as |L|(|U| e_j)
    LongVector e(n, 0.0L);
    e[j] = 1;
    for (const long double v : multiply_m(F, IluForm::Ilu0, e, true))
      largest = std::max(largest, v);
  }
  const double m = double(widest_block_row(F)) * F.b;
  return 4 * m * unit_roundoff / (1 - m * unit_roundoff) * double(largest);
}

double substitution_gamma(const HostBlockCsr& F, const std::vector<double>& inv_diag) {
  const int b = F.b, bb = b * b;
  double kappa = 1;
  for (Ordinal i = 0; i < F.num_block_rows() && b > 1; ++i) {
    Offset d = F.row_map[i];
    while (F.col_ind[d] != i) ++d;
    for (int r = 0; r < b; ++r) {
      double row_sum = 0;
      for (int c = 0; c < b; ++c) {
        double entry = 0;  // (|D_i||D_i⁻¹|)_rc
        for (int t = 0; t < b; ++t)
          entry +=
              std::fabs(F.values[d * bb + r * b + t]) * std::fabs(inv_diag[i * bb + t * b + c]);
        row_sum += entry;
      }
      kappa = std::max(kappa, row_sum);
    }
  }
  const double terms = double(widest_block_row(F)) * b + b;
  return 2 * terms * unit_roundoff / (1 - terms * unit_roundoff) * kappa;
}

double backward_error_ratio(const LongVector& residual, const LongVector& bound, int b,
                            double gamma) {
  double worst = 0;
  for (std::size_t i = 0; i < residual.size() / b; ++i) {
    long double res = 0, scale = 0;
    for (int c = 0; c < b; ++c) {
      res = std::max(res, std::fabs(residual[i * b + c]));
      scale = std::max(scale, bound[i * b + c]);
    }
    if (res == 0) continue;
    worst = std::max(worst, double(res / (gamma * scale)));
  }
  return worst;
}

double apply_ratio(const HostBlockCsr& F, IluForm form, double gamma, const std::vector<double>& r,
                   const std::vector<double>& z) {
  const LongVector Mz = multiply_m(F, form, widen(z), false);
  LongVector residual(r.size());
  for (std::size_t e = 0; e < r.size(); ++e) residual[e] = r[e] - Mz[e];
  return backward_error_ratio(residual, multiply_m(F, form, magnitudes(z), true), F.b, gamma);
}

}  // namespace fgdd::reference
