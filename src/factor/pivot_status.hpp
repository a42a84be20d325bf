// The pivot bookkeeping every numeric factorization shares: the device views its kernel writes
// (the smallest (block) row with a tiny pivot, each row's pivot, how many pivots were shifted),
// allocated once so a refactor allocates nothing, reset before and read back after each
// numeric phase.
#pragma once

#include "core/types.hpp"
#include "factor/pivot_shift.hpp"

#include <cstdint>

#include <string>

namespace fgdd::detail {

struct PivotReadback {
  Ordinal failed_row = 0;  // rows when no pivot failed
  Scalar pivot = 0;        // the failing row's pivot (b = 1) or smallest |pivot|
  Offset shifted = 0;
};

struct PivotStatus {
  Kokkos::View<Ordinal, DeviceType> failed_row;
  Kokkos::View<Scalar*, DeviceType> pivot_value;  // per (block) row
  Kokkos::View<Offset, DeviceType> shifted;

  PivotStatus() = default;
  // Views labelled prefix + "_failed_row", ... for rows (block) rows.
  PivotStatus(const std::string& prefix, Ordinal rows);
  Ordinal rows() const noexcept { return Ordinal(pivot_value.extent(0)); }
  // No row failed, nothing shifted; on space, before the kernel.
  void reset(const ExecSpace& space) const;
  // Waits for space and reads the outcome back.
  PivotReadback read(const ExecSpace& space) const;
};

// Throws the error of a failed pivot at scalar row (the caller's numbering): PivotOverflow for
// ±inf, ZeroPivot otherwise (a NaN says NaN); under PositiveDefinite the message says that the
// pivot failed with the diagonal shifted by up to alpha·‖row‖₁.
[[noreturn]] void throw_pivot_failure(std::int64_t row, double value, PivotShift shift,
                                      double alpha);

}  // namespace fgdd::detail
