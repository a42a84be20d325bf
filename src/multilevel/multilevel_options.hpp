// Options of the inverse-based multilevel ILU (--precond multilevel-ilu; issue 36).
#pragma once

#include "core/enum_names.hpp"
#include "core/types.hpp"

namespace fgdd {

// The fill-reducing order each level is factored in.
enum class MultilevelOrdering {
  Auto,              // NestedDissection when fgdd has METIS, else Rcm
  NestedDissection,  // METIS_NodeND on the pattern of A + Aᵀ
  Rcm,               // reverse Cuthill–McKee on the same graph
  Natural,           // the level's own order
};

inline const auto multilevel_ordering_names = make_enum_names<MultilevelOrdering>(
    "multilevel ordering", {{MultilevelOrdering::Auto, "auto"},
                            {MultilevelOrdering::NestedDissection, "nd"},
                            {MultilevelOrdering::Rcm, "rcm"},
                            {MultilevelOrdering::Natural, "natural"}});

// What the apply multiplies with between the levels (eq. 4–5). Factored keeps L_C = A_CB (D_B
// U_B)⁻¹ and U_F = (L_B D_B)⁻¹ A_BC, as the setup computed them for the Schur complement: one
// L_B and one U_B solve per level, but L_C and U_F are the fill of the deferred rows. Original
// keeps A's own coupling blocks A_CB and A_BC (ILUPACK's choice, eq. 5 as written): two solves
// with L_B D_B U_B per level, and only A's entries besides the factors.
enum class MultilevelCouplings { Factored, Original };

inline const auto multilevel_couplings_names = make_enum_names<MultilevelCouplings>(
    "multilevel couplings",
    {{MultilevelCouplings::Factored, "factored"}, {MultilevelCouplings::Original, "original"}});

struct MultilevelIluOptions {
  double drop_tolerance = 1e-2;  // τ (the seed's experiments and ILUPACK's default)
  double inverse_bound = 5;      // κ: bound on the estimates of ‖L⁻¹‖ and ‖U⁻¹‖ per level
  Ordinal coarsest_size = 500;   // a Schur complement this small is inverted densely
  int max_levels = 10;           // the last level accepts every pivot
  MultilevelOrdering ordering = MultilevelOrdering::Auto;
  MultilevelCouplings couplings = MultilevelCouplings::Factored;

  // Throws InvalidInput naming the field: τ in [0, 1), κ >= 1, coarsest_size >= 1 and at most
  // 4,096 (its dense inverse), max_levels in 1..64.
  void validate() const;
};

}  // namespace fgdd
