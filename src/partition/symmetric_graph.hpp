// The symmetrized block graph of A (pattern of A + Aᵀ, no self loops) that METIS and RCM need.
#pragma once

#include "core/sparse_matrix.hpp"

namespace fgdd::detail {

struct SymmetricGraph {
  Ordinal num_vertices = 0;                        // block rows of A
  Kokkos::View<Offset*, DeviceType> row_map;       // num_vertices + 1
  Kokkos::View<Ordinal*, DeviceType> adjacency;    // sorted, unique neighbours per vertex
  // Whether adjacency is A's own rows without their diagonal blocks (A structurally
  // symmetric): row i's arcs are row i's off-diagonal entries, in order.
  bool rows_of_matrix = false;
};

// Whether every off-diagonal block (i, j) of A has its mirror (j, i): on GPUs a search per upper
// block, on host backends a merge in `chunks` pieces of rows (0: one per thread).
bool structurally_symmetric(const ExecSpace& space, const SparseMatrix& A, int chunks = 0);

// Built on the device. A structurally symmetric A (finite-element, stencil and reservoir
// matrices: checked by structurally_symmetric) is its own graph, its rows copied
// without the diagonal. Otherwise both directions of every off-diagonal block are scattered with
// atomics, then each row is sorted and deduplicated.
SymmetricGraph symmetric_graph(const ExecSpace& space, const SparseMatrix& A);

}  // namespace fgdd::detail
