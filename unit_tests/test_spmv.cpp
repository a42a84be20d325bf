// spmv against the dense serial reference, CSR and BSR, odd sizes and a single row.
#include "catch_compat.hpp"
#include "core/spmv.hpp"
#include "reference/dense.hpp"
#include "reference/random_matrix.hpp"

using namespace fgdd;

TEST_CASE("spmv equals the dense reference", "[core][spmv]") {
  const auto [block_rows, block_size] = GENERATE(table<Ordinal, int>(
      {{1, 1}, {97, 1}, {301, 1}, {1, 3}, {53, 2}, {67, 3}, {41, 4}, {13, 5}}));
  CAPTURE(block_rows, block_size);
  const SparseMatrix A =
      make_matrix(reference::random_matrix(block_rows, block_size, 6, 1234u + block_rows));
  const auto x = reference::random_vector(A.num_rows(), 7u);
  Vector y("y", A.num_rows());
  spmv(ExecSpace(), A, reference::to_device(x), y);
  const auto expected = reference::multiply(reference::to_dense(A), x);
  const auto got = reference::to_host(y);
  // Each y_i sums at most a few dozen products of values in [-1, 1] and small diagonals, so
  // reordering the sum changes it by a few ulps of the row's absolute sum.
  for (std::size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i] == FGDD_CATCH_APPROX(expected[i]).margin(1e-12));
  }
}

TEST_CASE("spmv rejects wrong vector lengths", "[core][spmv]") {
  const SparseMatrix A = make_matrix(reference::random_matrix(5, 2, 2, 1u));
  Vector short_vector("x", 9), y("y", 10);
  CHECK_THROWS_AS(spmv(ExecSpace(), A, short_vector, y), DimensionMismatch);
}
