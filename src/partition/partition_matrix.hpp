// The partition stage in one call: choose subdomains, reorder A, drop the couplings, report.
#pragma once

#include "core/sparse_matrix.hpp"
#include "partition/coordinates.hpp"
#include "partition/partition.hpp"
#include "partition/partition_options.hpp"
#include "partition/reorder.hpp"

#include <ostream>
#include <string>

namespace fgdd {

// What the stage did, with the numbers of paper Table 5.4.
struct PartitionReport {
  Partitioner partitioner = Partitioner::Auto;  // the one actually used (never Auto)
  SubdomainRowOrder row_order = SubdomainRowOrder::Auto;  // the one used (never Auto)
  std::string reason;  // why that one: "asked for", or what auto saw in the input
  Ordinal num_subdomains = 0;
  Offset min_rows = 0, max_rows = 0;  // scalar rows per subdomain
  double average_rows = 0;
  Offset cap_rows = 0;  // the size cap the partitioner worked with
  Offset entries = 0;   // scalar nonzeros of A (stored block entries × b²)
  Offset entries_after_drop = 0;
  double dropped_fraction = 0;   // 1 − entries_after_drop / entries
  double partition_seconds = 0;  // labels and permutation (includes METIS)
  double reorder_seconds = 0;    // A_p = P A Pᵀ, drop and value gather
  // The partitioner's own steps, for those that have several (multilevel: graph, coarsening,
  // METIS, refinement, balancing, with their sizes); empty otherwise.
  std::string steps;
};

void print_report(std::ostream& out, const PartitionReport& report);

struct PartitionedMatrix {
  Partition partition;
  ReorderedSystem system;
  PartitionReport report;
};

// grid and coordinates may be empty (none). Auto picks by what the input offers: geometric
// with grid metadata, else rcb with coordinates, else METIS (RCM chunks without METIS).
// options.row_order Levels (Colours) renumbers each subdomain's rows by level (by colour,
// partition/level_order.hpp) before A_p is built; Auto and Partitioner keep the partitioner's
// order (Solver and DistributedSolver resolve Auto beforehand, solver_steps.hpp).
// Throws InvalidInput for bad options, a grid that does not match A, rcb without coordinates,
// or coordinates that Coordinates::validate refuses (checked whenever they are given);
// NotCompiled when METIS is asked for but not built, Error when METIS fails. dropped_values:
// reorder_and_drop's.
PartitionedMatrix partition_matrix(const ExecSpace& space, const SparseMatrix& A,
                                   const GridInfo& grid, const Coordinates& coordinates,
                                   const PartitionOptions& options,
                                   DroppedValues dropped_values = DroppedValues::Copied);

// The same without coordinates.
PartitionedMatrix partition_matrix(const ExecSpace& space, const SparseMatrix& A,
                                   const GridInfo& grid, const PartitionOptions& options);

}  // namespace fgdd
