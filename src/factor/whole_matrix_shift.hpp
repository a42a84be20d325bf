// The positive-definite shift loop of the factorizations that shift the whole matrix at once
// (global ILU0, structured ILU(0)): unshifted first, then α = shift_amount doubling while a
// pivot fails and attempts remain (a host loop over at most shift_attempts() attempts, not over
// rows). The DD factorization shifts each subdomain alone, inside its team.
#pragma once

#include "factor/factor_options.hpp"
#include "factor/factor_report.hpp"
#include "factor/pivot_status.hpp"

namespace fgdd::detail {

// factor_with(α): restores the matrix's values into the factors and runs one factorization with
// shift α (0: none), recording into pivots. rows: block rows, b: the block size. Fills the shift
// fields and shifted_pivots of report; throws the pivot failure, naming the scalar row, when the
// last attempt still failed.
template <class FactorWith>
void factor_shifting_whole_matrix(const ExecSpace& space, const FactorOptions& options,
                                  const PivotStatus& pivots, Ordinal rows, int b,
                                  FactorReport& report, FactorWith&& factor_with) {
  const int attempts = options.shift_attempts();
  PivotReadback outcome;
  Scalar alpha = 0;
  int attempt = 0;
  for (;; ++attempt) {
    pivots.reset(space);
    alpha = attempt == 0 ? 0 : attempt == 1 ? Scalar(options.shift_amount) : 2 * alpha;
    factor_with(alpha);
    outcome = pivots.read(space);
    if (outcome.failed_row == rows || attempt >= attempts) break;
  }
  report.shift = alpha;
  report.shift_attempts = attempt;
  report.shifted_rows = alpha > 0 ? Offset(rows) * b : 0;
  if (outcome.failed_row < rows)
    throw_pivot_failure(std::int64_t(outcome.failed_row) * b, outcome.pivot, options.shift,
                        report.shift);
  report.shifted_pivots = outcome.shifted;
}

}  // namespace fgdd::detail
