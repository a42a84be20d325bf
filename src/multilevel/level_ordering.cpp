#include "multilevel/level_ordering.hpp"

#include "core/errors.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <utility>

#ifdef FGDD_HAVE_METIS
#include <metis.h>
#endif

namespace fgdd::detail {

namespace {

// The pattern of A + Aᵀ without the diagonal, as METIS takes it.
struct Graph {
  std::vector<Offset> ptr;
  std::vector<Ordinal> adj;
};

Graph symmetric_pattern(const HostCsr& A) {
  const HostCsr T = transpose(A);
  Graph g;
  g.ptr.assign(Offset(A.rows) + 1, 0);
  std::vector<Ordinal> row;
  for (Ordinal i = 0; i < A.rows; ++i) {
    row.clear();
    for (Offset k = A.ptr[i]; k < A.ptr[i + 1]; ++k)
      if (A.col[k] != i) row.push_back(A.col[k]);
    for (Offset k = T.ptr[i]; k < T.ptr[i + 1]; ++k)
      if (T.col[k] != i) row.push_back(T.col[k]);
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
    g.adj.insert(g.adj.end(), row.begin(), row.end());
    g.ptr[i + 1] = g.adj.size();
  }
  return g;
}

// Reverse Cuthill–McKee, each connected component from a vertex of smallest degree.
std::vector<Ordinal> rcm_order(const Graph& g, Ordinal n) {
  std::vector<Ordinal> order;
  order.reserve(n);
  std::vector<char> seen(n, 0);
  std::vector<Ordinal> by_degree(n);
  std::iota(by_degree.begin(), by_degree.end(), Ordinal(0));
  const auto degree = [&](Ordinal v) { return g.ptr[v + 1] - g.ptr[v]; };
  std::stable_sort(by_degree.begin(), by_degree.end(),
                   [&](Ordinal a, Ordinal b) { return degree(a) < degree(b); });
  std::vector<Ordinal> neighbours;
  for (const Ordinal start : by_degree) {
    if (seen[start]) continue;
    seen[start] = 1;
    order.push_back(start);
    for (std::size_t head = order.size() - 1; head < order.size(); ++head) {
      const Ordinal v = order[head];
      neighbours.clear();
      for (Offset k = g.ptr[v]; k < g.ptr[v + 1]; ++k)
        if (!seen[g.adj[k]]) {
          seen[g.adj[k]] = 1;
          neighbours.push_back(g.adj[k]);
        }
      std::stable_sort(neighbours.begin(), neighbours.end(),
                       [&](Ordinal a, Ordinal b) { return degree(a) < degree(b); });
      order.insert(order.end(), neighbours.begin(), neighbours.end());
    }
  }
  std::reverse(order.begin(), order.end());
  return order;
}

#ifdef FGDD_HAVE_METIS
std::vector<Ordinal> nested_dissection_order(const Graph& g, Ordinal n) {
  if (g.adj.size() > std::size_t(std::numeric_limits<idx_t>::max()))
    throw Error("multilevel ILU: the graph has more edges than METIS's idx_t can count");
  idx_t nv = idx_t(n);
  std::vector<idx_t> xadj(g.ptr.begin(), g.ptr.end()), adjncy(g.adj.begin(), g.adj.end());
  std::vector<idx_t> perm(n), iperm(n);
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = 1;  // the same order every run
  const int status = METIS_NodeND(&nv, xadj.data(), adjncy.data(), nullptr, options, perm.data(),
                                  iperm.data());
  if (status != METIS_OK)
    throw Error("multilevel ILU: METIS_NodeND failed with status " + std::to_string(status));
  return std::vector<Ordinal>(perm.begin(), perm.end());  // perm[new] = old
}
#endif

}  // namespace

void equilibrate(const HostCsr& A, std::vector<Scalar>& row_scale, std::vector<Scalar>& col_scale) {
  row_scale.assign(A.rows, 1);
  col_scale.assign(A.cols, 0);
  for (Ordinal i = 0; i < A.rows; ++i) {
    Scalar largest = 0;
    for (Offset k = A.ptr[i]; k < A.ptr[i + 1]; ++k) largest = std::max(largest, std::fabs(A.val[k]));
    if (largest > 0) row_scale[i] = 1 / largest;
    for (Offset k = A.ptr[i]; k < A.ptr[i + 1]; ++k)
      col_scale[A.col[k]] = std::max(col_scale[A.col[k]], std::fabs(A.val[k]) * row_scale[i]);
  }
  for (Scalar& c : col_scale) c = c > 0 ? 1 / c : 1;
}

std::vector<Ordinal> fill_reducing_order(const HostCsr& A, MultilevelOrdering ordering) {
  const Ordinal n = A.rows;
  if (ordering == MultilevelOrdering::Natural) {
    std::vector<Ordinal> order(n);
    std::iota(order.begin(), order.end(), Ordinal(0));
    return order;
  }
  const Graph g = symmetric_pattern(A);
#ifdef FGDD_HAVE_METIS
  if (ordering != MultilevelOrdering::Rcm) return nested_dissection_order(g, n);
#else
  if (ordering == MultilevelOrdering::NestedDissection)
    throw NotCompiled("multilevel ordering nd needs METIS; fgdd was built without it");
#endif
  return rcm_order(g, n);
}

HostCsr scaled_permuted(const HostCsr& A, const std::vector<Scalar>& row_scale,
                        const std::vector<Scalar>& col_scale, const std::vector<Ordinal>& order) {
  const Ordinal n = A.rows;
  std::vector<Ordinal> position(n);
  for (Ordinal q = 0; q < n; ++q) position[order[q]] = q;
  HostCsr B;
  B.cols = n;
  B.col.reserve(A.nnz());
  B.val.reserve(A.nnz());
  std::vector<std::pair<Ordinal, Scalar>> row;
  for (Ordinal q = 0; q < n; ++q) {
    const Ordinal i = order[q];
    row.clear();
    for (Offset k = A.ptr[i]; k < A.ptr[i + 1]; ++k)
      row.emplace_back(position[A.col[k]], row_scale[i] * A.val[k] * col_scale[A.col[k]]);
    std::sort(row.begin(), row.end());
    for (const auto& [c, v] : row) B.push(c, v);
    B.end_row();
  }
  return B;
}

}  // namespace fgdd::detail
