// The multilevel partitioner for matrices without grid metadata: the block graph is coarsened on
// the device (coarsen.hpp) until it has a few vertices per part, METIS partitions only that small
// weighted graph on the host, and the labels are projected back level by level with boundary
// refinement on the device (refine.hpp); size balancing enforces the cap (balance.hpp). The
// structure of METIS and of the Jet partitioner, with the large levels on the device.
#pragma once

#include "core/sparse_matrix.hpp"
#include "partition/labeling.hpp"
#include "partition/symmetric_graph.hpp"

#include <string>

namespace fgdd::detail {

// Coarsening stops at this many coarse vertices per part (METIS coarsens its own input to about
// 30 per part before its initial partition, so it does little more work on ours).
constexpr Ordinal multilevel_vertices_per_part = 20;
// A coarse vertex weighs at most cap / this, so parts can be balanced below the cap.
constexpr Ordinal multilevel_weight_divisor = 8;
// Refinement passes per level (a pass that moves nothing ends the level early).
constexpr int multilevel_refine_passes = 8;

// What one multilevel partition did (for reports and tuning).
struct MultilevelStats {
  int levels = 0;                 // coarsening levels
  Ordinal coarsest_vertices = 0;  // vertices METIS partitioned
  Offset refine_moves = 0;        // vertices moved by refinement, all levels
  double graph_seconds = 0, coarsen_seconds = 0, metis_seconds = 0, refine_seconds = 0,
         balance_seconds = 0;
};

// "graph 0.01 s, coarsening 0.02 s (6 levels to 29,440 vertices), METIS 0.1 s, ...".
std::string describe(const MultilevelStats& stats);

// Subdomain labels of A's block rows, at most max_block_rows per subdomain, part count as
// metis_num_parts; order_key = the row index. Deterministic (the same labels every run).
// Throws NotCompiled without METIS, InvalidInput if max_block_rows < 1, and as METIS does.
Labeling multilevel_labeling(const ExecSpace& space, const SparseMatrix& A, Ordinal max_block_rows,
                             MultilevelStats* stats = nullptr);

// The same on A's block graph.
Labeling multilevel_labeling(const ExecSpace& space, const SymmetricGraph& graph,
                             Ordinal max_block_rows, MultilevelStats* stats = nullptr);

}  // namespace fgdd::detail
