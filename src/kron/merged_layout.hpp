// The two layouts of the s-column block vector X = (x⁽¹⁾, ..., x⁽ˢ⁾), n × s (n spatial scalar
// rows, s stages; kronecker-gmres-multi-gpu.txt §"The SpMV in Kronecker product form").
//
//   stacked  vec(X), column-major: x⁽ᵏ⁾ is contiguous, entry (i, k) at k·n + i. This is the
//            ordering of the paper's Eq. 2 and of the explicit matrix A ⊗ M + τ B ⊗ L.
//   merged   X row-major: entry (i, k) at i·s + k, so the s·b values of one block row of M
//            and L are contiguous (the paper's merged vector, Fig. 4).
//
// KroneckerOperator, its preconditioner and GMRES work on merged vectors throughout. merged =
// P vec(X) for the perfect-shuffle permutation P, and P (A ⊗ M + τ B ⊗ L) Pᵀ = M ⊗ A + τ L ⊗ B,
// so GMRES on the merged system makes the same iterates (norms and dots are invariant under P)
// up to rounding. Convert only at the boundaries: right-hand sides in, solutions out.
#pragma once

#include "core/types.hpp"

namespace fgdd {

// merged(i·s + k) = stacked(k·n + i). Throws DimensionMismatch unless both lengths are equal
// and divisible by stages (stages ≥ 1).
void stacked_to_merged(const ExecSpace& space, int stages, ConstVector stacked, Vector merged);

// stacked(k·n + i) = merged(i·s + k); throws as stacked_to_merged.
void merged_to_stacked(const ExecSpace& space, int stages, ConstVector merged, Vector stacked);

}  // namespace fgdd
