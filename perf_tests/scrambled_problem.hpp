// A problem with its row order scrambled: P A Pᵀ and P b for a random permutation P of the block
// rows, so that the order carries no locality (issue 33: natural and RCM chunks, and any "row
// order" heuristic, fail on such matrices). Benchmarks only.
#pragma once

#include "core/sparse_matrix.hpp"
#include "core/types.hpp"

#include <cstdint>
#include <vector>

namespace fgdd::bench {

// A random permutation of [0, n): position[i] is the new place of i. The same seed gives the
// same permutation on every platform (splitmix64 and Fisher-Yates written out here, since the
// standard library's distributions and shuffle differ between implementations).
std::vector<Ordinal> random_permutation(Ordinal n, std::uint64_t seed);

// P A Pᵀ, block row i of A becoming block row position[i] (blocks stay whole), and P b.
struct ScrambledSystem {
  SparseMatrix matrix;
  Vector rhs;
};
// Throws InvalidInput when position is not a permutation of A's block rows or b's length is
// not A's rows.
ScrambledSystem scramble(const ExecSpace& space, const SparseMatrix& A, ConstVector b,
                         const std::vector<Ordinal>& position);

}  // namespace fgdd::bench
