// A matrix on a structured grid stored per stencil entry (structilu-structured-grid.txt §4.4, the
// vector-oriented layout): no column indices; for each stencil entry e and block element (r, c)
// the values of all grid points lie contiguously, so threads on consecutive points coalesce.
#pragma once

#include "core/sparse_matrix.hpp"
#include "struct/stencil.hpp"

#include <cstdint>

namespace fgdd {

namespace detail {

// Grid coordinates of point p (x fastest).
struct GridCoordinates {
  Ordinal nx = 1, ny = 1, nz = 1;
  KOKKOS_INLINE_FUNCTION void of(Offset p, Ordinal& x, Ordinal& y, Ordinal& z) const {
    x = Ordinal(p % Offset(nx));
    const Offset rest = p / Offset(nx);
    y = Ordinal(rest % Offset(ny));
    z = Ordinal(rest / Offset(ny));
  }
  KOKKOS_INLINE_FUNCTION bool inside(Ordinal x, Ordinal y, Ordinal z) const {
    return x >= 0 && x < nx && y >= 0 && y < ny && z >= 0 && z < nz;
  }
};

}  // namespace detail

// The stencil offsets on the device, with their linear column offsets for one grid.
struct DeviceStencil {
  int size = 1;
  int num_lower = 0;
  Kokkos::View<int* [3], DeviceType> offsets;          // (dx, dy, dz) per entry
  Kokkos::View<long long*, DeviceType> linear_offset;  // dx + nx·(dy + ny·dz) per entry
};

class StructuredMatrix {
 public:
  using Values = Kokkos::View<Scalar*, DeviceType>;

  StructuredMatrix() = default;
  // Zero values. Throws InvalidInput for a dimension < 1, a block size outside [1, 16] or more
  // scalar rows than Ordinal holds.
  StructuredMatrix(const GridInfo& grid, const Stencil& stencil, int block_size);

  const GridInfo& grid() const noexcept { return grid_; }
  const Stencil& stencil() const noexcept { return stencil_; }
  const DeviceStencil& device_stencil() const noexcept { return device_stencil_; }
  int block_size() const noexcept { return block_size_; }
  Offset num_points() const noexcept { return grid_.num_points(); }
  Offset num_rows() const noexcept { return num_points() * Offset(block_size_); }

  // Element (r, c) of the block of stencil entry e at grid point p (row p couples to column
  // p + linear_offset(e)) is values()(value_index(e, r, c, p)). Entries whose neighbour lies
  // outside the grid hold zero and are never read by the kernels.
  Offset value_index(int e, int r, int c, Offset p) const noexcept {
    return ((Offset(e) * block_size_ + r) * block_size_ + c) * num_points() + p;
  }
  const Values& values() const noexcept { return values_; }

  // The same grid, stencil and block size without values (values() empty), for a holder whose
  // values live elsewhere; allocate_values() gives it zero values.
  StructuredMatrix shape() const;
  void allocate_values();

  // True if other has the same grid, stencil and block size (values may differ).
  bool same_structure(const StructuredMatrix& other) const noexcept;

 private:
  GridInfo grid_;
  Stencil stencil_;
  DeviceStencil device_stencil_;
  int block_size_ = 1;
  Values values_;
};

// Values of structured_problem.
enum class StructuredValues {
  Symmetric,     // A = Aᵀ, positive diagonal, strictly diagonally dominant: SPD
  Nonsymmetric,  // strictly diagonally dominant by rows, no symmetry
};

// A generated test problem with deterministic pseudo-random values (seed), assembled on the
// device: off-diagonal entries in [-1, 1) and each scalar diagonal entry 1 + the sum of the
// magnitudes of its row's other entries. Symmetric needs a symmetric stencil. Throws
// InvalidInput for bad sizes or a non-symmetric stencil with Symmetric.
StructuredMatrix structured_problem(const ExecSpace& space, const GridInfo& grid,
                                    const Stencil& stencil, int block_size,
                                    StructuredValues kind = StructuredValues::Nonsymmetric,
                                    std::uint64_t seed = 2026);

// The stencil of A on grid: every offset between a row's grid point and a stored block's grid
// point, found on the device; named after a built-in stencil when it equals one. perm as for
// to_structured. Throws DimensionMismatch if grid does not have one point per block row,
// InvalidMatrix naming the block row and column (A's numbering) of the first block whose offset
// has a component beyond max_radius (e.g. a wrap-around coupling), InvalidInput for a
// max_radius outside [0, Stencil::max_radius].
Stencil detect_stencil(const ExecSpace& space, const SparseMatrix& A, const GridInfo& grid,
                       int max_radius = 2,
                       const Kokkos::View<const Ordinal*, DeviceType>& perm = {});

// The structured form of A (CSR or BSR) on grid with the given stencil. perm, when not empty,
// maps grid point p to A's block row perm(p) (A = P A_grid Pᵀ, e.g. a solver's reordered
// matrix); otherwise block row p is grid point p. Stencil entries A does not store are zeros
// (so ILU(0) of the result is ILU(0) of A's pattern padded to the full stencil). Throws
// DimensionMismatch for a grid or perm of the wrong size and InvalidMatrix naming the block row
// and column (A's numbering) of the first block whose offset is not in the stencil.
StructuredMatrix to_structured(const ExecSpace& space, const SparseMatrix& A, const GridInfo& grid,
                               const Stencil& stencil,
                               const Kokkos::View<const Ordinal*, DeviceType>& perm = {});

// Refills S's values from A (same rules as to_structured, S's stencil); no allocation.
void fill_structured(const ExecSpace& space, const SparseMatrix& A,
                     const Kokkos::View<const Ordinal*, DeviceType>& perm, StructuredMatrix& S);

// The BSR (CSR for block size 1) form in grid order: every in-grid stencil neighbour is stored,
// zeros included, with sorted columns. Built on the device.
SparseMatrix to_sparse(const ExecSpace& space, const StructuredMatrix& S);

}  // namespace fgdd
