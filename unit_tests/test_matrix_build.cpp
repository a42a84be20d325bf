// make_matrix and from_kokkos_crs: validation with row/column in the error, sort, merge, sharing.
#include "catch_compat.hpp"
#include "core/matrix_build.hpp"
#include "reference/dense.hpp"

using namespace fgdd;

namespace {

// 3×3 CSR: [[4,-1,0],[-1,4,-1],[0,-1,4]]
HostMatrixArrays tridiagonal3() {
  HostMatrixArrays m;
  m.num_block_rows = m.num_block_cols = 3;
  m.row_map = {0, 2, 5, 7};
  m.col_ind = {0, 1, 0, 1, 2, 1, 2};
  m.values = {4, -1, -1, 4, -1, -1, 4};
  return m;
}

template <class Callable>
void require_invalid(Callable make, std::int64_t row, std::int64_t column, const std::string& word) {
  try {
    make();
    FAIL("expected InvalidMatrix");
  } catch (const InvalidMatrix& error) {
    CHECK(error.row() == row);
    CHECK(error.column() == column);
    CHECK(std::string(error.what()).find(word) != std::string::npos);
  }
}

}  // namespace

TEST_CASE("make_matrix accepts valid CSR and keeps every entry", "[core][matrix_build]") {
  const SparseMatrix A = make_matrix(tridiagonal3());
  REQUIRE(A.num_rows() == 3);
  REQUIRE(A.num_entries() == 7);
  const auto dense = reference::to_dense(A);
  CHECK(dense(0, 0) == 4);
  CHECK(dense(1, 0) == -1);
  CHECK(dense(2, 0) == 0);
  CHECK(dense(2, 2) == 4);
}

TEST_CASE("make_matrix sorts columns and sums duplicates", "[core][matrix_build]") {
  HostMatrixArrays m;
  m.num_block_rows = m.num_block_cols = 3;
  m.row_map = {0, 3, 6, 7};
  m.col_ind = {2, 0, 0, 1, 1, 0, 2};  // row 0: unsorted with a duplicate; row 1: duplicate
  m.values = {5, 1, 2, 3, 4, -1, 9};
  const SparseMatrix A = make_matrix(m);
  CHECK(A.num_entries() == 5);
  const auto dense = reference::to_dense(A);
  CHECK(dense(0, 0) == 3);
  CHECK(dense(0, 2) == 5);
  CHECK(dense(1, 0) == -1);
  CHECK(dense(1, 1) == 7);
  CHECK(dense(2, 2) == 9);
  const auto cols = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.col_ind());
  CHECK(cols(0) == 0);
  CHECK(cols(1) == 2);
  CHECK(cols(2) == 0);
  CHECK(cols(3) == 1);
}

TEST_CASE("make_matrix handles BSR with unsorted duplicate blocks", "[core][matrix_build]") {
  HostMatrixArrays m;
  m.num_block_rows = m.num_block_cols = 2;
  m.block_size = 2;
  m.row_map = {0, 2, 4};
  m.col_ind = {1, 0, 1, 1};  // row 0 unsorted, row 1 has block column 1 twice
  m.values = {1, 2, 3, 4, /*(0,0)*/ 10, 0, 0, 10, /*(1,1)*/ 1, 1, 1, 1, /*(1,1)*/ 5, 0, 0, 5};
  const SparseMatrix A = make_matrix(m);
  CHECK(A.num_block_entries() == 3);
  CHECK(A.num_rows() == 4);
  const auto d = reference::to_dense(A);
  CHECK(d(0, 0) == 10);
  CHECK(d(0, 2) == 1);
  CHECK(d(0, 3) == 2);
  CHECK(d(1, 2) == 3);
  CHECK(d(1, 3) == 4);
  CHECK(d(2, 2) == 6);
  CHECK(d(2, 3) == 1);
  CHECK(d(3, 3) == 6);
  CHECK(d(2, 0) == 0);
}

