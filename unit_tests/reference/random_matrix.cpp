#include "reference/random_matrix.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

namespace fgdd::reference {

HostMatrixArrays random_matrix(Ordinal num_block_rows, int block_size, int entries_per_row,
                               unsigned seed, bool dominant) {
  std::mt19937 engine(seed);
  std::uniform_int_distribution<Ordinal> column(0, std::max(num_block_rows - 1, 0));
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  const int b = block_size;
  HostMatrixArrays m;
  m.num_block_rows = m.num_block_cols = num_block_rows;
  m.block_size = b;
  m.row_map.push_back(0);
  for (Ordinal i = 0; i < num_block_rows; ++i) {
    std::set<Ordinal> columns{i};
    for (int k = 0; k < entries_per_row; ++k) columns.insert(column(engine));
    std::vector<double> row_abs(b, 0.0);
    std::size_t diagonal_block = 0;
    for (const Ordinal c : columns) {
      if (c == i) diagonal_block = m.col_ind.size();
      m.col_ind.push_back(c);
      for (int e = 0; e < b * b; ++e) {
        m.values.push_back(value(engine));
        row_abs[e / b] += std::abs(m.values.back());
      }
    }
    if (dominant) {
      for (int r = 0; r < b; ++r) m.values[diagonal_block * b * b + r * b + r] = row_abs[r] + 1.0;
    }
    m.row_map.push_back(m.col_ind.size());
  }
  return m;
}

HostMatrixArrays arrow_matrix(Ordinal n, Ordinal arrow) {
  HostMatrixArrays m;
  m.num_block_rows = m.num_block_cols = n;
  m.row_map.push_back(0);
  for (Ordinal i = 0; i < n; ++i) {
    for (Ordinal j = 0; j < n; ++j) {
      if (i != arrow && j != arrow && (j < i - 1 || j > i + 1)) continue;
      m.col_ind.push_back(j);
      m.values.push_back(i == j ? Scalar(n) : Scalar(-1) / Scalar(1 + (i + 2 * j) % 7));
    }
    m.row_map.push_back(Offset(m.col_ind.size()));
  }
  return m;
}

std::vector<std::set<Ordinal>> union_with_transpose(const HostMatrixArrays& a) {
  std::vector<std::set<Ordinal>> rows(std::size_t(a.num_block_rows));
  for (Ordinal i = 0; i < a.num_block_rows; ++i)
    for (Offset k = a.row_map[i]; k < a.row_map[i + 1]; ++k) {
      rows[i].insert(a.col_ind[k]);
      rows[a.col_ind[k]].insert(i);
    }
  return rows;
}

HostMatrixArrays from_rows(const std::vector<std::set<Ordinal>>& rows, int block_size) {
  HostMatrixArrays out;
  out.num_block_rows = out.num_block_cols = Ordinal(rows.size());
  out.block_size = block_size;
  out.row_map.push_back(0);
  for (const auto& row : rows) {
    out.col_ind.insert(out.col_ind.end(), row.begin(), row.end());
    out.row_map.push_back(Offset(out.col_ind.size()));
  }
  out.values.assign(out.col_ind.size() * std::size_t(block_size * block_size), 1.0);
  return out;
}

}  // namespace fgdd::reference
