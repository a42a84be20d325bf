// Per-subdomain level sets (the DAG of fine-grained-dd-sptrsv-gpu.txt §4.2) of one triangle of
// the subdomain factors, built on the device with one team per subdomain in one launch.
#pragma once

#include "core/sparse_matrix.hpp"
#include "partition/partition.hpp"

namespace fgdd {

enum class Triangle { Lower, Upper };

// Level l of subdomain s holds the block rows rows(level_ptr(first_level(s) + l)) ..
// rows(level_ptr(first_level(s) + l + 1) - 1), for l < num_levels(s); a row's level is one more
// than the highest level it depends on, so every level only reads rows of earlier levels.
// first_level(s) = subdomain_offsets(s) + s (a subdomain has at most as many levels as rows).
// The strictly-triangular entries of level l's rows are listed in level order as well, as edges
// edge_ptr(first_level(s) + l) .. edge_ptr(first_level(s) + l + 1) - 1; edge_col(e) is the block
// column of edge e and edge_row(e) its block row (filled by fill_edge_rows, for the kernels that
// scatter by row). The entries of the row at position p of rows are edges row_edge_begin(p) ..
// row_edge_end(p) - 1, in the factors' order: one run of the row's entries, starting at its
// first strictly triangular one (edge_entry). Solves read these contiguous lists (and values
// gathered in the same order) instead of chasing rows → entries → columns, so a level costs one
// round of independent loads. Edge positions lie in the factors' entry range of the subdomain,
// lower edges first and upper edges after them, so the two triangles never share a position.
struct SubdomainLevels {
  Triangle triangle = Triangle::Lower;
  Kokkos::View<Ordinal*, DeviceType> num_levels;     // per subdomain
  Kokkos::View<Ordinal*, DeviceType> level_ptr;      // n + num_subdomains + 1 (positions in rows)
  Kokkos::View<Ordinal*, DeviceType> rows;           // n block rows
  Kokkos::View<Offset*, DeviceType> edge_ptr;        // same indexing as level_ptr
  Kokkos::View<Ordinal*, DeviceType> edge_row;       // block row of each listed entry (or empty)
  Kokkos::View<Ordinal*, DeviceType> edge_col;       // block column of each listed entry
  Kokkos::View<Offset*, DeviceType> row_edge_begin;  // per position in rows
  Kokkos::View<Offset*, DeviceType> row_edge_end;
  Ordinal max_levels = 0;  // over all subdomains
  Offset num_edges = 0;    // strictly triangular entries listed
  Offset widest_level = 0;  // the most entries one level of one subdomain lists
  Offset total_levels = 0;  // levels of all subdomains together (num_edges / it: mean width)
  double seconds = 0;      // device time to build all of this
};

// factors: the subdomain factors (every entry inside its row's subdomain block); diag_position:
// the diagonal block of each block row. Dependencies are the entries left of the diagonal for
// Lower and right of it for Upper. other_triangle, when given, is the other triangle's levels of
// the same factors: its edge arrays are shared (the two triangles' positions are disjoint), which
// saves 16 bytes per block entry.
SubdomainLevels build_subdomain_levels(const ExecSpace& space, const SparseMatrix& factors,
                                       const Kokkos::View<Offset*, DeviceType>& diag_position,
                                       const Partition& partition, Triangle triangle,
                                       const SubdomainLevels* other_triangle = nullptr);

// edge_row of both triangles' levels (one shared array, 4 bytes per block entry), which only
// the kernels that add into a row by edge need; the others leave it unbuilt.
void fill_edge_rows(const ExecSpace& space, SubdomainLevels& lower, SubdomainLevels& upper);

// The factor entry (block index) of edge e, listed for the row at position p.
KOKKOS_INLINE_FUNCTION Offset edge_entry(const SubdomainLevels& levels,
                                         const SparseMatrix::RowMap& row_map,
                                         const Kokkos::View<Offset*, DeviceType>& diag_position,
                                         Ordinal p, Offset e) {
  const Ordinal i = levels.rows(p);
  const Offset first = levels.triangle == Triangle::Lower ? row_map(i) : diag_position(i) + 1;
  return first + (e - levels.row_edge_begin(p));
}

}  // namespace fgdd
