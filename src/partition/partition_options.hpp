// Which partitioner to use and how large subdomains are (DESIGN.md: subdomain size defaults to
// what fits team scratch).
#pragma once

#include "core/enum_names.hpp"
#include "core/types.hpp"

#include <string>

namespace fgdd {

enum class Partitioner {
  Auto,        // geometric with grid metadata, else rcb with coordinates, else multilevel on
               // GPUs; on CPU backends rcm for 2-4 subdomains, else METIS (multilevel when
               // built without METIS)
  Geometric,   // boxes of a Cartesian grid (paper Algorithm 1); needs GridInfo
  Metis,       // METIS k-way on the symmetrized block graph, then size balancing
  Multilevel,  // the block graph coarsened into parts and refined on the device (no METIS)
  Rcm,         // contiguous chunks of the reverse Cuthill-McKee ordering
  Natural,     // contiguous chunks of the given ordering
  Rcb,         // recursive coordinate bisection on the device; needs Coordinates (a point per
               // block row)
};

// Traits of the partitioner table: what a partitioner needs from the input or the build, so
// tests and benchmarks can give each one what it asks for.
enum PartitionerTrait : unsigned {
  resolves_to_another = 1u << 0,  // auto: repeats one of the others
  needs_grid = 1u << 1,           // GridInfo of a generated Cartesian grid
  needs_coordinates = 1u << 2,    // a point per block row
  needs_metis = 1u << 3,          // built with METIS (FGDD_HAVE_METIS)
};

inline const auto partitioner_names =
    make_enum_names<Partitioner>("partitioner", {{Partitioner::Auto, "auto", resolves_to_another},
                                                 {Partitioner::Geometric, "geometric", needs_grid},
                                                 {Partitioner::Metis, "metis", needs_metis},
                                                 {Partitioner::Multilevel, "multilevel"},
                                                 {Partitioner::Rcm, "rcm"},
                                                 {Partitioner::Natural, "natural"},
                                                 {Partitioner::Rcb, "rcb", needs_coordinates}});

const char* to_string(Partitioner partitioner) noexcept;
// Accepts partitioner_names; throws InvalidInput listing them.
Partitioner parse_partitioner(const std::string& name);

// The order of the rows inside each subdomain, for the DD preconditioners.
enum class SubdomainRowOrder {
  Auto,         // levels where the DD factorization runs by levels (GPUs: the solvers
                // resolve it, solver_steps.hpp); else rcm in the parts of geometric and rcb
                // when there are two or more, the partitioner's otherwise (partition_matrix)
  Partitioner,  // as the partitioner leaves them (e.g. the caller's order for METIS)
  Levels,       // by their level in the subdomain's lower triangle (partition/level_order.hpp)
  Colours,      // by a greedy colouring of the subdomain's block: few levels, other factors
  Rcm,          // reverse Cuthill-McKee of the subdomain's block (partition/subdomain_rcm.hpp)
};

inline const auto subdomain_row_order_names = make_enum_names<SubdomainRowOrder>(
    "subdomain row order", {{SubdomainRowOrder::Auto, "auto"},
                            {SubdomainRowOrder::Partitioner, "partitioner"},
                            {SubdomainRowOrder::Levels, "levels"},
                            {SubdomainRowOrder::Colours, "colours"},
                            {SubdomainRowOrder::Rcm, "rcm"}});

struct PartitionOptions {
  Partitioner partitioner = Partitioner::Auto;
  SubdomainRowOrder row_order = SubdomainRowOrder::Auto;
  // Scalar rows per subdomain at most; 0 = default_subdomain_rows for this backend.
  Offset subdomain_rows = 0;

  // Throws InvalidInput when subdomain_rows is below the block size or, on a GPU, above
  // max_subdomain_rows(block_size).
  void validate(int block_size) const;
  // The cap in block rows that partitioners receive for a matrix of num_rows scalar rows (the
  // default when subdomain_rows = 0).
  Ordinal subdomain_block_rows(int block_size, Offset num_rows) const;
};

// Scalar rows of one double vector slice that fit TeamPolicy::scratch_size_max(0) on the default
// execution space, rounded down to whole blocks.
Offset max_subdomain_rows(int block_size);

// The GPU default cap: the most rows, the fewest rows, and the device threads per subdomain
// wanted (a smaller matrix gets smaller subdomains until it has concurrency() / 512 of them).
inline constexpr Offset gpu_max_default_rows = 1500;
inline constexpr Offset gpu_min_default_rows = 256;
inline constexpr Offset gpu_threads_per_subdomain = 512;

// The cap used when subdomain_rows = 0 for a matrix of num_rows scalar rows. On a GPU (device
// memory the host cannot read): 1,500 rows, fewer for a matrix that would then give fewer than
// concurrency() / 512 subdomains (the rows split evenly into that many, at least 256), at most
// the maximum, rounded down to whole blocks. Smaller subdomains drop more couplings but have
// fewer levels, so the last team to start finishes sooner and more teams fit an SM; below about
// four subdomains per SM most of the device idles (measured: docs/PERFORMANCE.md, "Subdomain
// size for small matrices"). On CPU backends: every row with one thread, else 1.06 × an even
// share of the rows per thread (concurrency()), in whole blocks, so METIS makes one part per
// thread (chunks of the natural or RCM order: one per thread up to 17 threads, a few less
// beyond): a thread solves its subdomain in sequence, so every further subdomain only drops
// couplings (docs/PERFORMANCE.md, finite-element systems). ranks: the matrix is split over that
// many MPI ranks, each with its own device (its share of the rows) or its own threads (one
// subdomain per thread of every rank).
Offset default_subdomain_rows(int block_size, Offset num_rows, int ranks = 1);

}  // namespace fgdd
