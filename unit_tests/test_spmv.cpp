// spmv against the dense serial reference, CSR and BSR, odd sizes and a single row; the fused
// product and dot products against spmv and sums in long double.
#include "catch_compat.hpp"
#include "core/spmv.hpp"
#include "reference/dense.hpp"
#include "reference/random_matrix.hpp"

#include <cfloat>
#include <cmath>

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

TEST_CASE("host_spmv_dots: spmv's product and <w, y>, <y, y> in one pass", "[core][spmv]") {
  // Row counts around the 256-row chunks the kernel's threads take, CSR and BSR, one row, none.
  const auto [block_rows, block_size] = GENERATE(table<Ordinal, int>({{0, 1},
                                                                      {1, 1},
                                                                      {255, 1},
                                                                      {256, 1},
                                                                      {257, 1},
                                                                      {1000, 1},
                                                                      {1, 3},
                                                                      {129, 2},
                                                                      {300, 3},
                                                                      {77, 5}}));
  CAPTURE(block_rows, block_size);
  const SparseMatrix A =
      block_rows == 0
          ? make_matrix(HostMatrixArrays{0, 0, block_size, {0}, {}, {}})
          : make_matrix(reference::random_matrix(block_rows, block_size, 6, 77u + block_rows));
  const Offset n = A.num_rows();
  const auto x = reference::to_device(reference::random_vector(n, 11u));
  const auto w_host = reference::random_vector(n, 12u);
  Vector y("y", n), y_spmv("y_spmv", n);
  const auto [w_y, y_y] = host_spmv_dots(ExecSpace(), A, x, y, reference::to_device(w_host));
  spmv(ExecSpace(), A, x, y_spmv);
  const auto got = reference::to_host(y), expected = reference::to_host(y_spmv);
  for (Offset i = 0; i < n; ++i) {
    CAPTURE(i);
    if constexpr (host_memory)  // the same rows' arithmetic as spmv's CPU kernel
      CHECK(got[i] == expected[i]);
    else  // spmv is Kokkos-Kernels' or a scalar-row kernel there
      CHECK(got[i] == FGDD_CATCH_APPROX(expected[i]).margin(1e-12));
  }
  // The sums of the y returned, in long double: any order of n additions errs by at most
  // n·ε times the sum of the terms' magnitudes (plus one rounding of each product).
  long double exact_w_y = 0, exact_y_y = 0, magnitude_w_y = 0;
  for (Offset i = 0; i < n; ++i) {
    exact_w_y += static_cast<long double>(w_host[i]) * got[i];
    exact_y_y += static_cast<long double>(got[i]) * got[i];
    magnitude_w_y += std::fabs(static_cast<long double>(w_host[i]) * got[i]);
  }
  const double bound = double(n + 1) * DBL_EPSILON;
  CHECK(std::fabs(w_y - double(exact_w_y)) <= bound * double(magnitude_w_y));
  CHECK(std::fabs(y_y - double(exact_y_y)) <= bound * double(exact_y_y));
  if (n == 0) CHECK((w_y == 0 && y_y == 0));
}
