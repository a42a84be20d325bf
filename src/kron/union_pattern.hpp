// M and L on one sparsity pattern: what the stage matrices a·M + τ b·L need (the stage
// preconditioner factors them), and what lets the Kronecker product read the column indices
// once for both matrices. Built on the device by a per-row merge of the sorted block columns.
#pragma once

#include "core/sparse_matrix.hpp"

namespace fgdd {

// True when M and L use the very same row map and column index arrays.
bool shares_pattern(const SparseMatrix& M, const SparseMatrix& L) noexcept;

// True when A and B have the same block rows, block size, row map and columns (compared on the
// device when the arrays differ).
bool equal_patterns(const ExecSpace& space, const SparseMatrix& A, const SparseMatrix& B);

struct SharedPatternPair {
  SparseMatrix M, L;  // one row_map and col_ind between them
};

// M and L on the union of their patterns, sharing its arrays; each matrix holds zero blocks
// where only the other has one. Returns M and L unchanged when they already share a pattern.
// Throws DimensionMismatch unless both have the same block rows and block size.
SharedPatternPair on_union_pattern(const ExecSpace& space, const SparseMatrix& M,
                                   const SparseMatrix& L);

// alpha·M + beta·L on the pattern M and L share (new values, the same pattern arrays).
// Throws InvalidInput unless shares_pattern(M, L).
SparseMatrix combine_shared(const ExecSpace& space, double alpha, const SparseMatrix& M,
                            double beta, const SparseMatrix& L);

}  // namespace fgdd
