// Options of the factorization stage: the ILU form and what to do with zero or tiny pivots
// (Ifpack2's absolute/relative thresholds; never a silent replacement).
#pragma once

#include "core/dense_block.hpp"

namespace fgdd {

enum class IluForm {
  Ilu0,   // L unit lower, U upper with its diagonal (inv_diag also kept for the solves)
  Ildu0,  // L unit lower, U unit upper, D⁻¹ separately (paper Fig. 4.4)
  Ildlt,  // IC0 as L D Lᵀ for symmetric (positive definite) input: L and D are computed (half
          // the work of Ildu0), then Lᵀ is stored as the unit upper U, so the result has the
          // Ildu0 layout and every Ildu0 solve applies it
};

struct FactorOptions {
  IluForm form = IluForm::Ildu0;
  // A pivot d of row i is tiny when |d| <= pivot_threshold · max_j |A_ij| (or d is 0 or not
  // finite). Without shifting, a tiny pivot throws ZeroPivot naming the row.
  double pivot_threshold = 1e-14;
  // ILU(k): keep fill up to this level inside each subdomain (0 = the matrix's own pattern).
  // More fill, fewer iterations; the symbolic phase runs once on the host.
  int level_of_fill = 0;
  // Opt-in: replace a tiny pivot by absolute_shift·sign(d) + relative_shift·d and count it.
  bool shift_tiny_pivots = false;
  double absolute_shift = 1e-8;
  double relative_shift = 1.0;

  // Throws InvalidInput naming the offending field.
  void validate() const;

  // The pivot fields as the factorization kernels take them (tiny is relative to the row's
  // largest entry there).
  detail::PivotRule pivot_rule() const {
    return {Scalar(pivot_threshold), shift_tiny_pivots, Scalar(absolute_shift),
            Scalar(relative_shift)};
  }
};

}  // namespace fgdd
