// ILU0 / ILDU0 of the block-diagonal (dropped) matrix, one Kokkos team per subdomain
// (fine-grained-dd-sptrsv-gpu.txt §4.3, Algorithm 4) in the subdomain's level order, CSR and
// BSR, or in ascending rows with one thread per subdomain (FactorOrder::Rows, the CPU default).
// The constructor does the symbolic part once (diagonals; level sets and each row's update list
// when they are the order);
// numeric() refactors new values of the same pattern on the device.
#pragma once

#include "core/kept_runs.hpp"
#include "core/sparse_matrix.hpp"
#include "factor/elimination_streams.hpp"
#include "factor/factor_options.hpp"
#include "factor/factor_report.hpp"
#include "factor/fill_pattern.hpp"
#include "factor/pivot_status.hpp"
#include "factor/symmetry.hpp"
#include "partition/partition.hpp"
#include "schedule/subdomain_levels.hpp"

#include <cstdint>

namespace fgdd {

class SubdomainIlu0 {
 public:
  // dropped: A_p without inter-subdomain couplings (ReorderedSystem::dropped); partition: the
  // one that produced it. Throws InvalidInput if an entry lies outside its subdomain block, the
  // options are invalid, or (Ildlt) the matrix is not symmetric up to rounding
  // (detail::check_symmetry), naming the caller's block row and the measured asymmetry. Ildlt
  // factors the symmetric part ½(A + Aᵀ) of dropped (what it reads of it: the lower triangle and
  // the diagonal blocks). Runs numeric() once, with runs.
  SubdomainIlu0(const ExecSpace& space, const SparseMatrix& dropped, const Partition& partition,
                const FactorOptions& options, const KeptRuns& runs = {});

  // Refactors with new values of the same pattern (e.g. after update_values). Throws
  // InvalidInput for another pattern or (Ildlt) values not symmetric up to rounding, ZeroPivot
  // naming the row in the caller's ordering (and the pivot value for b = 1) when a pivot is tiny
  // and shifting is off, or fails at every shift (PivotOverflow for a pivot that overflowed).
  // After a throw for values, factors() holds no usable values until a numeric() succeeds.
  // Shift positive_definite refactors each failing subdomain alone, inside its team, with a
  // growing shift. runs, when given: dropped's values were not filled (DroppedValues::Deferred)
  // and lie in runs, read there (the rows-order CSR factorization reads each row as it
  // eliminates it; the other forms copy them into dropped's values first).
  const FactorReport& numeric(const ExecSpace& space, const SparseMatrix& dropped,
                              const KeptRuns& runs = {});

  // The factors in the dropped pattern (plus fill for ILU(k)): blocks left of the diagonal hold L
  // (unit lower, its diagonal implicit); the diagonal blocks hold the pivots D; blocks right of it
  // hold U, scaled to unit upper (D⁻¹ U) for Ildu0 and Ildlt (where U = Lᵀ), unscaled for Ilu0.
  const SparseMatrix& factors() const noexcept { return factors_; }
  // D⁻¹, one b×b row-major block per block row.
  const Kokkos::View<Scalar*, DeviceType>& inv_diag() const noexcept { return inv_diag_; }
  // Position of the diagonal block in each block row.
  const Kokkos::View<Offset*, DeviceType>& diag_position() const noexcept { return diag_position_; }
  const FactorReport& report() const noexcept { return report_; }
  IluForm form() const noexcept { return options_.form; }
  // How many times the values were (re)computed; solves that keep a copy compare it.
  std::uint64_t numeric_count() const noexcept { return numeric_count_; }
  // The level sets of the lower triangle when the factorization ran in their order
  // (FactorOrder::Levels; the triangular solves reuse them), else nullptr.
  const SubdomainLevels* lower_levels() const noexcept {
    return lower_levels_.level_ptr.is_allocated() ? &lower_levels_ : nullptr;
  }
  const Partition& partition() const noexcept { return partition_; }

 private:
  // Ildlt: throws InvalidInput naming the caller's row, column and the measured asymmetry
  // where check (of the dropped matrix) found the matrix not symmetric.
  void refuse_asymmetric(const detail::SymmetryCheck& check) const;
  // Shift positive_definite: the subdomains' α and attempts into report_.
  void read_shift_report(const ExecSpace& space);

  FactorOptions options_;
  Partition partition_;
  SparseMatrix factors_;
  FillPattern fill_;                     // empty for level_of_fill 0
  SparseMatrix::RowMap source_row_map_;  // the dropped pattern numeric() accepts
  SparseMatrix::ColumnIndices source_col_ind_;
  Kokkos::View<Scalar*, DeviceType> inv_diag_;
  Kokkos::View<Offset*, DeviceType> diag_position_;
  SubdomainLevels lower_levels_;  // built only for FactorOrder::Levels
  detail::EliminationStreams streams_;  // Levels, except Ildlt
  Kokkos::View<Ordinal*, DeviceType> lower_reach_;  // Rows, Ildu0: detail::lower_reach
  FactorReport report_;
  std::uint64_t numeric_count_ = 0;
  detail::PivotStatus pivots_;
  // Shift positive_definite: the values each attempt starts from where the factorization
  // overwrites its input (ILU in place, or ILU with fill), s_r per scalar row, and the α each
  // subdomain ended with. Ildlt with fill: the scattered values before symmetrizing.
  SparseMatrix::Values initial_values_;
  // Ildlt in place instead: only the diagonal blocks. Its elimination writes L and D alone, so
  // the upper blocks still hold the symmetric part's mirrors of L's first values (Lᵀ is copied
  // there after the last attempt): P2's 3.3M entries kept 0.9 MB instead of 26 MB.
  Kokkos::View<Scalar*, DeviceType> initial_diagonal_;
  Kokkos::View<Scalar*, DeviceType> shift_scale_;
  Kokkos::View<Scalar*, DeviceType> subdomain_shift_;
  Kokkos::View<int*, DeviceType> subdomain_attempts_;
  SparseMatrix::Values unsymmetric_values_;
  detail::MirrorPositions mirror_;  // Ildlt: block (j, i)'s position for each block (i, j)
};

}  // namespace fgdd
