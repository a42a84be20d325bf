#include "reference/reference_ilu0.hpp"

#include <cmath>
#include <map>

namespace fgdd::reference {

HostBlockCsr to_host_csr(const SparseMatrix& A) {
  const auto row_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.row_map());
  const auto col_ind = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.col_ind());
  const auto values = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.values());
  HostBlockCsr h;
  h.b = A.block_size();
  h.row_map.assign(row_map.data(), row_map.data() + row_map.extent(0));
  h.col_ind.assign(col_ind.data(), col_ind.data() + col_ind.extent(0));
  h.values.assign(values.data(), values.data() + values.extent(0));
  return h;
}

std::vector<double> block_inverse(const double* a_in, int b) {
  std::vector<double> a(a_in, a_in + b * b), inv(b * b, 0.0);
  for (int i = 0; i < b; ++i) inv[i * b + i] = 1;
  for (int c = 0; c < b; ++c) {
    int p = c;
    for (int r = c + 1; r < b; ++r)
      if (std::abs(a[r * b + c]) > std::abs(a[p * b + c])) p = r;
    for (int j = 0; j < b; ++j)
      std::swap(a[c * b + j], a[p * b + j]), std::swap(inv[c * b + j], inv[p * b + j]);
    const double d = a[c * b + c];
    for (int j = 0; j < b; ++j) a[c * b + j] /= d, inv[c * b + j] /= d;
    for (int r = 0; r < b; ++r) {
      if (r == c) continue;
      const double f = a[r * b + c];
      for (int j = 0; j < b; ++j)
        a[r * b + j] -= f * a[c * b + j], inv[r * b + j] -= f * inv[c * b + j];
    }
  }
  return inv;
}

HostBlockCsr ilu0(const HostBlockCsr& A) {
  HostBlockCsr F = A;
  const int b = A.b, bb = b * b;
  const auto block = [&](Offset k) { return &F.values[k * bb]; };
  for (Ordinal i = 0; i < A.num_block_rows(); ++i) {
    std::map<Ordinal, Offset> position;
    for (Offset k = A.row_map[i]; k < A.row_map[i + 1]; ++k) position[A.col_ind[k]] = k;
    for (Offset kj = A.row_map[i]; kj < A.row_map[i + 1]; ++kj) {
      const Ordinal j = A.col_ind[kj];
      if (j >= i) break;
      Offset dj = A.row_map[j];
      while (A.col_ind[dj] != j) ++dj;
      const auto inv = block_inverse(block(dj), b);
      std::vector<double> l(bb, 0.0);
      for (int r = 0; r < b; ++r)
        for (int c = 0; c < b; ++c)
          for (int t = 0; t < b; ++t) l[r * b + c] += block(kj)[r * b + t] * inv[t * b + c];
      std::copy(l.begin(), l.end(), block(kj));
      for (Offset kk = dj + 1; kk < A.row_map[j + 1]; ++kk) {
        const auto target = position.find(A.col_ind[kk]);
        if (target == position.end()) continue;
        for (int r = 0; r < b; ++r)
          for (int c = 0; c < b; ++c)
            for (int t = 0; t < b; ++t)
              block(target->second)[r * b + c] -= l[r * b + t] * block(kk)[t * b + c];
      }
    }
  }
  return F;
}

HostBlockCsr shifted(const HostBlockCsr& A, const std::vector<double>& alpha, bool positive) {
  HostBlockCsr S = A;
  const int b = A.b, bb = b * b;
  for (Ordinal i = 0; i < A.num_block_rows(); ++i) {
    Offset diag = A.row_map[i];
    while (A.col_ind[diag] != i) ++diag;
    for (int r = 0; r < b; ++r) {
      double norm = 0;
      for (Offset k = A.row_map[i]; k < A.row_map[i + 1]; ++k)
        for (int c = 0; c < b; ++c) norm += std::abs(A.values[k * bb + r * b + c]);
      const double a_rr = A.values[diag * bb + r * b + r];
      const double sign = !positive && a_rr < 0 ? -1.0 : 1.0;
      S.values[diag * bb + r * b + r] += alpha[i] * sign * norm;
    }
  }
  return S;
}

}  // namespace fgdd::reference
