// fgdd's Tpetra preconditioner against fgdd's own Solver on each rank's diagonal block, built
// independently from the matrix's global rows: the same bits for M⁻¹, M⁻ᵀ, alpha/beta, new
// values (compute() again), and a RowMatrix that is no CrsMatrix; parameters and misuse.
#include "catch_compat.hpp"
#include "convdiff_problem.hpp"
#include "core/errors.hpp"
#include "core/matrix_build.hpp"
#include "reference/dense.hpp"
#include "trilinos/dd_preconditioner.hpp"
#include "trilinos/preconditioner_factory.hpp"

#include <Ifpack2_AdditiveSchwarz.hpp>
#include <Ifpack2_LocalFilter.hpp>
#include <Tpetra_Core.hpp>

#include <cmath>
#include <vector>

using namespace fgdd;
using namespace fgdd::trilinos;

namespace {

// This rank's rows of A and, of their entries, those in this rank's rows, from getGlobalRowCopy
// (the map is contiguous, so "owned" is a range test on global indices).
HostMatrixArrays block_from_global_rows(const CrsMatrix& A, Offset& dropped) {
  const Map& rows = *A.getRowMap();
  const GlobalOrdinal first = rows.getMinGlobalIndex(), last = rows.getMaxGlobalIndex();
  const auto n = static_cast<Ordinal>(rows.getNodeNumElements());
  HostMatrixArrays arrays;
  arrays.num_block_rows = arrays.num_block_cols = n;
  arrays.row_map.push_back(0);
  dropped = 0;
  CrsMatrix::nonconst_global_inds_host_view_type columns("columns", A.getNodeMaxNumRowEntries());
  CrsMatrix::nonconst_values_host_view_type values("values", A.getNodeMaxNumRowEntries());
  for (GlobalOrdinal row = first; row <= last; ++row) {
    std::size_t count = 0;
    A.getGlobalRowCopy(row, columns, values, count);
    for (std::size_t k = 0; k < count; ++k) {
      if (columns(k) < first || columns(k) > last) {
        ++dropped;
        continue;
      }
      arrays.col_ind.push_back(static_cast<Ordinal>(columns(k) - first));
      arrays.values.push_back(values(k));
    }
    arrays.row_map.push_back(arrays.col_ind.size());
  }
  return arrays;
}

std::vector<double> local_values(const MultiVector& X, std::size_t column) {
  const auto view = X.getVector(column)->getLocalViewHost(Tpetra::Access::ReadOnly);
  return std::vector<double>(view.data(), view.data() + view.extent(0));
}

void fill_random(MultiVector& X, unsigned seed) {
  for (std::size_t j = 0; j < X.getNumVectors(); ++j) {
    const auto values = reference::random_vector(X.getLocalLength(),
                                                 seed + 7 * j + X.getMap()->getComm()->getRank());
    auto view = X.getVectorNonConst(j)->getLocalViewHost(Tpetra::Access::OverwriteAll);
    for (std::size_t i = 0; i < values.size(); ++i) view(i, 0) = values[i];
  }
}

Teuchos::ParameterList natural_chunks(int rows) {
  Teuchos::ParameterList params;
  params.set("fgdd: partitioner", std::string("natural"));
  params.set("fgdd: subdomain_rows", rows);
  return params;
}

}  // namespace

