// The vendor baseline: Kokkos-Kernels spiluk (level 0) and its triangular solves on a CSR
// matrix, through the API that Kokkos-Kernels 3.4 and 4.x share: its own level-set sptrsv
// (SEQLVLSCHD_TP1), or cuSPARSE's SpSV when Kokkos-Kernels was built with the cuSPARSE TPL and
// the Cuda backend (kk_cusparse_available). Benchmarks only.
#pragma once

#include "core/sparse_matrix.hpp"
#include "krylov/preconditioner.hpp"

#include <KokkosKernels_Handle.hpp>
#include <KokkosSparse_spiluk.hpp>
#include <KokkosSparse_sptrsv.hpp>

#include <unistd.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace fgdd::bench {

// Kokkos-Kernels 4.6 promoted spiluk and sptrsv out of Experimental and deprecated the old
// names (an error under -Werror); Debian's 3.4 has only the Experimental ones.
#if defined(KOKKOSKERNELS_VERSION) && KOKKOSKERNELS_VERSION >= 40600
namespace kk_sparse = KokkosSparse;
#else
namespace kk_sparse = KokkosSparse::Experimental;
#endif

#if defined(KOKKOSKERNELS_ENABLE_TPL_CUSPARSE) && defined(KOKKOS_ENABLE_CUDA)
constexpr bool kk_cusparse_available = std::is_same_v<ExecSpace, Kokkos::Cuda>;
#else
constexpr bool kk_cusparse_available = false;
#endif

enum class VendorTrsv { LevelSets, CuSparse };

class KkIlu0 {
 public:
  using Handle = KokkosKernels::Experimental::KokkosKernelsHandle<Offset, Ordinal, Scalar,
                                                                  ExecSpace, MemSpace, MemSpace>;
  using RowMap = Kokkos::View<Offset*, DeviceType>;
  using Entries = Kokkos::View<Ordinal*, DeviceType>;
  using Values = Kokkos::View<Scalar*, DeviceType>;

  // Symbolic factorization and the triangular solves' level analysis (timed as setup).
  // cuSPARSE analyses the factors' values, so its analysis runs in the first numeric().
  explicit KkIlu0(const SparseMatrix& A, VendorTrsv trsv = VendorTrsv::LevelSets)
      : n_(A.num_block_rows()), cusparse_(trsv == VendorTrsv::CuSparse) {
    if (!A.is_csr()) throw std::invalid_argument("the Kokkos-Kernels baseline needs CSR");
    if (cusparse_ && !kk_cusparse_available)
      throw std::invalid_argument("Kokkos-Kernels was built without the cuSPARSE TPL");
    refuse_unaffordable_host_work_space(A);
    row_map_ = RowMap("kk::row_map", n_ + 1);
    Kokkos::deep_copy(row_map_, A.row_map());
    entries_ = A.col_ind();
    values_ = A.values();
    const Offset nnz = A.num_block_entries();
    ilu_.create_spiluk_handle(KokkosSparse::Experimental::SPILUKAlgorithm::SEQLVLSCHD_TP1, n_, nnz,
                              nnz);
    L_row_map_ = RowMap("kk::L_row_map", n_ + 1);
    U_row_map_ = RowMap("kk::U_row_map", n_ + 1);
    L_entries_ = Entries("kk::L_entries", nnz);
    U_entries_ = Entries("kk::U_entries", nnz);
    kk_sparse::spiluk_symbolic(&ilu_, 0, row_map_, entries_, L_row_map_, L_entries_, U_row_map_,
                               U_entries_);
    Kokkos::resize(L_entries_, ilu_.get_spiluk_handle()->get_nnzL());
    Kokkos::resize(U_entries_, ilu_.get_spiluk_handle()->get_nnzU());
    L_values_ = Values("kk::L_values", L_entries_.extent(0));
    U_values_ = Values("kk::U_values", U_entries_.extent(0));
    using KokkosSparse::Experimental::SPTRSVAlgorithm;
    const SPTRSVAlgorithm algorithm =
        cusparse_ ? sptrsv_cusparse_algorithm() : SPTRSVAlgorithm::SEQLVLSCHD_TP1;
    lower_.create_sptrsv_handle(algorithm, n_, true);
    upper_.create_sptrsv_handle(algorithm, n_, false);
    if (!cusparse_) {
      kk_sparse::sptrsv_symbolic(&lower_, L_row_map_, L_entries_);
      kk_sparse::sptrsv_symbolic(&upper_, U_row_map_, U_entries_);
    }
  }

