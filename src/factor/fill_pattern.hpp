// The symbolic phase of ILU(k): the level-of-fill pattern of a matrix whose entries stay inside
// subdomain blocks (fill never leaves a diagonal block, so ILU(k) of the dropped matrix is ILU(k)
// within each subdomain).
#pragma once

#include "core/sparse_matrix.hpp"

namespace fgdd {

struct FillPattern {
  Kokkos::View<Offset*, DeviceType> row_map;
  SparseMatrix::ColumnIndices col_ind;
  // Where each block entry of the source matrix sits in the fill pattern.
  Kokkos::View<Offset*, DeviceType> source_position;
  Offset fill_entries = 0;  // blocks added to the source pattern
};

// Level-of-fill symbolic factorization (Saad, Iterative Methods §10.3.3): an entry created by
// eliminating with a level-l multiplier from a level-m row entry has level l + m + 1, and entries
// up to level_of_fill are kept. Runs on the host (a sequential row sweep) once per pattern; the
// numeric factorization then runs on the device on the returned pattern.
FillPattern ilu_fill_pattern(const SparseMatrix& A, int level_of_fill);

namespace detail {
// values(source_position(k)) = source(k) for every block entry k; other values become 0.
void scatter_into_pattern(const ExecSpace& space, const SparseMatrix& source,
                          const FillPattern& pattern, const SparseMatrix::Values& values);
}  // namespace detail

}  // namespace fgdd
