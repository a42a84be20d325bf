// The structured-grid exact ILU(0) / IC(0) preconditioner (structilu-structured-grid.txt): the
// factors of A itself, nothing dropped, applied by wavefront sweeps whose levels come from the
// stencil. Works in the grid ordering or in any ordering A is given in (a solver's permutation).
#pragma once

#include "krylov/preconditioner.hpp"
#include "struct/struct_ilu0.hpp"

#include <memory>
#include <optional>

namespace fgdd {

struct StructIluOptions {
  // form Ilu0 (ILU(0)) or Ildlt (IC(0), symmetric A); pivot options as for GlobalIlu0.
  FactorOptions factor = [] {
    FactorOptions f;
    f.form = IluForm::Ilu0;
    return f;
  }();
  // The stencil; detected from A's pattern (offsets within detect_radius) when not set.
  std::optional<Stencil> stencil;
  int detect_radius = 2;
  StructSchedule schedule = StructSchedule::Auto;
  StructLayout layout = StructLayout::Auto;  // for the tiles schedule
  StructFactorLaunch factor_launch;          // for tuning; 0s: StructIlu0's choice
};

class StructIlu0Preconditioner final : public Preconditioner {
 public:
  // A: CSR/BSR whose block rows are grid points: in grid order (perm empty: row x + nx·(y +
  // ny·z)) or permuted, perm(grid point) = A's block row (Partition::perm). Vectors given to
  // apply are in A's ordering. Throws DimensionMismatch for a grid that does not fit A,
  // InvalidMatrix naming the row and column of a block outside the stencil, InvalidInput for bad
  // options, ZeroPivot naming the grid-order scalar row.
  StructIlu0Preconditioner(const ExecSpace& space, const SparseMatrix& A, const GridInfo& grid,
                           const StructIluOptions& options,
                           Kokkos::View<const Ordinal*, DeviceType> perm = {});

  // New values of the same pattern and ordering: gathered into the structured layout and
  // refactored; levels and tables are reused. Throws as the constructor.
  void update_values(const ExecSpace& space, const SparseMatrix& A);
  void update_values(const ExecSpace& space, const SparseMatrix& permuted,
                     const SparseMatrix&) override {
    update_values(space, permuted);
  }

  void apply(const ExecSpace& space, ConstVector r, Vector z) const override;
  // "struct-ilu0" or "struct-ic0".
  std::string name() const override;

  const StructIlu0& factorization() const noexcept { return *factorization_; }
  const FactorReport* factor_report() const noexcept override { return &factorization_->report(); }
  const StructuredMatrix& matrix() const noexcept { return matrix_; }

 private:
  // IC(0) factors the symmetric part ½(A + Aᵀ) (what StructIlu0 reads of it: the lower triangle
  // and the centre blocks): refuse an A that is not symmetric up to rounding
  // (detail::check_symmetry; InvalidInput naming the block row and column in the grid's
  // ordering and the measured asymmetry) instead of preconditioning with the wrong matrix.
  void check_symmetric(const ExecSpace& space, const SparseMatrix& A) const;

  StructIluOptions options_;
  Kokkos::View<const Ordinal*, DeviceType> perm_;
  StructuredMatrix matrix_;
  std::unique_ptr<StructIlu0> factorization_;
};

}  // namespace fgdd
