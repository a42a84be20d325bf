// The symmetrized block graph of A (pattern of A + Aᵀ, no self loops) that METIS and RCM need.
#pragma once

#include "core/sparse_matrix.hpp"

namespace fgdd::detail {

struct SymmetricGraph {
  Ordinal num_vertices = 0;                        // block rows of A
  Kokkos::View<Offset*, DeviceType> row_map;       // num_vertices + 1
  Kokkos::View<Ordinal*, DeviceType> adjacency;    // sorted, unique neighbours per vertex
};

// Built on the device: scatter both directions of every off-diagonal block with atomics, then
// sort and deduplicate each row.
SymmetricGraph symmetric_graph(const ExecSpace& space, const SparseMatrix& A);

}  // namespace fgdd::detail
