// The inverse-based multilevel ILU (multilevel/multilevel_ilu.hpp) as a Krylov preconditioner:
// --precond multilevel-ilu. For systems where ILU(0) stagnates or diverges.
#pragma once

#include "krylov/preconditioner.hpp"
#include "multilevel/multilevel_ilu.hpp"

namespace fgdd {

class MultilevelIluPreconditioner final : public Preconditioner {
 public:
  // Sets up on the host and uploads the levels; with_transpose also the transposed ones (for
  // BiCG). Throws InvalidInput for invalid options.
  MultilevelIluPreconditioner(const ExecSpace& space, const SparseMatrix& A,
                              const MultilevelIluOptions& options, bool with_transpose = false);

  void apply(const ExecSpace& space, ConstVector r, Vector z) const override {
    ilu_.apply(space, r, z);
  }
  bool has_transpose() const noexcept override { return ilu_.has_transpose(); }
  void apply_transpose(const ExecSpace& space, ConstVector r, Vector z) const override {
    ilu_.apply_transpose(space, r, z);
  }
  // "multilevel-ilu (L levels, rows n0 n1 …, dense m, fill f; setups s, pivot sets held h)".
  std::string name() const override;
  // New values: the setup again (the accepted pivots depend on the values) in the orders of the
  // previous one; setups() counts them, pivot_sets_held() those that deferred the same pivots.
  void update_values(const ExecSpace& space, const SparseMatrix& permuted,
                     const SparseMatrix&) override;

  const MultilevelIlu& multilevel() const noexcept { return ilu_; }
  int setups() const noexcept { return setups_; }
  int pivot_sets_held() const noexcept { return held_; }

 private:
  MultilevelIlu ilu_;
  int setups_ = 1;
  int held_ = 0;
};

}  // namespace fgdd
