// Plain serial references for tests: a dense matrix on the host, obviously correct, never fast.
#pragma once

#include "core/sparse_matrix.hpp"

#include <string>
#include <vector>

namespace fgdd::reference {

struct DenseMatrix {
  std::size_t n = 0;
  std::vector<double> a;  // row-major n×n
  double& operator()(std::size_t i, std::size_t j) { return a[i * n + j]; }
  double operator()(std::size_t i, std::size_t j) const { return a[i * n + j]; }
};

// Expands A (CSR or BSR, on the device) into a dense host matrix.
DenseMatrix to_dense(const SparseMatrix& A);

std::vector<double> multiply(const DenseMatrix& A, const std::vector<double>& x);

// ‖b − A x‖₂ / ‖b‖₂ with A expanded densely on the host.
double relative_residual(const SparseMatrix& A, const std::vector<double>& x,
                         const std::vector<double>& b);

bool all_finite(const std::vector<double>& x);

std::vector<double> to_host(ConstVector x);

// "" when got and want are equal entry by entry, else how many entries differ and the first one:
// a CHECK on it names the difference where comparing the vectors would print both whole.
std::string unequal_entries(const std::vector<double>& got, const std::vector<double>& want);

// Any 1-D device view as a host std::vector.
template <class View>
std::vector<typename View::non_const_value_type> host_vector(const View& view) {
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
  return {host.data(), host.data() + host.extent(0)};
}
Vector to_device(const std::vector<double>& x);
Kokkos::View<Ordinal*, DeviceType> to_device(const std::vector<Ordinal>& x);

// Deterministic pseudo-random values in [-1, 1).
std::vector<double> random_vector(std::size_t n, unsigned seed);

}  // namespace fgdd::reference
