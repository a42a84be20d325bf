#include "multilevel/independent_subtrees.hpp"

#include <algorithm>
#include <functional>
#include <queue>
#include <utility>

namespace fgdd::detail {

namespace {

struct Split {
  Ordinal middle = -1;     // the second child starts here; -1: no split
  Ordinal separator = -1;  // and ends here
};

// The best split of [begin, end): for each m, the right child [m, R) runs up to R, the first
// position at or past m adjacent to a position before m (edges inside the range only), so the
// two share no entry; the cost is the longer child plus the separator [R, end).
Split best_split(const HostCsr& A, const HostCsr& At, Ordinal begin, Ordinal end) {
  const auto work = [&](Ordinal from, Ordinal to) {
    return Offset(A.ptr[to] - A.ptr[from]) + Offset(to - from);
  };
  Offset best = work(begin, end) * 3 / 4;
  Split split;
  std::priority_queue<Ordinal, std::vector<Ordinal>, std::greater<Ordinal>> reach;
  for (Ordinal v = begin; v + 1 < end; ++v) {
    for (const HostCsr* M : {&A, &At})
      for (Offset e = M->ptr[v]; e < M->ptr[v + 1]; ++e)
        if (M->col[e] > v && M->col[e] < end) reach.push(M->col[e]);
    const Ordinal m = v + 1;
    while (!reach.empty() && reach.top() < m) reach.pop();
    const Ordinal r = reach.empty() ? end : reach.top();
    if (r == m) continue;  // no second child
    const Offset cost = std::max(work(begin, m), work(m, r)) + work(r, end);
    if (cost < best) {
      best = cost;
      split = {m, r};
    }
  }
  return split;
}

}  // namespace

std::vector<SubtreeNode> independent_subtrees(const HostCsr& A, const HostCsr& At, int max_depth,
                                              Ordinal min_rows) {
  std::vector<SubtreeNode> nodes(1);
  nodes[0].end = A.rows;
  for (std::size_t q = 0; q < nodes.size(); ++q) {
    const SubtreeNode node = nodes[q];
    if (node.depth >= max_depth || node.end - node.begin < 2 * std::max(min_rows, Ordinal(1)))
      continue;
    const Split split = best_split(A, At, node.begin, node.end);
    if (split.middle < 0) continue;
    nodes[q].separator = split.separator;
    for (const auto& [begin, end] :
         {std::pair{node.begin, split.middle}, std::pair{split.middle, split.separator}}) {
      SubtreeNode child;
      child.begin = begin;
      child.end = end;
      child.separator = begin;
      child.parent = int(q);
      child.depth = node.depth + 1;
      nodes[q].children.push_back(int(nodes.size()));
      nodes.push_back(child);
    }
  }
  return nodes;
}

}  // namespace fgdd::detail
