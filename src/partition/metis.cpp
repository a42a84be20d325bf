// METIS k-way labels of the block graph (fine-grained-dd-sptrsv-gpu.txt §3, Table 5.4). The graph
// goes to the host only for the METIS call; conversion, labels and balancing run on the space.
#include "partition/metis.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include "core/errors.hpp"
#include "partition/balance.hpp"
#include "partition/partition.hpp"  // row_index_keys
#include "partition/weighted_graph.hpp"

#ifdef FGDD_HAVE_METIS
#include <metis.h>
#endif

namespace fgdd::detail {

Ordinal metis_num_parts(Ordinal num_block_rows, Ordinal max_block_rows) {
  if (max_block_rows < 1)
    throw InvalidInput("METIS partition: max_block_rows must be >= 1, got " +
                       std::to_string(max_block_rows));
  if (num_block_rows <= 0) return 0;
  if (num_block_rows <= max_block_rows) return 1;
  const std::int64_t target = std::max<std::int64_t>(1, max_block_rows - max_block_rows / 20);
  return Ordinal((std::int64_t(num_block_rows) + target - 1) / target);
}

#ifdef FGDD_HAVE_METIS

namespace metis_kway {

using Policy = Kokkos::RangePolicy<ExecSpace>;
using OrdinalView = Kokkos::View<Ordinal*, DeviceType>;
using IdxView = Kokkos::View<idx_t*, DeviceType>;

// Any fixed seed makes METIS deterministic; this one is the reservoir generator's.
constexpr idx_t seed = 2026;

const char* status_name(int status) {
  switch (status) {
    case METIS_OK:
      return "METIS_OK";
    case METIS_ERROR_INPUT:
      return "METIS_ERROR_INPUT";
    case METIS_ERROR_MEMORY:
      return "METIS_ERROR_MEMORY";
    case METIS_ERROR:
      return "METIS_ERROR";
    default:
      return "an unknown METIS status";
  }
}

// METIS misbehaves for one part, and one row per part needs no partitioner.
bool calls_metis(Ordinal num_rows, Ordinal num_parts) {
  return num_parts > 1 && num_parts < num_rows;
}

void fill_labels(const ExecSpace& space, const OrdinalView& part_of_row, bool one_part) {
  Kokkos::parallel_for(
      "fgdd::partition::metis_trivial_labels", Policy(space, 0, Ordinal(part_of_row.extent(0))),
      KOKKOS_LAMBDA(const Ordinal i) { part_of_row(i) = one_part ? 0 : i; });
}

// The graph in METIS's CSR form (idx_t may be 32 or 64 bits), built on space, then copied.
void metis_arrays(const ExecSpace& space, const SymmetricGraph& graph,
                  Kokkos::View<idx_t*, Kokkos::HostSpace>& host_xadj,
                  Kokkos::View<idx_t*, Kokkos::HostSpace>& host_adjncy) {
  const Ordinal n = graph.num_vertices;
  const Offset num_arcs = graph.adjacency.extent(0);
  const auto row_map = graph.row_map;
  const auto adjacency = graph.adjacency;
  IdxView xadj(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::metis_xadj"),
               n + 1);
  IdxView adjncy(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::metis_adjncy"),
                 num_arcs);
  Kokkos::parallel_for(
      "fgdd::partition::metis_xadj", Policy(space, 0, n + 1),
      KOKKOS_LAMBDA(const Ordinal i) { xadj(i) = idx_t(row_map(i)); });
  Kokkos::parallel_for(
      "fgdd::partition::metis_adjncy", Policy(space, 0, std::int64_t(num_arcs)),
      KOKKOS_LAMBDA(const Offset k) { adjncy(k) = idx_t(adjacency(k)); });
  host_xadj = Kokkos::create_mirror_view(Kokkos::HostSpace(), xadj);
  host_adjncy = Kokkos::create_mirror_view(Kokkos::HostSpace(), adjncy);
  Kokkos::deep_copy(space, host_xadj, xadj);
  Kokkos::deep_copy(space, host_adjncy, adjncy);
  space.fence();
}

void check_idx_range(const SymmetricGraph& graph, const char* who) {
  const Offset num_arcs = graph.adjacency.extent(0);
  if (num_arcs > Offset(std::numeric_limits<idx_t>::max()))
    throw Error(std::string(who) + ": the block graph has " + std::to_string(num_arcs) +
                " adjacency entries, more than this METIS build's " +
                std::to_string(8 * sizeof(idx_t)) + "-bit idx_t can index");
}

// edge_weight: per arc of graph (strength_weighted_graph's), or empty for unit weights.
void call_metis(const ExecSpace& space, const SymmetricGraph& graph,
                const Kokkos::View<Ordinal*, DeviceType>& edge_weight, Ordinal num_parts,
                const OrdinalView& part_of_row) {
  const Ordinal n = graph.num_vertices;
  const Offset num_arcs = graph.adjacency.extent(0);
  check_idx_range(graph, "METIS partition");

  Kokkos::View<idx_t*, Kokkos::HostSpace> xadj, adjncy;
  metis_arrays(space, graph, xadj, adjncy);
  Kokkos::View<idx_t*, Kokkos::HostSpace> host_part("fgdd::partition::metis_part_host", n);
  std::vector<idx_t> weights;
  if (edge_weight.extent(0) > 0) {
    const auto host_weight = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), edge_weight);
    weights.assign(host_weight.data(), host_weight.data() + host_weight.extent(0));
  }

  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = seed;
  options[METIS_OPTION_NUMBERING] = 0;
  // Contiguous parts cost twice the time on a 7-point 100³ grid for the same cut and make
  // METIS fail on disconnected graphs; balance_labeling does not need them.
  options[METIS_OPTION_CONTIG] = 0;
  idx_t num_vertices = n, num_constraints = 1, parts = num_parts, edge_cut = 0;
  const int status = METIS_PartGraphKway(&num_vertices, &num_constraints, xadj.data(),
                                         adjncy.data(), /*vwgt=*/nullptr, /*vsize=*/nullptr,
                                         weights.empty() ? nullptr : weights.data(), &parts,
                                         /*tpwgts=*/nullptr,
                                         /*ubvec=*/nullptr, options, &edge_cut, host_part.data());
  if (status != METIS_OK)
    throw Error(std::string("METIS_PartGraphKway failed with ") + status_name(status) + " (" +
                std::to_string(status) + ") on a block graph of " + std::to_string(n) +
                " vertices and " + std::to_string(num_arcs / 2) + " edges, asked for " +
                std::to_string(num_parts) + " parts");

