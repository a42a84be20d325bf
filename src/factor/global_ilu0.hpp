// Exact, dependency-preserving ILU0 / ILDU0 of a whole matrix (no subdomains, nothing dropped):
// the same factors as the serial IKJ ILU0 up to rounding, computed level by level on GPUs (one
// launch per level of the lower triangle) and by one thread in row order on CPUs. CSR and BSR.
// The exact baseline the DD preconditioner is measured against, and a preconditioner users may
// choose.
#pragma once

#include "core/sparse_matrix.hpp"
#include "factor/factor_options.hpp"
#include "factor/global_factors.hpp"
#include "schedule/global_levels.hpp"
#include "factor/pivot_status.hpp"
#include "factor/subdomain_ilu0.hpp"

namespace fgdd {

namespace detail {
struct GlobalIlu0Data;
}

class GlobalIlu0 {
 public:
  // A: any SparseMatrix. Finds the diagonals and, where the factorization runs by levels (GPUs),
  // builds the lower level sets once (the symbolic part), then runs numeric(). Throws
  // InvalidInput for invalid options (also for IluForm::Ildlt and level_of_fill > 0, which only
  // SubdomainIlu0 offers) or a block size above 16, ZeroPivot as numeric() does.
  GlobalIlu0(const ExecSpace& space, const SparseMatrix& A, const FactorOptions& options);

  // Refactors with new values of the same pattern; the level sets are reused. A is the matrix
  // given to the constructor or any matrix with an identical pattern (checked on the device).
  // Throws InvalidInput for another pattern or block size, ZeroPivot naming the scalar row of A
  // (the first row of the smallest failing block row; with its pivot value for b = 1, its
  // smallest |pivot| otherwise) when a pivot is tiny and shifting is off, or fails at every
  // shift (PivotOverflow for a pivot that overflowed). Shift positive_definite refactors the
  // whole matrix with a growing shift while a pivot fails.
  const FactorReport& numeric(const ExecSpace& space, const SparseMatrix& A);

  // The factors in A's pattern: blocks left of the diagonal hold L (unit lower, its diagonal
  // implicit); the diagonal blocks hold the pivots D; blocks right of it hold U, scaled to unit
  // upper (D⁻¹ U) for Ildu0 and unscaled for Ilu0.
  const SparseMatrix& factors() const noexcept { return factors_; }
  // D⁻¹, one b×b row-major block per block row.
  const Kokkos::View<Scalar*, DeviceType>& inv_diag() const noexcept { return inv_diag_; }
  // Position of the diagonal block in each block row.
  const Kokkos::View<Offset*, DeviceType>& diag_position() const noexcept { return diag_position_; }
  const FactorReport& report() const noexcept { return report_; }
  IluForm form() const noexcept { return options_.form; }
  // How many times the values were (re)computed; solves that keep a copy compare it.
  std::uint64_t numeric_count() const noexcept { return numeric_count_; }
  // What GlobalTrsv reads; it follows numeric() (this object must not move while it is used).
  GlobalFactors global_factors() const {
    return GlobalFactors(factors_, inv_diag_, diag_position_, options_.form, &numeric_count_);
  }
  // The level sets of the lower triangle: the factorization runs in their order and the lower
  // triangular solves reuse them. CPU backends factor in row order without them; there they are
  // built on the first call.
  const GlobalLevels& lower_levels() const;

 private:
  // One factorization of the values in factors_ (the level launches, then the Ildu0 scaling).
  void launch(const ExecSpace& space, const detail::GlobalIlu0Data& data, bool scale) const;

  FactorOptions options_;
  SparseMatrix factors_;
  Kokkos::View<Scalar*, DeviceType> inv_diag_;
  Kokkos::View<Offset*, DeviceType> diag_position_;
  mutable GlobalLevels lower_levels_;
  mutable bool has_lower_levels_ = false;
  FactorReport report_;
  std::uint64_t numeric_count_ = 0;
  int vector_length_ = 1;  // lanes per row in the elimination kernel
  detail::PivotStatus pivots_;
  Kokkos::View<Scalar*, DeviceType> shift_scale_;    // shift positive_definite: s_r per scalar row
  Kokkos::View<Offset*, DeviceType> row_positions_;  // CPUs: the row-order factorization's map
};

}  // namespace fgdd
