#include "reference/ic0_breakdown.hpp"

#include <map>
#include <utility>

namespace fgdd::reference {

namespace {

// CSR arrays from (row, column) → value, rows in order.
HostMatrixArrays from_entries(
    Ordinal n, int b, const std::map<std::pair<Ordinal, Ordinal>, std::vector<double>>& entries) {
  HostMatrixArrays m;
  m.num_block_rows = m.num_block_cols = n;
  m.block_size = b;
  m.row_map.assign(1, 0);
  Ordinal row = 0;
  for (const auto& [position, block] : entries) {
    while (row < position.first) {
      m.row_map.push_back(m.col_ind.size());
      ++row;
    }
    m.col_ind.push_back(position.second);
    m.values.insert(m.values.end(), block.begin(), block.end());
  }
  while (row < n) {
    m.row_map.push_back(m.col_ind.size());
    ++row;
  }
  return m;
}

}  // namespace

HostMatrixArrays kershaw(int b) {
  const double K[4][4] = {{3, -2, 0, 2}, {-2, 3, -2, 0}, {0, -2, 3, -2}, {2, 0, -2, 3}};
  std::map<std::pair<Ordinal, Ordinal>, std::vector<double>> entries;
  for (Ordinal i = 0; i < 4; ++i)
    for (Ordinal j = 0; j < 4; ++j) {
      if (K[i][j] == 0) continue;
      std::vector<double> block(b * b);
      for (int r = 0; r < b; ++r)
        for (int c = 0; c < b; ++c) block[r * b + c] = K[i][j] * (r == c ? 1.0 : 0.1);
      entries[{i, j}] = block;
    }
  return from_entries(4, b, entries);
}

HostMatrixArrays ic0_breakdown_grid() {
  const int n = ic0_breakdown_grid_side;
  std::map<std::pair<Ordinal, Ordinal>, std::vector<double>> entries;
  // (dx, dy, value) for the upper half; the lower half mirrors it.
  const struct {
    int dx, dy;
    double value;
  } upper[] = {{1, 0, -0.3}, {0, 1, -0.2}, {1, 1, -0.2}, {-1, 1, 0.2}};
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      const Ordinal i = x + n * y;
      entries[{i, i}] = {1.0};
      for (const auto& o : upper) {
        const int xx = x + o.dx, yy = y + o.dy;
        if (xx < 0 || xx >= n || yy < 0 || yy >= n) continue;
        const Ordinal j = xx + n * yy;
        entries[{i, j}] = {o.value};
        entries[{j, i}] = {o.value};
      }
    }
  return from_entries(n * n, 1, entries);
}

}  // namespace fgdd::reference
