#include "rocsparse_ilu0_baseline.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#if defined(FGDD_HAVE_ROCSPARSE) && defined(KOKKOS_ENABLE_HIP)
#include <rocsparse/rocsparse.h>

namespace fgdd::bench {

namespace {

void check(rocsparse_status status, const char* call) {
  if (status != rocsparse_status_success)
    throw std::runtime_error(std::string(call) + " failed: rocsparse_status " +
                             std::to_string(int(status)));
}

#define FGDD_ROCSPARSE(call) check(call, #call)

// rocsparse_int is 32-bit; fgdd's row offsets are 64-bit.
Kokkos::View<rocsparse_int*, DeviceType> int_row_map(const SparseMatrix& A) {
  Kokkos::View<rocsparse_int*, DeviceType> row_map("rocsparse::row_map", A.num_rows() + 1);
  const auto source = A.row_map();
  Kokkos::parallel_for(
      "fgdd::bench::rocsparse_row_map", Kokkos::RangePolicy<ExecSpace>(0, A.num_rows() + 1),
      KOKKOS_LAMBDA(const Offset i) { row_map(i) = rocsparse_int(source(i)); });
  return row_map;
}

class RocsparseIlu0 final : public VendorIlu0 {
 public:
  explicit RocsparseIlu0(const SparseMatrix& A)
      : n_(rocsparse_int(A.num_rows())),
        nnz_(rocsparse_int(A.num_block_entries())),
        source_(A.values()) {
    if (!A.is_csr()) throw std::invalid_argument("the rocSPARSE baseline needs CSR");
    if (A.num_block_entries() > Offset(std::numeric_limits<rocsparse_int>::max()))
      throw std::invalid_argument("csrilu0 indexes entries with rocsparse_int");
    row_map_ = int_row_map(A);
    col_ind_ = A.col_ind();
    lu_ = Kokkos::View<Scalar*, DeviceType>("rocsparse::lu", nnz_);
    Kokkos::deep_copy(lu_, source_);
    work_ = Vector("rocsparse::work", n_);

    FGDD_ROCSPARSE(rocsparse_create_handle(&handle_));
    FGDD_ROCSPARSE(rocsparse_set_stream(handle_, ExecSpace().hip_stream()));
    FGDD_ROCSPARSE(rocsparse_create_mat_info(&info_));
    general_ = descriptor(rocsparse_fill_mode_lower, rocsparse_diag_type_non_unit);
    lower_ = descriptor(rocsparse_fill_mode_lower, rocsparse_diag_type_unit);
    upper_ = descriptor(rocsparse_fill_mode_upper, rocsparse_diag_type_non_unit);

    // One buffer for the factorization and both solves: the largest they ask for.
    std::size_t ilu_bytes = 0, lower_bytes = 0, upper_bytes = 0;
    FGDD_ROCSPARSE(rocsparse_dcsrilu0_buffer_size(handle_, n_, nnz_, general_, lu_.data(),
                                                  row_map_.data(), col_ind_.data(), info_,
                                                  &ilu_bytes));
    FGDD_ROCSPARSE(rocsparse_dcsrsv_buffer_size(handle_, rocsparse_operation_none, n_, nnz_, lower_,
                                                lu_.data(), row_map_.data(), col_ind_.data(), info_,
                                                &lower_bytes));
    FGDD_ROCSPARSE(rocsparse_dcsrsv_buffer_size(handle_, rocsparse_operation_none, n_, nnz_, upper_,
                                                lu_.data(), row_map_.data(), col_ind_.data(), info_,
                                                &upper_bytes));
    buffer_ = Kokkos::View<char*, DeviceType>("rocsparse::buffer",
                                              std::max({ilu_bytes, lower_bytes, upper_bytes}));
    FGDD_ROCSPARSE(rocsparse_dcsrilu0_analysis(
        handle_, n_, nnz_, general_, lu_.data(), row_map_.data(), col_ind_.data(), info_,
        rocsparse_analysis_policy_reuse, rocsparse_solve_policy_auto, buffer_.data()));
    rocsparse_int structural_zero = -1;
    if (rocsparse_csrilu0_zero_pivot(handle_, info_, &structural_zero) ==
        rocsparse_status_zero_pivot)
      throw std::runtime_error("csrilu0: structural zero pivot in row " +
                               std::to_string(structural_zero));
    for (const rocsparse_mat_descr descr : {lower_, upper_})
      FGDD_ROCSPARSE(rocsparse_dcsrsv_analysis(handle_, rocsparse_operation_none, n_, nnz_, descr,
                                               lu_.data(), row_map_.data(), col_ind_.data(), info_,
                                               rocsparse_analysis_policy_reuse,
                                               rocsparse_solve_policy_auto, buffer_.data()));
    factor();
  }

