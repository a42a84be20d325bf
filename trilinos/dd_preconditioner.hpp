// fgdd's preconditioner for Tpetra and Belos codes: an Ifpack2::Preconditioner, so Belos takes it
// as a left or right preconditioner and Ifpack2::AdditiveSchwarz as its inner solver
// (setInnerPreconditioner). Each rank factors its own diagonal block (the couplings to other
// ranks dropped, as additive Schwarz without overlap), cut into fgdd's subdomains.
//
//   auto M = Teuchos::rcp(new fgdd::trilinos::DdPreconditioner(A));
//   Teuchos::ParameterList params;
//   params.set("fgdd: subdomain_rows", 512);  // any SolverOptions key but the Krylov ones
//   M->setParameters(params);
//   M->initialize();                          // after a new pattern (checks the maps)
//   M->compute();                             // after new values: refactors, same pattern
//   problem->setRightPrec(M);                 // Belos::LinearProblem
#pragma once

#include "solver/solver.hpp"
#include "trilinos/local_block.hpp"
#include "trilinos/tpetra_types.hpp"

#include <Ifpack2_Details_CanChangeMatrix.hpp>
#include <Ifpack2_Preconditioner.hpp>
#include <Teuchos_ParameterList.hpp>

#include <memory>
#include <string>

namespace fgdd::trilinos {

class DdPreconditioner : public Ifpack2::Preconditioner<Scalar, LocalOrdinal, GlobalOrdinal, Node>,
                         public Ifpack2::Details::CanChangeMatrix<RowMatrix> {
 public:
  explicit DdPreconditioner(const Teuchos::RCP<const RowMatrix>& A);

  // Entries named "fgdd: KEY", KEY one of SolverOptions::keys() that is not a Krylov key (Belos
  // runs the Krylov method), with a string, int, double or bool value: "fgdd: preconditioner"
  // (ildu0-dd by default), "fgdd: partitioner", "fgdd: subdomain_rows", "fgdd: apply",
  // "fgdd: shift", ... Throws InvalidInput naming the entry for any other entry or a bad value;
  // the options are then unchanged. Takes effect at the next initialize().
  void setParameters(const Teuchos::ParameterList& params) override;

  // Checks that the row map matches the range and domain maps on this rank and extracts the
  // diagonal block (InvalidInput, InvalidMatrix naming the local row). Call it again after the
  // pattern changes. Local: no communication.
  void initialize() override;
  bool isInitialized() const override { return initialized_; }

  // The first compute() after initialize() partitions, reorders and factors the block; the next
  // ones refactor the current values of the same pattern (Solver::update_values). Throws
  // ZeroPivot naming the local row, InvalidInput before initialize().
  void compute() override;
  bool isComputed() const override { return computed_; }

  // Y = beta Y + alpha M⁻¹ X (M⁻ᵀ for TRANS and CONJ_TRANS, the scalar being real), column by
  // column; X and Y may be the same. Throws InvalidInput before compute() or for a transpose the
  // chosen preconditioner lacks, DimensionMismatch for vectors of another length.
  void apply(const MultiVector& X, MultiVector& Y, Teuchos::ETransp mode = Teuchos::NO_TRANS,
             Scalar alpha = 1, Scalar beta = 0) const override;
  bool hasTransposeApply() const override;

  Teuchos::RCP<const Map> getDomainMap() const override { return A_->getDomainMap(); }
  Teuchos::RCP<const Map> getRangeMap() const override { return A_->getRangeMap(); }
  Teuchos::RCP<const RowMatrix> getMatrix() const override { return A_; }
  // A new matrix (CanChangeMatrix): initialize() and compute() again before apply().
  void setMatrix(const Teuchos::RCP<const RowMatrix>& A) override;

  int getNumInitialize() const override { return num_initialize_; }
  int getNumCompute() const override { return num_compute_; }
  int getNumApply() const override { return num_apply_; }
  double getInitializeTime() const override { return initialize_seconds_; }
  double getComputeTime() const override { return compute_seconds_; }
  double getApplyTime() const override { return apply_seconds_; }
  std::string description() const override;

  const SolverOptions& options() const noexcept { return options_; }
  // This rank's block as initialize() found it (source, entries dropped), and, after compute(),
  // its partition into subdomains.
  const LocalBlock& local_block() const noexcept { return block_; }
  const PartitionReport& partition_report() const;

 private:
  Teuchos::RCP<const RowMatrix> A_;
  SolverOptions options_;
  LocalBlock block_;
  // apply() is const for Tpetra but uses the solver's work vectors and its own.
  mutable std::unique_ptr<Solver> solver_;
  mutable Vector r_, z_;
  bool initialized_ = false;
  bool computed_ = false;
  bool factored_ = false;  // a setup of this pattern completed: compute() refactors
  int num_initialize_ = 0, num_compute_ = 0;
  mutable int num_apply_ = 0;
  double initialize_seconds_ = 0, compute_seconds_ = 0;
  mutable double apply_seconds_ = 0;
};

}  // namespace fgdd::trilinos
