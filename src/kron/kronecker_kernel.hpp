// The device kernels of the Kronecker-form product on merged s-column vectors (internal; shared
// by KroneckerOperator and the distributed operator): one fused multi-vector BSR/CSR product of
// M and L that loads each matrix block once for all s columns (kronecker-gmres-multi-gpu.txt,
// Algorithm 3), the stage combination of Eq. 4, and the transposed product.
#pragma once

#include "core/sparse_matrix.hpp"
#include "kron/stage_coefficients.hpp"

namespace fgdd::detail {

// A block-row array triple: block rows × block columns, b² row-major values per block. The
// columns index the x vector the product reads (local block rows, or ghosts).
struct BlockRows {
  Kokkos::View<const Offset*, DeviceType> row_map;
  Kokkos::View<const Ordinal*, DeviceType> cols;
  Kokkos::View<const Scalar*, DeviceType> values;
};

// Block rows a kernel visits, ascending.
using RowList = Kokkos::View<const Ordinal*, DeviceType>;

inline BlockRows block_rows(const SparseMatrix& A) {
  return {A.row_map(), A.col_ind(), A.values()};
}

// The 2s² coefficients the kernels read, on the device: A then τB, row-major.
Kokkos::View<Scalar*, DeviceType> stage_coefficients_on_device(const StageCoefficients& c,
                                                               double tau);

// Over num_block_rows block rows of merged vectors (row i of X at i·s .. i·s + s − 1):
//   with coefficients (2s² values, A then τB):  Y(i,:) (+)= (M X)(i,:) Aᵀ + (L X)(i,:) (τB)ᵀ,
//     x_m and x_l must then be the same vector X;
//   without (an empty view):                     Y(i,:) (+)= (M X_m)(i,:) + (L X_l)(i,:).
// accumulate adds to y instead of overwriting it. only_rows, when not empty, lists the block
// rows to compute (distinct; y's other rows are left alone), e.g. the few rows an off-rank
// product touches. One team handles a group of block rows, one thread each (block row, row in
// block, stage) entry; M and L are read once for all s columns. Both orders produce the same Y:
// the first combines after the product in registers (x read once, y written once), the second
// is the paper's order after combine_stages.
void kronecker_rows(const ExecSpace& space, Ordinal num_block_rows, int block_size, int stages,
                    const BlockRows& M, ConstVector x_m, const BlockRows& L, ConstVector x_l,
                    Kokkos::View<const Scalar*, DeviceType> coefficients, bool accumulate,
                    Vector y, const RowList& only_rows = {});

// Eq. 4, one pass over X (rows scalar rows, merged): X_a = X Cᵀ and X_b = X Dᵀ, where C, D are
// the two halves of coefficients (A and τB); with transpose, X_a = X C and X_b = X D.
void combine_stages(const ExecSpace& space, Offset rows, int stages, ConstVector x,
                    Kokkos::View<const Scalar*, DeviceType> coefficients, bool transpose,
                    Vector x_a, Vector x_b);

// Y += Mᵀ X_a + Lᵀ X_b over merged vectors (zero y first for Y =): each block row scatters into
// y with atomics, so the last bits of y may vary between runs on parallel backends.
void kronecker_rows_transpose(const ExecSpace& space, Ordinal num_block_rows, int block_size,
                              int stages, const BlockRows& M, ConstVector x_a, const BlockRows& L,
                              ConstVector x_b, Vector y);

}  // namespace fgdd::detail
