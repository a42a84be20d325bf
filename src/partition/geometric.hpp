// Geometric cuts of a Cartesian grid into boxes (fine-grained-dd-sptrsv-gpu.txt §3, Algorithm 1),
// with balanced slab edges so uneven grids give boxes whose sizes differ by at most one cell per
// axis and no box is ever empty.
#pragma once

#include "core/sparse_matrix.hpp"
#include "partition/labeling.hpp"

namespace fgdd::detail {

// The box shape geometric_labeling picks and the cut counts it implies.
struct GeometricBoxes {
  Ordinal box_x = 1, box_y = 1, box_z = 1;     // largest box edge per axis
  Ordinal cuts_x = 1, cuts_y = 1, cuts_z = 1;  // slabs per axis: ceil(n_d / box_d)
};

// Chooses the box for at most max_block_rows rows per subdomain: the smallest total area of
// interior cut planes first (the couplings the drop removes, so near-cubic boxes that fill the
// cap), then the fewest subdomains. Since the GPU apply works a wavefront level at a time out of
// its scratch banks, boxes where 4 or more rows of a level share a bank count their cut area 25 %
// larger: rows of a level lie b (w − slope) doubles apart for x slabs of width w (slope: see
// wavefront_slope), so 17-point slabs of a 7-point stencil at b = 1, or 9 at b = 2, put them in
// one bank, and the edge-centric apply's scratch accesses to them serialize on bank conflicts
// (measured: docs/PERFORMANCE_HISTORY.md, "Measurements behind code choices"). A host search
// over box edges, scalars only. Throws InvalidInput if a grid dimension, max_block_rows,
// block_size or slope is < 1.
GeometricBoxes choose_geometric_boxes(const GridInfo& grid, Ordinal max_block_rows,
                                      int block_size = 1, int slope = 1);

// The in-plane slope of A's wavefronts in natural order: within a z plane a point's level grows as
// x + slope·y, where slope is one more than the largest dx / (−dy) over the neighbours (dx ≥ 0,
// dy < 0) in the row of the grid's middle point: 1 for 5-, 7- and 13-point stars, 2 for 9- and
// 27-point boxes. 1 when the grid does not describe A.
int wavefront_slope(const SparseMatrix& A, const GridInfo& grid);

// Algorithm 1 with boxes of at most box_x × box_y × box_z points: c_d = ceil(n_d / box_d) slabs
// per axis, point x lies in slab floor(x * c_x / n_x) (edges uneven but balanced, no empty
// slab), part = px + c_x * (py + c_y * pz), order_key = the row index (lexicographic order inside
// a box). Runs on space. Throws InvalidInput if a grid dimension or a box edge is < 1.
Labeling geometric_labeling_with_boxes(const ExecSpace& space, const GridInfo& grid, Ordinal box_x,
                                       Ordinal box_y, Ordinal box_z);

// Geometric cuts with at most max_block_rows block rows per subdomain, boxes chosen by
// choose_geometric_boxes. Works for 3D, 2D (nz = 1) and 1D grids. Throws InvalidInput if the grid
// is empty, if nx*ny*nz != num_block_rows, or if max_block_rows < 1.
Labeling geometric_labeling(const ExecSpace& space, const GridInfo& grid, Ordinal num_block_rows,
                            Ordinal max_block_rows, int block_size = 1, int slope = 1);

}  // namespace fgdd::detail
