#include "reference/reference_rcm.hpp"

#include <algorithm>
#include <cstddef>
#include <utility>

namespace fgdd::reference {

std::vector<Ordinal> rcm_order(const std::vector<std::vector<Ordinal>>& neighbours,
                               RcmStart start) {
  const Ordinal m = Ordinal(neighbours.size());
  const auto before = [&](Ordinal a, Ordinal b) {
    const std::size_t da = neighbours[a].size(), db = neighbours[b].size();
    return da != db ? da < db : a < b;
  };
  std::vector<bool> placed(m, false);
  // The levels of a breadth-first sweep from v over the unplaced vertices.
  const auto levels_from = [&](Ordinal v) {
    std::vector<std::vector<Ordinal>> levels = {{v}};
    std::vector<bool> seen(m, false);
    seen[v] = true;
    while (true) {
      std::vector<Ordinal> next;
      for (const Ordinal t : levels.back())
        for (const Ordinal j : neighbours[t])
          if (!seen[j] && !placed[j]) {
            seen[j] = true;
            next.push_back(j);
          }
      if (next.empty()) return levels;
      levels.push_back(next);
    }
  };
  std::vector<Ordinal> order;
  for (Ordinal t0 = 0; t0 < m;) {
    if (placed[t0]) {
      ++t0;
      continue;
    }
    Ordinal v = t0;
    if (start == RcmStart::LeastDegree)
      for (Ordinal u = 0; u < m; ++u)
        if (!placed[u] && before(u, v)) v = u;
    auto levels = levels_from(v);
    for (int sweep = 1; sweep < 4 && start == RcmStart::PseudoPeripheral; ++sweep) {
      const auto& last = levels.back();
      const Ordinal u = *std::min_element(last.begin(), last.end(), before);
      if (u == v) break;
      auto longer = levels_from(u);
      if (longer.size() <= levels.size()) break;
      v = u;
      levels = std::move(longer);
    }
    std::vector<Ordinal> queue = {v};
    placed[v] = true;
    for (std::size_t head = 0; head < queue.size(); ++head) {
      std::vector<Ordinal> fresh;
      for (const Ordinal j : neighbours[queue[head]])
        if (!placed[j]) {
          placed[j] = true;
          fresh.push_back(j);
        }
      std::sort(fresh.begin(), fresh.end(), before);
      queue.insert(queue.end(), fresh.begin(), fresh.end());
    }
    order.insert(order.end(), queue.begin(), queue.end());
  }
  std::reverse(order.begin(), order.end());
  return order;
}

}  // namespace fgdd::reference
