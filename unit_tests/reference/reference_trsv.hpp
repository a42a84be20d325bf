// Serial reference triangular solves and products on the combined subdomain factors
// (fine-grained-dd-sptrsv-gpu.txt §4), with the componentwise bounds backward-error checks need:
// obviously correct, never fast.
#pragma once

#include "factor/subdomain_ilu0.hpp"
#include "reference/reference_ilu0.hpp"
#include "trsv/subdomain_trsv.hpp"

#include <vector>

namespace fgdd::reference {

// The factors on the host: strict lower blocks = L (unit lower), diagonal blocks = the pivots D,
// strict upper blocks = U (unit upper, scaled by D⁻¹, for Ildu0 and Ildlt; unscaled for Ilu0,
// whose U has D on its diagonal). inv_diag is the factorization's own D⁻¹ (b×b row-major per
// block row): every solve here applies D⁻¹ through it, as the device kernels do.
struct HostFactors {
  HostBlockCsr F;
  std::vector<double> inv_diag;
  IluForm form = IluForm::Ildu0;
};

HostFactors host_factors(const SubdomainIlu0& factorization);

// x = T⁻¹ r (or T⁻ᵀ r) by substitution, T = the strict triangle plus D (Pivots) or I (Unit).
// With magnitudes, every block is replaced by its absolute value and subtraction by addition:
// for r ≥ 0 the result bounds |T⁻¹| r (|T⁻ᵀ| r) from above, because for T = D(I + D⁻¹N) with
// N strictly triangular, |T⁻¹| ≤ (I − |D⁻¹||N|)⁻¹|D⁻¹| (the comparison-matrix bound, Higham,
// Accuracy and Stability of Numerical Algorithms, §8.3).
std::vector<double> triangular_solve(const HostFactors& h, Triangle triangle, Diagonal diagonal,
                                     const std::vector<double>& r, bool transposed = false,
                                     bool magnitudes = false);

// z = M⁻¹ r (or M⁻ᵀ r), M = L·D·U (Ildu0, Ildlt) or L·U (Ilu0); magnitudes as above, giving an
// upper bound of |M⁻¹| r for r ≥ 0.
std::vector<double> preconditioner_solve(const HostFactors& h, const std::vector<double>& r,
                                         bool transposed = false, bool magnitudes = false);

// A product and the componentwise bound that goes with it. In the bound a pivot block D_i
// counts as |D_i||D_i⁻¹||D_i| (|D_i| when b = 1): solves apply D through its computed inverse,
// and the rounding of that inverse and of the product with it are of that size.
struct ProductAndBound {
  std::vector<double> product;
  std::vector<double> bound;
};

// T·x (or Tᵀ·x) and |T||x| (|T|ᵀ|x|).
ProductAndBound triangular_product(const HostFactors& h, Triangle triangle, Diagonal diagonal,
                                   const std::vector<double>& x, bool transposed = false);

// M·z (or Mᵀ·z) and |L|(|D|(|U||z|)) for Ildu0 / Ildlt, |L|(|U||z|) for Ilu0 (transposed: the
// same factors transposed, in reverse order).
ProductAndBound preconditioner_product(const HostFactors& h, const std::vector<double>& z,
                                       bool transposed = false);

}  // namespace fgdd::reference