TEST_CASE("DdPreconditioner applies the rank block's M⁻¹ and M⁻ᵀ like fgdd's Solver",
          "[trilinos]") {
  const auto comm = Tpetra::getDefaultComm();
  const auto A = fgdd_example::convection_diffusion(comm, 9, 50.0);
  const int subdomain_rows = GENERATE(0, 40);
  CAPTURE(subdomain_rows);
  DdPreconditioner M(A);
  if (subdomain_rows > 0) M.setParameters(natural_chunks(subdomain_rows));
  M.initialize();
  M.compute();
  Offset dropped = 0;
  Solver reference_solver(M.options());
  reference_solver.setup(ExecSpace(), make_matrix(block_from_global_rows(*A, dropped)));
  CHECK(M.local_block().dropped_entries == dropped);
  CHECK(M.local_block().source ==
        (comm->getSize() == 1 ? BlockSource::Shared : BlockSource::Filtered));

  MultiVector X(A->getRowMap(), 2), Y(A->getRowMap(), 2);
  fill_random(X, 1u);
  fill_random(Y, 2u);
  const std::vector<double> y_before = local_values(Y, 1);
  const double alpha = 0.75, beta = GENERATE(0.0, -2.0);
  const bool transposed = GENERATE(false, true);
  CAPTURE(beta, transposed);
  M.apply(X, Y, transposed ? Teuchos::TRANS : Teuchos::NO_TRANS, alpha, beta);
  for (std::size_t j = 0; j < 2; ++j) {
    const std::vector<double> x = local_values(X, j);
    Vector z("z", x.size());
    reference_solver.apply_preconditioner(ExecSpace(), reference::to_device(x), z, transposed);
    std::vector<double> want = reference::to_host(z);
    if (j == 1)
      for (std::size_t i = 0; i < want.size(); ++i) want[i] = alpha * want[i] + beta * y_before[i];
    else
      for (double& w : want) w *= alpha;
    if (j == 0 && beta != 0) continue;  // column 0's old values were not kept
    CHECK(reference::unequal_entries(local_values(Y, j), want).empty());
  }
  CHECK(M.getNumApply() == 1);
}

TEST_CASE("DdPreconditioner: compute() after new values equals a fresh setup", "[trilinos]") {
  const auto comm = Tpetra::getDefaultComm();
  const auto A = fgdd_example::convection_diffusion(comm, 8, 20.0);
  DdPreconditioner M(A);
  M.setParameters(natural_chunks(50));
  M.initialize();
  M.compute();
  fgdd_example::shift_diagonal(*A, 0.25);
  M.compute();  // refactor only
  DdPreconditioner fresh(A);
  fresh.setParameters(natural_chunks(50));
  fresh.initialize();
  fresh.compute();
  MultiVector X(A->getRowMap(), 1), Y(A->getRowMap(), 1), Z(A->getRowMap(), 1);
  fill_random(X, 5u);
  M.apply(X, Y);
  fresh.apply(X, Z);
  CHECK(reference::unequal_entries(local_values(Y, 0), local_values(Z, 0)).empty());
  CHECK(M.getNumCompute() == 2);
  CHECK(M.getNumInitialize() == 1);
  // In place: X and Y the same vector.
  M.apply(X, X);
  CHECK(reference::unequal_entries(local_values(X, 0), local_values(Y, 0)).empty());
}

TEST_CASE("DdPreconditioner on a RowMatrix that is no CrsMatrix copies the same block",
          "[trilinos]") {
  const auto comm = Tpetra::getDefaultComm();
  const auto A = fgdd_example::convection_diffusion(comm, 7, 10.0);
  // Ifpack2's LocalFilter: this rank's diagonal block on a serial communicator.
  const auto filtered = Teuchos::rcp(new Ifpack2::LocalFilter<RowMatrix>(A));
  DdPreconditioner from_crs(A), from_rows(filtered);
  from_crs.initialize();
  from_crs.compute();
  from_rows.initialize();
  from_rows.compute();
  CHECK(from_rows.local_block().source == BlockSource::RowCopy);
  MultiVector X(A->getRowMap(), 1), Y(A->getRowMap(), 1);
  MultiVector X_local(filtered->getRowMap(), 1), Y_local(filtered->getRowMap(), 1);
  fill_random(X, 9u);
  {  // the same local values (the two maps differ in their communicators)
    const auto from = X.getLocalViewHost(Tpetra::Access::ReadOnly);
    const auto to = X_local.getLocalViewHost(Tpetra::Access::OverwriteAll);
    Kokkos::deep_copy(to, from);
  }
  from_crs.apply(X, Y);
  from_rows.apply(X_local, Y_local);
  CHECK(reference::unequal_entries(local_values(Y_local, 0), local_values(Y, 0)).empty());
}

