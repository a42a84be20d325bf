// A matrix whose block rows are runs of another's rows (internal): the dropped matrix's rows
// inside A_p's, whose columns are sorted with a subdomain's rows consecutive, so each row keeps
// one run. Its values can be read where they lie instead of copied first.
#pragma once

#include "core/sparse_matrix.hpp"

namespace fgdd {

struct KeptRuns {
  SparseMatrix::Values values;              // the longer rows' values (A_p's)
  Kokkos::View<Offset*, DeviceType> start;  // block row r's run begins at block start(r) there
  bool empty() const noexcept { return start.extent(0) == 0; }
};

// to (the values of the matrix with block rows row_map and blocks of b×b) ← each row's run.
void copy_kept_runs(const ExecSpace& space, const KeptRuns& runs,
                    const SparseMatrix::RowMap& row_map, int b, const SparseMatrix::Values& to);

}  // namespace fgdd
