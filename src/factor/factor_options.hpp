// Options of the factorization stage: the ILU form and what to do with zero, tiny or (IC0)
// non-positive pivots (PETSc's shift types; never a silent replacement).
#pragma once

#include "core/dense_block.hpp"
#include "core/enum_names.hpp"
#include "factor/pivot_shift.hpp"

namespace fgdd {

enum class IluForm {
  Ilu0,   // L unit lower, U upper with its diagonal (inv_diag also kept for the solves)
  Ildu0,  // L unit lower, U unit upper, D⁻¹ separately (paper Fig. 4.4)
  Ildlt,  // IC0 as L D Lᵀ for symmetric (positive definite) input: L and D are computed (half
          // the work of Ildu0), then Lᵀ is stored as the unit upper U, so the result has the
          // Ildu0 layout and every Ildu0 solve applies it
};

// The order in which a subdomain's rows are eliminated. Every order gives the same factors, bit
// for bit: a row reads only rows it depends on, and those are final before it in either order.
enum class FactorOrder {
  Auto,    // rows on CPU backends, levels on GPUs
  Levels,  // the subdomain's level sets, a team of threads per level (the paper's Algorithm 4)
  Rows,    // ascending rows, one thread per subdomain: no level sets to build, which is what a
           // CPU thread that owns its subdomain wants
};

inline const auto factor_order_names = make_enum_names<FactorOrder>(
    "factorization order",
    {{FactorOrder::Auto, "auto"}, {FactorOrder::Levels, "levels"}, {FactorOrder::Rows, "rows"}});

// Auto resolved for the default execution space; others come back as given.
FactorOrder resolve_auto(FactorOrder order);

struct FactorOptions {
  IluForm form = IluForm::Ildu0;
  // A pivot d of row i is tiny when |d| <= pivot_threshold · max_j |A_ij| (or d is 0 or not
  // finite). Without shifting, a tiny pivot throws ZeroPivot naming the row.
  double pivot_threshold = 1e-14;
  // ILU(k): keep fill up to this level inside each subdomain (0 = the matrix's own pattern).
  // More fill, fewer iterations; the symbolic phase runs once on the host.
  int level_of_fill = 0;
  // What a failing pivot does (pivot_shift.hpp). Nonzero: replace a tiny pivot by
  // absolute_shift·sign(d) + relative_shift·d and count it. PositiveDefinite: a pivot that is
  // tiny or whose sign differs from its diagonal's (IC0: not positive) refactors A + α·S with
  // S = diag(sign_r·‖row r‖₁), α = shift_amount, then doubling, until every pivot passes or α
  // passed 2 (where it must, PivotTreatment); per subdomain in the DD factorization, for the
  // whole matrix in the global and structured ones.
  PivotShift shift = PivotShift::None;
  // The older spelling of shift = Nonzero, kept: true with shift None means Nonzero (with
  // PositiveDefinite it is a contradiction, refused by validate()).
  bool shift_tiny_pivots = false;
  double absolute_shift = 1e-8;
  double relative_shift = 1.0;
  // PositiveDefinite: the first α (relative to each row's 1-norm).
  double shift_amount = 1.0 / 1024;
  FactorOrder order = FactorOrder::Auto;
  // The DD factorization factors in the dropped matrix's own value array instead of a copy (one
  // copy and 8 bytes per entry less); that array then holds the factors. Only for owners that
  // refill the dropped values before every numeric() (Solver, DistributedSolver). Used by
  // ILU(0), ILDU(0) and IC(0) (its symmetric part formed over the dropped values) without fill;
  // with fill the factors need a pattern of their own.
  bool factor_in_place = false;

  // Throws InvalidInput naming the offending field.
  void validate() const;

  // The shift in effect (shift_tiny_pivots folded in).
  PivotShift effective_shift() const noexcept {
    return shift == PivotShift::None && shift_tiny_pivots ? PivotShift::Nonzero : shift;
  }
  // PositiveDefinite: the shifted attempts after the unshifted one (α = shift_amount·2^(k−1) for
  // k = 1 .. this, the last the first α ≥ 2); 0 for the other shifts.
  int shift_attempts() const noexcept;

  // The pivot fields as the factorization kernels take them (tiny is relative to the row's
  // largest entry there).
  detail::PivotRule pivot_rule() const {
    return {Scalar(pivot_threshold), effective_shift() == PivotShift::Nonzero,
            Scalar(absolute_shift), Scalar(relative_shift)};
  }
};

}  // namespace fgdd
