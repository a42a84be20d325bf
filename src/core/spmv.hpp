// y = A x for a SparseMatrix. GPUs: Kokkos-Kernels for CSR, a scalar row per thread for BSR;
// CPU backends: a block row per iteration of a range.
#pragma once

#include "core/sparse_matrix.hpp"

#include <array>

namespace fgdd {

// Launches on space; x and y must have A.num_rows() entries and must not alias.
// Throws DimensionMismatch on wrong lengths.
void spmv(const ExecSpace& space, const SparseMatrix& A, ConstVector x, Vector y);

// y = A x and {<w, y>, <y, y>} in the same pass over A's rows, where a Krylov method would
// otherwise read y and w again right after the product. Written for CPU backends (a thread takes
// chunks of block rows); MatrixOperator calls it only where host_memory holds.
std::array<double, 2> host_spmv_dots(const ExecSpace& space, const SparseMatrix& A, ConstVector x,
                                     Vector y, ConstVector w);

// y = Aᵀ x (for BiCG): each block row scatters into y with atomics, so the summation order, and
// the last bits of y, can vary between runs on parallel backends.
void spmv_transpose(const ExecSpace& space, const SparseMatrix& A, ConstVector x, Vector y);

}  // namespace fgdd
