#include "reference/dense.hpp"

#include <cmath>
#include <cstdio>
#include <random>

namespace fgdd::reference {

DenseMatrix to_dense(const SparseMatrix& A) {
  const auto row_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.row_map());
  const auto col_ind = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.col_ind());
  const auto values = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.values());
  const std::size_t b = A.block_size();
  DenseMatrix dense{A.num_rows(), std::vector<double>(A.num_rows() * A.num_rows(), 0.0)};
  for (std::size_t i = 0; i < std::size_t(A.num_block_rows()); ++i)
    for (std::size_t k = row_map(i); k < row_map(i + 1); ++k)
      for (std::size_t r = 0; r < b; ++r)
        for (std::size_t c = 0; c < b; ++c)
          dense(i * b + r, col_ind(k) * b + c) += values(k * b * b + r * b + c);
  return dense;
}

std::vector<double> multiply(const DenseMatrix& A, const std::vector<double>& x) {
  std::vector<double> y(A.n, 0.0);
  for (std::size_t i = 0; i < A.n; ++i)
    for (std::size_t j = 0; j < A.n; ++j) y[i] += A(i, j) * x[j];
  return y;
}

std::vector<double> to_host(ConstVector x) {
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  return std::vector<double>(host.data(), host.data() + host.extent(0));
}

std::string unequal_entries(const std::vector<double>& got, const std::vector<double>& want) {
  if (got.size() != want.size())
    return std::to_string(got.size()) + " entries, want " + std::to_string(want.size());
  std::size_t count = 0, first = 0;
  for (std::size_t i = got.size(); i-- > 0;)
    if (!(got[i] == want[i])) {
      ++count;
      first = i;
    }
  if (count == 0) return "";
  char text[160];
  std::snprintf(text, sizeof text, "%zu of %zu entries differ, first at %zu: %.17g, want %.17g",
                count, got.size(), first, got[first], want[first]);
  return text;
}

Vector to_device(const std::vector<double>& x) {
  Vector device("fgdd::test::vector", x.size());
  const auto host = Kokkos::create_mirror_view(device);
  for (std::size_t i = 0; i < x.size(); ++i) host(i) = x[i];
  Kokkos::deep_copy(device, host);
  return device;
}

Kokkos::View<Ordinal*, DeviceType> to_device(const std::vector<Ordinal>& x) {
  Kokkos::View<Ordinal*, DeviceType> device("fgdd::test::ordinals", x.size());
  const auto host = Kokkos::create_mirror_view(device);
  for (std::size_t i = 0; i < x.size(); ++i) host(i) = x[i];
  Kokkos::deep_copy(device, host);
  return device;
}

std::vector<double> random_vector(std::size_t n, unsigned seed) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<double> x(n);
  for (auto& value : x) value = uniform(engine);
  return x;
}

double relative_residual(const SparseMatrix& A, const std::vector<double>& x,
                         const std::vector<double>& b) {
  const auto Ax = multiply(to_dense(A), x);
  double r = 0, bn = 0;
  for (std::size_t i = 0; i < b.size(); ++i)
    r += (b[i] - Ax[i]) * (b[i] - Ax[i]), bn += b[i] * b[i];
  return std::sqrt(r / bn);
}

bool all_finite(const std::vector<double>& x) {
  for (double v : x)
    if (!std::isfinite(v)) return false;
  return true;
}

}  // namespace fgdd::reference
