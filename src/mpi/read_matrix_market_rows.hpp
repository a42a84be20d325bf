// Reading one Matrix Market file on every rank at once: each rank reads a byte range of the data
// lines and sends every entry to the rank that owns its row, so no rank reads or holds the
// whole matrix.
#pragma once

#include "mpi/communicator.hpp"
#include "mpi/local_rows.hpp"

#include <string>

namespace fgdd {

// Collective. Rank r's block rows are [N r / P, N (r + 1) / P) of the file's N block rows
// (rows / block_size; the same block_size on every rank), as LocalRows for
// DistributedSolver::setup. Symmetric and skew-symmetric files are expanded and duplicate
// entries summed, as read_matrix_market does, and with block_size > 1 each rank regroups its
// rows into blocks as read_matrix_market(path, block_size) does. Every rank opens the file.
// Throws on every rank alike: FileError naming the path and the 1-based line for what
// read_matrix_market(path, block_size) rejects (the first block row that is not blocked: the
// same message), and InvalidInput for block_size < 1 or when there are fewer block rows than
// ranks. (A missing diagonal block is found later, by DistributedSolver::setup.)
LocalRows read_matrix_market_rows(const Communicator& comm, const std::string& path,
                                  int block_size = 1);

}  // namespace fgdd
