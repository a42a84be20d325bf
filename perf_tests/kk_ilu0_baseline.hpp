// The vendor baseline: Kokkos-Kernels spiluk (level 0) and its level-set sptrsv
// (SEQLVLSCHD_TP1; cuSPARSE / rocSPARSE when Kokkos-Kernels is built with that TPL) on a CSR
// matrix, through the API that Kokkos-Kernels 3.4 and 4.x share. Benchmarks only.
#pragma once

#include "core/sparse_matrix.hpp"
#include "krylov/preconditioner.hpp"

#include <KokkosKernels_Handle.hpp>
#include <KokkosSparse_spiluk.hpp>
#include <KokkosSparse_sptrsv.hpp>

#include <stdexcept>

namespace fgdd::bench {

class KkIlu0 {
 public:
  using Handle = KokkosKernels::Experimental::KokkosKernelsHandle<Offset, Ordinal, Scalar,
                                                                  ExecSpace, MemSpace, MemSpace>;
  using RowMap = Kokkos::View<Offset*, DeviceType>;
  using Entries = Kokkos::View<Ordinal*, DeviceType>;
  using Values = Kokkos::View<Scalar*, DeviceType>;

  // Symbolic factorization and the triangular solves' level analysis (timed as setup).
  explicit KkIlu0(const SparseMatrix& A) : n_(A.num_block_rows()) {
    if (!A.is_csr()) throw std::invalid_argument("the Kokkos-Kernels baseline needs CSR");
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
    KokkosSparse::Experimental::spiluk_symbolic(&ilu_, 0, row_map_, entries_, L_row_map_,
                                                L_entries_, U_row_map_, U_entries_);
    Kokkos::resize(L_entries_, ilu_.get_spiluk_handle()->get_nnzL());
    Kokkos::resize(U_entries_, ilu_.get_spiluk_handle()->get_nnzU());
    L_values_ = Values("kk::L_values", L_entries_.extent(0));
    U_values_ = Values("kk::U_values", U_entries_.extent(0));
    lower_.create_sptrsv_handle(KokkosSparse::Experimental::SPTRSVAlgorithm::SEQLVLSCHD_TP1, n_,
                                true);
    upper_.create_sptrsv_handle(KokkosSparse::Experimental::SPTRSVAlgorithm::SEQLVLSCHD_TP1, n_,
                                false);
    KokkosSparse::Experimental::sptrsv_symbolic(&lower_, L_row_map_, L_entries_);
    KokkosSparse::Experimental::sptrsv_symbolic(&upper_, U_row_map_, U_entries_);
  }

  void numeric() {
    KokkosSparse::Experimental::spiluk_numeric(&ilu_, 0, row_map_, entries_, values_, L_row_map_,
                                               L_entries_, L_values_, U_row_map_, U_entries_,
                                               U_values_);
  }

  // z = U⁻¹ L⁻¹ r, through work.
  void apply(ConstVector r, Vector work, Vector z) {
    KokkosSparse::Experimental::sptrsv_solve(&lower_, L_row_map_, L_entries_, L_values_, r, work);
    KokkosSparse::Experimental::sptrsv_solve(&upper_, U_row_map_, U_entries_, U_values_,
                                             ConstVector(work), z);
  }

  Offset factor_entries() const { return L_entries_.extent(0) + U_entries_.extent(0); }

 private:
  Ordinal n_;
  RowMap row_map_;
  Entries entries_;
  Values values_;
  Handle ilu_, lower_, upper_;
  RowMap L_row_map_, U_row_map_;
  Entries L_entries_, U_entries_;
  Values L_values_, U_values_;
};

// The vendor ILU0 as a Krylov preconditioner: the no-DD baseline of the solver benchmarks.
class KkIlu0Preconditioner final : public Preconditioner {
 public:
  explicit KkIlu0Preconditioner(const SparseMatrix& A)
      : ilu_(A), work_("fgdd::bench::kk_work", A.num_rows()) {
    ilu_.numeric();
  }
  void numeric() { ilu_.numeric(); }
  // Kokkos-Kernels launches on the default instance: space must be that instance (as in the
  // benchmarks), so launches stay in order without a fence.
  void apply(const ExecSpace&, ConstVector r, Vector z) const override { ilu_.apply(r, work_, z); }
  std::string name() const override { return "kk_spiluk0_sptrsv"; }

 private:
  mutable KkIlu0 ilu_;  // sptrsv_solve takes a non-const handle
  Vector work_;
};

}  // namespace fgdd::bench
