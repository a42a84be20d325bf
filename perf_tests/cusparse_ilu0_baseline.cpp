#include "cusparse_ilu0_baseline.hpp"

#include <limits>
#include <stdexcept>
#include <string>

#if defined(KOKKOSKERNELS_ENABLE_TPL_CUSPARSE) && defined(KOKKOS_ENABLE_CUDA)
#include <cusparse.h>

// csrilu02 is deprecated since CUDA 12 but still what cuSPARSE offers for ILU(0) and what its
// users call.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace fgdd::bench {

namespace {

void check(cusparseStatus_t status, const char* call) {
  if (status != CUSPARSE_STATUS_SUCCESS)
    throw std::runtime_error(std::string(call) + " failed: " + cusparseGetErrorString(status));
}

#define FGDD_CUSPARSE(call) check(call, #call)

// csrilu02 takes 32-bit row offsets; fgdd's are 64-bit.
Kokkos::View<int*, DeviceType> int_row_map(const SparseMatrix& A) {
  Kokkos::View<int*, DeviceType> row_map("cusparse::row_map", A.num_rows() + 1);
  const auto source = A.row_map();
  Kokkos::parallel_for(
      "fgdd::bench::cusparse_row_map", Kokkos::RangePolicy<ExecSpace>(0, A.num_rows() + 1),
      KOKKOS_LAMBDA(const Offset i) { row_map(i) = int(source(i)); });
  return row_map;
}

class CusparseIlu0 final : public VendorIlu0 {
 public:
  explicit CusparseIlu0(const SparseMatrix& A)
      : n_(int(A.num_rows())), nnz_(int(A.num_block_entries())), source_(A.values()) {
    if (!A.is_csr()) throw std::invalid_argument("the cuSPARSE baseline needs CSR");
    if (A.num_block_entries() > Offset(std::numeric_limits<int>::max()))
      throw std::invalid_argument("csrilu02 indexes entries with int");
    row_map_ = int_row_map(A);
    col_ind_ = A.col_ind();
    lu_ = Kokkos::View<Scalar*, DeviceType>("cusparse::lu", nnz_);
    Kokkos::deep_copy(lu_, source_);
    work_ = Vector("cusparse::work", n_);

    FGDD_CUSPARSE(cusparseCreate(&handle_));
    FGDD_CUSPARSE(cusparseSetStream(handle_, ExecSpace().cuda_stream()));
    FGDD_CUSPARSE(cusparseCreateMatDescr(&descr_));
    FGDD_CUSPARSE(cusparseSetMatIndexBase(descr_, CUSPARSE_INDEX_BASE_ZERO));
    FGDD_CUSPARSE(cusparseSetMatType(descr_, CUSPARSE_MATRIX_TYPE_GENERAL));
    FGDD_CUSPARSE(cusparseCreateCsrilu02Info(&info_));
    int ilu_bytes = 0;
    FGDD_CUSPARSE(cusparseDcsrilu02_bufferSize(handle_, n_, nnz_, descr_, lu_.data(),
                                               row_map_.data(), col_ind_.data(), info_,
                                               &ilu_bytes));
    ilu_buffer_ = Kokkos::View<char*, DeviceType>("cusparse::ilu_buffer", std::size_t(ilu_bytes));
    FGDD_CUSPARSE(cusparseDcsrilu02_analysis(handle_, n_, nnz_, descr_, lu_.data(),
                                             row_map_.data(), col_ind_.data(), info_,
                                             CUSPARSE_SOLVE_POLICY_USE_LEVEL, ilu_buffer_.data()));
    int structural_zero = -1;
    if (cusparseXcsrilu02_zeroPivot(handle_, info_, &structural_zero) ==
        CUSPARSE_STATUS_ZERO_PIVOT)
      throw std::runtime_error("csrilu02: structural zero pivot in row " +
                               std::to_string(structural_zero));

    lower_ = triangle(CUSPARSE_FILL_MODE_LOWER, CUSPARSE_DIAG_TYPE_UNIT);
    upper_ = triangle(CUSPARSE_FILL_MODE_UPPER, CUSPARSE_DIAG_TYPE_NON_UNIT);
    FGDD_CUSPARSE(cusparseCreateDnVec(&x_, n_, work_.data(), CUDA_R_64F));
    FGDD_CUSPARSE(cusparseCreateDnVec(&y_, n_, work_.data(), CUDA_R_64F));
    factor();
    for (Triangle* t : {&lower_, &upper_}) {
      std::size_t bytes = 0;
      FGDD_CUSPARSE(cusparseSpSV_bufferSize(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one_,
                                            t->matrix, x_, y_, CUDA_R_64F,
                                            CUSPARSE_SPSV_ALG_DEFAULT, t->solve, &bytes));
      t->buffer = Kokkos::View<char*, DeviceType>("cusparse::spsv_buffer", bytes);
      FGDD_CUSPARSE(cusparseSpSV_analysis(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one_,
                                          t->matrix, x_, y_, CUDA_R_64F,
                                          CUSPARSE_SPSV_ALG_DEFAULT, t->solve, t->buffer.data()));
    }
  }

