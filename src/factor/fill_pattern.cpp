#include "factor/fill_pattern.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <queue>
#include <vector>

namespace fgdd {

FillPattern ilu_fill_pattern(const SparseMatrix& A, int level_of_fill) {
  const Ordinal n = A.num_block_rows();
  const auto row_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.row_map());
  const auto col_ind = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.col_ind());

  // Rows of the fill pattern with the level of every entry; a row's upper part feeds later rows.
  std::vector<std::vector<Ordinal>> cols(n);
  std::vector<std::vector<int>> levels(n);
  constexpr int absent = std::numeric_limits<int>::max();
  std::vector<int> level_at(n, absent);  // dense level of the row being built
  std::vector<Ordinal> touched;
  for (Ordinal i = 0; i < n; ++i) {
    std::priority_queue<Ordinal, std::vector<Ordinal>, std::greater<Ordinal>> lower;
    for (Offset k = row_map(i); k < row_map(i + 1); ++k) {
      const Ordinal c = col_ind(k);
      level_at[c] = 0;
      touched.push_back(c);
      if (c < i) lower.push(c);
    }
    // Eliminate with rows j < i in increasing order, including columns filled on the way.
    while (!lower.empty()) {
      const Ordinal j = lower.top();
      lower.pop();
      const int l_ij = level_at[j];
      const auto& cj = cols[j];
      const auto& lj = levels[j];
      for (std::size_t q = 0; q < cj.size(); ++q) {
        const Ordinal c = cj[q];
        if (c <= j) continue;
        const int level = l_ij + lj[q] + 1;
        if (level > level_of_fill) continue;
        if (level_at[c] == absent) {
          touched.push_back(c);
          if (c < i) lower.push(c);
        }
        level_at[c] = std::min(level_at[c], level);
      }
    }
    std::sort(touched.begin(), touched.end());
    cols[i] = touched;
    levels[i].resize(touched.size());
    for (std::size_t q = 0; q < touched.size(); ++q) {
      levels[i][q] = level_at[touched[q]];
      level_at[touched[q]] = absent;
    }
    touched.clear();
  }

  FillPattern pattern;
  auto host_row_map = Kokkos::View<Offset*, Kokkos::HostSpace>("row_map", n + 1);
  for (Ordinal i = 0; i < n; ++i) host_row_map(i + 1) = host_row_map(i) + cols[i].size();
  const Offset entries = host_row_map(n);
  auto host_cols = Kokkos::View<Ordinal*, Kokkos::HostSpace>("col_ind", entries);
  auto host_source = Kokkos::View<Offset*, Kokkos::HostSpace>("source", A.num_block_entries());
  for (Ordinal i = 0; i < n; ++i) {
    std::copy(cols[i].begin(), cols[i].end(), host_cols.data() + host_row_map(i));
    // Both rows are sorted and the source row is a subset: one merge finds every position.
    Offset at = host_row_map(i);
    for (Offset k = row_map(i); k < row_map(i + 1); ++k) {
      while (host_cols(at) != col_ind(k)) ++at;
      host_source(k) = at;
    }
  }
  pattern.row_map = Kokkos::create_mirror_view_and_copy(MemSpace(), host_row_map);
  pattern.col_ind = Kokkos::create_mirror_view_and_copy(MemSpace(), host_cols);
  pattern.source_position = Kokkos::create_mirror_view_and_copy(MemSpace(), host_source);
  pattern.fill_entries = entries - A.num_block_entries();
  return pattern;
}

namespace detail {

void scatter_into_pattern(const ExecSpace& space, const SparseMatrix& source,
                          const FillPattern& pattern, const SparseMatrix::Values& values) {
  Kokkos::deep_copy(space, values, 0.0);
  const auto from = source.values();
  const auto position = pattern.source_position;
  const int bb = source.block_size() * source.block_size();
  Kokkos::parallel_for(
      "fgdd::factor::scatter_into_fill_pattern",
      Kokkos::RangePolicy<ExecSpace>(space, 0, source.num_block_entries()),
      KOKKOS_LAMBDA(const Offset k) {
        for (int e = 0; e < bb; ++e) values(position(k) * bb + e) = from(k * bb + e);
      });
}

}  // namespace detail

}  // namespace fgdd