  void numeric() {
    kk_sparse::spiluk_numeric(&ilu_, 0, row_map_, entries_, values_, L_row_map_, L_entries_,
                              L_values_, U_row_map_, U_entries_, U_values_);
    if (cusparse_ && !analysed_) {
      // Later refactors write new values into the same arrays the analysis points to.
      kk_sparse::sptrsv_symbolic(&lower_, L_row_map_, L_entries_, L_values_);
      kk_sparse::sptrsv_symbolic(&upper_, U_row_map_, U_entries_, U_values_);
      analysed_ = true;
    }
  }

  // z = U⁻¹ L⁻¹ r, through work.
  void apply(ConstVector r, Vector work, Vector z) {
    kk_sparse::sptrsv_solve(&lower_, L_row_map_, L_entries_, L_values_, r, work);
    kk_sparse::sptrsv_solve(&upper_, U_row_map_, U_entries_, U_values_, ConstVector(work), z);
  }

  Offset factor_entries() const { return L_entries_.extent(0) + U_entries_.extent(0); }

 private:
  // On host memory spaces spiluk allocates (widest level of L) x rows ints of work space in one
  // piece (it splits it into chunks only for CudaSpace); for the wide levels of a DD-dropped
  // matrix that is tens of GB and the process is killed. Refuse it before it happens.
  static void refuse_unaffordable_host_work_space(const SparseMatrix& A) {
    if constexpr (!Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemSpace>::accessible) {
      return;
    } else {
      const auto row_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.row_map());
      const auto col_ind = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.col_ind());
      const Ordinal n = A.num_block_rows();
      std::vector<Ordinal> level(n, 0), width;
      for (Ordinal i = 0; i < n; ++i) {
        for (Offset k = row_map(i); k < row_map(i + 1); ++k)
          if (col_ind(k) < i) level[i] = std::max(level[i], level[col_ind(k)] + 1);
        if (static_cast<size_t>(level[i]) >= width.size()) width.resize(level[i] + 1, 0);
        ++width[level[i]];
      }
      const double widest = width.empty() ? 0.0 : *std::max_element(width.begin(), width.end());
      const double bytes = widest * n * sizeof(Ordinal);
      const double memory = double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE));
      if (bytes > 0.5 * memory)
        throw std::runtime_error("Kokkos-Kernels spiluk would allocate " +
                                 std::to_string(bytes / 1e9) + " GB of host work space (" +
                                 std::to_string(static_cast<long long>(widest)) +
                                 " rows in its widest level x " + std::to_string(n) +
                                 " rows); the machine has " + std::to_string(memory / 1e9) + " GB");
    }
  }

  static KokkosSparse::Experimental::SPTRSVAlgorithm sptrsv_cusparse_algorithm() {
    return KokkosSparse::Experimental::SPTRSVAlgorithm::SPTRSV_CUSPARSE;
  }

  Ordinal n_;
  bool cusparse_ = false;
  bool analysed_ = false;
  RowMap row_map_;
  Entries entries_;
  Values values_;
  Handle ilu_, lower_, upper_;
  RowMap L_row_map_, U_row_map_;
  Entries L_entries_, U_entries_;
  Values L_values_, U_values_;
};

// A vendor ILU0 as a Krylov preconditioner whose values can be refactored (run_vendor_ilu0).
class VendorIlu0 : public Preconditioner {
 public:
  virtual void numeric() = 0;
};

// The vendor ILU0 as a Krylov preconditioner: the no-DD baseline of the solver benchmarks.
class KkIlu0Preconditioner final : public VendorIlu0 {
 public:
  explicit KkIlu0Preconditioner(const SparseMatrix& A, VendorTrsv trsv = VendorTrsv::LevelSets)
      : ilu_(A, trsv), work_("fgdd::bench::kk_work", A.num_rows()) {
    ilu_.numeric();
  }
  void numeric() override { ilu_.numeric(); }
  // Kokkos-Kernels launches on the default instance: space must be that instance (as in the
  // benchmarks), so launches stay in order without a fence.
  void apply(const ExecSpace&, ConstVector r, Vector z) const override { ilu_.apply(r, work_, z); }
  std::string name() const override { return "kk_spiluk0_sptrsv"; }

 private:
  mutable KkIlu0 ilu_;  // sptrsv_solve takes a non-const handle
  Vector work_;
};

}  // namespace fgdd::bench
