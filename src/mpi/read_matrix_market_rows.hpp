// Reading one Matrix Market file on every rank at once: each rank reads a byte range of the data
// lines and sends every entry to the rank that owns its row, so no rank reads or holds the
// whole matrix.
#pragma once

#include "mpi/communicator.hpp"
#include "mpi/local_rows.hpp"

#include <string>

namespace fgdd {

// Collective. Rank r's block rows (block size 1) are [N r / P, N (r + 1) / P) of the file's N
// rows, as LocalRows for DistributedSolver::setup. Symmetric and skew-symmetric files are
// expanded and duplicate entries summed, as read_matrix_market does. Every rank opens the
// file. Throws on every rank alike: FileError naming the path and the 1-based line for what
// read_matrix_market rejects, and InvalidInput when there are fewer rows than ranks.
LocalRows read_matrix_market_rows(const Communicator& comm, const std::string& path);

}  // namespace fgdd
