// Contiguous partitions: balanced chunks of the natural order or of a reverse Cuthill–McKee
// order of the symmetrized block graph, for matrices without a grid (DESIGN.md, partition/).
#pragma once

#include "core/sparse_matrix.hpp"
#include "partition/labeling.hpp"
#include "partition/symmetric_graph.hpp"

namespace fgdd::detail {

namespace contiguous {
// ceil(n / max_block_rows) in 64-bit arithmetic (max_block_rows ≥ 1): the parts of a contiguous
// partition, and about as many as the other partitioners cut at that cap.
Ordinal count_parts(Ordinal n, Ordinal max_block_rows);
}  // namespace contiguous

// Chunks of consecutive rows: num_parts = ceil(n / max_block_rows), row i in part
// i * num_parts / n (chunk sizes differ by at most one), order_key = the row. n = 0 gives
// num_parts = 0 and empty views. Runs on space. Throws InvalidInput if num_block_rows < 0 or
// max_block_rows < 1.
Labeling natural_labeling(const ExecSpace& space, Ordinal num_block_rows, Ordinal max_block_rows);

// Reverse Cuthill–McKee order of the pattern of A + Aᵀ (KokkosGraph's graph_rcm, a serial host
// BFS inside the library; every other step runs on space), cut into balanced chunks: the row at
// RCM position pos is in part pos * num_parts / n, order_key = pos. Disconnected graphs and rows
// without off-diagonal blocks are fine. Throws InvalidInput if max_block_rows < 1.
Labeling rcm_labeling(const ExecSpace& space, const SparseMatrix& A, Ordinal max_block_rows);

// The position of every vertex in the reverse Cuthill–McKee order of graph (KokkosGraph's
// graph_rcm, completed to a permutation), on space.
Kokkos::View<Ordinal*, DeviceType> rcm_positions(const ExecSpace& space,
                                                 const SymmetricGraph& graph);

// Turns position (one entry per vertex) into a permutation of 0..n-1 in place: a position in
// range keeps its lowest-numbered claimant, every other vertex (out of range, e.g. -1 for one a
// library left unlabelled, or a duplicate) gets one of the unclaimed positions, in increasing
// vertex order. Returns how many vertices were given a new position (0 for a permutation).
Ordinal complete_permutation(const ExecSpace& space,
                             const Kokkos::View<Ordinal*, DeviceType>& position);

}  // namespace fgdd::detail
