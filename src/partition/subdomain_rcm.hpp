// Rows of each subdomain renumbered by reverse Cuthill–McKee on its diagonal block. In a
// lexicographic grid order (METIS's and the geometric partitioner's parts keep it) each row of a
// row-order triangular sweep couples to the row just before it, so a CPU thread's sweep is one
// chain of dependent rows; consecutive RCM rows mostly share one BFS level and do not depend on
// each other, and RCM keeps the rows' neighbours near (docs/PERFORMANCE.md, "RCM inside each
// subdomain").
#pragma once

#include "core/sparse_matrix.hpp"
#include "partition/partition.hpp"

namespace fgdd::detail {

// The same subdomains as partition, each one's rows in the reverse Cuthill–McKee order of the
// graph of its diagonal block of P A Pᵀ (a row's neighbours: the other rows of the subdomain its
// entries name; its degree: how many). Per component, in partition's order of the components'
// first rows: a start found by up to four breadth-first sweeps from that first row
// (each from the last level's vertex of least degree, while the level count grows), then a
// breadth-first order taking each vertex's unvisited neighbours by ascending degree (ties by
// partition's order), reversed over the subdomain. One serial sweep per subdomain on the device,
// before any reordered copy of A exists; deterministic.
Partition order_rows_by_rcm(const ExecSpace& space, const SparseMatrix& A,
                            const Partition& partition);

}  // namespace fgdd::detail
