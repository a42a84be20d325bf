#include "partition/partition.hpp"

#include "core/errors.hpp"
#include "core/exclusive_scan.hpp"
#include "core/first_row_where.hpp"
#include "core/kokkos_compat.hpp"

namespace fgdd::detail {

Partition make_partition(const ExecSpace& space, const Labeling& labeling) {
  using Policy = Kokkos::RangePolicy<ExecSpace>;
  const Ordinal n = Ordinal(labeling.part_of_row.extent(0));
  const Ordinal num_labels = labeling.num_parts;
  const auto part_of_row = labeling.part_of_row;
  const auto order_key = labeling.order_key;
  if (Ordinal(order_key.extent(0)) != n)
    throw InvalidInput("labeling has " + std::to_string(n) + " labels but " +
                       std::to_string(order_key.extent(0)) + " order keys");

  const Ordinal bad_row = first_row_where(
      space, n, "fgdd::partition::check_labels", KOKKOS_LAMBDA(const Ordinal i) {
        return part_of_row(i) < 0 || part_of_row(i) >= num_labels || order_key(i) < 0;
      });
  if (bad_row < n)
    throw InvalidInput("row " + std::to_string(bad_row) + " has a label outside [0, " +
                       std::to_string(num_labels) + ") or a negative order key");

  // Rows per label, then dense renumbering that skips empty labels.
  Kokkos::View<Offset*, DeviceType> label_counts("fgdd::partition::label_counts", num_labels + 1);
  Kokkos::parallel_for(
      "fgdd::partition::count_labels", Policy(space, 0, n),
      KOKKOS_LAMBDA(const Ordinal i) { Kokkos::atomic_add(&label_counts(part_of_row(i)), Offset(1)); });
  Kokkos::View<Ordinal*, DeviceType> dense_label("fgdd::partition::dense_label", num_labels + 1);
  Offset nonempty_labels = 0;
  Kokkos::parallel_scan(
      "fgdd::partition::renumber_labels", Policy(space, 0, num_labels + 1),
      KOKKOS_LAMBDA(const Ordinal l, Offset& partial, const bool final) {
        if (final) dense_label(l) = Ordinal(partial);
        if (l < num_labels && label_counts(l) > 0) ++partial;
      },
      nonempty_labels);
  const Ordinal num_subdomains = Ordinal(nonempty_labels);

  // Offsets of the non-empty subdomains in the new ordering (Offset-typed for the row sort).
  Kokkos::View<Offset*, DeviceType> bucket_offsets("fgdd::partition::bucket_offsets",
                                                   num_subdomains + 1);
  Kokkos::parallel_for(
      "fgdd::partition::bucket_sizes", Policy(space, 0, num_labels), KOKKOS_LAMBDA(const Ordinal l) {
        if (label_counts(l) > 0) bucket_offsets(dense_label(l)) = label_counts(l);
      });
  exclusive_scan_in_place(space, "fgdd::partition::bucket_scan", bucket_offsets);

  // Scatter rows into their subdomain in any order, then sort each subdomain by order_key:
  // the result is deterministic because keys are distinct within a subdomain.
  Kokkos::View<Ordinal*, DeviceType> bucket_keys(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::bucket_keys"), n);
  Partition partition;
  partition.num_subdomains = num_subdomains;
  partition.part_of_row = Kokkos::View<Ordinal*, DeviceType>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::part_of_row"), n);
  partition.iperm = Kokkos::View<Ordinal*, DeviceType>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::iperm"), n);
  partition.perm = Kokkos::View<Ordinal*, DeviceType>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::perm"), n);
  const auto dense_part = partition.part_of_row;
  const auto iperm = partition.iperm;
  const auto perm = partition.perm;
  Kokkos::View<Offset*, DeviceType> fill("fgdd::partition::bucket_fill", num_subdomains);
  Kokkos::parallel_for(
      "fgdd::partition::scatter_rows", Policy(space, 0, n), KOKKOS_LAMBDA(const Ordinal i) {
        const Ordinal s = dense_label(part_of_row(i));
        dense_part(i) = s;
        const Offset at = bucket_offsets(s) + Kokkos::atomic_fetch_add(&fill(s), Offset(1));
        bucket_keys(at) = order_key(i);
        iperm(at) = i;
      });
  sort_crs_rows<ExecSpace>(bucket_offsets, bucket_keys, iperm);

  Ordinal repeated = n;
  Kokkos::parallel_reduce(
      "fgdd::partition::make_perm", Policy(space, 0, n),
      KOKKOS_LAMBDA(const Ordinal k, Ordinal& first) {
        perm(iperm(k)) = k;
        const bool same_subdomain = k > 0 && dense_part(iperm(k)) == dense_part(iperm(k - 1));
        if (same_subdomain && bucket_keys(k) == bucket_keys(k - 1) && iperm(k) < first)
          first = iperm(k);
      },
      Kokkos::Min<Ordinal>(repeated));
  if (repeated < n)
    throw InvalidInput("row " + std::to_string(repeated) +
                       " repeats an order key within its subdomain");

  partition.subdomain_offsets = Kokkos::View<Ordinal*, DeviceType>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::subdomain_offsets"),
      num_subdomains + 1);
  const auto offsets = partition.subdomain_offsets;
  Kokkos::parallel_for(
      "fgdd::partition::offsets", Policy(space, 0, num_subdomains + 1),
      KOKKOS_LAMBDA(const Ordinal s) { offsets(s) = Ordinal(bucket_offsets(s)); });
  const auto host_offsets = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), offsets);
  partition.host_subdomain_offsets.assign(host_offsets.data(),
                                          host_offsets.data() + host_offsets.extent(0));
  return partition;
}

Partition with_new_row_order(const Partition& partition) {
  const Ordinal n = partition.num_block_rows();
  Partition ordered = partition;
  ordered.perm = Kokkos::View<Ordinal*, DeviceType>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::perm"), n);
  ordered.iperm = Kokkos::View<Ordinal*, DeviceType>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::iperm"), n);
  return ordered;
}

Kokkos::View<Ordinal*, DeviceType> row_index_keys(const ExecSpace& space, Ordinal n) {
  Kokkos::View<Ordinal*, DeviceType> keys(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::row_index_keys"), n);
  Kokkos::parallel_for(
      "fgdd::partition::row_index_keys", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const Ordinal i) { keys(i) = i; });
  return keys;
}

}  // namespace fgdd::detail
