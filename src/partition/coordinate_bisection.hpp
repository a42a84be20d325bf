// Recursive coordinate bisection of the caller's points on the device: subdomains for matrices
// that come with coordinates but without a grid (issue 33; the geometric cuts of
// fine-grained-dd-sptrsv-gpu.txt §3 for points that do not lie on a Cartesian grid).
#pragma once

#include "partition/coordinates.hpp"
#include "partition/labeling.hpp"

namespace fgdd::detail {

// ceil(n / max_block_rows): the fewest parts of at most max_block_rows rows. The splits below
// are exact, so no slack is needed (as METIS needs, metis_num_parts). 0 for n = 0. Throws
// InvalidInput if max_block_rows < 1 or num_block_rows < 0.
Ordinal bisection_num_parts(Ordinal num_block_rows, Ordinal max_block_rows);

// Labels point i's block row with bisection_num_parts parts. A segment of k > 1 parts and s
// rows is cut across the longest edge of its bounding box (ties: the higher axis, so grid boxes
// keep their x rows, the apply's contiguous ones, long): its lowest `left` points get ⌈k/2⌉
// parts, the others ⌊k/2⌋. left is the proportional floor(s·⌈k/2⌉/k) moved to the nearest place
// where the cut coordinate changes, within half the segment's slack k·max − s and never so far
// that a half would need parts above max_block_rows: cuts between grid planes stay whole
// (points with distinct coordinates keep the proportional split). Every segment keeps
// k <= s <= k·max, so no part is empty or above max_block_rows. Points are ordered along an
// axis by that coordinate, then by the other coordinates from the last axis down, then by row
// index (duplicate points only), so the parts do not depend on the order the rows come in. All
// segments of one depth are cut together on space: the rows are sorted once per axis (a bitonic
// sort), each depth splits every segment of every sorted list stably with one scan per axis, and
// the only atomic update is a minimum, so no result depends on the order of atomic updates.
// order_key = the point's rank in lexicographic order (last coordinate slowest, then row index):
// for grid points the natural x-fastest order the geometric partitioner keeps, whatever order
// the rows came in; for scattered points a sweep along the last axis. Parts are numbered in the
// order of the segments' positions (left half before right half).
// Throws InvalidInput when Coordinates::validate refuses the points (dimension, a NaN or Inf)
// and for max_block_rows < 1.
Labeling coordinate_bisection_labeling(const ExecSpace& space, const Coordinates& coordinates,
                                       Ordinal max_block_rows);

}  // namespace fgdd::detail
