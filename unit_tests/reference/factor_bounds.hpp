// Host algebra on ILU factors in block CSR, in long double so the host's own rounding stays far
// below the bounds it checks, and the rounding bounds the factor and solve tests compare with
// (Higham, Accuracy and Stability of Numerical Algorithms, Thms 8.5 and 9.3).
#pragma once

#include "factor/factor_options.hpp"
#include "reference/reference_ilu0.hpp"

#include <vector>

namespace fgdd::reference {

using LongVector = std::vector<long double>;
enum class FactorPart { StrictLower, Diagonal, StrictUpper };

// y = P v for one part P of the factors (|P| v when absolute).
LongVector multiply_part(const HostBlockCsr& F, FactorPart part, const LongVector& v,
                         bool absolute);
LongVector plus(LongVector a, const LongVector& b);
LongVector widen(const std::vector<double>& x);
LongVector magnitudes(const std::vector<double>& x);

// M v with M = L D U (Ildu0: L, U unit) or L U (Ilu0: U holds the pivots); with absolute, the
// bound's matrix |L||D||U| (|L||U|) applied to v.
LongVector multiply_m(const HostBlockCsr& F, IluForm form, const LongVector& v, bool absolute);

// Tolerance for |factor − reference factor| of two IKJ eliminations that differ only in the
// summation order inside b×b block products and in FMA contraction. Entry (i,k) is
// a_ik − Σ_j l_ij u_jk over at most m = (blocks in row)·b scalar terms, so each carries a
// rounding error ≤ γ_m (|L||U|)_ik (Thm 9.3, valid entrywise on ILU0's pattern), twice that for
// the difference of two such computations. Errors inherited from earlier rows are damped by
// multipliers below 1 in magnitude (every test matrix is diagonally dominant or an M-matrix),
// which at most doubles it again: 4 γ_m max(|L||U|), |L||U| from F (Ilu0 form).
double factor_tolerance(const HostBlockCsr& F);

// The rounding bound γ of an apply by level-scheduled substitution: a row of a sweep is the same
// inner product, in the same order, as serial substitution, over at most m = (blocks in the
// row)·b scalar terms plus the b×b D⁻¹ product, so each sweep is backward stable with
// γ_{m+b} (Thm 8.5) relative to the magnitudes of the factors it uses. An apply chains two
// sweeps (D⁻¹ folded into one of them), hence 2γ. The pivots enter through the stored D⁻¹
// (inv_diag, b² per block row), whose own residual |D·D⁻¹ − I| is about b·u·|D||D⁻¹|, so for
// b > 1 the bound is scaled by κ_D = max_i ‖|D_i||D_i⁻¹|‖∞ (1 for b = 1).
double substitution_gamma(const HostBlockCsr& F, const std::vector<double>& inv_diag);

// max over block rows of (largest |residual| component) / (γ · largest bound component),
// blockwise; ≤ 1 passes. Rows where both are zero count as 0.
double backward_error_ratio(const LongVector& residual, const LongVector& bound, int b,
                            double gamma);

// backward_error_ratio of z = M⁻¹ r: residual r − M z against the bound |M| |z|.
double apply_ratio(const HostBlockCsr& F, IluForm form, double gamma, const std::vector<double>& r,
                   const std::vector<double>& z);

}  // namespace fgdd::reference
