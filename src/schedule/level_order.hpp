// Rows of each subdomain renumbered in the order of their lower level sets, so that the rows
// one level of a subdomain factors or solves are consecutive in A_p and in the factors (the
// level-order factorization and the level kernels then read a level's rows as one run instead
// of rows scattered over the subdomain).
#pragma once

#include "partition/partition_matrix.hpp"

namespace fgdd {

// The same subdomains as partitioned, each one's rows sorted by their level in the lower
// triangle of its diagonal block (ties keep the partitioner's order), and A_p, the drop and
// the report redone for that order (report.steps says so, reorder_seconds includes the
// levels). Every dependency of a row lies in an earlier level, so every entry left of the
// diagonal stays left of it: for a structurally symmetric pattern the factors are the ones of
// the partitioner's order up to the order of their sums. Otherwise entries right of the
// diagonal may move left of it (other factors), but only towards earlier levels, so every row
// keeps its level and the level sets stay the same.
PartitionedMatrix order_subdomain_rows_by_level(const ExecSpace& space, const SparseMatrix& A,
                                                const PartitionedMatrix& partitioned);

// partition_matrix, then order_subdomain_rows_by_level when options.row_order is Levels (Auto
// and Partitioner keep the partitioner's order: the solvers resolve Auto beforehand,
// solver_steps.hpp). The one way setups partition in the row order they were given.
PartitionedMatrix partition_in_row_order(const ExecSpace& space, const SparseMatrix& A,
                                         const GridInfo& grid, const Coordinates& coordinates,
                                         const PartitionOptions& options);

}  // namespace fgdd
