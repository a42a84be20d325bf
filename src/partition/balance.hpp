// Size balancing of a labeling, so subdomains come out near-uniform and never above the cap
// (fine-grained-dd-sptrsv-gpu.txt §3: "partitions of uniform size"; Table 5.4's METIS rows).
#pragma once

#include "partition/labeling.hpp"
#include "partition/symmetric_graph.hpp"

namespace fgdd::detail {

// A part is tiny, and merge candidate, when tiny_part_divisor * size < max_block_rows.
constexpr Ordinal tiny_part_divisor = 4;

// Returns a labeling in which every part is non-empty and has at most max_block_rows rows:
//  (a) every part of s > max_block_rows rows is split into k = ceil(s / max) pieces of
//      floor(s/k) or ceil(s/k) rows: the part's rows in increasing order_key (the order they
//      take in the subdomain; the row index for METIS) are cut into k consecutive runs. A METIS
//      part in row order is a stack of slabs, so the runs stay mostly connected.
//  (b) tiny parts, smallest first (ties by label), merge into the neighbouring part with the
//      most connecting graph edges whose merged size stays <= max_block_rows (ties: the lower
//      label); a tiny part with no such neighbour stays as it is.
//  (c) parts are renumbered densely in the order of their smallest input label (empty input
//      labels vanish), so an already balanced labeling keeps its labels up to the renumbering.
// order_key is passed through unchanged; keys must be distinct within a part (as
// make_partition requires). Counts, sorts and relabelling run on space; only one entry per part
// (sizes, neighbour-part lists of tiny parts) is brought to the host for the merge decisions.
// Deterministic: the result does not depend on the order of atomic updates.
// Throws InvalidInput if max_block_rows < 1, the labeling's length differs from the graph's
// vertex count, or a label is outside [0, num_parts) or an order key is negative.
Labeling balance_labeling(const ExecSpace& space, const SymmetricGraph& graph, Labeling labeling,
                          Ordinal max_block_rows);

}  // namespace fgdd::detail