  ~RocsparseIlu0() override {
    for (const rocsparse_mat_descr descr : {general_, lower_, upper_})
      if (descr) rocsparse_destroy_mat_descr(descr);
    if (info_) rocsparse_destroy_mat_info(info_);
    if (handle_) rocsparse_destroy_handle(handle_);
  }
  RocsparseIlu0(const RocsparseIlu0&) = delete;
  RocsparseIlu0& operator=(const RocsparseIlu0&) = delete;

  // New values of the same pattern: copy and factor; the solves' analysis depends on the
  // pattern only.
  void numeric() override {
    Kokkos::deep_copy(lu_, source_);
    factor();
  }

  // z = U⁻¹ L⁻¹ r on the stream of ExecSpace's default instance, which the benchmarks use.
  void apply(const ExecSpace&, ConstVector r, Vector z) const override {
    solve(lower_, r.data(), work_.data());
    solve(upper_, work_.data(), z.data());
  }
  std::string name() const override { return "rocsparse_csrilu0_csrsv"; }

 private:
  rocsparse_mat_descr descriptor(rocsparse_fill_mode fill, rocsparse_diag_type diagonal) {
    rocsparse_mat_descr descr = nullptr;
    FGDD_ROCSPARSE(rocsparse_create_mat_descr(&descr));
    FGDD_ROCSPARSE(rocsparse_set_mat_index_base(descr, rocsparse_index_base_zero));
    FGDD_ROCSPARSE(rocsparse_set_mat_fill_mode(descr, fill));
    FGDD_ROCSPARSE(rocsparse_set_mat_diag_type(descr, diagonal));
    return descr;
  }

  void factor() {
    FGDD_ROCSPARSE(rocsparse_dcsrilu0(handle_, n_, nnz_, general_, lu_.data(), row_map_.data(),
                                      col_ind_.data(), info_, rocsparse_solve_policy_auto,
                                      buffer_.data()));
    rocsparse_int numerical_zero = -1;
    if (rocsparse_csrilu0_zero_pivot(handle_, info_, &numerical_zero) ==
        rocsparse_status_zero_pivot)
      throw std::runtime_error("csrilu0: zero pivot in row " + std::to_string(numerical_zero));
  }

  void solve(rocsparse_mat_descr descr, const Scalar* from, Scalar* to) const {
    FGDD_ROCSPARSE(rocsparse_dcsrsv_solve(handle_, rocsparse_operation_none, n_, nnz_, &one_, descr,
                                          lu_.data(), row_map_.data(), col_ind_.data(), info_, from,
                                          to, rocsparse_solve_policy_auto, buffer_.data()));
  }

  rocsparse_int n_, nnz_;
  SparseMatrix::Values source_;
  Kokkos::View<rocsparse_int*, DeviceType> row_map_;
  SparseMatrix::ColumnIndices col_ind_;
  Kokkos::View<Scalar*, DeviceType> lu_;
  Vector work_;
  Kokkos::View<char*, DeviceType> buffer_;
  rocsparse_handle handle_ = nullptr;
  rocsparse_mat_info info_ = nullptr;
  rocsparse_mat_descr general_ = nullptr, lower_ = nullptr, upper_ = nullptr;
  const double one_ = 1.0;
};

#undef FGDD_ROCSPARSE

}  // namespace

std::unique_ptr<VendorIlu0> make_rocsparse_ilu0(const SparseMatrix& A) {
  return std::make_unique<RocsparseIlu0>(A);
}

}  // namespace fgdd::bench

#else

namespace fgdd::bench {

std::unique_ptr<VendorIlu0> make_rocsparse_ilu0(const SparseMatrix&) {
  throw std::invalid_argument("rocSPARSE is not built in (the HIP backend with rocSPARSE)");
}

}  // namespace fgdd::bench

#endif
