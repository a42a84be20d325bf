// Contiguous partitions of the natural or the reverse Cuthill–McKee order: balanced chunks
// computed on the device; only the RCM order itself is a serial breadth-first search on the host.
#include "partition/contiguous.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/host_copy.hpp"
#include "partition/cuthill_mckee.hpp"
#include "partition/symmetric_graph.hpp"

namespace fgdd {
namespace detail::contiguous {

using Policy = Kokkos::RangePolicy<ExecSpace>;
using OrdinalView = Kokkos::View<Ordinal*, DeviceType>;

void check_sizes(Ordinal num_block_rows, Ordinal max_block_rows, const char* who) {
  if (max_block_rows < 1) {
    throw InvalidInput(std::string(who) + ": max_block_rows must be >= 1, got " +
                       std::to_string(max_block_rows));
  }
  if (num_block_rows < 0) {
    throw InvalidInput(std::string(who) + ": num_block_rows must be >= 0, got " +
                       std::to_string(num_block_rows));
  }
}

Ordinal count_parts(Ordinal n, Ordinal max_block_rows) {
  return Ordinal((std::int64_t(n) + max_block_rows - 1) / max_block_rows);
}

// part_of_row(row) = position(row) * num_parts / n and order_key = position(row); an identity
// position when position is empty (the natural order).
Labeling chunk_labeling(const ExecSpace& space, Ordinal n, Ordinal max_block_rows,
                        const OrdinalView& position) {
  Labeling labeling;
  labeling.num_parts = count_parts(n, max_block_rows);
  labeling.part_of_row = OrdinalView(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::chunk_part_of_row"), n);
  labeling.order_key = OrdinalView(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::chunk_order_key"), n);
  const auto part_of_row = labeling.part_of_row;
  const auto order_key = labeling.order_key;
  const std::int64_t num_parts = labeling.num_parts;
  const bool natural = position.extent(0) == 0;
  Kokkos::parallel_for(
      "fgdd::partition::chunks", Policy(space, 0, n), KOKKOS_LAMBDA(const Ordinal row) {
        const Ordinal pos = natural ? row : position(row);
        part_of_row(row) = Ordinal(std::int64_t(pos) * num_parts / n);
        order_key(row) = pos;
      });
  return labeling;
}

// The vertices 0..n-1 by ascending degree, ties by number (a counting sort).
std::vector<Ordinal> by_ascending_degree(const Offset* row_map, Ordinal n) {
  Offset max_degree = 0;
  for (Ordinal v = 0; v < n; ++v) max_degree = std::max(max_degree, row_map[v + 1] - row_map[v]);
  std::vector<Ordinal> first(std::size_t(max_degree) + 2, 0);
  for (Ordinal v = 0; v < n; ++v) ++first[row_map[v + 1] - row_map[v] + 1];
  for (std::size_t d = 1; d < first.size(); ++d) first[d] += first[d - 1];
  std::vector<Ordinal> sorted(n);
  for (Ordinal v = 0; v < n; ++v) sorted[first[row_map[v + 1] - row_map[v]]++] = v;
  return sorted;
}

// A symmetric graph's rows on the host: its arcs are sorted, unique and without self loops.
// (KOKKOS_INLINE_FUNCTION only because CuthillMcKee, which calls it, is device code too.)
struct GraphNeighbours {
  const Offset* row_map;
  const Ordinal* adjacency;

  template <class Visit>
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal t, const Visit& visit) const {
    for (Offset k = row_map[t]; k < row_map[t + 1]; ++k) visit(adjacency[k]);
  }
};

}  // namespace detail::contiguous

namespace detail {

Labeling natural_labeling(const ExecSpace& space, Ordinal num_block_rows, Ordinal max_block_rows) {
  contiguous::check_sizes(num_block_rows, max_block_rows, "natural partition");
  return contiguous::chunk_labeling(space, num_block_rows, max_block_rows,
                                    contiguous::OrdinalView());
}

Partition chunk_partition(const ExecSpace& space, const Labeling& chunks) {
  const Ordinal n = Ordinal(chunks.part_of_row.extent(0));
  const Ordinal parts = chunks.num_parts;
  Partition partition;
  partition.num_subdomains = parts;
  partition.part_of_row = chunks.part_of_row;
  partition.perm = chunks.order_key;
  partition.iperm = contiguous::OrdinalView(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::iperm"), n);
  const auto position = chunks.order_key;
  const auto iperm = partition.iperm;
  Kokkos::parallel_for(
      "fgdd::partition::chunk_iperm", contiguous::Policy(space, 0, n),
      KOKKOS_LAMBDA(const Ordinal row) { iperm(position(row)) = row; });
  // Part s holds the positions pos with pos * parts / n == s: from ceil(s * n / parts) on.
  partition.host_subdomain_offsets.resize(std::size_t(parts) + 1);
  for (Ordinal s = 1; s <= parts; ++s)
    partition.host_subdomain_offsets[s] = Ordinal((std::int64_t(s) * n + parts - 1) / parts);
  partition.subdomain_offsets =
      to_device(partition.host_subdomain_offsets, "fgdd::partition::subdomain_offsets");
  return partition;
}

Kokkos::View<Ordinal*, DeviceType> rcm_positions(const ExecSpace& space,
                                                 const SymmetricGraph& graph) {
  const Ordinal n = graph.num_vertices;
  // The breadth-first order is serial: it runs on the host, on the graph itself where the
  // device's memory is the host's.
  space.fence();
  const auto row_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), graph.row_map);
  const auto adjacency = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), graph.adjacency);
  // Components start at their least-degree vertex (ties: the lowest), as KokkosGraph's graph_rcm
  // did: on SUPG's two slabs a pseudo-peripheral start took 43 BiCGSTAB iterations against 23,
  // on P2 87 against 78 (the start decides which way the order runs through the flow).
  const std::vector<Ordinal> starts = contiguous::by_ascending_degree(row_map.data(), n);
  std::vector<Ordinal> degree(n), mark(n, 0), queue(n);
  const CuthillMcKee<contiguous::GraphNeighbours> order{{row_map.data(), adjacency.data()},
                                                        n,
                                                        degree.data(),
                                                        mark.data(),
                                                        queue.data(),
                                                        starts.data()};
  order.order();
  std::vector<Ordinal> position(n);
  for (Ordinal q = 0; q < n; ++q) position[queue[q]] = n - 1 - q;
  return to_device(position, "fgdd::partition::rcm_position");
}

Labeling rcm_labeling(const ExecSpace& space, const SparseMatrix& A, Ordinal max_block_rows) {
  const Ordinal n = A.num_block_rows();
  contiguous::check_sizes(n, max_block_rows, "RCM partition");
  if (n == 0)
    return contiguous::chunk_labeling(space, 0, max_block_rows, contiguous::OrdinalView());
  return contiguous::chunk_labeling(space, n, max_block_rows,
                                    rcm_positions(space, symmetric_graph(space, A)));
}

}  // namespace detail
}  // namespace fgdd