TEST_CASE("DdPreconditioner as the inner solver of Ifpack2's additive Schwarz", "[trilinos]") {
  const auto comm = Tpetra::getDefaultComm();
  const auto A = fgdd_example::convection_diffusion(comm, 7, 30.0);
  const int overlap = GENERATE(0, 1);
  CAPTURE(overlap);
  Ifpack2::AdditiveSchwarz<RowMatrix> schwarz(A);
  Teuchos::ParameterList params;
  params.set("schwarz: overlap level", overlap);
  schwarz.setParameters(params);
  schwarz.setInnerPreconditioner(Teuchos::rcp(new DdPreconditioner(Teuchos::null)));
  schwarz.initialize();
  schwarz.compute();
  MultiVector X(A->getRowMap(), 1), Y(A->getRowMap(), 1), Z(A->getRowMap(), 1);
  fill_random(X, 11u);
  schwarz.apply(X, Y);
  for (const double y : local_values(Y, 0)) REQUIRE(std::isfinite(y));
  // Without overlap (or on one rank) Schwarz's local matrix is the rank's diagonal block, the
  // one fgdd takes on its own: the same factors and the same bits.
  if (overlap == 0 || comm->getSize() == 1) {
    DdPreconditioner direct(A);
    direct.initialize();
    direct.compute();
    direct.apply(X, Z);
    CHECK(reference::unequal_entries(local_values(Y, 0), local_values(Z, 0)).empty());
  }
}

TEST_CASE("DdPreconditioner parameters, names and misuse", "[trilinos]") {
  const auto comm = Tpetra::getDefaultComm();
  const auto A = fgdd_example::convection_diffusion(comm, 5, 1.0);
  DdPreconditioner M(A);
  Teuchos::ParameterList good;
  good.set("fgdd: preconditioner", std::string("ilu0-dd"));
  good.set("fgdd: pivot_threshold", 1e-13);
  good.set("fgdd: shift_pivots", true);
  M.setParameters(good);
  CHECK(M.options().preconditioner == PreconditionerKind::Ilu0Dd);
  CHECK(M.options().dd.factor.pivot_threshold == 1e-13);
  Teuchos::ParameterList foreign;
  foreign.set("fact: iluk level-of-fill", 0);
  CHECK_THROWS_WITH(M.setParameters(foreign), FGDD_CONTAINS("'fgdd: subdomain_rows'"));
  Teuchos::ParameterList krylov;
  krylov.set("fgdd: tol", 1e-6);
  CHECK_THROWS_WITH(M.setParameters(krylov), FGDD_CONTAINS("Belos"));
  Teuchos::ParameterList bad;
  bad.set("fgdd: subdomain_rows", 16);
  bad.set("fgdd: apply", std::string("fastest"));
  CHECK_THROWS_AS(M.setParameters(bad), InvalidInput);
  CHECK(M.options().partition.subdomain_rows == SolverOptions().partition.subdomain_rows);

  MultiVector X(A->getRowMap(), 1), Y(A->getRowMap(), 1);
  CHECK_THROWS_WITH(M.apply(X, Y), FGDD_CONTAINS("before compute"));
  CHECK_THROWS_WITH(M.compute(), FGDD_CONTAINS("before initialize"));
  M.initialize();
  M.compute();
  MultiVector wrong(A->getRowMap(), 2);
  CHECK_THROWS_AS(M.apply(X, wrong), DimensionMismatch);

  CHECK(dynamic_cast<DdPreconditioner*>(create_preconditioner("fgdd", A).get()) != nullptr);
  CHECK(dynamic_cast<DdPreconditioner*>(create_preconditioner("RILUK", A).get()) == nullptr);
}
