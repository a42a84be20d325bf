// What IC0 needs of its input: a symmetric matrix up to rounding, judged against the scale of
// the rows (not entry by entry, where cancellation noise looks like asymmetry), and the
// symmetric part ½(A + Aᵀ) it then factors. Both run on the device, CSR and BSR.
#pragma once

#include "core/sparse_matrix.hpp"

#include <cstdint>

#include <limits>

namespace fgdd::detail {

// |a_ij − a_ji| ≤ tol·max(‖row i‖∞, ‖row j‖∞) counts as symmetric. An assembled entry is a sum of
// element contributions; a_ij and a_ji sum the same terms in another order, which may differ by
// about (terms)·ε·Σ|terms|, and the row's largest entry (the diagonal, in a FEM matrix) bounds
// Σ|terms|. 256 ε (5.7e-14) covers ~100 contributions an entry, yet an asymmetry that matters to
// a preconditioner (≥ 1e-10 relative) is refused.
constexpr double symmetry_tolerance = 256 * std::numeric_limits<double>::epsilon();

struct SymmetryCheck {
  Ordinal first_row = 0;  // the first block row with an entry beyond tolerance (or without its
                          // mirror); num_block_rows when symmetric
  Ordinal column = -1;    // that entry's block column
  bool missing_mirror = false;
  // max over entries of |a_ij − a_ji| / max(‖row i‖∞, ‖row j‖∞) (0 for a zero row pair); +inf
  // when an entry has no mirror in the pattern.
  double asymmetry = 0;
};

// mirror(k) = the position of block (j, i) for block k = (i, j) of A, or row_map(j + 1) when A
// does not store it. Built once per pattern (a search of row j per block), so that the checks
// and the symmetric part of every refactorization read positions instead of searching. Stored
// in 4 bytes a block where A has fewer than 2³² blocks, else in 8 (Wide): the array is as large
// as IC(0)'s scalar factor values (4 bytes took P2 Poisson's CG + IC(0) peak from 266 to 254 MB).
enum class MirrorStorage { Auto, Wide };
struct MirrorPositions {
  Kokkos::View<std::uint32_t*, DeviceType> narrow;
  Kokkos::View<Offset*, DeviceType> wide;  // allocated instead of narrow for Wide

  KOKKOS_INLINE_FUNCTION Offset operator()(Offset k) const {
    return wide.extent(0) > 0 ? wide(k) : Offset(narrow(k));
  }
  KOKKOS_INLINE_FUNCTION void set(Offset k, Offset position) const {
    if (wide.extent(0) > 0)
      wide(k) = position;
    else
      narrow(k) = std::uint32_t(position);
  }
};
MirrorPositions mirror_positions(const ExecSpace& space, const SparseMatrix& A,
                                 MirrorStorage storage = MirrorStorage::Auto);
// The same for A whose entries all lie in the diagonal blocks of rows [offsets(s), offsets(s+1)),
// s < num_blocks (the subdomain factors), diag(i) the position of block (i, i). On host backends
// each block is merged by one thread, rows in ascending order with a cursor per row into its
// upper blocks, instead of searched (a pair's upper block is the next one its row's cursor
// meets); elsewhere mirror_positions.
MirrorPositions mirror_positions(const ExecSpace& space, const SparseMatrix& A,
                                 const Kokkos::View<Offset*, DeviceType>& diag,
                                 const Kokkos::View<Ordinal*, DeviceType>& offsets,
                                 Ordinal num_blocks, MirrorStorage storage = MirrorStorage::Auto);

// Checks A (sorted columns) on space; block (i, j) is compared with block (j, i) transposed.
SymmetryCheck check_symmetry(const ExecSpace& space, const SparseMatrix& A);
// The same with A's mirror positions already built.
SymmetryCheck check_symmetry(const ExecSpace& space, const SparseMatrix& A,
                             const MirrorPositions& mirror);

// Block k of ½(in + inᵀ) into out, m its mirror's position, b the block size: the one formula
// symmetric_part and the shifted factorization's retries form it by (the same bits).
template <class In, class Out>
KOKKOS_INLINE_FUNCTION void symmetric_block(const In& in, const Out& out, const Offset k,
                                            const Offset m, const int b) {
  const int bb = b * b;
  for (int r = 0; r < b; ++r)
    for (int c = 0; c < b; ++c)
      out(k * bb + r * b + c) = Scalar(0.5) * (in(k * bb + r * b + c) + in(m * bb + c * b + r));
}

// out = ½(in + inᵀ) on A's pattern, which must be symmetric (check_symmetry); in and out hold
// values in that pattern and must not alias; mirror: A's mirror positions.
void symmetric_part(const ExecSpace& space, const SparseMatrix& A, const MirrorPositions& mirror,
                    const SparseMatrix::Values& in, const SparseMatrix::Values& out);

// check_symmetry(space, A, mirror) and, in the same pass, out = ½(A + Aᵀ): each pair of mirror
// blocks is read once, from its lower block, instead of twice in each of the two (every
// refactorization of IC0 does both). out may be A.values() itself (IC0 factored in place). out
// holds the symmetric part only where the check passes; where it fails out's values are
// unspecified (the caller refuses the matrix), and the verdict, first row and column included,
// comes from this pass alone. Same bits as symmetric_part.
SymmetryCheck checked_symmetric_part(const ExecSpace& space, const SparseMatrix& A,
                                     const MirrorPositions& mirror,
                                     const SparseMatrix::Values& out);

}  // namespace fgdd::detail
