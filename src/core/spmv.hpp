// y = A x for a SparseMatrix. GPUs: Kokkos-Kernels for CSR, a scalar row per thread for BSR;
// CPU backends: a block row per iteration of a range.
#pragma once

#include "core/sparse_matrix.hpp"

namespace fgdd {

// Launches on space; x and y must have A.num_rows() entries and must not alias.
// Throws DimensionMismatch on wrong lengths.
void spmv(const ExecSpace& space, const SparseMatrix& A, ConstVector x, Vector y);

// y = Aᵀ x (for BiCG): each block row scatters into y with atomics, so the summation order, and
// the last bits of y, can vary between runs on parallel backends.
void spmv_transpose(const ExecSpace& space, const SparseMatrix& A, ConstVector x, Vector y);

}  // namespace fgdd
