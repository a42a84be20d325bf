// Regrouping a scalar CSR matrix into B×B blocks when its pattern is B-blocked, so that a
// Matrix Market file (always scalar) can be read as BSR (DESIGN.md "Block size"). Device kernels,
// one pass over the entries each; no dense block row or n×n anything.
#pragma once

#include "core/matrix_build.hpp"
#include "core/types.hpp"

#include <optional>
#include <string>

namespace fgdd::detail {

// Where a scalar pattern is not B-blocked: the first block row holding a stored block (a B×B
// tile with at least one stored entry) that is not stored in full, that block's column, and the
// first of its entries (row by row) that is not stored. All 0-based.
struct BlockGap {
  Offset block_row = 0, block_column = 0;
  Offset row = 0, column = 0;
};

// scalar: rows [0, rows) of a CSR matrix whose columns are sorted and unique within each row
// (columns may be global: any nonnegative values); rows a multiple of block_size. nullopt when
// every stored block is stored in full.
std::optional<BlockGap> first_block_gap(Ordinal rows, int block_size, const SortedArrays& scalar);

// The same entries as rows / block_size block rows of block_size² values each (row-major), block
// columns = columns / block_size, sorted. Requires first_block_gap(rows, block_size, scalar) to
// be nullopt. Allocates the block arrays; scalar is not changed.
SortedArrays regroup_into_blocks(Ordinal rows, int block_size, const SortedArrays& scalar);

// "not 3x3-blocked: block row 18 (rows 52-54), block column 4 (columns 10-12): entry (53, 12) is
// not stored", numbered from 1 as in a Matrix Market file.
std::string describe_block_gap(int block_size, const BlockGap& gap);

}  // namespace fgdd::detail
