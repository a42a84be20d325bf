#include "core/spmv.hpp"

#include "core/block_size_dispatch.hpp"
#include "core/dense_block.hpp"
#include "core/kokkos_compat.hpp"
#include "core/matrix_build.hpp"
#include "core/sparse_dot.hpp"

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

// CPU backends: a thread takes whole block rows, sums a CSR row with sparse_dot and reads a
// block's column once. Kokkos-Kernels' host SpMV (a team functor) trailed PETSc's on one core;
// rows one after another stream
// (measured: docs/PERFORMANCE_HISTORY.md, "Measurements behind code choices").
template <int B>
struct HostRowsSpmv {
  SparseMatrix::RowMap row_map;
  SparseMatrix::ColumnIndices col_ind;
  SparseMatrix::Values values;
  ConstVector x;
  Vector y;
  int runtime_b;

  KOKKOS_INLINE_FUNCTION void operator()(const Ordinal i) const {
    const Offset begin = row_map(i), end = row_map(i + 1);
    if constexpr (B == 1) {
      y(i) = detail::sparse_dot(values.data(), col_ind.data(), x.data(), begin, end);
    } else {
      const int b = B > 0 ? B : runtime_b;
      Scalar sum[B > 0 ? B : detail::max_block_size] = {};
      for (Offset k = begin; k < end; ++k) {
        const Scalar* block = &values(k * b * b);
        const Scalar* xj = &x(Offset(col_ind(k)) * b);
        for (int r = 0; r < b; ++r)
          for (int c = 0; c < b; ++c) sum[r] += block[r * b + c] * xj[c];
      }
      for (int r = 0; r < b; ++r) y(Offset(i) * b + r) = sum[r];
    }
  }
};

// HostRowsSpmv over chunks of block rows, summing <w, y> and <y, y> of each chunk's rows in
// locals: a sum kept in the reduction's array would be reloaded after every store to y (both are
// doubles that may alias), and a chunk's rows are still in cache when their y is read back. The
// order of the additions is fixed by the chunk size and the thread count.
template <int B>
struct HostRowsSpmvDots {
  using value_type = double[];
  using size_type = Ordinal;
  static constexpr Ordinal chunk_rows = 256;
  HostRowsSpmv<B> spmv;
  ConstVector w;
  Ordinal num_block_rows;
  unsigned value_count = 2;  // Kokkos' array-reduction length; last, for brace init

  KOKKOS_INLINE_FUNCTION void operator()(const Ordinal chunk, value_type sums) const {
    const Ordinal begin = chunk * chunk_rows;
    const Ordinal end = begin + chunk_rows < num_block_rows ? begin + chunk_rows : num_block_rows;
    const Offset b = B > 0 ? B : spmv.runtime_b;
    double w_y = 0, y_y = 0;
    for (Ordinal i = begin; i < end; ++i) {
      spmv(i);
      for (Offset e = Offset(i) * b; e < Offset(i + 1) * b; ++e) {
        const double y = spmv.y(e);
        w_y += w(e) * y;
        y_y += y * y;
      }
    }
    sums[0] += w_y;
    sums[1] += y_y;
  }
  KOKKOS_INLINE_FUNCTION void init(value_type sums) const { sums[0] = sums[1] = 0; }
  KOKKOS_INLINE_FUNCTION void join(value_type dst, const value_type src) const {
    dst[0] += src[0];
    dst[1] += src[1];
  }
};

// Called only where host_memory holds; [[maybe_unused]] for the GPU builds, where clang would
// warn that it is never emitted.
[[maybe_unused]] void host_spmv(const ExecSpace& space, const SparseMatrix& A, ConstVector x,
                                Vector y) {
  detail::with_block_size(A.block_size(), [&](auto block_size) {
    const HostRowsSpmv<decltype(block_size)::value> kernel{
        A.row_map(), A.col_ind(), A.values(), x, y, A.block_size()};
    Kokkos::parallel_for("fgdd::core::host_spmv",
                         Kokkos::RangePolicy<ExecSpace>(space, 0, A.num_block_rows()), kernel);
  });
}

}  // namespace

void spmv(const ExecSpace& space, const SparseMatrix& A, ConstVector x, Vector y) {
  check_vector_size(A, x.extent(0), "x");
  check_vector_size(A, y.extent(0), "y");
  if constexpr (host_memory) {
    host_spmv(space, A, x, y);
    return;
  }
  if (!A.is_csr()) {
    bsr_spmv(space, A, x, y);
    return;
  }
  using KokkosCrs = KokkosSparse::CrsMatrix<Scalar, Ordinal, DeviceType, void, Offset>;
  const KokkosCrs kk_matrix("fgdd::core::A", A.num_block_rows(), A.num_block_rows(),
                            A.num_block_entries(), A.values(), A.row_map(), A.col_ind());
  detail::kk_spmv(space, 1.0, kk_matrix, x, 0.0, y);
}

std::array<double, 2> host_spmv_dots(const ExecSpace& space, const SparseMatrix& A, ConstVector x,
                                     Vector y, ConstVector w) {
  check_vector_size(A, x.extent(0), "x");
  check_vector_size(A, y.extent(0), "y");
  check_vector_size(A, w.extent(0), "w");
  std::array<double, 2> result{};
  Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> sums(
      result.data(), 2);
  const Ordinal n = A.num_block_rows();
  detail::with_block_size(A.block_size(), [&](auto block_size) {
    using Kernel = HostRowsSpmvDots<decltype(block_size)::value>;
    const Kernel kernel{{A.row_map(), A.col_ind(), A.values(), x, y, A.block_size()}, w, n};
    Kokkos::parallel_reduce(
        "fgdd::core::host_spmv_dots",
        Kokkos::RangePolicy<ExecSpace>(space, 0, (n + Kernel::chunk_rows - 1) / Kernel::chunk_rows),
        kernel, sums);
  });
  space.fence();  // the host view is filled asynchronously on some backends
  return result;
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
