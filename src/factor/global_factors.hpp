// What the exact triangular solves (trsv/global_trsv.hpp) read: triangular factors kept in one
// square matrix, D⁻¹ and the diagonal positions. GlobalIlu0 hands out its own; other stages
// (the multilevel ILU's leading blocks) build theirs from factors computed elsewhere.
#pragma once

#include "core/sparse_matrix.hpp"
#include "factor/factor_options.hpp"

#include <cstdint>

namespace fgdd {

class GlobalFactors {
 public:
  GlobalFactors() = default;
  // factors: blocks left of the diagonal hold L (unit lower, its diagonal implicit), the
  // diagonal blocks the pivots D, blocks right of it U: unit upper (D⁻¹ U) for Ildu0, with the
  // pivots left in for Ilu0. inv_diag: D⁻¹, one b×b row-major block per block row. numeric_count:
  // where the owner counts refactorizations (solves that keep a copy of the values compare it),
  // or nullptr for values that never change; it must outlive this.
  GlobalFactors(SparseMatrix factors, Kokkos::View<Scalar*, DeviceType> inv_diag,
                Kokkos::View<Offset*, DeviceType> diag_position, IluForm form,
                const std::uint64_t* numeric_count = nullptr)
      : factors_(std::move(factors)),
        inv_diag_(std::move(inv_diag)),
        diag_position_(std::move(diag_position)),
        form_(form),
        numeric_count_(numeric_count) {}

  const SparseMatrix& factors() const noexcept { return factors_; }
  const Kokkos::View<Scalar*, DeviceType>& inv_diag() const noexcept { return inv_diag_; }
  const Kokkos::View<Offset*, DeviceType>& diag_position() const noexcept { return diag_position_; }
  IluForm form() const noexcept { return form_; }
  std::uint64_t numeric_count() const noexcept { return numeric_count_ ? *numeric_count_ : 0; }

 private:
  SparseMatrix factors_;
  Kokkos::View<Scalar*, DeviceType> inv_diag_;
  Kokkos::View<Offset*, DeviceType> diag_position_;
  IluForm form_ = IluForm::Ildu0;
  const std::uint64_t* numeric_count_ = nullptr;
};

}  // namespace fgdd
