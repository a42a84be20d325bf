#include "reference/labeling_checks.hpp"

#include <algorithm>
#include <numeric>
#include <random>

#include "catch_compat.hpp"
#include "core/matrix_build.hpp"
#include "reference/dense.hpp"

namespace fgdd::reference {

std::vector<Ordinal> part_sizes(const detail::Labeling& labeling) {
  const auto parts = host_vector(labeling.part_of_row);
  std::vector<Ordinal> sizes(std::max(labeling.num_parts, 0), 0);
  for (const Ordinal p : parts) {
    REQUIRE(p >= 0);
    REQUIRE(p < labeling.num_parts);
    ++sizes[p];
  }
  return sizes;
}

std::vector<Ordinal> check_invariants(const detail::Labeling& labeling, Ordinal num_rows,
                                      Ordinal cap) {
  REQUIRE(Ordinal(labeling.part_of_row.extent(0)) == num_rows);
  REQUIRE(Ordinal(labeling.order_key.extent(0)) == num_rows);
  const auto sizes = part_sizes(labeling);
  for (Ordinal p = 0; p < labeling.num_parts; ++p) {
    INFO("part " << p);
    CHECK(sizes[p] > 0);
    CHECK(sizes[p] <= cap);
  }
  return sizes;
}

double dropped_fraction(const SparseMatrix& A, const std::vector<Ordinal>& parts) {
  const auto row_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.row_map());
  const auto col_ind = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.col_ind());
  Offset dropped = 0;
  for (Ordinal i = 0; i < A.num_block_rows(); ++i)
    for (Offset k = row_map(i); k < row_map(i + 1); ++k)
      if (parts[i] != parts[col_ind(k)]) ++dropped;
  return double(dropped) / double(A.num_block_entries());
}

double dropped_fraction(const SparseMatrix& A, const detail::Labeling& labeling) {
  return dropped_fraction(A, host_vector(labeling.part_of_row));
}

SparseMatrix graph_matrix(Ordinal n, const std::vector<std::pair<Ordinal, Ordinal>>& edges) {
  std::vector<std::vector<Ordinal>> columns(n);
  for (Ordinal i = 0; i < n; ++i) columns[i].push_back(i);
  for (const auto& [a, b] : edges) {
    columns[a].push_back(b);
    columns[b].push_back(a);
  }
  HostMatrixArrays m;
  m.num_block_rows = m.num_block_cols = n;
  m.row_map.push_back(0);
  for (Ordinal i = 0; i < n; ++i) {
    for (const Ordinal j : columns[i]) {
      m.col_ind.push_back(j);
      m.values.push_back(i == j ? 4.0 : -1.0);
    }
    m.row_map.push_back(m.col_ind.size());
  }
  return make_matrix(m);
}

SparseMatrix disjoint_paths(const std::vector<Ordinal>& lengths) {
  std::vector<std::pair<Ordinal, Ordinal>> edges;
  Ordinal start = 0;
  for (const Ordinal length : lengths) {
    for (Ordinal k = 1; k < length; ++k) edges.emplace_back(start + k - 1, start + k);
    start += length;
  }
  return graph_matrix(start, edges);
}

HostMatrixArrays to_host_arrays(const SparseMatrix& A) {
  HostMatrixArrays host;
  host.num_block_rows = host.num_block_cols = A.num_block_rows();
  host.block_size = A.block_size();
  const auto row_map = host_vector(A.row_map());
  const auto col_ind = host_vector(A.col_ind());
  const auto values = host_vector(A.values());
  host.row_map.assign(row_map.begin(), row_map.end());
  host.col_ind.assign(col_ind.begin(), col_ind.end());
  host.values.assign(values.begin(), values.end());
  return host;
}

HostMatrixArrays permuted(const HostMatrixArrays& A, const std::vector<Ordinal>& new_of_old) {
  const Ordinal n = A.num_block_rows;
  const std::size_t b2 = std::size_t(A.block_size) * A.block_size;
  std::vector<Ordinal> old_of_new(n);
  for (Ordinal i = 0; i < n; ++i) old_of_new[new_of_old[i]] = i;
  HostMatrixArrays P;
  P.num_block_rows = P.num_block_cols = n;
  P.block_size = A.block_size;
  P.row_map.push_back(0);
  for (Ordinal r = 0; r < n; ++r) {
    const Ordinal i = old_of_new[r];
    for (Offset k = A.row_map[i]; k < A.row_map[i + 1]; ++k) {
      P.col_ind.push_back(new_of_old[A.col_ind[k]]);
      P.values.insert(P.values.end(), A.values.begin() + k * b2, A.values.begin() + (k + 1) * b2);
    }
    P.row_map.push_back(P.col_ind.size());
  }
  return P;
}

SparseMatrix scrambled(const SparseMatrix& A, unsigned seed, std::vector<Ordinal>& new_of_old) {
  new_of_old.resize(A.num_block_rows());
  std::iota(new_of_old.begin(), new_of_old.end(), 0);
  std::shuffle(new_of_old.begin(), new_of_old.end(), std::mt19937(seed));
  return make_matrix(permuted(to_host_arrays(A), new_of_old));
}

}  // namespace fgdd::reference
