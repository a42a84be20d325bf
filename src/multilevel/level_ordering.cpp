#include "multilevel/level_ordering.hpp"

#include "core/host_copy.hpp"
#include "partition/contiguous.hpp"
#include "partition/metis.hpp"
#include "partition/symmetric_graph.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

namespace fgdd::detail {

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

std::vector<Ordinal> fill_reducing_order(const ExecSpace& space, const HostCsr& A,
                                         MultilevelOrdering ordering) {
  const Ordinal n = A.rows;
  std::vector<Ordinal> order(n);
  if (ordering == MultilevelOrdering::Natural || n == 0) {
    std::iota(order.begin(), order.end(), Ordinal(0));
    return order;
  }
  const SymmetricGraph graph = symmetric_graph(space, to_device_matrix(A));
#ifdef FGDD_HAVE_METIS
  const bool nested_dissection = ordering != MultilevelOrdering::Rcm;
#else
  const bool nested_dissection = ordering == MultilevelOrdering::NestedDissection;  // NotCompiled
#endif
  if (nested_dissection) return metis_nested_dissection(space, graph);
  const std::vector<Ordinal> position = to_host_vector(rcm_positions(space, graph));
  for (Ordinal v = 0; v < n; ++v) order[position[v]] = v;
  return order;
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
