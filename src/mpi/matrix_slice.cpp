#include "mpi/matrix_slice.hpp"

#include "core/matrix_build.hpp"
#include "mpi/mpi_transfer.hpp"

#include <algorithm>
#include <numeric>

namespace fgdd::detail {

SparseMatrix to_matrix(Ordinal block_rows, int block_size, Slice&& slice) {
  HostMatrixArrays arrays;
  arrays.num_block_rows = arrays.num_block_cols = block_rows;
  arrays.block_size = block_size;
  arrays.row_map = std::move(slice.row_map);
  arrays.col_ind = std::move(slice.cols);
  arrays.values = std::move(slice.values);
  return make_matrix(arrays);
}

void split_columns(const Slice& rows, Ordinal first, Ordinal last, int block_size,
                   SparseMatrix& diagonal, OffRankBlock& off_rank,
                   std::vector<Offset>& diagonal_source, std::vector<Offset>& off_rank_source) {
  const Offset b2 = Offset(block_size) * Offset(block_size);
  const Ordinal n = Ordinal(rows.row_map.size() - 1);
  const auto owned = [&](Ordinal c) { return c >= first && c < last; };
  for (const Ordinal c : rows.cols)
    if (!owned(c)) off_rank.ghost_rows.push_back(c);
  std::sort(off_rank.ghost_rows.begin(), off_rank.ghost_rows.end());
  off_rank.ghost_rows.erase(std::unique(off_rank.ghost_rows.begin(), off_rank.ghost_rows.end()),
                            off_rank.ghost_rows.end());
  Slice local, ghost;
  local.row_map.assign(1, 0);
  ghost.row_map.assign(1, 0);
  for (Ordinal i = 0; i < n; ++i) {
    for (Offset k = rows.row_map[i]; k < rows.row_map[i + 1]; ++k) {
      const Ordinal c = rows.cols[k];
      Slice& target = owned(c) ? local : ghost;
      (owned(c) ? diagonal_source : off_rank_source).push_back(k);
      target.cols.push_back(owned(c) ? c - first
                                     : Ordinal(std::lower_bound(off_rank.ghost_rows.begin(),
                                                                off_rank.ghost_rows.end(), c) -
                                               off_rank.ghost_rows.begin()));
      target.values.insert(target.values.end(), rows.values.begin() + k * b2,
                           rows.values.begin() + (k + 1) * b2);
    }
    local.row_map.push_back(local.cols.size());
    ghost.row_map.push_back(ghost.cols.size());
  }
  off_rank.row_map = to_device(ghost.row_map, "fgdd::mpi::off_rank_row_map");
  off_rank.ghost_col = to_device(ghost.cols, "fgdd::mpi::off_rank_cols");
  off_rank.values = to_device(ghost.values, "fgdd::mpi::off_rank_values");
  diagonal = to_matrix(n, block_size, std::move(local));
}

Partition local_partition(const std::vector<Ordinal>& whole_offsets, Ordinal first_subdomain,
                          Ordinal last_subdomain, std::vector<Ordinal>&& original_rows) {
  Partition p;
  p.num_subdomains = last_subdomain - first_subdomain;
  const Ordinal first_row = whole_offsets[first_subdomain];
  for (Ordinal s = first_subdomain; s <= last_subdomain; ++s)
    p.host_subdomain_offsets.push_back(whole_offsets[s] - first_row);
  const Ordinal n = p.host_subdomain_offsets.back();
  std::vector<Ordinal> identity(n), part_of_row(n);
  std::iota(identity.begin(), identity.end(), 0);
  for (Ordinal s = 0; s < p.num_subdomains; ++s)
    std::fill(part_of_row.begin() + p.host_subdomain_offsets[s],
              part_of_row.begin() + p.host_subdomain_offsets[s + 1], s);
  p.subdomain_offsets = to_device(p.host_subdomain_offsets, "fgdd::mpi::subdomain_offsets");
  p.perm = to_device(identity, "fgdd::mpi::perm");
  p.iperm = to_device(original_rows, "fgdd::mpi::iperm");
  p.part_of_row = to_device(part_of_row, "fgdd::mpi::part_of_row");
  return p;
}

void gather_blocks(const ExecSpace& space, Kokkos::View<const Scalar*, DeviceType> values,
                   Kokkos::View<const Offset*, DeviceType> sources, int block_size,
                   Kokkos::View<Scalar*, DeviceType> target) {
  const Offset b2 = Offset(block_size) * Offset(block_size);
  Kokkos::parallel_for(
      "fgdd::mpi::gather_values", Kokkos::RangePolicy<ExecSpace>(space, 0, target.extent(0)),
      KOKKOS_LAMBDA(const Offset k) { target(k) = values(sources(k / b2) * b2 + k % b2); });
}

}  // namespace fgdd::detail
