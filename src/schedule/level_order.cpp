#include "schedule/level_order.hpp"

#include "partition/labeling.hpp"
#include "schedule/global_levels.hpp"
#include "schedule/subdomain_levels.hpp"

#include <string>

namespace fgdd {

PartitionedMatrix order_subdomain_rows_by_level(const ExecSpace& space, const SparseMatrix& A,
                                                const PartitionedMatrix& partitioned) {
  using Policy = Kokkos::RangePolicy<ExecSpace>;
  Kokkos::Timer timer;
  const Partition& partition = partitioned.partition;
  const SparseMatrix& dropped = partitioned.system.dropped;
  const Ordinal n = partition.num_block_rows();
  detail::Labeling labeling;
  labeling.num_parts = partition.num_subdomains;
  labeling.part_of_row = partition.part_of_row;
  labeling.order_key = Kokkos::View<Ordinal*, DeviceType>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::schedule::level_order_key"), n);
  {
    // levels.rows lists each subdomain's rows level by level, ascending within a level, over
    // the subdomain's own positions: the position of a permuted row there is its new key.
    const SubdomainLevels levels = build_subdomain_levels(
        space, dropped, diagonal_positions(space, dropped), partition, Triangle::Lower);
    Kokkos::View<Ordinal*, DeviceType> position_in_levels(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::schedule::level_position"), n);
    const auto rows = levels.rows;
    Kokkos::parallel_for(
        "fgdd::schedule::level_positions", Policy(space, 0, n),
        KOKKOS_LAMBDA(const Ordinal p) { position_in_levels(rows(p)) = p; });
    const auto perm = partition.perm;
    const auto order_key = labeling.order_key;
    Kokkos::parallel_for(
        "fgdd::schedule::level_order_keys", Policy(space, 0, n),
        KOKKOS_LAMBDA(const Ordinal i) { order_key(i) = position_in_levels(perm(i)); });
  }
  PartitionedMatrix result;
  result.partition = detail::make_partition(space, labeling);
  result.system = reorder_and_drop(space, A, result.partition);
  space.fence();
  result.report = partitioned.report;
  result.report.reorder_seconds += timer.seconds();
  result.report.steps += std::string(result.report.steps.empty() ? "" : "; ") +
                         "rows of each subdomain in level order";
  return result;
}

PartitionedMatrix partition_in_row_order(const ExecSpace& space, const SparseMatrix& A,
                                         const GridInfo& grid, const Coordinates& coordinates,
                                         const PartitionOptions& options) {
  PartitionedMatrix partitioned = partition_matrix(space, A, grid, coordinates, options);
  if (options.row_order != SubdomainRowOrder::Levels) return partitioned;
  return order_subdomain_rows_by_level(space, A, partitioned);
}

}  // namespace fgdd
