// Graph partitioning with METIS k-way on the symmetrized block graph, then size balancing
// (fine-grained-dd-sptrsv-gpu.txt §3 "graph-based partitioning using METIS", Table 5.4).
#pragma once

#include "core/sparse_matrix.hpp"
#include "partition/labeling.hpp"
#include "partition/symmetric_graph.hpp"

#include <vector>

namespace fgdd::detail {

// The part count asked of METIS for at most max_block_rows rows per part: ceil(n / target) with
// target = 95 % of the cap, which leaves room for METIS's 3 % imbalance (ufactor 30), so
// balance_labeling rarely needs to split. 0 for n = 0, 1 for n <= max_block_rows. Throws
// InvalidInput if max_block_rows < 1.
Ordinal metis_num_parts(Ordinal num_block_rows, Ordinal max_block_rows);

// Subdomain labels of A's block rows, at most max_block_rows per subdomain: the block graph
// (symmetric_graph) goes to the host with its edges weighted by coupling strength
// (strength_weighted_graph), METIS_PartGraphKway labels it with metis_num_parts parts (fixed
// seed, so results are identical run to run; contiguity not requested), the labels come back to
// space and balance_labeling enforces the cap. order_key = the row index.
// One part, or one row per part, is labelled without calling METIS. Disconnected graphs and
// rows without off-diagonal blocks are fine.
// Throws NotCompiled when fgdd was built without METIS, InvalidInput if max_block_rows < 1, and
// Error naming METIS's status code when METIS fails (or the graph has more edges than METIS's
// idx_t can count).
Labeling metis_labeling(const ExecSpace& space, const SparseMatrix& A, Ordinal max_block_rows);

// The same on a graph already built by symmetric_graph (A's block graph), with edge_weight per
// arc of it, or unit weights when empty.
Labeling metis_labeling(const ExecSpace& space, const SymmetricGraph& graph,
                        Ordinal max_block_rows,
                        const Kokkos::View<Ordinal*, DeviceType>& edge_weight = {});

// A fill-reducing order of the graph's vertices by METIS_NodeND (nested dissection), new → old,
// the same every run (fixed seed). Throws NotCompiled without METIS, Error as above.
std::vector<Ordinal> metis_nested_dissection(const ExecSpace& space, const SymmetricGraph& graph);

}  // namespace fgdd::detail
