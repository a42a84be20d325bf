// (A ⊗ M + τ B ⊗ L) as an Operator on merged vectors (kron/merged_layout.hpp), never formed:
// (A ⊗ M) vec(X) = vec(M X Aᵀ) (kronecker-gmres-multi-gpu.txt, Eq. 3), so one product of M
// and L with all s columns of X at once and an s×s combination per row give the result.
//
//   fgdd::KroneckerOperator K(M, L, fgdd::irk_stage_coefficients(fgdd::IrkScheme::RadauIIA, 3),
//                             tau);
//   fgdd::stacked_to_merged(space, 3, f_stacked, f);        // right-hand side in
//   fgdd::gmres(space, K, preconditioner, f, u, options);   // merged vectors throughout
//   fgdd::merged_to_stacked(space, 3, u, u_stacked);        // solution out
#pragma once

#include "core/sparse_matrix.hpp"
#include "kron/stage_coefficients.hpp"
#include "krylov/operator.hpp"

namespace fgdd {

// Where the s×s combination happens relative to the sparse product; both give the same Y.
enum class KroneckerOrder {
  // Y(i,:) = (M X)(i,:) Aᵀ + (L X)(i,:) (τB)ᵀ in one kernel: X is read once, Y written once,
  // no intermediate vectors. The default.
  CombineAfter,
  // The paper's order: X_A = X Aᵀ and X_B = X (τB)ᵀ in one pass (Eq. 4), then Y = M X_A + L X_B
  // in one fused kernel: two kernels and two intermediate s-column vectors.
  CombineBefore,
};

const char* to_string(KroneckerOrder order) noexcept;

class KroneckerOperator final : public Operator {
 public:
  // M and L: N×N of one block size b (CSR is b = 1); patterns may differ (when they share
  // their arrays, e.g. after on_union_pattern, the column indices are read once for both).
  // Keeps handles on the matrices' arrays. Throws DimensionMismatch when M and L differ in size
  // or block size, InvalidInput for bad coefficients or a non-finite tau.
  KroneckerOperator(const SparseMatrix& M, const SparseMatrix& L,
                    const StageCoefficients& coefficients, double tau,
                    KroneckerOrder order = KroneckerOrder::CombineAfter);

  // s·N: the length of merged vectors.
  Offset num_rows() const override { return Offset(stages()) * M_.num_rows(); }
  // y = (A ⊗ M + τ B ⊗ L) x on merged vectors. Deterministic.
  void apply(const ExecSpace& space, ConstVector x, Vector y) const override;
  // y = (Aᵀ ⊗ Mᵀ + τ Bᵀ ⊗ Lᵀ) x: a combination pass, then M and L scatter with atomics (the
  // last bits may vary between runs on parallel backends).
  bool has_transpose() const noexcept override { return true; }
  void apply_transpose(const ExecSpace& space, ConstVector x, Vector y) const override;
  std::string name() const override;

  int stages() const noexcept { return coefficients_.stages; }
  int block_size() const noexcept { return M_.block_size(); }
  Offset spatial_rows() const noexcept { return M_.num_rows(); }
  KroneckerOrder order() const noexcept { return order_; }
  const SparseMatrix& M() const noexcept { return M_; }
  const SparseMatrix& L() const noexcept { return L_; }
  const StageCoefficients& coefficients() const noexcept { return coefficients_; }
  double tau() const noexcept { return tau_; }

 private:
  void ensure_work_vectors() const;

  SparseMatrix M_, L_;
  StageCoefficients coefficients_;
  double tau_;
  KroneckerOrder order_;
  Kokkos::View<Scalar*, DeviceType> device_coefficients_;  // A then τB
  mutable Vector x_a_, x_b_;  // CombineBefore and transpose work vectors, made on first use
};

}  // namespace fgdd