  IdxView part(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::metis_part"), n);
  Kokkos::deep_copy(space, part, host_part);
  Kokkos::parallel_for(
      "fgdd::partition::metis_labels", Policy(space, 0, n),
      KOKKOS_LAMBDA(const Ordinal i) { part_of_row(i) = Ordinal(part(i)); });
  // host_part dies on return; the copy from it must be done.
  space.fence();
}

}  // namespace metis_kway

Labeling metis_labeling(const ExecSpace& space, const SymmetricGraph& graph,
                        Ordinal max_block_rows,
                        const Kokkos::View<Ordinal*, DeviceType>& edge_weight) {
  const Ordinal n = graph.num_vertices;
  const Ordinal num_parts = metis_num_parts(n, max_block_rows);
  Labeling labeling;
  labeling.num_parts = num_parts;
  labeling.part_of_row = metis_kway::OrdinalView(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::metis_part_of_row"), n);
  labeling.order_key = row_index_keys(space, n);
  if (metis_kway::calls_metis(n, num_parts))
    metis_kway::call_metis(space, graph, edge_weight, num_parts, labeling.part_of_row);
  else
    metis_kway::fill_labels(space, labeling.part_of_row, num_parts <= 1);
  if (num_parts >= n) labeling.num_parts = n;
  return balance_labeling(space, graph, labeling, max_block_rows);
}

Labeling metis_labeling(const ExecSpace& space, const SparseMatrix& A, Ordinal max_block_rows) {
  // Validates the cap before any work.
  const Ordinal parts = metis_num_parts(A.num_block_rows(), max_block_rows);
  const SymmetricGraph graph = symmetric_graph(space, A);
  if (!metis_kway::calls_metis(A.num_block_rows(), parts))
    return metis_labeling(space, graph, max_block_rows);
  // Edges weighted by coupling strength, as the multilevel partitioner weighs them: METIS then
  // cuts weak couplings (a reservoir's permeability contrasts, an advection's crosswind
  // direction). Fewer or as many iterations on 19 of 22 systems and subdomain sizes measured,
  // 1-14 % fewer on the reservoirs (docs/PERFORMANCE.md, "METIS with edge weights").
  const WeightedGraph weighted = strength_weighted_graph(space, A, graph);
  return metis_labeling(space, graph, max_block_rows, weighted.edge_weight);
}

std::vector<Ordinal> metis_nested_dissection(const ExecSpace& space, const SymmetricGraph& graph) {
  const Ordinal n = graph.num_vertices;
  if (n == 0) return {};
  metis_kway::check_idx_range(graph, "METIS nested dissection");
  Kokkos::View<idx_t*, Kokkos::HostSpace> xadj, adjncy;
  metis_kway::metis_arrays(space, graph, xadj, adjncy);
  std::vector<idx_t> perm(n), iperm(n);
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = 1;  // the seed the multilevel ILU's tables were measured with
  idx_t num_vertices = n;
  const int status = METIS_NodeND(&num_vertices, xadj.data(), adjncy.data(), /*vwgt=*/nullptr,
                                  options, perm.data(), iperm.data());
  if (status != METIS_OK)
    throw Error(std::string("METIS_NodeND failed with ") + metis_kway::status_name(status) +
                " (" + std::to_string(status) + ") on a graph of " + std::to_string(n) +
                " vertices");
  return std::vector<Ordinal>(perm.begin(), perm.end());  // perm[new] = old
}

#else  // FGDD_HAVE_METIS

namespace {
[[noreturn]] void not_compiled() {
  throw NotCompiled(
      "METIS partition: fgdd was built without METIS; use partitioner=geometric or rcm (or "
      "reconfigure with -DFGDD_ENABLE_METIS=ON)");
}
}  // namespace

Labeling metis_labeling(const ExecSpace&, const SymmetricGraph&, Ordinal,
                        const Kokkos::View<Ordinal*, DeviceType>&) {
  not_compiled();
}

Labeling metis_labeling(const ExecSpace&, const SparseMatrix&, Ordinal) { not_compiled(); }

std::vector<Ordinal> metis_nested_dissection(const ExecSpace&, const SymmetricGraph&) {
  throw NotCompiled("METIS nested dissection: fgdd was built without METIS; use ordering rcm");
}

#endif  // FGDD_HAVE_METIS

}  // namespace fgdd::detail
