// Contiguous partitions of the natural or the reverse Cuthill–McKee order: balanced chunks
// computed on the device; only KokkosGraph's RCM itself is a serial host BFS.
#include "partition/contiguous.hpp"

#include <KokkosGraph_RCM.hpp>

#include <cstdint>
#include <limits>
#include <string>

#include "core/errors.hpp"
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

}  // namespace detail::contiguous

namespace detail {

Labeling natural_labeling(const ExecSpace& space, Ordinal num_block_rows, Ordinal max_block_rows) {
  contiguous::check_sizes(num_block_rows, max_block_rows, "natural partition");
  return contiguous::chunk_labeling(space, num_block_rows, max_block_rows,
                                    contiguous::OrdinalView());
}

Ordinal complete_permutation(const ExecSpace& space,
                             const Kokkos::View<Ordinal*, DeviceType>& position) {
  using contiguous::OrdinalView;
  using contiguous::Policy;
  const Ordinal n = Ordinal(position.extent(0));
  if (n == 0) return 0;
  // owner(p): the lowest vertex that claims position p, n if none. atomic min keeps it
  // independent of the order the claims arrive in.
  OrdinalView owner(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::rcm_owner"),
                    n);
  Kokkos::deep_copy(space, owner, n);
  Kokkos::parallel_for(
      "fgdd::partition::rcm_claim", Policy(space, 0, n), KOKKOS_LAMBDA(const Ordinal v) {
        const Ordinal p = position(v);
        if (p >= 0 && p < n) Kokkos::atomic_fetch_min(&owner(p), v);
      });
  OrdinalView orphan_rank(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::rcm_orphan_rank"), n);
  // Offset accumulator: see the note on int scans in partition.cpp.
  Offset orphans = 0;
  Kokkos::parallel_scan(
      "fgdd::partition::rcm_rank_orphans", Policy(space, 0, n),
      KOKKOS_LAMBDA(const Ordinal v, Offset& partial, const bool final) {
        const Ordinal p = position(v);
        const bool orphan = p < 0 || p >= n || owner(p) != v;
        if (final) orphan_rank(v) = orphan ? Ordinal(partial) : -1;
        partial += orphan ? 1 : 0;
      },
      orphans);
  const Ordinal num_orphans = Ordinal(orphans);
  if (num_orphans == 0) return 0;
  // As many positions are unclaimed as vertices are orphans; hand them out in order.
  OrdinalView free_position(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::rcm_free_position"),
      num_orphans);
  Kokkos::parallel_scan(
      "fgdd::partition::rcm_rank_free", Policy(space, 0, n),
      KOKKOS_LAMBDA(const Ordinal p, Offset& partial, const bool final) {
        const bool unclaimed = owner(p) == n;
        if (final && unclaimed) free_position(partial) = p;
        partial += unclaimed ? 1 : 0;
      });
  Kokkos::parallel_for(
      "fgdd::partition::rcm_fill", Policy(space, 0, n), KOKKOS_LAMBDA(const Ordinal v) {
        const Ordinal rank = orphan_rank(v);
        if (rank >= 0) position(v) = free_position(rank);
      });
  return num_orphans;
}

Kokkos::View<Ordinal*, DeviceType> rcm_positions(const ExecSpace& space,
                                                 const SymmetricGraph& graph) {
  const Ordinal n = graph.num_vertices;
  // graph_rcm copies the graph to the host with deep_copy, which does not wait for space.
  space.fence();
  // Both Kokkos-Kernels 3.4 and 4.x return, for each vertex v, its position in the RCM order
  // (label(v) = n - 1 - BFS visit index), not the vertex at each position. Each connected
  // component, isolated vertices included, is restarted from an unlabelled vertex, so the
  // result should be a permutation; complete_permutation checks that and repairs it otherwise.
  contiguous::OrdinalView position =
      KokkosGraph::Experimental::graph_rcm<DeviceType>(graph.row_map, graph.adjacency);
  if (Ordinal(position.extent(0)) != n) {
    throw Error("RCM: KokkosGraph::graph_rcm returned " + std::to_string(position.extent(0)) +
                " labels for " + std::to_string(n) + " vertices");
  }
  complete_permutation(space, position);
  return position;
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
