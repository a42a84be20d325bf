// Host CSR matrices, square or rectangular: the multilevel ILU's setup (issue 36, first version)
// factors level by level on the host, where rows grow and shrink as pivots are deferred.
#pragma once

#include "core/sparse_matrix.hpp"

#include <vector>

namespace fgdd::detail {

struct HostCsr {
  Ordinal rows = 0;
  Ordinal cols = 0;
  std::vector<Offset> ptr = {0};  // rows + 1
  std::vector<Ordinal> col;       // sorted within each row
  std::vector<Scalar> val;

  Offset nnz() const noexcept { return col.size(); }
  // Appends one row; entries must come in ascending column order.
  void push(Ordinal c, Scalar v) {
    col.push_back(c);
    val.push_back(v);
  }
  void end_row() {
    ptr.push_back(col.size());
    ++rows;
  }
};

// A's scalar entries on the host: block rows expanded into scalar rows, zeros inside stored
// blocks kept (they are part of the pattern).
HostCsr scalar_host_csr(const SparseMatrix& A);

// Aᵀ, columns sorted.
HostCsr transpose(const HostCsr& A);

// The square HostCsr as a device SparseMatrix (b = 1). Every row must hold its diagonal.
SparseMatrix to_device_matrix(const HostCsr& A);

}  // namespace fgdd::detail
