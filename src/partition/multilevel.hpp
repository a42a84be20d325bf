// The multilevel partitioner for matrices without grid metadata, all on the device: the block
// graph is coarsened by heavy-edge matching (coarsen.hpp), first evenly and then into clusters of
// up to a subdomain's size, which become the parts; the labels are projected back level by level
// with boundary refinement (refine.hpp); size balancing enforces the cap (balance.hpp). The
// coarsening and refinement of METIS and of the Jet partitioner, without METIS's host k-way
// step, whose cost grows with the part count, so it dominates when subdomains are many and small
// (measured: docs/PERFORMANCE_HISTORY.md, "Measurements behind code choices").
#pragma once

#include "core/sparse_matrix.hpp"
#include "partition/labeling.hpp"
#include "partition/symmetric_graph.hpp"
#include "partition/weighted_graph.hpp"

#include <string>

namespace fgdd::detail {

// Even coarsening (no vertex above cap / multilevel_weight_divisor) runs down to this many
// vertices per part; clustering takes over from there.
constexpr Ordinal multilevel_vertices_per_part = 20;
constexpr Ordinal multilevel_weight_divisor = 8;
// Refinement passes per level (a pass that moves nothing ends the level early).
constexpr int multilevel_refine_passes = 8;

// What one multilevel partition did (for reports and tuning).
struct MultilevelStats {
  int levels = 0;           // coarsening levels
  Ordinal parts = 0;        // clusters at the coarsest level (before balancing)
  Offset refine_moves = 0;  // vertices moved by refinement, all levels
  double graph_seconds = 0, coarsen_seconds = 0, cluster_seconds = 0, refine_seconds = 0,
         balance_seconds = 0;
};

// "graph 0.01 s, coarsening 0.02 s, clustering 0.01 s (13 levels to 1,480 parts), ...".
std::string describe(const MultilevelStats& stats);

// Subdomain labels of A's block rows, at most max_block_rows per subdomain; order_key = the row
// index. Deterministic (the same labels every run). Needs no METIS. Throws InvalidInput if
// max_block_rows < 1.
Labeling multilevel_labeling(const ExecSpace& space, const SparseMatrix& A, Ordinal max_block_rows,
                             MultilevelStats* stats = nullptr);

// The same on a weighted graph (the A overload weighs A's block graph by coupling strength,
// strength_weighted_graph).
Labeling multilevel_labeling(const ExecSpace& space, const WeightedGraph& graph,
                             Ordinal max_block_rows, MultilevelStats* stats = nullptr);

}  // namespace fgdd::detail
