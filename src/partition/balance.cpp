// Size balancing (fine-grained-dd-sptrsv-gpu.txt §3, uniform subdomains): split parts above the
// cap, merge tiny parts into their most-connected neighbour, renumber. Per-row work runs on the
// execution space; the host sees one entry per part.
#include "partition/balance.hpp"

#include "core/host_copy.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "core/errors.hpp"
#include "core/exclusive_scan.hpp"
#include "core/group_by_key.hpp"
#include "core/kokkos_compat.hpp"
#include "partition/sorted_runs.hpp"

namespace fgdd::detail {
namespace balance {

using Policy = Kokkos::RangePolicy<ExecSpace>;
using OrdinalView = Kokkos::View<Ordinal*, DeviceType>;
using OffsetView = Kokkos::View<Offset*, DeviceType>;

void check_input(const ExecSpace& space, const SymmetricGraph& graph, const Labeling& labeling,
                 Ordinal max_block_rows) {
  if (max_block_rows < 1)
    throw InvalidInput("balance_labeling: max_block_rows must be >= 1, got " +
                       std::to_string(max_block_rows));
  const Ordinal n = graph.num_vertices;
  if (Ordinal(labeling.part_of_row.extent(0)) != n || Ordinal(labeling.order_key.extent(0)) != n)
    throw InvalidInput("balance_labeling: the graph has " + std::to_string(n) +
                       " vertices but the labeling has " +
                       std::to_string(labeling.part_of_row.extent(0)) + " labels and " +
                       std::to_string(labeling.order_key.extent(0)) + " order keys");
  const auto part_of_row = labeling.part_of_row;
  const auto order_key = labeling.order_key;
  const Ordinal num_parts = labeling.num_parts;
  Ordinal bad_row = n;
  Kokkos::parallel_reduce(
      "fgdd::partition::balance_check_labels", Policy(space, 0, n),
      KOKKOS_LAMBDA(const Ordinal i, Ordinal& first) {
        const bool bad = part_of_row(i) < 0 || part_of_row(i) >= num_parts || order_key(i) < 0;
        if (bad && i < first) first = i;
      },
      Kokkos::Min<Ordinal>(bad_row));
  if (bad_row < n)
    throw InvalidInput("balance_labeling: row " + std::to_string(bad_row) +
                       " has a label outside [0, " + std::to_string(num_parts) +
                       ") or a negative order key");
}

// Rows per part; atomic counts do not depend on the update order.
std::vector<Ordinal> part_sizes(const ExecSpace& space, const OrdinalView& part_of_row,
                                Ordinal num_parts) {
  OrdinalView sizes("fgdd::partition::balance_part_sizes", num_parts);
  Kokkos::parallel_for(
      "fgdd::partition::balance_count_parts", Policy(space, 0, Ordinal(part_of_row.extent(0))),
      KOKKOS_LAMBDA(const Ordinal i) { Kokkos::atomic_add(&sizes(part_of_row(i)), Ordinal(1)); });
  return detail::to_host_vector(sizes);
}

// Step (a). Every part p gets pieces(p) = ceil(size / max) consecutive new labels from
// first_label(p) (none if empty, so empty labels vanish). Rows of oversized parts are bucketed,
// sorted by order key, and the row of rank r among s rows goes to piece floor(r * k / s): piece
// sizes are floor(s/k) or ceil(s/k) <= max. Returns the new label count.
Ordinal split_oversized(const ExecSpace& space, const Labeling& labeling,
                        const std::vector<Ordinal>& sizes, Ordinal max_block_rows,
                        const OrdinalView& new_part) {
  const Ordinal num_parts = labeling.num_parts;
  std::vector<Ordinal> first_label(num_parts), oversized_index(num_parts, -1);
  std::vector<Ordinal> oversized_sizes, oversized_pieces;
  std::vector<Offset> bucket_offsets{0};
  Ordinal next_label = 0;
  for (Ordinal p = 0; p < num_parts; ++p) {
    const Ordinal pieces = Ordinal((std::int64_t(sizes[p]) + max_block_rows - 1) / max_block_rows);
    first_label[p] = next_label;
    next_label += pieces;
    if (pieces > 1) {
      oversized_index[p] = Ordinal(oversized_sizes.size());
      oversized_sizes.push_back(sizes[p]);
      oversized_pieces.push_back(pieces);
      bucket_offsets.push_back(bucket_offsets.back() + Offset(sizes[p]));
    }
  }

  const Ordinal n = Ordinal(new_part.extent(0));
  const auto part_of_row = labeling.part_of_row;
  const auto first = detail::to_device(first_label, "fgdd::partition::balance_first_label");
  Kokkos::parallel_for(
      "fgdd::partition::balance_first_piece", Policy(space, 0, n),
      KOKKOS_LAMBDA(const Ordinal i) { new_part(i) = first(part_of_row(i)); });
  if (oversized_sizes.empty()) return next_label;

  const auto over_index = detail::to_device(oversized_index, "fgdd::partition::balance_over_index");
  const auto over_size = detail::to_device(oversized_sizes, "fgdd::partition::balance_over_size");
  const auto over_pieces =
      detail::to_device(oversized_pieces, "fgdd::partition::balance_over_pieces");
  const auto offsets = detail::to_device(bucket_offsets, "fgdd::partition::balance_over_offsets");
  const Offset total = bucket_offsets.back();
  const auto order_key = labeling.order_key;
  OrdinalView keys(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::balance_keys"),
                   total);
  OrdinalView rows(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::balance_rows"),
                   total);
  // Rows of parts that are not oversized have a negative index and stay out. Keys are distinct
  // within a part, so the sorted bucket (and each rank) is deterministic.
  group_by_key(
      space, "fgdd::partition::balance_bucket_oversized", n, offsets,
      KOKKOS_LAMBDA(const Ordinal i) { return over_index(part_of_row(i)); },
      KOKKOS_LAMBDA(const Ordinal i) { return order_key(i); },
      KOKKOS_LAMBDA(const Ordinal i) { return i; }, keys, rows);
  Kokkos::parallel_for(
      "fgdd::partition::balance_split", Policy(space, 0, std::int64_t(total)),
      KOKKOS_LAMBDA(const Offset k) {
        const Ordinal row = rows(k);
        const Ordinal o = over_index(part_of_row(row));
        const std::int64_t rank = std::int64_t(k - offsets(o));
        new_part(row) += Ordinal(rank * over_pieces(o) / over_size(o));
      });
  return next_label;
}

// Distinct neighbouring parts of each tiny part with the number of graph edges to each, sorted
// by part: tiny part t owns entries [offsets[t], offsets[t+1]).
struct NeighbourParts {
  std::vector<Offset> offsets;
  std::vector<Ordinal> parts;
  std::vector<Ordinal> edges;
};

NeighbourParts tiny_part_neighbours(const ExecSpace& space, const SymmetricGraph& graph,
                                    const OrdinalView& part_of_row,
                                    const std::vector<Ordinal>& tiny_index_host, Ordinal num_tiny) {
  const Ordinal n = graph.num_vertices;
  const auto row_map = graph.row_map;
  const auto adjacency = graph.adjacency;
  const auto tiny_index = detail::to_device(tiny_index_host, "fgdd::partition::balance_tiny_index");

  // Bucket the labels across every cut edge leaving a tiny part, by tiny part.
  OffsetView bucket("fgdd::partition::balance_tiny_offsets", num_tiny + 1);
  Kokkos::parallel_for(
      "fgdd::partition::balance_count_cut_edges", Policy(space, 0, n),
      KOKKOS_LAMBDA(const Ordinal u) {
        const Ordinal t = tiny_index(part_of_row(u));
        if (t < 0) return;
        Offset cut = 0;
        for (Offset k = row_map(u); k < row_map(u + 1); ++k)
          if (part_of_row(adjacency(k)) != part_of_row(u)) ++cut;
        if (cut > 0) Kokkos::atomic_add(&bucket(t), cut);
      });
  const Offset total =
      exclusive_scan_in_place(space, "fgdd::partition::balance_cut_edge_scan", bucket);
  OrdinalView labels(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::balance_cut_labels"),
      total);
  OrdinalView ones(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::balance_cut_ones"),
      total);
  OffsetView fill("fgdd::partition::balance_cut_fill", num_tiny);
  Kokkos::parallel_for(
      "fgdd::partition::balance_scatter_cut_edges", Policy(space, 0, n),
      KOKKOS_LAMBDA(const Ordinal u) {
        const Ordinal t = tiny_index(part_of_row(u));
        if (t < 0) return;
        for (Offset k = row_map(u); k < row_map(u + 1); ++k) {
          const Ordinal q = part_of_row(adjacency(k));
          if (q == part_of_row(u)) continue;
          const Offset slot = bucket(t) + Kokkos::atomic_fetch_add(&fill(t), Offset(1));
          labels(slot) = q;
          ones(slot) = 1;
        }
      });
  sort_crs_rows<ExecSpace>(bucket, labels, ones);

  // Each sorted bucket as (neighbour part, edge count).
  const SortedRuns runs =
      merge_sorted_runs(space, "fgdd::partition::balance_runs", bucket, labels, ones, false);

  NeighbourParts neighbours;
  neighbours.offsets = detail::to_host_vector(runs.offsets);
  neighbours.parts = detail::to_host_vector(runs.keys);
  neighbours.edges = detail::to_host_vector(runs.weights);
  return neighbours;
}

// Step (b) and (c) on the host, one entry per part: union-find over parts, then the dense label
// of each part.
std::vector<Ordinal> merge_tiny_parts(const std::vector<Ordinal>& sizes,
                                      const std::vector<Ordinal>& tiny_parts,
                                      const NeighbourParts& neighbours, Ordinal max_block_rows,
                                      Ordinal& num_groups) {
  const Ordinal num_parts = Ordinal(sizes.size());
  std::vector<Ordinal> parent(num_parts);
  std::iota(parent.begin(), parent.end(), 0);
  std::vector<std::int64_t> group_size(sizes.begin(), sizes.end());
  const auto find = [&parent](Ordinal p) {
    while (parent[p] != p) {
      parent[p] = parent[parent[p]];
      p = parent[p];
    }
    return p;
  };

  std::vector<Ordinal> order(tiny_parts.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](Ordinal a, Ordinal b) {
    return std::make_pair(sizes[tiny_parts[a]], tiny_parts[a]) <
           std::make_pair(sizes[tiny_parts[b]], tiny_parts[b]);
  });
  std::vector<std::pair<Ordinal, std::int64_t>> candidates;  // (group, connecting edges)
  for (const Ordinal t : order) {
    const Ordinal own = find(tiny_parts[t]);
    // It may have grown past tiny by absorbing smaller parts already.
    if (std::int64_t(tiny_part_divisor) * group_size[own] >= max_block_rows) continue;
    candidates.clear();
    for (Offset k = neighbours.offsets[t]; k < neighbours.offsets[t + 1]; ++k) {
      const Ordinal group = find(neighbours.parts[k]);
      if (group != own) candidates.emplace_back(group, neighbours.edges[k]);
    }
    std::sort(candidates.begin(), candidates.end());
    // Sum edges per group (neighbouring parts may have merged into one group already).
    std::size_t unique = 0;
    for (std::size_t k = 0; k < candidates.size(); ++k) {
      if (unique > 0 && candidates[unique - 1].first == candidates[k].first)
        candidates[unique - 1].second += candidates[k].second;
      else
        candidates[unique++] = candidates[k];
    }
    candidates.resize(unique);
    // Most connecting edges first, then the lower label.
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    for (const auto& candidate : candidates) {
      const Ordinal group = candidate.first;
      if (group_size[group] + group_size[own] > max_block_rows) continue;
      parent[own] = group;
      group_size[group] += group_size[own];
      break;
    }
  }

