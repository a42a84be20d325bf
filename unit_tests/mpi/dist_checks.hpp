// What the MPI tests share: rounding bounds for comparing distributed and serial results,
// gathering a distributed vector, solving from each rank's rows and the residual of that, and
// the halo plan's consistency across ranks.
#pragma once

#include "catch_compat.hpp"
#include "fgdd.hpp"
#include "reference/dense.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace fgdd::test {

// |A| |v| (entrywise absolute values), A CSR or BSR, on the host: what rounding errors of a
// product with A are proportional to.
inline std::vector<double> absolute_product(const SparseMatrix& A, const std::vector<double>& v) {
  const auto row_map = reference::host_vector(A.row_map());
  const auto cols = reference::host_vector(A.col_ind());
  const auto values = reference::host_vector(A.values());
  const Offset b = Offset(A.block_size());
  std::vector<double> result(A.num_rows(), 0.0);
  for (Ordinal block_row = 0; block_row < A.num_block_rows(); ++block_row)
    for (Offset k = row_map[block_row]; k < row_map[block_row + 1]; ++k)
      for (Offset i = 0; i < b; ++i)
        for (Offset j = 0; j < b; ++j)
          result[block_row * b + i] +=
              std::abs(values[k * b * b + i * b + j] * v[Offset(cols[k]) * b + j]);
  return result;
}

// The most stored scalar entries in one row of A.
inline int max_row_entries(const SparseMatrix& A) {
  const auto row_map = reference::host_vector(A.row_map());
  Offset most = 0;
  for (Ordinal r = 0; r < A.num_block_rows(); ++r)
    most = std::max(most, row_map[r + 1] - row_map[r]);
  return int(most) * A.block_size();
}

inline double norm2(const std::vector<double>& v) {
  double sum = 0;
  for (const double e : v) sum += e * e;
  return std::sqrt(sum);
}

// γ_k = k u / (1 − k u), u = eps / 2: the relative error bound of a k-term sum.
inline double sum_error_bound(int k) {
  const double k_u = k * std::numeric_limits<double>::epsilon() / 2;
  return k_u / (1 - k_u);
}

// A vector whose rank r holds scalar rows [offsets[r]·b, offsets[r + 1]·b), gathered whole on
// every rank.
inline std::vector<double> gather_whole(const Communicator& comm,
                                        const std::vector<Ordinal>& offsets, int b,
                                        const std::vector<double>& mine) {
  std::vector<int> counts, displs;
  for (int r = 0; r < comm.size(); ++r) {
    counts.push_back(int((offsets[r + 1] - offsets[r]) * b));
    displs.push_back(int(offsets[r] * b));
  }
  std::vector<double> whole(std::size_t(offsets.back()) * b);
  MPI_Allgatherv(mine.data(), int(mine.size()), MPI_DOUBLE, whole.data(), counts.data(),
                 displs.data(), MPI_DOUBLE, comm.get());
  return whole;
}

// Sets solver up from each rank's rows and solves A x = 1 in their order (x: this rank's rows).
inline SolveResult solve_ones_from_rows(DistributedSolver& solver, const LocalRows& mine,
                                        const GridInfo& local_grid, Vector& x) {
  const ExecSpace space;
  solver.setup(space, mine, local_grid);
  const Offset n = solver.matrix().num_rows();
  Vector b("b", n);
  x = Vector("x", n);
  Kokkos::deep_copy(b, 1.0);
  return solver.solve_rows(space, b, x);
}

// ‖1 − A x‖₂ on the whole matrix A (which every rank holds), x gathered from each rank's block
// rows [offsets[r], offsets[r + 1]) in A's ordering: what a solve of A x = 1 must make small.
inline double whole_residual_of_ones(const Communicator& comm,
                                     const std::vector<Ordinal>& offsets, const SparseMatrix& A,
                                     ConstVector x_mine) {
  const std::vector<double> x = gather_whole(comm, offsets, A.block_size(),
                                             reference::to_host(x_mine));
  Vector Ax("Ax", A.num_rows());
  spmv(ExecSpace(), A, reference::to_device(x), Ax);
  std::vector<double> residual = reference::to_host(Ax);
  for (double& r : residual) r = 1.0 - r;
  return norm2(residual);
}

// With several ranks the plan has messages, and the counts agree on both sides.
inline void check_halo_counts(const Communicator& comm, const DistributedMatrix& A) {
  if (comm.size() == 1) return;
  double sent = double(A.halo().num_send_rows()), received = double(A.halo().num_ghosts());
  comm.sum(&sent, 1);
  comm.sum(&received, 1);
  CHECK(sent == received);
  CHECK(received > 0);
}

}  // namespace fgdd::test
