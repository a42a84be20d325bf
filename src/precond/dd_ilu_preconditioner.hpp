// The fgdd preconditioner (fine-grained-dd-sptrsv-gpu.txt): ILU0 / ILDU0 of the dropped,
// block-diagonal matrix, applied with one Kokkos team per subdomain. Works in the partitioned
// ordering of ReorderedSystem.
#pragma once

#include "factor/subdomain_ilu0.hpp"
#include "krylov/preconditioner.hpp"
#include "trsv/subdomain_trsv.hpp"

#include <memory>
#include <string>

namespace fgdd {

struct DdIluOptions {
  FactorOptions factor;
  ApplyKernel apply = ApplyKernel::Auto;
  int team_size = 0;  // threads per subdomain team in the apply; 0: chosen (SubdomainTrsv)
  // What the apply reads the factors in; factorization and Krylov vectors stay double. Auto:
  // resolve_factor_precision.
  FactorPrecision factor_precision = FactorPrecision::Auto;
};

// The precision a DD apply reads its factors in, and why.
struct FactorPrecisionChoice {
  FactorPrecision precision = FactorPrecision::Double;
  std::string reason;  // empty when the user named the precision
};

// FactorPrecision::Auto for factors of this block size on a CPU backend (host_memory) or a GPU.
// CPUs: Float for every block size. Their row-order sweeps stream the factors' values, and
// float ones made BiCGSTAB 2-20 % faster on two threads (the DOLFINx SUPG and P2 Poisson
// systems, lap7, convdiff, lap27 and the reservoir) with iterations equal or within 5 %
// (docs/PERFORMANCE.md, "Float factors by default on CPU threads"). GPUs: Float for blocks of
// 3×3 and larger, whose values are most of what the apply reads (BSR3 96³: the apply 1.19×
// faster with float factors on an H100, the BiCGSTAB solve 1.05-1.13×, the same iterations),
// Double for scalar and 2×2 blocks, where the apply gained at most 1.03× and the reservoir
// took 6 % more iterations ("Level-kernel team size and float factors on the GPU"). Double or
// Float come back as given. Float is then still subject to the range check: see
// DdIluPreconditioner.
FactorPrecisionChoice resolve_factor_precision(FactorPrecision requested, int block_size,
                                               bool on_host = host_memory);

class DdIluPreconditioner final : public Preconditioner {
 public:
  // Factors dropped (ReorderedSystem::dropped of partition) and builds what the apply kernel
  // reads (level sets, or the split triangles of the row-order kernel).
  // Throws ZeroPivot naming the caller's row, InvalidInput for bad options. With
  // factor_precision auto, factors that Float would read beyond float's range make the apply
  // read double instead (here and after any update_values), and name() says why.
  // runs: dropped's values were deferred (ReorderedSystem::dropped_runs) and are read from A_p,
  // here and by every update_values, which must then be handed A_p.
  DdIluPreconditioner(const ExecSpace& space, const SparseMatrix& dropped,
                      const Partition& partition, const DdIluOptions& options,
                      const KeptRuns& runs = {});

  // New values, same pattern (after update_values): refactors on the device and refreshes the
  // apply kernel's copy of the values; the pattern work is reused. The first form needs
  // dropped's values filled (InvalidInput for a preconditioner built on deferred ones); the
  // second reads them from permuted where they were deferred.
  void update_values(const ExecSpace& space, const SparseMatrix& dropped);
  void update_values(const ExecSpace& space, const SparseMatrix& permuted,
                     const SparseMatrix& dropped) override;

  void apply(const ExecSpace& space, ConstVector r, Vector z) const override;
  bool has_transpose() const noexcept override { return true; }
  void apply_transpose(const ExecSpace& space, ConstVector r, Vector z) const override;
  std::string name() const override;

  const SubdomainIlu0& factorization() const noexcept { return *factorization_; }
  const FactorReport* factor_report() const noexcept override { return &factorization_->report(); }
  const SubdomainTrsv& trsv() const noexcept { return *trsv_; }
  // What the apply reads the factors in now (factor_precision auto resolved), and why.
  const FactorPrecisionChoice& factor_precision() const noexcept { return precision_; }

 private:
  // Builds trsv_ in precision_ and prepares it; an automatic Float whose factors leave float's
  // range falls back to Double (ZeroPivot otherwise propagates).
  void build_trsv(const ExecSpace& space);

  // Refactors (from runs when given) and prepares the apply again.
  void refactor(const ExecSpace& space, const SparseMatrix& dropped, const KeptRuns& runs);

  DdIluOptions options_;
  Kokkos::View<Offset*, DeviceType> runs_start_;  // the deferred runs' starts; empty: none
  FactorPrecisionChoice precision_;
  std::unique_ptr<SubdomainIlu0> factorization_;  // stable address: trsv_ points to it
  std::unique_ptr<SubdomainTrsv> trsv_;
};

}  // namespace fgdd
