#include "trilinos/local_block.hpp"

#include "core/errors.hpp"
#include "core/matrix_build.hpp"

#include <string>
#include <vector>

namespace fgdd::trilinos {

namespace {

void check_maps(const RowMatrix& A) {
  const auto rows = A.getRowMap();
  if (!rows->locallySameAs(*A.getRangeMap()) || !rows->locallySameAs(*A.getDomainMap()))
    throw InvalidInput(
        "the fgdd preconditioner needs the matrix's row map to be, on every rank, the same as its "
        "range and domain maps (its vectors are laid out like the rows); on rank " +
        std::to_string(A.getComm()->getRank()) + " they differ");
}

// owner(c) = this rank's local row of local column c, or -1 for a column another rank owns.
// A row map fitted to the column map (the column map starts with the owned rows, as
// fillComplete builds it) needs no lookup; any other column map is looked up on the host.
Kokkos::View<Ordinal*, DeviceType> column_owners(const RowMatrix& A) {
  const Map& rows = *A.getRowMap();
  const Map& columns = *A.getColMap();
  const auto n = static_cast<Ordinal>(rows.getNodeNumElements());
  const auto m = static_cast<Ordinal>(columns.getNodeNumElements());
  Kokkos::View<Ordinal*, DeviceType> owner(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::trilinos::column_owner"), m);
  if (rows.isLocallyFitted(columns)) {
    Kokkos::parallel_for(
        "fgdd::trilinos::fitted_owners", Kokkos::RangePolicy<ExecSpace>(0, m),
        KOKKOS_LAMBDA(const Ordinal c) { owner(c) = c < n ? c : -1; });
    return owner;
  }
  const auto host = Kokkos::create_mirror_view(owner);
  for (Ordinal c = 0; c < m; ++c) {
    const LocalOrdinal row = rows.getLocalElement(columns.getGlobalElement(c));
    host(c) = row == Tpetra::Details::OrdinalTraits<LocalOrdinal>::invalid() ? -1 : row;
  }
  Kokkos::deep_copy(owner, host);
  return owner;
}

// kept(i) = the entries of rows before i in owned columns.
template <class RowMap, class Entries>
Kokkos::View<Offset*, DeviceType> count_owned(const RowMap& row_map, const Entries& entries,
                                              const Kokkos::View<Ordinal*, DeviceType>& owner,
                                              Ordinal n) {
  Kokkos::View<Offset*, DeviceType> kept(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::trilinos::row_map"), n + 1);
  Kokkos::parallel_scan(
      "fgdd::trilinos::count_owned", Kokkos::RangePolicy<ExecSpace>(0, n + 1),
      KOKKOS_LAMBDA(const Ordinal i, Offset& sum, const bool last) {
        if (last) kept(i) = sum;
        if (i == n) return;
        for (auto k = row_map(i); k < row_map(i + 1); ++k) sum += owner(entries(k)) >= 0 ? 1 : 0;
      });
  return kept;
}

// The entries of `local` in owned columns, renumbered to this rank's rows, on the device.
template <class LocalMatrix>
LocalBlock filtered_block(const LocalMatrix& local, const Kokkos::View<Ordinal*, DeviceType>& owner,
                          Ordinal n) {
  const auto row_map = Kokkos::create_mirror_view_and_copy(MemSpace(), local.graph.row_map);
  const auto entries = Kokkos::create_mirror_view_and_copy(MemSpace(), local.graph.entries);
  const auto values = Kokkos::create_mirror_view_and_copy(MemSpace(), local.values);
  const auto kept = count_owned(row_map, entries, owner, n);
  Offset total = 0;
  Kokkos::deep_copy(total, Kokkos::subview(kept, n));
  SparseMatrix::ColumnIndices col_ind(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::trilinos::col_ind"), total);
  SparseMatrix::Values kept_values(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::trilinos::values"), total);
  Kokkos::parallel_for(
      "fgdd::trilinos::copy_owned", Kokkos::RangePolicy<ExecSpace>(0, n),
      KOKKOS_LAMBDA(const Ordinal i) {
        Offset to = kept(i);
        for (auto k = row_map(i); k < row_map(i + 1); ++k) {
          const Ordinal row = owner(entries(k));
          if (row < 0) continue;
          col_ind(to) = row;
          kept_values(to) = values(k);
          ++to;
        }
      });
  LocalBlock block;
  block.source = BlockSource::Filtered;
  block.dropped_entries = Offset(entries.extent(0)) - total;
  // Columns renumbered through a lookup may be out of order: make_matrix sorts them.
  block.matrix = make_matrix(n, n, 1, kept, col_ind, kept_values, /*arrays_may_change=*/true);
  return block;
}

// Any RowMatrix, through getLocalRowCopy on the host.
LocalBlock copied_block(const RowMatrix& A) {
  const auto n = static_cast<Ordinal>(A.getNodeNumRows());
  const Map& rows = *A.getRowMap();
  const Map& columns = *A.getColMap();
  HostMatrixArrays arrays;
  arrays.num_block_rows = arrays.num_block_cols = n;
  arrays.row_map.reserve(n + 1);
  arrays.row_map.push_back(0);
  LocalBlock block;
  block.source = BlockSource::RowCopy;
  RowMatrix::nonconst_local_inds_host_view_type indices("indices", A.getNodeMaxNumRowEntries());
  RowMatrix::nonconst_values_host_view_type values("values", A.getNodeMaxNumRowEntries());
  for (Ordinal i = 0; i < n; ++i) {
    std::size_t count = 0;
    A.getLocalRowCopy(i, indices, values, count);
    for (std::size_t k = 0; k < count; ++k) {
      const LocalOrdinal row = rows.getLocalElement(columns.getGlobalElement(indices(k)));
      if (row == Tpetra::Details::OrdinalTraits<LocalOrdinal>::invalid()) {
        ++block.dropped_entries;
        continue;
      }
      arrays.col_ind.push_back(row);
      arrays.values.push_back(values(k));
    }
    arrays.row_map.push_back(arrays.col_ind.size());
  }
  block.matrix = make_matrix(arrays);
  return block;
}

}  // namespace

LocalBlock local_diagonal_block(const RowMatrix& A) {
  check_maps(A);
  const auto* crs = dynamic_cast<const CrsMatrix*>(&A);
  if (crs == nullptr) return copied_block(A);
  const auto n = static_cast<Ordinal>(A.getNodeNumRows());
  const auto local = crs->getLocalMatrixDevice();
  if (A.getRowMap()->isLocallyFitted(*A.getColMap()) && local.numCols() == n) {
    LocalBlock block;
    block.matrix = from_kokkos_crs(local);
    return block;
  }
  return filtered_block(local, column_owners(A), n);
}

}  // namespace fgdd::trilinos
