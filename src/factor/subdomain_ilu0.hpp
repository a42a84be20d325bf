// ILU0 / ILDU0 of the block-diagonal (dropped) matrix, one Kokkos team per subdomain
// (fine-grained-dd-sptrsv-gpu.txt §4.3, Algorithm 4) in the subdomain's level order, CSR and
// BSR. The constructor does the symbolic part once (diagonals, level sets); numeric() refactors
// new values of the same pattern on the device.
#pragma once

#include "core/sparse_matrix.hpp"
#include "factor/factor_options.hpp"
#include "factor/fill_pattern.hpp"
#include "factor/pivot_status.hpp"
#include "partition/partition.hpp"
#include "trsv/subdomain_levels.hpp"

#include <cstdint>

namespace fgdd {

struct FactorReport {
  Offset shifted_pivots = 0;  // pivots replaced because options.shift_tiny_pivots was set
  Offset fill_entries = 0;    // blocks ILU(k) added to the dropped pattern
  double symbolic_seconds = 0;
  double numeric_seconds = 0;
};

class SubdomainIlu0 {
 public:
  // dropped: A_p without inter-subdomain couplings (ReorderedSystem::dropped); partition: the
  // one that produced it. Throws InvalidInput if an entry lies outside its subdomain block, the
  // options are invalid, or (Ildlt) the matrix is not symmetric, naming the caller's block row.
  // Runs numeric() once.
  SubdomainIlu0(const ExecSpace& space, const SparseMatrix& dropped, const Partition& partition,
                const FactorOptions& options);

  // Refactors with new values of the same pattern (e.g. after update_values). Throws
  // InvalidInput for another pattern, ZeroPivot naming the row in the caller's ordering (and the
  // pivot value for b = 1) when a pivot is tiny and shifting is off.
  const FactorReport& numeric(const ExecSpace& space, const SparseMatrix& dropped);

  // The factors in the dropped pattern (plus fill for ILU(k)): blocks left of the diagonal hold L (unit lower, its
  // diagonal implicit); the diagonal blocks hold the pivots D; blocks right of it hold U, scaled
  // to unit upper (D⁻¹ U) for Ildu0 and Ildlt (where U = Lᵀ), unscaled for Ilu0.
  const SparseMatrix& factors() const noexcept { return factors_; }
  // D⁻¹, one b×b row-major block per block row.
  const Kokkos::View<Scalar*, DeviceType>& inv_diag() const noexcept { return inv_diag_; }
  // Position of the diagonal block in each block row.
  const Kokkos::View<Offset*, DeviceType>& diag_position() const noexcept { return diag_position_; }
  const FactorReport& report() const noexcept { return report_; }
  IluForm form() const noexcept { return options_.form; }
  // How many times the values were (re)computed; solves that keep a copy compare it.
  std::uint64_t numeric_count() const noexcept { return numeric_count_; }
  // The level sets of the lower triangle, built in the symbolic phase; the factorization runs in
  // their order and the triangular solves reuse them.
  const SubdomainLevels& lower_levels() const noexcept { return lower_levels_; }
  const Partition& partition() const noexcept { return partition_; }

 private:
  FactorOptions options_;
  Partition partition_;
  SparseMatrix factors_;
  FillPattern fill_;                        // empty for level_of_fill 0
  SparseMatrix::RowMap source_row_map_;     // the dropped pattern numeric() accepts
  SparseMatrix::ColumnIndices source_col_ind_;
  Kokkos::View<Scalar*, DeviceType> inv_diag_;
  Kokkos::View<Offset*, DeviceType> diag_position_;
  SubdomainLevels lower_levels_;
  FactorReport report_;
  std::uint64_t numeric_count_ = 0;
  detail::PivotStatus pivots_;
};

namespace detail {

// The first block row i holding a block A_ij that differs from A_jiᵀ by more than rounding
// (relative 1e-12), or a block without its mirror; A.num_block_rows() if A is symmetric.
// Columns must be sorted. IC0 forms check their input with it.
Ordinal first_asymmetric_row(const ExecSpace& space, const SparseMatrix& A);

}  // namespace detail

}  // namespace fgdd
