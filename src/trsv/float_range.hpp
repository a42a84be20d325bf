// Whether the factors fit float, checked before FactorPrecision::Float rounds the apply's copy.
#pragma once

#include "factor/subdomain_ilu0.hpp"

namespace fgdd {

// Throws ZeroPivot naming the caller's row (the first scalar row of the block row, 0-based) and
// the value when a strictly triangular factor entry or an entry of D⁻¹ exceeds float's largest
// value (3.4e38), or when a whole block of D⁻¹ lies below float's smallest normal (1.2e-38: a
// pivot near 1e38 or beyond). Rounded to float, that row of every apply would be ±inf or 0.
void check_factors_fit_float(const ExecSpace& space, const SubdomainIlu0& factorization);

// The pieces of that check, for an apply whose gather checks the triangles as it rounds them:
// the smallest block row whose D⁻¹ (and, with triangles, whose strictly triangular blocks)
// float cannot hold, or the number of block rows when all fit; and the throw for such a row.
Ordinal first_row_beyond_float(const ExecSpace& space, const SubdomainIlu0& factorization,
                               bool triangles);
[[noreturn]] void throw_beyond_float(const ExecSpace& space, const SubdomainIlu0& factorization,
                                     Ordinal block_row);

}  // namespace fgdd
