// Multilevel k-way partition on the device: coarsen, cluster into parts, project and refine,
// balance to the cap.
#include "partition/multilevel.hpp"

#include <algorithm>
#include <optional>
#include <sstream>
#include <vector>

#include "core/device_arena.hpp"
#include "core/huge_pages.hpp"
#include "partition/balance.hpp"
#include "partition/coarsen.hpp"
#include "partition/metis.hpp"      // metis_num_parts
#include "partition/partition.hpp"  // row_index_keys
#include "partition/refine.hpp"
#include "partition/weighted_graph.hpp"

namespace fgdd::detail {
namespace multilevel {

using Policy = Kokkos::RangePolicy<ExecSpace>;
using OrdinalView = Kokkos::View<Ordinal*, DeviceType>;

// A level that shrinks the graph by less than this is the last (matching has stalled, e.g.
// on star-like graphs or when every vertex is at the weight limit).
constexpr double stall_ratio = 0.95;

// The coarse labels carried to the fine vertices, into fine_part (as long as coarse_of_fine).
void project(const ExecSpace& space, const OrdinalView& coarse_part,
             const OrdinalView& coarse_of_fine, const OrdinalView& fine_part) {
  Kokkos::parallel_for(
      "fgdd::partition::multilevel_project", Policy(space, 0, Ordinal(coarse_of_fine.extent(0))),
      KOKKOS_LAMBDA(const Ordinal u) { fine_part(u) = coarse_part(coarse_of_fine(u)); });
}

}  // namespace multilevel

Labeling multilevel_labeling(const ExecSpace& space, const WeightedGraph& weighted,
                             Ordinal max_block_rows, MultilevelStats* stats) {
  const SymmetricGraph& graph = weighted.graph;
  const Ordinal n = graph.num_vertices;
  const Ordinal num_parts = metis_num_parts(n, max_block_rows);
  MultilevelStats local;
  MultilevelStats& report = stats ? *stats : local;
  report = MultilevelStats{};
  Kokkos::Timer timer;

  // The coarse levels' arrays, freed together when the labeling is done (declared first, so it
  // outlives the graphs that point into it).
  const std::size_t fine_bytes = std::size_t(n) * (2 * sizeof(Ordinal) + sizeof(Offset)) +
                                 graph.adjacency.extent(0) * 2 * sizeof(Ordinal);
  DeviceArena levels_arena("fgdd::partition::multilevel_levels", fine_bytes / 16);
  // graphs[0] is the block graph; graphs[l + 1] = coarsened graphs[l] through maps[l].
  std::vector<WeightedGraph> graphs{weighted};
  std::vector<multilevel::OrdinalView> maps;
  // Even coarsening first (light vertices), then clustering up to a part's size: the coarsest
  // vertices are the parts.
  const Ordinal light = std::max<Ordinal>(1, max_block_rows / multilevel_weight_divisor);
  const Ordinal part_size = max_block_rows;
  const Ordinal light_target = std::max<Ordinal>(1, num_parts) * multilevel_vertices_per_part;
  std::optional<CoarsenWork> work;  // for every level, freed before refinement
  if (num_parts > 1) work.emplace(n, Offset(graph.adjacency.extent(0)));
  const auto coarsen_while = [&](Ordinal max_weight, Ordinal target, double stall) {
    while (graphs.back().num_vertices() > target) {
      const Ordinal before = graphs.back().num_vertices();
      CoarseLevel level =
          coarsen_by_matching(space, graphs.back(), max_weight, *work, &levels_arena);
      const Ordinal after = level.coarse.num_vertices();
      if (after == before) return;
      graphs.push_back(std::move(level.coarse));
      maps.push_back(level.coarse_of_fine);
      if (after > stall * before) return;
    }
  };
  if (num_parts > 1) coarsen_while(light, light_target, multilevel::stall_ratio);
  space.fence();
  report.coarsen_seconds = timer.seconds();

  timer.reset();
  if (num_parts > 1) coarsen_while(part_size, 1, 1.0);
  const Ordinal parts = graphs.back().num_vertices();
  multilevel::OrdinalView part =
      num_parts > 1 ? row_index_keys(space, parts)
                    : multilevel::OrdinalView("fgdd::partition::multilevel_part", n);
  space.fence();
  report.levels = int(maps.size());
  report.parts = num_parts > 1 ? parts : std::min<Ordinal>(n, 1);
  report.cluster_seconds = timer.seconds();
  work.reset();

  timer.reset();
  const RefineWork refine_work(report.parts > 1 ? n : 0, report.parts);  // for every level
  // Each level's labels go into one of two arrays of the finest size, in turn (an array per
  // level would be freed per level, a wait for the device each).
  const multilevel::OrdinalView labels[2] = {
      uninitialized_view<Ordinal>("fgdd::partition::multilevel_part", maps.empty() ? 0 : n),
      uninitialized_view<Ordinal>("fgdd::partition::multilevel_part", maps.size() > 1 ? n : 0)};
  for (std::size_t l = maps.size(), next = 0; l-- > 0; next ^= 1) {
    if (report.parts > 1)
      refine_labeling(space, graphs[l + 1], part, report.parts, max_block_rows,
                      multilevel_refine_passes, refine_work);
    const auto fine_part =
        Kokkos::subview(labels[next], Kokkos::make_pair(Ordinal(0), graphs[l].num_vertices()));
    multilevel::project(space, part, maps[l], fine_part);
    part = fine_part;
  }
  if (report.parts > 1) {
    refine_labeling(space, graphs[0], part, report.parts, max_block_rows, multilevel_refine_passes,
                    refine_work);
    Kokkos::deep_copy(report.refine_moves, refine_work.relabeled);
  }
  space.fence();
  report.refine_seconds = timer.seconds();

  timer.reset();
  Labeling labeling;
  labeling.num_parts = report.parts;
  labeling.part_of_row = part;
  labeling.order_key = row_index_keys(space, n);
  labeling = balance_labeling(space, graph, labeling, max_block_rows);
  space.fence();
  report.balance_seconds = timer.seconds();
  return labeling;
}

Labeling multilevel_labeling(const ExecSpace& space, const SparseMatrix& A, Ordinal max_block_rows,
                             MultilevelStats* stats) {
  metis_num_parts(A.num_block_rows(), max_block_rows);  // validates the cap before any work
  Kokkos::Timer timer;
  const WeightedGraph graph = strength_weighted_graph(space, A, symmetric_graph(space, A));
  space.fence();
  const double graph_seconds = timer.seconds();
  Labeling labeling = multilevel_labeling(space, graph, max_block_rows, stats);
  if (stats) stats->graph_seconds = graph_seconds;
  return labeling;
}

std::string describe(const MultilevelStats& stats) {
  std::ostringstream out;
  out << "graph " << stats.graph_seconds << " s, coarsening " << stats.coarsen_seconds
      << " s, clustering " << stats.cluster_seconds << " s (" << stats.levels << " levels to "
      << stats.parts << " parts), refinement " << stats.refine_seconds << " s ("
      << stats.refine_moves << " moves), balancing " << stats.balance_seconds << " s";
  return out.str();
}

}  // namespace fgdd::detail