  std::vector<Ordinal> dense(num_parts, -1), label_of_part(num_parts);
  num_groups = 0;
  for (Ordinal p = 0; p < num_parts; ++p) {
    const Ordinal root = find(p);
    if (dense[root] < 0) dense[root] = num_groups++;
    label_of_part[p] = dense[root];
  }
  return label_of_part;
}

void relabel(const ExecSpace& space, const OrdinalView& part_of_row,
             const std::vector<Ordinal>& label_of_part) {
  const auto map = detail::to_device(label_of_part, "fgdd::partition::balance_label_map");
  Kokkos::parallel_for(
      "fgdd::partition::balance_relabel", Policy(space, 0, Ordinal(part_of_row.extent(0))),
      KOKKOS_LAMBDA(const Ordinal i) { part_of_row(i) = map(part_of_row(i)); });
}

}  // namespace balance

Labeling balance_labeling(const ExecSpace& space, const SymmetricGraph& graph, Labeling labeling,
                          Ordinal max_block_rows) {
  balance::check_input(space, graph, labeling, max_block_rows);
  const Ordinal n = graph.num_vertices;
  Labeling balanced;
  balanced.order_key = labeling.order_key;
  // A new view: the caller's labels stay untouched.
  balanced.part_of_row = balance::OrdinalView(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::balanced_part_of_row"), n);
  if (n == 0) return balanced;

  const auto input_sizes = balance::part_sizes(space, labeling.part_of_row, labeling.num_parts);
  const Ordinal num_split =
      balance::split_oversized(space, labeling, input_sizes, max_block_rows, balanced.part_of_row);
  balanced.num_parts = num_split;

  const auto sizes = balance::part_sizes(space, balanced.part_of_row, num_split);
  std::vector<Ordinal> tiny_index(num_split, -1), tiny_parts;
  for (Ordinal p = 0; p < num_split; ++p) {
    if (std::int64_t(tiny_part_divisor) * sizes[p] < max_block_rows) {
      tiny_index[p] = Ordinal(tiny_parts.size());
      tiny_parts.push_back(p);
    }
  }
  if (tiny_parts.empty() || num_split == 1) return balanced;

  const auto neighbours = balance::tiny_part_neighbours(space, graph, balanced.part_of_row,
                                                        tiny_index, Ordinal(tiny_parts.size()));
  const auto label_of_part =
      balance::merge_tiny_parts(sizes, tiny_parts, neighbours, max_block_rows, balanced.num_parts);
  if (balanced.num_parts < num_split) balance::relabel(space, balanced.part_of_row, label_of_part);
  return balanced;
}

}  // namespace fgdd::detail
