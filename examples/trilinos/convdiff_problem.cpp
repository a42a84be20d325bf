#include "convdiff_problem.hpp"

#include <array>
#include <vector>

namespace fgdd_example {

Teuchos::RCP<CrsMatrix> convection_diffusion(const Teuchos::RCP<const Teuchos::Comm<int>>& comm,
                                             GlobalOrdinal n, double peclet) {
  using Map = fgdd::trilinos::Map;
  const auto map = Teuchos::rcp(new Map(n * n * n, 0, comm));
  auto A = Teuchos::rcp(new CrsMatrix(map, 7));
  const double h = 1.0 / double(n + 1);
  const std::array<double, 3> beta = {peclet, 0.5 * peclet, 0.25 * peclet};
  std::vector<GlobalOrdinal> columns;
  std::vector<double> values;
  for (std::size_t local = 0; local < map->getNodeNumElements(); ++local) {
    const GlobalOrdinal row =
        map->getGlobalElement(static_cast<fgdd::trilinos::LocalOrdinal>(local));
    const std::array<GlobalOrdinal, 3> at = {row % n, (row / n) % n, row / (n * n)};
    const std::array<GlobalOrdinal, 3> stride = {1, n, n * n};
    columns.assign(1, row);
    values.assign(1, 6.0);
    for (int d = 0; d < 3; ++d) {
      values[0] += h * beta[d];  // upwind: the convection flux leaves through the centre
      if (at[d] > 0) {
        columns.push_back(row - stride[d]);
        values.push_back(-1.0 - h * beta[d]);
      }
      if (at[d] + 1 < n) {
        columns.push_back(row + stride[d]);
        values.push_back(-1.0);
      }
    }
    A->insertGlobalValues(row, Teuchos::ArrayView<const GlobalOrdinal>(columns),
                          Teuchos::ArrayView<const double>(values));
  }
  A->fillComplete();
  return A;
}

void shift_diagonal(CrsMatrix& A, double shift) {
  A.resumeFill();
  const auto& rows = *A.getRowMap();
  for (std::size_t local = 0; local < rows.getNodeNumElements(); ++local) {
    const auto row = static_cast<fgdd::trilinos::LocalOrdinal>(local);
    const auto column = A.getColMap()->getLocalElement(rows.getGlobalElement(row));
    CrsMatrix::values_host_view_type values;
    CrsMatrix::local_inds_host_view_type indices;
    A.getLocalRowView(row, indices, values);
    for (std::size_t k = 0; k < indices.extent(0); ++k) {
      if (indices(k) != column) continue;
      const double updated = values(k) + shift;
      A.replaceLocalValues(row, Teuchos::ArrayView<const fgdd::trilinos::LocalOrdinal>(&column, 1),
                           Teuchos::ArrayView<const double>(&updated, 1));
    }
  }
  A.fillComplete();
}

}  // namespace fgdd_example
