#include "core/spmv.hpp"

#include "core/kokkos_compat.hpp"
#include "core/matrix_build.hpp"

namespace fgdd {

namespace {

void bsr_spmv(const ExecSpace& space, const SparseMatrix& A, ConstVector x, Vector y) {
  const auto row_map = A.row_map();
  const auto col_ind = A.col_ind();
  const auto values = A.values();
  const int b = A.block_size();
  const Offset block_entries = Offset(b) * Offset(b);
  // One thread per scalar row: consecutive threads read the rows of one block, which share
  // column indices and neighbouring values.
  Kokkos::parallel_for(
      "fgdd::core::bsr_spmv", Kokkos::RangePolicy<ExecSpace>(space, 0, A.num_rows()),
      KOKKOS_LAMBDA(const Offset row) {
        const Offset block_row = row / b;
        const Offset row_in_block = row % b;
        Scalar sum = 0;
        for (Offset k = row_map(block_row); k < row_map(block_row + 1); ++k) {
          const Scalar* block_values = &values(k * block_entries + row_in_block * b);
          const Offset x_start = Offset(col_ind(k)) * b;
          for (int j = 0; j < b; ++j) sum += block_values[j] * x(x_start + j);
        }
        y(row) = sum;
      });
}

}  // namespace

void spmv(const ExecSpace& space, const SparseMatrix& A, ConstVector x, Vector y) {
  check_vector_size(A, x.extent(0), "x");
  check_vector_size(A, y.extent(0), "y");
  if (!A.is_csr()) {
    bsr_spmv(space, A, x, y);
    return;
  }
  using KokkosCrs = KokkosSparse::CrsMatrix<Scalar, Ordinal, DeviceType, void, Offset>;
  const KokkosCrs kk_matrix("fgdd::core::A", A.num_block_rows(), A.num_block_rows(),
                            A.num_block_entries(), A.values(), A.row_map(), A.col_ind());
  detail::kk_spmv(space, 1.0, kk_matrix, x, 0.0, y);
}

void spmv_transpose(const ExecSpace& space, const SparseMatrix& A, ConstVector x, Vector y) {
  check_vector_size(A, x.extent(0), "x");
  check_vector_size(A, y.extent(0), "y");
  const auto row_map = A.row_map();
  const auto col_ind = A.col_ind();
  const auto values = A.values();
  const int b = A.block_size();
  const Offset block_entries = Offset(b) * Offset(b);
  Kokkos::deep_copy(space, y, 0.0);
  Kokkos::parallel_for(
      "fgdd::core::spmv_transpose", Kokkos::RangePolicy<ExecSpace>(space, 0, A.num_rows()),
      KOKKOS_LAMBDA(const Offset row) {
        const Offset block_row = row / b;
        const Offset row_in_block = row % b;
        const Scalar xr = x(row);
        for (Offset k = row_map(block_row); k < row_map(block_row + 1); ++k) {
          const Scalar* block_values = &values(k * block_entries + row_in_block * b);
          const Offset y_start = Offset(col_ind(k)) * b;
          for (int j = 0; j < b; ++j) Kokkos::atomic_add(&y(y_start + j), block_values[j] * xr);
        }
      });
}

}  // namespace fgdd
