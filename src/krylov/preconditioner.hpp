// The Preconditioner interface Krylov solvers apply: z = M⁻¹ r, on the device.
#pragma once

#include "core/types.hpp"

#include <string>

namespace fgdd {

class Preconditioner {
 public:
  virtual ~Preconditioner() = default;
  // z = M⁻¹ r. r and z have the matrix's row count and do not alias.
  virtual void apply(const ExecSpace& space, ConstVector r, Vector z) const = 0;
  // z = M⁻ᵀ r, for solvers that need it (BiCG). The default throws InvalidInput.
  virtual bool has_transpose() const noexcept { return false; }
  virtual void apply_transpose(const ExecSpace& space, ConstVector r, Vector z) const;
  virtual std::string name() const = 0;
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
};

}  // namespace fgdd