  ~CusparseIlu0() override {
    for (Triangle* t : {&lower_, &upper_}) {
      if (t->solve) cusparseSpSV_destroyDescr(t->solve);
      if (t->matrix) cusparseDestroySpMat(t->matrix);
    }
    if (x_) cusparseDestroyDnVec(x_);
    if (y_) cusparseDestroyDnVec(y_);
    if (info_) cusparseDestroyCsrilu02Info(info_);
    if (descr_) cusparseDestroyMatDescr(descr_);
    if (handle_) cusparseDestroy(handle_);
  }
  CusparseIlu0(const CusparseIlu0&) = delete;
  CusparseIlu0& operator=(const CusparseIlu0&) = delete;

  // New values of the same pattern: copy, factor, and let SpSV see the new factors.
  void numeric() override {
    Kokkos::deep_copy(lu_, source_);
    factor();
    for (Triangle* t : {&lower_, &upper_})
      FGDD_CUSPARSE(cusparseSpSV_updateMatrix(handle_, t->solve, lu_.data(),
                                              CUSPARSE_SPSV_UPDATE_GENERAL));
  }

  // z = U⁻¹ L⁻¹ r on the stream of ExecSpace's default instance, which the benchmarks use.
  void apply(const ExecSpace&, ConstVector r, Vector z) const override {
    solve(lower_, const_cast<Scalar*>(r.data()), work_.data());
    solve(upper_, work_.data(), z.data());
  }
  std::string name() const override { return "cusparse_csrilu02_spsv"; }

 private:
  struct Triangle {
    cusparseSpMatDescr_t matrix = nullptr;
    cusparseSpSVDescr_t solve = nullptr;
    Kokkos::View<char*, DeviceType> buffer;
  };

  Triangle triangle(cusparseFillMode_t fill, cusparseDiagType_t diagonal) {
    Triangle t;
    FGDD_CUSPARSE(cusparseCreateCsr(&t.matrix, n_, n_, nnz_, row_map_.data(), col_ind_.data(),
                                    lu_.data(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                    CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    FGDD_CUSPARSE(cusparseSpMatSetAttribute(t.matrix, CUSPARSE_SPMAT_FILL_MODE, &fill,
                                            sizeof(fill)));
    FGDD_CUSPARSE(cusparseSpMatSetAttribute(t.matrix, CUSPARSE_SPMAT_DIAG_TYPE, &diagonal,
                                            sizeof(diagonal)));
    FGDD_CUSPARSE(cusparseSpSV_createDescr(&t.solve));
    return t;
  }

  void factor() {
    FGDD_CUSPARSE(cusparseDcsrilu02(handle_, n_, nnz_, descr_, lu_.data(), row_map_.data(),
                                    col_ind_.data(), info_, CUSPARSE_SOLVE_POLICY_USE_LEVEL,
                                    ilu_buffer_.data()));
    int numerical_zero = -1;
    if (cusparseXcsrilu02_zeroPivot(handle_, info_, &numerical_zero) ==
        CUSPARSE_STATUS_ZERO_PIVOT)
      throw std::runtime_error("csrilu02: zero pivot in row " + std::to_string(numerical_zero));
  }

  void solve(const Triangle& t, Scalar* from, Scalar* to) const {
    FGDD_CUSPARSE(cusparseDnVecSetValues(x_, from));
    FGDD_CUSPARSE(cusparseDnVecSetValues(y_, to));
    FGDD_CUSPARSE(cusparseSpSV_solve(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one_, t.matrix,
                                     x_, y_, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, t.solve));
  }

  int n_, nnz_;
  SparseMatrix::Values source_;
  Kokkos::View<int*, DeviceType> row_map_;
  SparseMatrix::ColumnIndices col_ind_;
  Kokkos::View<Scalar*, DeviceType> lu_;
  Vector work_;
  Kokkos::View<char*, DeviceType> ilu_buffer_;
  cusparseHandle_t handle_ = nullptr;
  cusparseMatDescr_t descr_ = nullptr;
  csrilu02Info_t info_ = nullptr;
  Triangle lower_, upper_;
  cusparseDnVecDescr_t x_ = nullptr, y_ = nullptr;
  const double one_ = 1.0;
};

#undef FGDD_CUSPARSE

}  // namespace

std::unique_ptr<VendorIlu0> make_cusparse_ilu0(const SparseMatrix& A) {
  return std::make_unique<CusparseIlu0>(A);
}

}  // namespace fgdd::bench

#else

namespace fgdd::bench {

std::unique_ptr<VendorIlu0> make_cusparse_ilu0(const SparseMatrix&) {
  throw std::invalid_argument("cuSPARSE is not built in (Kokkos-Kernels' cuSPARSE TPL, Cuda)");
}

}  // namespace fgdd::bench

#endif
