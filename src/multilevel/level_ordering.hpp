// The preprocessing of one multilevel ILU level (ilupack-gpu-data-parallel.txt §2.1 step 1):
// row and column equilibration and a fill-reducing symmetric permutation, on the host.
#pragma once

#include "multilevel/host_csr.hpp"
#include "multilevel/multilevel_options.hpp"

#include <vector>

namespace fgdd::detail {

// Dr = 1 / (largest |entry| of each row), then Dc = 1 / (largest |entry| of each column of
// Dr A); rows or columns without a nonzero keep 1. Every |entry| of Dr A Dc is then at most 1.
void equilibrate(const HostCsr& A, std::vector<Scalar>& row_scale, std::vector<Scalar>& col_scale);

// The order (new → old) for ordering on the pattern of A + Aᵀ (symmetric_graph on space; METIS
// nested dissection or reverse Cuthill–McKee, partition/). Auto: nested dissection with METIS, else
// RCM. Throws NotCompiled for NestedDissection without METIS.
std::vector<Ordinal> fill_reducing_order(const ExecSpace& space, const HostCsr& A,
                                         MultilevelOrdering ordering);

// B = Dr A Dc permuted symmetrically: B(i, j) = Dr[p_i] A(p_i, p_j) Dc[p_j], p = order.
HostCsr scaled_permuted(const HostCsr& A, const std::vector<Scalar>& row_scale,
                        const std::vector<Scalar>& col_scale, const std::vector<Ordinal>& order);

}  // namespace fgdd::detail
