// Contiguous partitions: balanced chunks of the natural order or of a reverse Cuthill–McKee
// order of the symmetrized block graph, for matrices without a grid (DESIGN.md, partition/).
#pragma once

#include "core/sparse_matrix.hpp"
#include "partition/labeling.hpp"
#include "partition/partition.hpp"
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

// Reverse Cuthill–McKee order of the pattern of A + Aᵀ (rcm_positions; every other step runs on
// space), cut into balanced chunks: the row at RCM position pos is in part pos * num_parts / n,
// order_key = pos. Disconnected graphs and rows without off-diagonal blocks are fine. Throws
// InvalidInput if max_block_rows < 1.
Labeling rcm_labeling(const ExecSpace& space, const SparseMatrix& A, Ordinal max_block_rows);

// make_partition's result for a labeling of natural_labeling or rcm_labeling, built directly:
// chunks of a permutation need no counting, scattering or sorting (perm is the order key, the
// subdomain offsets follow from the chunk rule). chunks.part_of_row is shared, not copied.
Partition chunk_partition(const ExecSpace& space, const Labeling& chunks);

// The position of every vertex in the reverse Cuthill–McKee order of graph (CuthillMcKee: each
// component from its least-degree vertex, ties by number; neighbours by ascending degree), a
// permutation on space. A serial breadth-first search on the host, on a host copy of the graph
// where space's memory is not the host's. Deterministic.
Kokkos::View<Ordinal*, DeviceType> rcm_positions(const ExecSpace& space,
                                                 const SymmetricGraph& graph);

}  // namespace fgdd::detail
