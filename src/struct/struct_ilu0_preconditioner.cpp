#include "struct/struct_ilu0_preconditioner.hpp"

#include "core/errors.hpp"
#include "factor/subdomain_ilu0.hpp"

#include <string>

namespace fgdd {

StructIlu0Preconditioner::StructIlu0Preconditioner(const ExecSpace& space, const SparseMatrix& A,
                                                   const GridInfo& grid,
                                                   const StructIluOptions& options,
                                                   Kokkos::View<const Ordinal*, DeviceType> perm)
    : options_(options), perm_(perm) {
  if (grid.empty())
    throw InvalidInput(
        "the structured ILU needs grid metadata (GridInfo): pass one with the matrix "
        "(generators provide it)");
  check_symmetric(space, A);
  const Stencil stencil = options_.stencil
                              ? *options_.stencil
                              : detect_stencil(space, A, grid, options_.detect_radius, perm_);
  matrix_ = to_structured(space, A, grid, stencil, perm_);
  factorization_ =
      std::make_unique<StructIlu0>(space, matrix_, options_.factor, options_.schedule,
                                   StructTileShape{}, options_.layout, options_.factor_launch);
}

void StructIlu0Preconditioner::check_symmetric(const ExecSpace& space,
                                               const SparseMatrix& A) const {
  if (options_.factor.form != IluForm::Ildlt) return;
  const Ordinal row = detail::first_asymmetric_row(space, A);
  if (row == A.num_block_rows()) return;
  Ordinal point = row;  // A's row in grid order: perm maps grid points to A's rows
  if (perm_.extent(0) != 0) {
    const auto perm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), perm_);
    for (Ordinal p = 0; p < Ordinal(perm.extent(0)); ++p)
      if (perm(p) == row) point = p;
  }
  throw InvalidInput("IC(0) (struct-ic0) needs a symmetric matrix: block row " +
                     std::to_string(point) + " has an entry whose mirror is missing or differs");
}

void StructIlu0Preconditioner::update_values(const ExecSpace& space, const SparseMatrix& A) {
  check_symmetric(space, A);
  fill_structured(space, A, perm_, matrix_);
  factorization_->numeric(space, matrix_);
}

void StructIlu0Preconditioner::apply(const ExecSpace& space, ConstVector r, Vector z) const {
  factorization_->apply(space, r, z, perm_);
}

std::string StructIlu0Preconditioner::name() const {
  return options_.factor.form == IluForm::Ildlt ? "struct-ic0" : "struct-ilu0";
}

}  // namespace fgdd
