#include "multilevel/crout_subtrees.hpp"

#include "core/host_tasks.hpp"
#include "multilevel/independent_subtrees.hpp"

#include <Kokkos_Core.hpp>

#include <memory>
#include <utility>

namespace fgdd::detail {

namespace {

// A subtree's positions (its own range, then its ancestors' separators, ascending) numbered
// consecutively: the principal submatrix its sweep factors.
class SubtreePositions {
 public:
  SubtreePositions(const std::vector<SubtreeNode>& nodes, int id) {
    ranges_.emplace_back(nodes[id].begin, nodes[id].end);
    for (int a = nodes[id].parent; a >= 0; a = nodes[a].parent)
      if (nodes[a].separator < nodes[a].end) ranges_.emplace_back(nodes[a].separator, nodes[a].end);
    Ordinal start = 0;
    for (const auto& [begin, end] : ranges_) {
      starts_.push_back(start);
      start += end - begin;
    }
    size_ = start;
  }
  // The local number of position g, or -1 where g is not one of these positions.
  Ordinal local(Ordinal g) const {
    for (std::size_t r = 0; r < ranges_.size(); ++r)
      if (g >= ranges_[r].first && g < ranges_[r].second)
        return starts_[r] + (g - ranges_[r].first);
    return -1;
  }
  // For each of these ranges, its first local number and what to add to map a local number in
  // it to the parent's (whose positions hold all of these).
  std::vector<std::pair<Ordinal, Ordinal>> shifts_into(const SubtreePositions& parent) const {
    std::vector<std::pair<Ordinal, Ordinal>> shifts;
    for (std::size_t r = 0; r < ranges_.size(); ++r)
      shifts.emplace_back(starts_[r], parent.local(ranges_[r].first) - starts_[r]);
    return shifts;
  }
  // A's rows and columns on these positions.
  HostCsr submatrix(const HostCsr& A) const {
    HostCsr S;
    S.cols = size_;
    for (const auto& [begin, end] : ranges_)
      for (Ordinal g = begin; g < end; ++g) {
        for (Offset e = A.ptr[g]; e < A.ptr[g + 1]; ++e) {
          const Ordinal c = local(A.col[e]);
          if (c >= 0) S.push(c, A.val[e]);
        }
        S.end_row();
      }
    return S;
  }

 private:
  std::vector<std::pair<Ordinal, Ordinal>> ranges_;
  std::vector<Ordinal> starts_;
  Ordinal size_ = 0;
};

struct SubtreeSweep {
  SubtreePositions positions;
  HostCsr matrix;  // empty for the root, which sweeps A itself
  std::unique_ptr<CroutSweep> own;
  CroutSweep* sweep = nullptr;
  Offset shifted = 0;
};

// The entries whose factors node id's arrays will hold: a first child's are taken over by its
// parent, so the rows of the highest node reached through first children (an estimate of its
// submatrix: its own rows' entries).
Offset room(const std::vector<SubtreeNode>& nodes, const HostCsr& A, int id) {
  int top = id;
  while (nodes[top].parent >= 0 && nodes[nodes[top].parent].children.front() == top)
    top = nodes[top].parent;
  return A.ptr[nodes[top].end] - A.ptr[nodes[top].begin];
}

int depth_for_threads() {
  const int threads = Kokkos::DefaultHostExecutionSpace().concurrency();
  int depth = 0;
  while ((1 << depth) < threads) ++depth;  // a subtree a thread: each level copies the factors
  return depth;
}

}  // namespace

Offset sweep_by_subtrees(CroutSweep& root) {
  const HostCsr& A = root.A;
  const int depth =
      root.options.subtree_depth < 0 ? depth_for_threads() : root.options.subtree_depth;
  const std::vector<SubtreeNode> nodes =
      independent_subtrees(A, root.At, depth, root.options.min_subtree_rows);
  std::vector<std::unique_ptr<SubtreeSweep>> done(nodes.size());
  // Builds node id's sweep, adopts its children's and runs its own steps.
  const auto sweep_node = [&](int id) {
    const SubtreeNode& node = nodes[id];
    auto state = std::make_unique<SubtreeSweep>(SubtreeSweep{SubtreePositions(nodes, id), {}, {}});
    if (id == 0) {
      state->sweep = &root;
    } else {
      state->matrix = state->positions.submatrix(A);
      state->own = std::make_unique<CroutSweep>(state->matrix, root.options, room(nodes, A, id));
      state->sweep = state->own.get();
    }
    for (const int c : node.children) {
      SubtreeSweep& child = *done[c];
      const auto shifts = child.positions.shifts_into(state->positions);
      state->sweep->adopt(*child.sweep, nodes[c].end - nodes[c].begin, [&](Ordinal local) {
        std::size_t r = shifts.size() - 1;
        while (local < shifts[r].first) --r;
        return local + shifts[r].second;
      });
      state->shifted += child.shifted;
      done[c].reset();
    }
    state->sweep->run_steps(node.separator - node.begin, node.end - node.begin, state->shifted);
    done[id] = std::move(state);
  };
  int deepest = 0;
  for (const SubtreeNode& node : nodes) deepest = std::max(deepest, node.depth);
  for (int level = deepest; level > 0; --level) {
    std::vector<int> ids;
    for (int id = 0; id < int(nodes.size()); ++id)
      if (nodes[id].depth == level) ids.push_back(id);
    run_host_tasks("fgdd::multilevel::crout_subtrees", ids.size(),
                   [&](std::size_t q) { sweep_node(ids[q]); });
  }
  sweep_node(0);
  return done[0]->shifted;
}

}  // namespace fgdd::detail
