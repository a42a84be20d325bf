// Rows of each subdomain renumbered in the order of their lower level sets, so that the rows one
// level of a subdomain factors or solves are consecutive in A_p and in the factors (the
// level-order factorization then reads and writes a level's rows as one run instead of rows
// scattered over the subdomain: 2.4 times faster on lap7 160³, docs/PERFORMANCE.md); or by
// colour, which also shortens the levels. Both from one sweep over A through the partition's
// permutation, on the device, before any reordered copy of A exists.
#pragma once

#include "core/sparse_matrix.hpp"
#include "partition/partition.hpp"

namespace fgdd::detail {

// The same subdomains as partition, each one's rows sorted by their level in the lower triangle
// of its diagonal block of P A Pᵀ (ties keep partition's order), computed from A through
// partition's permutation, before any reordered copy of A exists. Every dependency of a row lies
// in an earlier level, so every entry left of the diagonal stays left of it: for a structurally
// symmetric pattern the factors are those of partition's order up to the order of their sums.
// Otherwise entries right of the diagonal may move left of it (other factors), but only towards
// earlier levels, so every row keeps its level and the level sets stay the same.
Partition order_rows_by_level(const ExecSpace& space, const SparseMatrix& A,
                              const Partition& partition);

// The same subdomains, each one's rows sorted by a greedy colouring of its diagonal block, swept
// in partition's order (ties keep it): a row takes the smallest colour that none of the earlier
// rows it has entries for holds (when those hold every colour below 64, one past the highest of
// theirs). No row then has an entry for an earlier row of its colour, so
// the lower triangle of the reordered block has at most as many levels as colours (2 for a
// 7-point grid, 8 for a 27-point one) against tens to hundreds in the partitioner's order: the
// level kernels' chain per subdomain is that much shorter. For a structurally symmetric pattern
// the upper triangle has as few; otherwise it may have more. The incomplete factors are those of
// another order, usually weaker (more iterations) than the partitioner's.
Partition order_rows_by_colour(const ExecSpace& space, const SparseMatrix& A,
                               const Partition& partition);

}  // namespace fgdd::detail
