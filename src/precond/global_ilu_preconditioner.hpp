// The exact (global, dependency-preserving) ILU0 / ILDU0 preconditioner: nothing dropped, the
// factors of A itself applied level by level. The baseline the DD preconditioner trades accuracy
// against for parallelism; works in the caller's ordering (or any ordering A is given in).
#pragma once

#include "factor/global_ilu0.hpp"
#include "krylov/preconditioner.hpp"
#include "trsv/global_trsv.hpp"

#include <memory>

namespace fgdd {

struct GlobalIluOptions {
  FactorOptions factor;
  GlobalRowKernel kernel = GlobalRowKernel::Auto;
};

class GlobalIluPreconditioner final : public Preconditioner {
 public:
  // Factors A and builds both triangles' level sets on the device. Throws ZeroPivot naming A's
  // row, InvalidInput for bad options.
  GlobalIluPreconditioner(const ExecSpace& space, const SparseMatrix& A,
                          const GlobalIluOptions& options);

  // New values, same pattern: refactors on the device; the level sets are reused. Throws
  // InvalidInput for another pattern, ZeroPivot as the constructor.
  void update_values(const ExecSpace& space, const SparseMatrix& A);
  void update_values(const ExecSpace& space, const SparseMatrix& permuted,
                     const SparseMatrix&) override {
    update_values(space, permuted);
  }

  void apply(const ExecSpace& space, ConstVector r, Vector z) const override;
  // "ilu0" or "ildu0".
  std::string name() const override;

  const GlobalIlu0& factorization() const noexcept { return *factorization_; }
  const FactorReport* factor_report() const noexcept override { return &factorization_->report(); }
  const GlobalTrsv& trsv() const noexcept { return *trsv_; }

 private:
  GlobalIluOptions options_;
  std::unique_ptr<GlobalIlu0> factorization_;  // stable address: trsv_ points to it
  std::unique_ptr<GlobalTrsv> trsv_;
};

}  // namespace fgdd
