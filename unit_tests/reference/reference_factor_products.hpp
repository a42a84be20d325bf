// Products with the pieces of subdomain factors on the host (serial, obviously correct), for
// backward-error checks of the triangular solves: T·x and |T|·|x| for one triangle, M·z and
// (|L||D||U|)·|z| for the preconditioner, and their transposes.
#pragma once

#include "reference/reference_ilu0.hpp"

#include <vector>

namespace fgdd::reference {

// Factors in the layout of SubdomainIlu0::factors(): strict lower blocks L (unit diagonal
// implicit), diagonal blocks D, strict upper blocks U (unit upper when unit_upper, else the
// unscaled U of ILU0 whose diagonal is D).
struct HostFactors {
  HostBlockCsr F;
  bool unit_upper = true;
};

enum class Part { Lower, Upper };

// y = op(T) x with T the part's strict blocks plus I (unit) or D; op = transpose when asked.
// With absolute, every block and x entry is replaced by its absolute value.
std::vector<double> triangle_times(const HostBlockCsr& F, Part part, bool unit, bool transpose,
                                   bool absolute, const std::vector<double>& x);

// y = op(D) x (or |D||x|).
std::vector<double> diagonal_times(const HostBlockCsr& F, bool transpose, bool absolute,
                                   const std::vector<double>& x);

// y = op(M) z with M = L D U (unit upper) or L U (ILU0 form); with absolute, the bound
// (|L||D||U|)|z| in the same order.
std::vector<double> preconditioner_times(const HostFactors& f, bool transpose, bool absolute,
                                         const std::vector<double>& z);

// max over block rows of ‖ |D_i| |D_i⁻¹| ‖∞ (1 for scalar rows): how much multiplying by the
// computed D⁻¹ instead of dividing by D can amplify rounding.
double pivot_condition(const HostBlockCsr& F, const std::vector<double>& inv_diag);

// Scalar terms in the longest row sum of any product above: (blocks in the row + 1) · b.
int longest_row_terms(const HostBlockCsr& F);

}  // namespace fgdd::reference
