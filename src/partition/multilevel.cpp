// Multilevel k-way partition on the device: coarsen, cluster into parts, project and refine,
// balance to the cap.
#include "partition/multilevel.hpp"

#include <algorithm>
#include <optional>
#include <sstream>
#include <vector>

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

OrdinalView project(const ExecSpace& space, const OrdinalView& coarse_part,
                    const OrdinalView& coarse_of_fine) {
  const Ordinal n = Ordinal(coarse_of_fine.extent(0));
  OrdinalView fine_part(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::multilevel_part"), n);
  Kokkos::parallel_for(
      "fgdd::partition::multilevel_project", Policy(space, 0, n),
      KOKKOS_LAMBDA(const Ordinal u) { fine_part(u) = coarse_part(coarse_of_fine(u)); });
  return fine_part;
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
      CoarseLevel level = coarsen_by_matching(space, graphs.back(), max_weight, *work);
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
  for (std::size_t l = maps.size(); l-- > 0;) {
    if (report.parts > 1)
      report.refine_moves += refine_labeling(space, graphs[l + 1], part, report.parts,
                                             max_block_rows, multilevel_refine_passes, refine_work);
    part = multilevel::project(space, part, maps[l]);
  }
  if (report.parts > 1)
    report.refine_moves += refine_labeling(space, graphs[0], part, report.parts, max_block_rows,
                                           multilevel_refine_passes, refine_work);
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