TEST_CASE("make_matrix names the row and column of invalid input", "[core][matrix_build]") {
  SECTION("not square") {
    auto m = tridiagonal3();
    m.num_block_cols = 4;
    require_invalid([&] { make_matrix(m); }, -1, -1, "not square");
  }
  SECTION("row map length") {
    auto m = tridiagonal3();
    m.row_map.pop_back();
    require_invalid([&] { make_matrix(m); }, -1, -1, "row map has 3 entries");
  }
  SECTION("row map does not start at 0") {
    auto m = tridiagonal3();
    m.row_map = {1, 2, 5, 7};
    require_invalid([&] { make_matrix(m); }, 0, -1, "start at 0");
  }
  SECTION("row map decreases") {
    auto m = tridiagonal3();
    m.row_map = {0, 5, 2, 7};
    require_invalid([&] { make_matrix(m); }, 1, -1, "decreases");
  }
  SECTION("row map end differs from entry count") {
    auto m = tridiagonal3();
    m.col_ind.push_back(0);
    m.values.push_back(1);
    require_invalid([&] { make_matrix(m); }, 2, -1, "row map ends at 7");
  }
  SECTION("values length") {
    auto m = tridiagonal3();
    m.values.pop_back();
    require_invalid([&] { make_matrix(m); }, -1, -1, "values has 6");
  }
  SECTION("column out of range") {
    auto m = tridiagonal3();
    m.col_ind[4] = 3;
    require_invalid([&] { make_matrix(m); }, 1, 3, "out of range");
  }
  SECTION("negative column") {
    auto m = tridiagonal3();
    m.col_ind[5] = -2;
    require_invalid([&] { make_matrix(m); }, 2, -2, "out of range");
  }
  SECTION("NaN value") {
    auto m = tridiagonal3();
    m.values[3] = std::nan("");
    require_invalid([&] { make_matrix(m); }, 1, 1, "not finite");
  }
  SECTION("Inf inside a block names the scalar row and column") {
    HostMatrixArrays b;
    b.num_block_rows = b.num_block_cols = 2;
    b.block_size = 2;
    b.row_map = {0, 1, 2};
    b.col_ind = {0, 1};
    b.values = {1, 0, 0, 1, 1, 0, INFINITY, 1};
    require_invalid([&] { make_matrix(b); }, 3, 2, "not finite");
  }
  SECTION("finite duplicates that sum to Inf name their row and column") {
    HostMatrixArrays m;
    m.num_block_rows = m.num_block_cols = 2;
    m.row_map = {0, 3, 4};
    m.col_ind = {1, 0, 1, 1};
    m.values = {1e308, 1, 1e308, 1};  // row 0, column 1 twice: 2e308 overflows
    require_invalid([&] { make_matrix(m); }, 0, 1, "duplicate entries sum to inf");
    m.values = {-1e308, 1, -1e308, 1};
    require_invalid([&] { make_matrix(m); }, 0, 1, "duplicate entries sum to -inf");
  }
  SECTION("missing diagonal") {
    auto m = tridiagonal3();
    m.col_ind = {0, 1, 0, 1, 2, 1, 0};  // row 2 has columns 1 and 0, no 2
    require_invalid([&] { make_matrix(m); }, 2, 2, "no diagonal");
  }
  SECTION("block size below 1") {
    auto m = tridiagonal3();
    m.block_size = 0;
    require_invalid([&] { make_matrix(m); }, -1, -1, "block size");
  }
}

TEST_CASE("an empty matrix is valid", "[core][matrix_build]") {
  HostMatrixArrays m;
  m.row_map = {0};
  const SparseMatrix A = make_matrix(m);
  CHECK(A.num_rows() == 0);
  CHECK(A.num_entries() == 0);
}

TEST_CASE("from_kokkos_crs shares sorted arrays and leaves unsorted input untouched",
          "[core][matrix_build]") {
  using KokkosCrs = KokkosSparse::CrsMatrix<Scalar, Ordinal, DeviceType, void, Offset>;
  const SparseMatrix source = make_matrix(tridiagonal3());
  SECTION("sorted: no copy") {
    KokkosCrs kk("A", 3, 3, source.num_entries(), source.values(), source.row_map(),
                 source.col_ind());
    const SparseMatrix A = from_kokkos_crs(kk);
    CHECK(A.values().data() == kk.values.data());
    CHECK(A.col_ind().data() == kk.graph.entries.data());
    CHECK(A.row_map().data() == kk.graph.row_map.data());
  }
  SECTION("unsorted: sorted copy, caller's arrays unchanged") {
    SparseMatrix::ColumnIndices cols("cols", 7);
    SparseMatrix::Values vals("vals", 7);
    auto hc = Kokkos::create_mirror_view(cols);
    auto hv = Kokkos::create_mirror_view(vals);
    const int c[] = {1, 0, 2, 1, 0, 1, 2};
    const double v[] = {-1, 4, -1, 4, -1, -1, 4};
    for (int k = 0; k < 7; ++k) hc(k) = c[k], hv(k) = v[k];
    Kokkos::deep_copy(cols, hc);
    Kokkos::deep_copy(vals, hv);
    KokkosCrs kk("A", 3, 3, 7, vals, source.row_map(), cols);
    const SparseMatrix A = from_kokkos_crs(kk);
    CHECK(A.col_ind().data() != cols.data());
    const auto after = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), cols);
    CHECK(after(0) == 1);
    const auto expected = reference::to_dense(source);
    const auto got = reference::to_dense(A);
    CHECK(got.a == expected.a);
  }
  SECTION("int row map is converted") {
    using IntCrs = KokkosSparse::CrsMatrix<Scalar, Ordinal, DeviceType, void, int>;
    Kokkos::View<int*, DeviceType> rows("rows", 4);
    auto hr = Kokkos::create_mirror_view(rows);
    hr(0) = 0, hr(1) = 2, hr(2) = 5, hr(3) = 7;
    Kokkos::deep_copy(rows, hr);
    IntCrs kk("A", 3, 3, 7, source.values(), rows, source.col_ind());
    const SparseMatrix A = from_kokkos_crs(kk);
    CHECK(A.values().data() == kk.values.data());
    CHECK(reference::to_dense(A).a == reference::to_dense(source).a);
  }
}

TEST_CASE("check_vector_size names the vector", "[core][matrix_build]") {
  const SparseMatrix A = make_matrix(tridiagonal3());
  CHECK_NOTHROW(check_vector_size(A, 3, "b"));
  CHECK_THROWS_AS(check_vector_size(A, 4, "b"), DimensionMismatch);
  CHECK_THROWS_WITH(check_vector_size(A, 2, "x"), FGDD_CONTAINS("vector x has length 2"));
}
