// This rank's diagonal block of a distributed Tpetra matrix as an fgdd matrix: the rows the rank
// owns and, of their entries, those in columns it owns (the couplings to other ranks dropped, as
// Ifpack2's additive Schwarz does without overlap).
#pragma once

#include "core/enum_names.hpp"
#include "core/sparse_matrix.hpp"
#include "trilinos/tpetra_types.hpp"

namespace fgdd::trilinos {

// How the block was made, for reports and tests.
enum class BlockSource {
  Shared,    // the CrsMatrix's local arrays, no copy: no columns owned by other ranks
  Filtered,  // the CrsMatrix's local arrays without other ranks' columns, on the device
  RowCopy,   // a RowMatrix that is no CrsMatrix, copied row by row on the host
};

struct LocalBlock {
  SparseMatrix matrix;
  BlockSource source = BlockSource::Shared;
  Offset dropped_entries = 0;  // entries in other ranks' columns
};

// Throws InvalidInput when A's row map is not locally the same as its range and domain maps (the
// preconditioner's vectors are laid out like A's rows), and whatever make_matrix throws for the
// block (InvalidMatrix naming the local row: a missing diagonal, a non-finite value).
LocalBlock local_diagonal_block(const RowMatrix& A);

inline const auto block_source_names =
    make_enum_names<BlockSource>("block source", {{BlockSource::Shared, "shared"},
                                                  {BlockSource::Filtered, "filtered"},
                                                  {BlockSource::RowCopy, "row copy"}});

inline const char* to_string(BlockSource source) noexcept {
  return block_source_names.name(source);
}

}  // namespace fgdd::trilinos
