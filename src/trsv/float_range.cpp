#include "trsv/float_range.hpp"

#include "core/errors.hpp"
#include "core/kokkos_compat.hpp"

#include <cfloat>
#include <sstream>

namespace fgdd {

namespace {

// The value of block row i that float cannot hold, or 0 when the row fits (its D⁻¹ only, unless
// triangles).
struct FloatOffender {
  SparseMatrix::RowMap row_map;
  SparseMatrix::Values values;
  Kokkos::View<Offset*, DeviceType> diag;
  Kokkos::View<Scalar*, DeviceType> inv_diag;
  Offset bb;
  bool triangles;

  KOKKOS_INLINE_FUNCTION static bool too_large(Scalar v) {
    return detail::fabs(v) > Scalar(FLT_MAX);
  }

  KOKKOS_INLINE_FUNCTION Scalar operator()(Ordinal i) const {
    for (Offset k = row_map(i); triangles && k < row_map(i + 1); ++k) {
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

FloatOffender offender_of(const SubdomainIlu0& factorization, bool triangles) {
  const SparseMatrix& factors = factorization.factors();
  const int b = factors.block_size();
  return {factors.row_map(),        factors.values(), factorization.diag_position(),
          factorization.inv_diag(), Offset(b) * b,    triangles};
}

}  // namespace

Ordinal first_row_beyond_float(const ExecSpace& space, const SubdomainIlu0& factorization,
                               bool triangles) {
  const Ordinal n = factorization.factors().num_block_rows();
  const FloatOffender offender = offender_of(factorization, triangles);
  Ordinal first = n;
  Kokkos::parallel_reduce(
      "fgdd::trsv::float_range", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const Ordinal i, Ordinal& m) {
        if (i < m && offender(i) != 0) m = i;
      },
      Kokkos::Min<Ordinal>(first));
  return first < n ? first : n;  // Min starts at the largest Ordinal, not at n
}

// The value block_row cannot hold in float. (Not inside throw_beyond_float: nvcc mangles a
// device lambda in a [[noreturn]] function into a stub it cannot compile.)
Scalar offending_value(const ExecSpace& space, const SubdomainIlu0& factorization,
                       Ordinal block_row) {
  const FloatOffender offender = offender_of(factorization, true);
  Scalar value = 0;
  Kokkos::parallel_reduce(
      "fgdd::trsv::float_range_value",
      Kokkos::RangePolicy<ExecSpace>(space, block_row, block_row + 1),
      KOKKOS_LAMBDA(const Ordinal i, Scalar& v) { v += offender(i); }, value);
  return value;
}

void throw_beyond_float(const ExecSpace& space, const SubdomainIlu0& factorization,
                        Ordinal block_row) {
  const Scalar value = offending_value(space, factorization, block_row);
  Ordinal original = 0;
  Kokkos::deep_copy(original, Kokkos::subview(factorization.partition().iperm, block_row));
  const std::int64_t row = std::int64_t(original) * factorization.factors().block_size();
  std::ostringstream message;
  message << "factor_precision float: row " << row << " (0-based) has " << value
          << " in its factors or D⁻¹, beyond float's range (magnitudes up to 3.4e38, and D⁻¹ "
             "blocks not all below 1.2e-38); use factor_precision double";
  throw ZeroPivot(row, value, message.str());
}

void check_factors_fit_float(const ExecSpace& space, const SubdomainIlu0& factorization) {
  const Ordinal first = first_row_beyond_float(space, factorization, true);
  if (first < factorization.factors().num_block_rows())
    throw_beyond_float(space, factorization, first);
}

}  // namespace fgdd
