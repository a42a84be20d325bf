// Independent subtrees of an ordered level matrix, so that its Crout sweep can run them at once.
// A nested dissection order puts the two halves of each bisection first and their separator
// after them; the sweep over one half never reads the other, so both can be swept apart and
// their results taken over (CroutSweep::adopt) before the separator's steps, with the same bits.
// The splits are found from the pattern alone: no order is assumed, and an order without them
// (RCM, natural) gives the whole matrix as one node.
#pragma once

#include "multilevel/host_csr.hpp"

#include <vector>

namespace fgdd::detail {

struct SubtreeNode {
  Ordinal begin = 0, end = 0;  // the subtree's positions
  Ordinal separator = 0;       // its own steps are [separator, end); children cover [begin,
                               // separator) (a leaf: separator == begin)
  int parent = -1;
  int depth = 0;
  std::vector<int> children;  // none or two, in position order: [begin, m) and [m, separator)
};

// The nodes, root (all of A) first, each child after its parent. A node is split while its depth
// is below max_depth, it holds at least 2 min_rows positions and a split exists whose children
// share no entry of A or Aᵀ and whose longest chain, the larger child's entries plus the
// separator's, is at most 3/4 of the node's (entries counted by the rows of A, plus one a row).
// At: Aᵀ.
std::vector<SubtreeNode> independent_subtrees(const HostCsr& A, const HostCsr& At, int max_depth,
                                              Ordinal min_rows);

}  // namespace fgdd::detail
