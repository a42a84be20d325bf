#include "trsv/float_range.hpp"

#include "core/errors.hpp"
#include "core/kokkos_compat.hpp"

#include <cfloat>
#include <sstream>

namespace fgdd {

namespace {

// The value of block row i that float cannot hold, or 0 when the row fits.
struct FloatOffender {
  SparseMatrix::RowMap row_map;
  SparseMatrix::Values values;
  Kokkos::View<Offset*, DeviceType> diag;
  Kokkos::View<Scalar*, DeviceType> inv_diag;
  Offset bb;

  KOKKOS_INLINE_FUNCTION static bool too_large(Scalar v) {
    return detail::fabs(v) > Scalar(FLT_MAX);
  }

  KOKKOS_INLINE_FUNCTION Scalar operator()(Ordinal i) const {
    for (Offset k = row_map(i); k < row_map(i + 1); ++k) {
      if (k == diag(i)) continue;  // the apply reads D⁻¹, not D
      for (Offset e = k * bb; e < (k + 1) * bb; ++e)
        if (too_large(values(e))) return values(e);
    }
    Scalar largest = 0;
    for (Offset e = Offset(i) * bb; e < Offset(i + 1) * bb; ++e) {
      if (too_large(inv_diag(e))) return inv_diag(e);
      if (detail::fabs(inv_diag(e)) > largest) largest = detail::fabs(inv_diag(e));
    }
    return largest > 0 && largest < Scalar(FLT_MIN) ? largest : Scalar(0);
  }
};

}  // namespace

void check_factors_fit_float(const ExecSpace& space, const SubdomainIlu0& factorization) {
  const SparseMatrix& factors = factorization.factors();
  const Ordinal n = factors.num_block_rows();
  const int b = factors.block_size();
  const FloatOffender offender{factors.row_map(), factors.values(), factorization.diag_position(),
                               factorization.inv_diag(), Offset(b) * b};
  using Policy = Kokkos::RangePolicy<ExecSpace>;
  Ordinal first = n;  // the smallest offending block row
  Kokkos::parallel_reduce(
      "fgdd::trsv::float_range", Policy(space, 0, n),
      KOKKOS_LAMBDA(const Ordinal i, Ordinal& m) {
        if (i < m && offender(i) != 0) m = i;
      },
      Kokkos::Min<Ordinal>(first));
  if (first >= n) return;  // Min starts at the largest Ordinal, not at n
  Scalar value = 0;
  Kokkos::parallel_reduce(
      "fgdd::trsv::float_range_value", Policy(space, first, first + 1),
      KOKKOS_LAMBDA(const Ordinal i, Scalar& v) { v += offender(i); }, value);
  Ordinal original = 0;
  Kokkos::deep_copy(original, Kokkos::subview(factorization.partition().iperm, first));
  const std::int64_t row = std::int64_t(original) * b;
  std::ostringstream message;
  message << "factor_precision float: row " << row << " (0-based) has " << value
          << " in its factors or D⁻¹, beyond float's range (magnitudes up to 3.4e38, and D⁻¹ "
             "blocks not all below 1.2e-38); use factor_precision double";
  throw ZeroPivot(row, value, message.str());
}

}  // namespace fgdd
