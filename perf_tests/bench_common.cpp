#include "bench_common.hpp"

#include "core/matrix_build.hpp"
#include "core/matrix_market.hpp"

#ifdef KOKKOS_ENABLE_CUDA
#include <cuda_runtime.h>
#endif

#include <algorithm>
#include <cmath>
#include <vector>

namespace fgdd::bench {

std::string device_name() {
#ifdef KOKKOS_ENABLE_CUDA
  cudaDeviceProp properties;
  if (cudaGetDeviceProperties(&properties, 0) == cudaSuccess) return properties.name;
#endif
  return "cpu";
}

Timing time_it(const ExecSpace& space, int warmup, int repeats, const std::function<void()>& run) {
  for (int w = 0; w < warmup; ++w) run();
  space.fence();
  std::vector<double> seconds;
  for (int r = 0; r < std::max(repeats, 1); ++r) {
    Kokkos::Timer timer;
    run();
    space.fence();
    seconds.push_back(timer.seconds());
  }
  std::sort(seconds.begin(), seconds.end());
  return {seconds.front(), seconds[seconds.size() / 2], seconds.back()};
}

double copy_bandwidth(const ExecSpace& space, double copy_mb, int warmup, int repeats) {
  const Offset n = Offset(copy_mb * 1e6 / sizeof(double));
  Vector a("fgdd::bench::copy_a", n), b("fgdd::bench::copy_b", n);
  const Timing t = time_it(space, warmup, repeats, [&] { Kokkos::deep_copy(space, b, a); });
  return 2.0 * n * sizeof(double) / t.min / 1e9;
}

double max_relative_difference(ConstVector x, ConstVector reference) {
  const auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  const auto b = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), reference);
  double scale = 0, worst = 0;
  for (std::size_t i = 0; i < b.extent(0); ++i) scale = std::max(scale, std::abs(b(i)));
  for (std::size_t i = 0; i < b.extent(0); ++i) worst = std::max(worst, std::abs(a(i) - b(i)));
  return scale > 0 ? worst / scale : worst;
}

GeneratedProblem load_problem(const std::string& source) {
  if (is_generator_spec(source)) return generate_problem(source);
  return {read_matrix_market(source), GridInfo{}, source};
}

SparseMatrix point_csr(const SparseMatrix& A) {
  if (A.is_csr()) return A;
  const auto row_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.row_map());
  const auto cols = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.col_ind());
  const auto values = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.values());
  const Offset b = A.block_size();
  HostMatrixArrays csr;
  csr.num_block_rows = csr.num_block_cols = Ordinal(A.num_rows());
  csr.row_map.assign(1, 0);
  for (Ordinal block_row = 0; block_row < A.num_block_rows(); ++block_row)
    for (Offset r = 0; r < b; ++r) {
      // Blocks are sorted by column, so the scalar columns come out sorted too.
      for (Offset k = row_map(block_row); k < row_map(block_row + 1); ++k)
        for (Offset c = 0; c < b; ++c) {
          csr.col_ind.push_back(Ordinal(cols(k) * b + c));
          csr.values.push_back(values(k * b * b + r * b + c));
        }
      csr.row_map.push_back(csr.col_ind.size());
    }
  return make_matrix(csr);
}

}  // namespace fgdd::bench
