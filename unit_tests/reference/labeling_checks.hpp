// Checks and small graphs shared by the partitioner tests: the invariants every balanced
// labeling keeps, the fraction of couplings a labeling drops, graphs given by their edges.
#pragma once

#include <utility>
#include <vector>

#include "core/matrix_build.hpp"
#include "core/sparse_matrix.hpp"
#include "partition/labeling.hpp"

namespace fgdd::reference {

// Rows per part after checking that every row has a label in [0, num_parts).
std::vector<Ordinal> part_sizes(const detail::Labeling& labeling);

// Every part non-empty and at most cap rows, one label and key per row; returns the part sizes.
std::vector<Ordinal> check_invariants(const detail::Labeling& labeling, Ordinal num_rows,
                                      Ordinal cap);

// Block entries of A whose row and column lie in different parts, over all block entries.
double dropped_fraction(const SparseMatrix& A, const std::vector<Ordinal>& part_of_row);
double dropped_fraction(const SparseMatrix& A, const detail::Labeling& labeling);

// A symmetric matrix with a diagonal and the given undirected edges.
SparseMatrix graph_matrix(Ordinal n, const std::vector<std::pair<Ordinal, Ordinal>>& edges);

// Disjoint paths of the given lengths, one after the other: a block-diagonal matrix.
SparseMatrix disjoint_paths(const std::vector<Ordinal>& lengths);

// The device matrix on the host, for permuting and gluing test matrices.
HostMatrixArrays to_host_arrays(const SparseMatrix& A);

// P A Pᵀ with new_of_old[i] the new index of block row i (columns left unsorted: make_matrix
// sorts them).
HostMatrixArrays permuted(const HostMatrixArrays& A, const std::vector<Ordinal>& new_of_old);

// P A Pᵀ for a random permutation P (fixed seed): the same graph with no locality left in the
// row order. new_of_old receives P as a map from old to new block rows.
SparseMatrix scrambled(const SparseMatrix& A, unsigned seed, std::vector<Ordinal>& new_of_old);

}  // namespace fgdd::reference
