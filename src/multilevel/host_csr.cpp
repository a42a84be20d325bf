#include "multilevel/host_csr.hpp"

#include "core/host_copy.hpp"
#include "core/matrix_build.hpp"

namespace fgdd::detail {

HostCsr scalar_host_csr(const SparseMatrix& A) {
  const auto row_map = to_host_vector(A.row_map());
  const auto col_ind = to_host_vector(A.col_ind());
  const auto values = to_host_vector(A.values());
  const int b = A.block_size();
  HostCsr out;
  out.cols = Ordinal(A.num_rows());
  out.col.reserve(values.size());
  out.val.reserve(values.size());
  for (Ordinal block_row = 0; block_row < A.num_block_rows(); ++block_row)
    for (int r = 0; r < b; ++r) {
      for (Offset k = row_map[block_row]; k < row_map[block_row + 1]; ++k)
        for (int c = 0; c < b; ++c)
          out.push(col_ind[k] * b + c, values[(k * b + r) * b + c]);
      out.end_row();
    }
  return out;
}

HostCsr transpose(const HostCsr& A) {
  HostCsr T;
  T.rows = A.cols;
  T.cols = A.rows;
  T.ptr.assign(Offset(A.cols) + 1, 0);
  for (const Ordinal c : A.col) ++T.ptr[Offset(c) + 1];
  for (Ordinal c = 0; c < A.cols; ++c) T.ptr[c + 1] += T.ptr[c];
  T.col.resize(A.nnz());
  T.val.resize(A.nnz());
  std::vector<Offset> next(T.ptr.begin(), T.ptr.end() - 1);
  for (Ordinal i = 0; i < A.rows; ++i)  // rows ascending: each column's entries come sorted
    for (Offset k = A.ptr[i]; k < A.ptr[i + 1]; ++k) {
      const Offset at = next[A.col[k]]++;
      T.col[at] = i;
      T.val[at] = A.val[k];
    }
  return T;
}

SparseMatrix to_device_matrix(const HostCsr& A) {
  HostMatrixArrays arrays;
  arrays.num_block_rows = A.rows;
  arrays.num_block_cols = A.cols;
  arrays.block_size = 1;
  arrays.row_map = A.ptr;
  arrays.col_ind = A.col;
  arrays.values = A.val;
  return make_matrix(arrays);
}

}  // namespace fgdd::detail
