// The host setup of the inverse-based multilevel ILU (ilupack-gpu-data-parallel.txt §2.1): per
// level, equilibrate, reorder, factor with pivot deferral (crout_ildu), recurse on the Schur
// complement of the deferred rows and columns until it is empty or small enough to invert
// densely. The result is what eq. (5) applies; multilevel_ilu.hpp uploads it once.
#pragma once

#include "multilevel/host_csr.hpp"
#include "multilevel/multilevel_options.hpp"

#include <vector>

namespace fgdd::detail {

// One level ℓ of eq. (5), on vectors of its n rows (level ℓ's numbering: the rows of A for
// ℓ = 0, the previous level's deferred rows after that).
struct HostLevel {
  Ordinal n = 0;
  Ordinal nb = 0;                  // accepted pivots: the leading block B
  std::vector<Ordinal> order;      // the fill-reducing order (new → old), before the B/C split
  std::vector<Ordinal> perm;       // position q of the factored order → row of the level
  std::vector<Scalar> row_scale;   // Dr of row perm[q], by position q
  std::vector<Scalar> col_scale;   // Dc of column perm[q], by position q
  HostCsr factors;                 // nb×nb: L_B strictly lower, D_B diagonal, U_B strictly upper
  std::vector<Scalar> inv_d;       // D_B⁻¹
  // The couplings between B and C, in B and C numbering: L_C and U_F (Factored), or the scaled,
  // reordered level matrix's own blocks A_CB and A_BC (Original).
  MultilevelCouplings couplings = MultilevelCouplings::Factored;
  HostCsr LC;                      // (n − nb)×nb
  HostCsr UF;                      // nb×(n − nb)
  Offset shifted = 0;              // pivots shifted (the last level only)
  double seconds = 0;              // host time of this level's setup
};

struct MultilevelHostSetup {
  std::vector<HostLevel> levels;
  // The last Schur complement, when not empty, inverted densely: dense_n² entries, row-major.
  Ordinal dense_n = 0;
  std::vector<Scalar> dense_inverse;
  Offset dense_shifted = 0;        // zero pivots of its LU replaced
  double dense_seconds = 0;
};

// Throws InvalidInput for invalid options. previous: an earlier setup of a matrix with A's
// pattern (new values): each level whose size is unchanged reuses its fill-reducing order
// instead of computing it again; nullptr computes every order.
// The orders' graphs are built on space.
MultilevelHostSetup multilevel_setup(const ExecSpace& space, const HostCsr& A,
                                     const MultilevelIluOptions& options,
                                     const MultilevelHostSetup* previous = nullptr);

// Whether two setups deferred the same pivots on every level (and so have the same level sizes
// and orders): what a refactorization with new values hopes for.
bool same_pivot_sets(const MultilevelHostSetup& a, const MultilevelHostSetup& b);

// The inverse of a dense n×n row-major matrix by LU with partial pivoting; a zero pivot column
// gets τ-sized pivot (counted in shifted) so the result stays finite.
std::vector<Scalar> dense_inverse(const HostCsr& S, double shift, Offset& shifted);

}  // namespace fgdd::detail
