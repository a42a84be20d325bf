#include "partition/partition_matrix.hpp"

#include "core/errors.hpp"
#include "partition/chunk_coupling.hpp"
#include "partition/contiguous.hpp"
#include "partition/coordinate_bisection.hpp"
#include "partition/geometric.hpp"
#include "partition/level_order.hpp"
#include "partition/metis.hpp"
#include "partition/multilevel.hpp"
#include "partition/subdomain_rcm.hpp"

#include <algorithm>
#include <sstream>

namespace fgdd {

namespace {

struct Choice {
  Partitioner partitioner;
  const char* reason;
};

// Up to this many subdomains RCM slabs (one cross-section between neighbours) cut about as
// many couplings as METIS's parts, in a fraction of METIS's serial time. Two OpenMP threads,
// the DOLFINx systems, BiCGSTAB to solution against METIS: 0.70× the time on elasticity (14 %
// more iterations, half the setup), 0.70× on P2 (79 iterations against 93), 0.80× on SUPG (23
// against 27). At 8 subdomains slabs dropped 1.8× METIS's entries and took 10–40 % more
// iterations (docs/PERFORMANCE.md, "RCM slabs for a few CPU threads").
constexpr Ordinal max_rcm_slabs = 4;

// ... unless chunks of the caller's own order drop less than this share of Σ|a| and its rows
// reach on average at most this fraction of a chunk: then those chunks are kept, and so is the
// caller's order inside them (no reordering to pay for). The DOLFINx systems on two and four
// threads: SUPG's halves drop 0.008 % (0.017 % in quarters), its rows span 7 % (14 %) of a
// chunk, and it takes 23 iterations against RCM slabs' 24 at about half the setup; P2 Poisson's
// 2.25 % (117 iterations against 77) and elasticity's 0.96–1.06 % (CG + IC(0) 1.29× slower) keep
// the slabs. Two decoupled 7-point 30³ blocks, each numbered at random, drop nothing but span
// 74 %: kept, they took 42 iterations against RCM's 25 (docs/PERFORMANCE.md, "The caller's order
// when its chunks barely couple").
constexpr double negligible_chunk_coupling = 1e-3;
constexpr double local_row_span = 0.25;

// Grid metadata first (exact boxes), then the caller's coordinates, then the graph alone.
Choice resolve(Partitioner requested, const GridInfo& grid, const Coordinates& coordinates,
               Ordinal subdomains) {
  if (requested != Partitioner::Auto) return {requested, "asked for"};
  if (!grid.empty()) return {Partitioner::Geometric, "auto: the matrix has grid metadata"};
  if (!coordinates.empty()) return {Partitioner::Rcb, "auto: coordinates given, no grid metadata"};
  if (host_memory && subdomains > 1 && subdomains <= max_rcm_slabs)
    return {Partitioner::Rcm, "auto: no grid metadata or coordinates, a CPU backend, at most 4 "
                              "subdomains (RCM slabs)"};
  // On a GPU the multilevel partitioner, run on the device, is faster than METIS on the host at
  // about the same iterations; on CPU threads METIS is the faster of the two
  // (measured: docs/PERFORMANCE_HISTORY.md, "Measurements behind code choices").
#ifdef FGDD_HAVE_METIS
  if (host_memory)
    return {Partitioner::Metis, "auto: no grid metadata or coordinates, a CPU backend"};
  return {Partitioner::Multilevel, "auto: no grid metadata or coordinates, a GPU backend"};
#else
  return {Partitioner::Multilevel,
          host_memory ? "auto: no grid metadata or coordinates, built without METIS"
                      : "auto: no grid metadata or coordinates, a GPU backend"};
#endif
}

// auto on CPU backends: reverse Cuthill–McKee inside the parts of the partitioners that order
// rows lexicographically by grid index or point (geometric, rcb), for two or more subdomains.
// In that order each row of a CPU thread's triangular sweep waits for the one before it; RCM's
// consecutive rows mostly share a BFS level and do not. Two OpenMP threads: solves 1.16-1.53x
// faster on generated lap7, reservoir and convection-diffusion boxes, and with the DOLFINx
// meshes' points SUPG 49 -> 26 iterations, elasticity 208 -> 161 (docs/PERFORMANCE.md, "RCM
// inside each subdomain on CPU threads"). Not in METIS's or multilevel's parts, which keep the
// caller's order (a FEM code's): there it cost SUPG up to 30 % more iterations. One subdomain
// keeps the caller's order (the exact ILU(0) of the matrix given). GPUs resolve auto to levels
// before (solver_steps.cpp).
SubdomainRowOrder resolve_row_order(SubdomainRowOrder requested, Partitioner partitioner,
                                    Ordinal subdomains) {
  if (requested != SubdomainRowOrder::Auto) return requested;
  const bool lexicographic =
      partitioner == Partitioner::Geometric || partitioner == Partitioner::Rcb;
  return host_memory && subdomains > 1 && lexicographic ? SubdomainRowOrder::Rcm
                                                        : SubdomainRowOrder::Partitioner;
}

Partition partition_rows(const ExecSpace& space, Partitioner partitioner, const SparseMatrix& A,
                         const GridInfo& grid, const Coordinates& coordinates, Ordinal cap,
                         std::string& steps) {
  switch (partitioner) {
    case Partitioner::Geometric:
      if (grid.empty())
        throw InvalidInput("the geometric partitioner needs grid metadata (a generated problem)");
      return detail::make_partition(
          space, detail::geometric_labeling(space, grid, A.num_block_rows(), cap, A.block_size(),
                                            detail::wavefront_slope(A, grid)));
    case Partitioner::Metis:
      steps = "METIS on edges weighted by coupling strength";
      return detail::make_partition(space, detail::metis_labeling(space, A, cap));
    case Partitioner::Multilevel: {
      detail::MultilevelStats stats;
      const detail::Labeling labeling = detail::multilevel_labeling(space, A, cap, &stats);
      steps = detail::describe(stats);
      return detail::make_partition(space, labeling);
    }
    // Chunks of a permutation: no counting and sorting of rows (chunk_partition).
    case Partitioner::Rcm:
      return detail::chunk_partition(space, detail::rcm_labeling(space, A, cap));
    case Partitioner::Natural:
      return detail::chunk_partition(space,
                                     detail::natural_labeling(space, A.num_block_rows(), cap));
    case Partitioner::Rcb:
      if (coordinates.empty())
        throw InvalidInput(
            "the rcb partitioner needs coordinates (a point per block row: Solver::setup(space, "
            "A, coordinates), or fgdd-solve --coordinates FILE.mtx)");
      return detail::make_partition(space,
                                    detail::coordinate_bisection_labeling(space, coordinates, cap));
    case Partitioner::Auto:
      break;
  }
  throw InvalidInput("unresolved partitioner");
}

}  // namespace

PartitionedMatrix partition_matrix(const ExecSpace& space, const SparseMatrix& A,
                                   const GridInfo& grid, const PartitionOptions& options) {
  return partition_matrix(space, A, grid, Coordinates(), options);
}

PartitionedMatrix partition_matrix(const ExecSpace& space, const SparseMatrix& A,
                                   const GridInfo& grid, const Coordinates& coordinates,
                                   const PartitionOptions& options, DroppedValues dropped_values) {
  const int b = A.block_size();
  const Ordinal cap = options.subdomain_block_rows(b, A.num_rows());
  // Checked even when another partitioner is used: bad coordinates are a caller's bug.
  if (!coordinates.empty()) coordinates.validate(space, A.num_block_rows(), b);
  PartitionedMatrix result;
  PartitionReport& report = result.report;
  const Ordinal n = A.num_block_rows();
  const Ordinal parts = detail::contiguous::count_parts(n, cap);
  const Choice choice = resolve(options.partitioner, grid, coordinates, parts);
  report.partitioner = choice.partitioner;
  report.reason = choice.reason;
  if (options.partitioner == Partitioner::Auto && report.partitioner == Partitioner::Rcm) {
    const detail::NaturalChunks chunks = detail::natural_chunks(space, A, parts);
    if (chunks.coupling < negligible_chunk_coupling && chunks.row_span <= local_row_span) {
      report.partitioner = Partitioner::Natural;
      std::ostringstream reason;
      reason.precision(2);
      reason << "auto: no grid metadata or coordinates, a CPU backend, at most 4 subdomains, "
                "and chunks of the caller's order drop "
             << 100 * chunks.coupling << " % of sum |a_ij| (under 0.1 %) with rows spanning "
             << 100 * chunks.row_span << " % of a chunk (at most 25 %), so they are kept";
      report.reason = reason.str();
    }
  }
  report.cap_rows = Offset(cap) * b;

  // One subdomain for every row: METIS and multilevel would only return it after building their
  // graphs, setup time spent for nothing, so it is the natural labeling (measured:
  // docs/PERFORMANCE_HISTORY.md, "Measurements behind code choices"). So is auto's choice of
  // rcb for coordinates: one subdomain is then the exact ILU(0) of the caller's matrix, as
  // without coordinates, where rcb's point order cost SUPG 47 iterations against 20 and
  // elasticity 191 against 139 (docs/PERFORMANCE.md). Geometric (auto's choice for a grid),
  // and rcm and rcb when asked for, still run: they also order the rows.
  const bool one_subdomain = cap >= n;
  const bool graph_partitioner = report.partitioner == Partitioner::Metis ||
                                 report.partitioner == Partitioner::Multilevel;
  const bool auto_rcb =
      options.partitioner == Partitioner::Auto && report.partitioner == Partitioner::Rcb;
  if (one_subdomain && (graph_partitioner || auto_rcb)) {
    report.partitioner = Partitioner::Natural;
    report.reason = options.partitioner == Partitioner::Auto
                        ? "auto: one subdomain holds every row"
                        : "one subdomain holds every row";
  }

  Kokkos::Timer timer;
  result.partition =
      partition_rows(space, report.partitioner, A, grid, coordinates, cap, report.steps);
  const SubdomainRowOrder row_order =
      resolve_row_order(options.row_order, report.partitioner, result.partition.num_subdomains);
  report.row_order = row_order;
  const char* renumbered = nullptr;  // how the rows of each subdomain were renumbered, if so
  if (row_order == SubdomainRowOrder::Rcm) {
    result.partition = detail::order_rows_by_rcm(space, A, result.partition);
    renumbered = "in reverse Cuthill-McKee order";
  } else if (row_order == SubdomainRowOrder::Levels) {
    result.partition = detail::order_rows_by_level(space, A, result.partition);
    renumbered = "in level order";
  } else if (row_order == SubdomainRowOrder::Colours) {
    result.partition = detail::order_rows_by_colour(space, A, result.partition);
    renumbered = "by colour";
  }
  if (renumbered != nullptr)
    report.steps +=
        std::string(report.steps.empty() ? "" : "; ") + "rows of each subdomain " + renumbered;
  space.fence();
  report.partition_seconds = timer.seconds();

  timer.reset();
  result.system = reorder_and_drop(space, A, result.partition, dropped_values);
  space.fence();
  report.reorder_seconds = timer.seconds();

  const auto& offsets = result.partition.host_subdomain_offsets;
  report.num_subdomains = result.partition.num_subdomains;
  if (report.num_subdomains > 0) {
    Offset smallest = A.num_rows(), largest = 0;
    for (Ordinal s = 0; s < report.num_subdomains; ++s) {
      const Offset rows = Offset(offsets[s + 1] - offsets[s]) * b;
      smallest = std::min(smallest, rows);
      largest = std::max(largest, rows);
    }
    report.min_rows = smallest;
    report.max_rows = largest;
    report.average_rows = double(A.num_rows()) / report.num_subdomains;
  }
  report.entries = result.system.permuted.num_entries();
  report.entries_after_drop = result.system.dropped.num_entries();
  report.dropped_fraction =
      report.entries > 0 ? 1.0 - double(report.entries_after_drop) / double(report.entries) : 0;
  return result;
}

void print_report(std::ostream& out, const PartitionReport& report) {
  out << "partitioner:   " << to_string(report.partitioner)
      << (report.reason.empty() ? "" : " (" + report.reason + ")") << ", " << report.num_subdomains
      << " subdomains, rows per subdomain min/avg/max " << report.min_rows << "/"
      << static_cast<Offset>(report.average_rows + 0.5) << "/" << report.max_rows << " (cap "
      << report.cap_rows << ")\n"
      << "nonzeros:      " << report.entries << " -> " << report.entries_after_drop
      << " after drop (" << 100.0 * report.dropped_fraction << "% dropped)\n"
      << "partition:     " << report.partition_seconds << " s, reorder and drop "
      << report.reorder_seconds << " s\n";
  if (!report.steps.empty()) out << "               (" << report.steps << ")\n";
}

}  // namespace fgdd
