#include "reference/reference_iluk.hpp"

#include <limits>

namespace fgdd::reference {

HostBlockCsr iluk(const HostBlockCsr& A, int level_of_fill) {
  const Ordinal n = A.num_block_rows();
  const int b = A.b, bb = b * b;
  constexpr int absent = std::numeric_limits<int>::max() / 4;
  std::vector<int> level(std::size_t(n) * n, absent);
  std::vector<double> a(std::size_t(n) * n * bb, 0.0);  // dense blocks
  auto block = [&](Ordinal i, Ordinal j) { return &a[(std::size_t(i) * n + j) * bb]; };
  for (Ordinal i = 0; i < n; ++i)
    for (Offset k = A.row_map[i]; k < A.row_map[i + 1]; ++k) {
      level[std::size_t(i) * n + A.col_ind[k]] = 0;
      std::copy(&A.values[k * bb], &A.values[(k + 1) * bb], block(i, A.col_ind[k]));
    }
  // Levels: row by row, k in increasing order, dropping what exceeds the limit.
  for (Ordinal i = 0; i < n; ++i) {
    for (Ordinal k = 0; k < i; ++k) {
      const int l_ik = level[std::size_t(i) * n + k];
      if (l_ik > level_of_fill) continue;
      for (Ordinal j = k + 1; j < n; ++j) {
        const int l_kj = level[std::size_t(k) * n + j];
        if (l_kj > level_of_fill) continue;
        int& l_ij = level[std::size_t(i) * n + j];
        l_ij = std::min(l_ij, l_ik + l_kj + 1);
      }
    }
    for (Ordinal j = 0; j < n; ++j)
      if (level[std::size_t(i) * n + j] > level_of_fill) level[std::size_t(i) * n + j] = absent;
  }
  auto kept = [&](Ordinal i, Ordinal j) { return level[std::size_t(i) * n + j] != absent; };
  // Values: IKJ restricted to the kept pattern.
  for (Ordinal i = 0; i < n; ++i)
    for (Ordinal k = 0; k < i; ++k) {
      if (!kept(i, k)) continue;
      const std::vector<double> inv = block_inverse(block(k, k), b);
      std::vector<double> l(bb, 0.0);
      for (int r = 0; r < b; ++r)
        for (int c = 0; c < b; ++c)
          for (int t = 0; t < b; ++t) l[r * b + c] += block(i, k)[r * b + t] * inv[t * b + c];
      std::copy(l.begin(), l.end(), block(i, k));
      for (Ordinal j = k + 1; j < n; ++j) {
        if (!kept(i, j) || !kept(k, j)) continue;
        for (int r = 0; r < b; ++r)
          for (int c = 0; c < b; ++c)
            for (int t = 0; t < b; ++t) block(i, j)[r * b + c] -= l[r * b + t] * block(k, j)[t * b + c];
      }
    }
  HostBlockCsr F;
  F.b = b;
  F.row_map.assign(1, 0);
  for (Ordinal i = 0; i < n; ++i) {
    for (Ordinal j = 0; j < n; ++j) {
      if (!kept(i, j)) continue;
      F.col_ind.push_back(j);
      F.values.insert(F.values.end(), block(i, j), block(i, j) + bb);
    }
    F.row_map.push_back(F.col_ind.size());
  }
  return F;
}

}  // namespace fgdd::reference
