// ILU preconditioners whose triangular solves are approximated by block-asynchronous Jacobi
// (trsv/jacobi_trsv.hpp) instead of exact substitution: the exact global ILU0/ILDU0 of A, or the
// DD factors of the dropped matrix. Needs no level analysis; robust where levels are poor.
#pragma once

#include "factor/global_ilu0.hpp"
#include "factor/subdomain_ilu0.hpp"
#include "krylov/preconditioner.hpp"
#include "trsv/jacobi_trsv.hpp"

#include <memory>

namespace fgdd {

class JacobiIluPreconditioner final : public Preconditioner {
 public:
  // The global ILU of A. Throws ZeroPivot naming A's row, InvalidInput for bad options.
  JacobiIluPreconditioner(const ExecSpace& space, const SparseMatrix& A,
                          const FactorOptions& factor, const JacobiTrsvOptions& jacobi);
  // The DD ILU of dropped (ReorderedSystem::dropped of partition).
  JacobiIluPreconditioner(const ExecSpace& space, const SparseMatrix& dropped,
                          const Partition& partition, const FactorOptions& factor,
                          const JacobiTrsvOptions& jacobi);
  // New values of the pattern given to the constructor: refactors in place.
  void update_values(const ExecSpace& space, const SparseMatrix& matrix);
  void update_values(const ExecSpace& space, const SparseMatrix& permuted,
                     const SparseMatrix& dropped) override {
    update_values(space, is_dd() ? dropped : permuted);
  }
  void apply(const ExecSpace& space, ConstVector r, Vector z) const override;
  // e.g. "ilu0+jacobi-trsv", "ildu0-dd+jacobi-trsv".
  std::string name() const override;
  const JacobiTrsv& trsv() const noexcept { return *trsv_; }
  bool is_dd() const noexcept { return dd_ != nullptr; }

 private:
  std::unique_ptr<GlobalIlu0> global_;
  std::unique_ptr<SubdomainIlu0> dd_;
  std::unique_ptr<JacobiTrsv> trsv_;
};

}  // namespace fgdd
