// The fgdd preconditioner (fine-grained-dd-sptrsv-gpu.txt): ILU0 / ILDU0 of the dropped,
// block-diagonal matrix, applied with one Kokkos team per subdomain. Works in the partitioned
// ordering of ReorderedSystem.
#pragma once

#include "factor/subdomain_ilu0.hpp"
#include "krylov/preconditioner.hpp"
#include "trsv/subdomain_trsv.hpp"

#include <memory>

namespace fgdd {

struct DdIluOptions {
  FactorOptions factor;
  ApplyKernel apply = ApplyKernel::Auto;
  int team_size = 0;  // threads per subdomain team in the apply; 0: Kokkos chooses
  // What the apply reads the factors in; factorization and Krylov vectors stay double.
  FactorPrecision factor_precision = FactorPrecision::Double;
};

class DdIluPreconditioner final : public Preconditioner {
 public:
  // Factors dropped (ReorderedSystem::dropped of partition) and builds what the apply kernel
  // reads (level sets, or the split triangles of the row-order kernel).
  // Throws ZeroPivot naming the caller's row, InvalidInput for bad options.
  DdIluPreconditioner(const ExecSpace& space, const SparseMatrix& dropped,
                      const Partition& partition, const DdIluOptions& options);

  // New values, same pattern (after update_values): refactors on the device and refreshes the
  // apply kernel's copy of the values; the pattern work is reused.
  void update_values(const ExecSpace& space, const SparseMatrix& dropped);
  void update_values(const ExecSpace& space, const SparseMatrix&,
                     const SparseMatrix& dropped) override {
    update_values(space, dropped);
  }

  void apply(const ExecSpace& space, ConstVector r, Vector z) const override;
  bool has_transpose() const noexcept override { return true; }
  void apply_transpose(const ExecSpace& space, ConstVector r, Vector z) const override;
  std::string name() const override;

  const SubdomainIlu0& factorization() const noexcept { return *factorization_; }
  const FactorReport* factor_report() const noexcept override { return &factorization_->report(); }
  const SubdomainTrsv& trsv() const noexcept { return *trsv_; }

 private:
  DdIluOptions options_;
  std::unique_ptr<SubdomainIlu0> factorization_;  // stable address: trsv_ points to it
  std::unique_ptr<SubdomainTrsv> trsv_;
};

}  // namespace fgdd
