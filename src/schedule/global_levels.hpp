// Level sets of a whole matrix's lower or upper triangle (no subdomains), built on the device by
// in-degree counting and frontier peeling, for the exact global ILU0 and its triangular solves.
#pragma once

#include "core/sparse_matrix.hpp"
#include "schedule/subdomain_levels.hpp"

#include <vector>

namespace fgdd {

// Level l holds the block rows rows(level_ptr(l)) .. rows(level_ptr(l + 1) - 1), ascending. A
// row's level is one more than the highest level among the rows it depends on (0 when it depends
// on none), so the rows of one level are independent of each other and only read rows of
// earlier levels. Lower: row i depends on the block columns j < i it holds; Upper: on j > i.
struct GlobalLevels {
  Triangle triangle = Triangle::Lower;
  Ordinal num_levels = 0;
  Kokkos::View<Ordinal*, DeviceType> level_ptr;  // num_levels + 1 positions in rows
  std::vector<Ordinal> host_level_ptr;           // the same on the host: one launch per level
  Kokkos::View<Ordinal*, DeviceType> rows;       // the n block rows, level by level
  Ordinal max_level_rows = 0;                    // rows of the widest level
  Offset num_dependencies = 0;                   // strictly triangular blocks of the triangle
  double seconds = 0;                            // device time to build all of this
};

// The position of the diagonal block in each block row of A (every SparseMatrix has one and
// sorted columns, so it is found by binary search), on the device.
Kokkos::View<Offset*, DeviceType> diagonal_positions(const ExecSpace& space, const SparseMatrix& A);

// Builds the level sets of one triangle of A. diag_position: from diagonal_positions(space, A).
// No sequential sweep: one count/scan/scatter pass builds who-depends-on-whom, then each level
// costs one parallel scan (O(entries) work in all, one host round trip per level). Throws
// InvalidInput if diag_position does not have one entry per block row.
GlobalLevels build_global_levels(const ExecSpace& space, const SparseMatrix& A,
                                 const Kokkos::View<Offset*, DeviceType>& diag_position,
                                 Triangle triangle);

}  // namespace fgdd
