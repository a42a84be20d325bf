// The Preconditioner interface Krylov solvers apply: z = M⁻¹ r, on the device.
#pragma once

#include "core/sparse_matrix.hpp"
#include "core/types.hpp"

#include <string>

namespace fgdd {

struct FactorReport;  // factor/factor_report.hpp; krylov/ needs only the name

class Preconditioner {
 public:
  virtual ~Preconditioner() = default;
  // z = M⁻¹ r. r and z have the matrix's row count and do not alias.
  virtual void apply(const ExecSpace& space, ConstVector r, Vector z) const = 0;
  // z = M⁻ᵀ r, for solvers that need it (BiCG). The default throws InvalidInput.
  virtual bool has_transpose() const noexcept { return false; }
  virtual void apply_transpose(const ExecSpace& space, ConstVector r, Vector z) const;
  virtual std::string name() const = 0;
  // New values of the pattern the preconditioner was set up from (Solver::update_values):
  // refactor, reusing everything symbolic. permuted is the operator's matrix (A_p) and dropped
  // its subdomain blocks, the couplings between subdomains dropped; each preconditioner takes
  // the one it was built from. The default throws InvalidInput (set it up again instead).
  virtual void update_values(const ExecSpace& space, const SparseMatrix& permuted,
                             const SparseMatrix& dropped);
  // What the factorization did (pivot shifts, shifted rows) for preconditioners that factor;
  // nullptr for the others.
  virtual const FactorReport* factor_report() const noexcept { return nullptr; }
};

// M = I.
class IdentityPreconditioner final : public Preconditioner {
 public:
  void apply(const ExecSpace& space, ConstVector r, Vector z) const override;
  bool has_transpose() const noexcept override { return true; }
  void apply_transpose(const ExecSpace& space, ConstVector r, Vector z) const override {
    apply(space, r, z);
  }
  std::string name() const override { return "none"; }
  void update_values(const ExecSpace&, const SparseMatrix&, const SparseMatrix&) override {}
};

}  // namespace fgdd
