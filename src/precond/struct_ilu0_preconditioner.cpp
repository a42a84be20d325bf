#include "precond/struct_ilu0_preconditioner.hpp"

#include "core/errors.hpp"
#include "core/first_row_where.hpp"
#include "core/host_copy.hpp"
#include "factor/symmetry.hpp"

#include <sstream>
#include <string>
#include <vector>

namespace fgdd {

namespace {

// S ← ½(S + Sᵀ) in place: the thread of point p owns each pair (its lower entry a, the mirror
// entry of its neighbour q = p + o_a) and the centre block, so no two threads touch one value.
// The stencil is symmetric (StructIlu0 checks it for IC(0)).
void symmetrize(const ExecSpace& space, StructuredMatrix& S) {
  const Stencil& stencil = S.stencil();
  std::vector<int> host_mirror(stencil.size(), -1);
  for (int e = 0; e < stencil.size(); ++e) {
    const StencilOffset& o = stencil.offsets()[e];
    host_mirror[e] = stencil.index_of({-o.dx, -o.dy, -o.dz});
  }
  const auto mirror = detail::to_device(host_mirror, "fgdd::struct::symmetrize_mirror");
  const DeviceStencil device = S.device_stencil();
  const detail::GridCoordinates g{S.grid().nx, S.grid().ny, S.grid().nz};
  const auto values = S.values();
  const Offset np = S.num_points();
  const int b = S.block_size(), num_lower = stencil.num_lower(), center = stencil.center();
  Kokkos::parallel_for(
      "fgdd::struct::symmetrize", Kokkos::RangePolicy<ExecSpace>(space, 0, np),
      KOKKOS_LAMBDA(const Offset p) {
        const auto index = [&](int e, int r, int c, Offset point) {
          return ((Offset(e) * b + r) * b + c) * np + point;
        };
        Ordinal x, y, z;
        g.of(p, x, y, z);
        for (int a = 0; a < num_lower && mirror(a) >= 0; ++a) {
          if (!g.inside(x + device.offsets(a, 0), y + device.offsets(a, 1),
                        z + device.offsets(a, 2)))
            continue;
          const Offset q = Offset((long long)p + device.linear_offset(a));
          for (int r = 0; r < b; ++r)
            for (int c = 0; c < b; ++c) {
              const Offset mine = index(a, r, c, p), theirs = index(mirror(a), c, r, q);
              const Scalar average = Scalar(0.5) * (values(mine) + values(theirs));
              values(mine) = average;
              values(theirs) = average;
            }
        }
        for (int r = 0; r < b; ++r)
          for (int c = r + 1; c < b; ++c) {
            const Offset upper = index(center, r, c, p), lower = index(center, c, r, p);
            const Scalar average = Scalar(0.5) * (values(upper) + values(lower));
            values(upper) = average;
            values(lower) = average;
          }
      });
}

// A's block row in grid order: perm maps grid points to A's rows (empty: the same).
Ordinal grid_point(const ExecSpace& space, const Kokkos::View<const Ordinal*, DeviceType>& perm,
                   Ordinal row) {
  if (perm.extent(0) == 0) return row;
  return detail::first_row_where(
      space, Ordinal(perm.extent(0)), "fgdd::struct::grid_point",
      KOKKOS_LAMBDA(const Ordinal p) { return perm(p) == row; });
}

}  // namespace

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
  if (options_.factor.form == IluForm::Ildlt && stencil.is_symmetric()) symmetrize(space, matrix_);
  factorization_ =
      std::make_unique<StructIlu0>(space, matrix_, options_.factor, options_.schedule,
                                   StructTileShape{}, options_.layout, options_.factor_launch);
}

void StructIlu0Preconditioner::check_symmetric(const ExecSpace& space,
                                               const SparseMatrix& A) const {
  if (options_.factor.form != IluForm::Ildlt) return;
  const detail::SymmetryCheck check = detail::check_symmetry(space, A);
  if (check.first_row == A.num_block_rows()) return;
  std::ostringstream message;
  message << "IC(0) (struct-ic0) needs a symmetric matrix: block row "
          << grid_point(space, perm_, check.first_row) << ", column "
          << grid_point(space, perm_, check.column);
  if (check.missing_mirror)
    message << " has no mirror entry in the pattern";
  else
    message << " differs from its mirror: max |a_ij - a_ji| / max(|row i|_inf, |row j|_inf) = "
            << check.asymmetry << " exceeds the rounding tolerance " << detail::symmetry_tolerance;
  throw InvalidInput(message.str());
}

void StructIlu0Preconditioner::update_values(const ExecSpace& space, const SparseMatrix& A) {
  check_symmetric(space, A);
  fill_structured(space, A, perm_, matrix_);
  if (options_.factor.form == IluForm::Ildlt && matrix_.stencil().is_symmetric())
    symmetrize(space, matrix_);
  factorization_->numeric(space, matrix_);
}

void StructIlu0Preconditioner::apply(const ExecSpace& space, ConstVector r, Vector z) const {
  factorization_->apply(space, r, z, perm_);
}

std::string StructIlu0Preconditioner::name() const {
  return options_.factor.form == IluForm::Ildlt ? "struct-ic0" : "struct-ilu0";
}

}  // namespace fgdd
