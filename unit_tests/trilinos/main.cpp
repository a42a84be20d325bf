// The Trilinos adapter's tests: every rank runs every test case (they are collective); Tpetra
// owns MPI and Kokkos for the whole Catch2 session. Run with mpirun -np 1 and 2.
#define CATCH_CONFIG_RUNNER
#include "catch_compat.hpp"

#include <Tpetra_Core.hpp>

int main(int argc, char* argv[]) {
  Tpetra::ScopeGuard tpetra(&argc, &argv);
  int failures = Catch::Session().run(argc, argv);
  // Every rank's verdict counts: a failure on rank 1 must fail the ctest run.
  MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return failures;
}
