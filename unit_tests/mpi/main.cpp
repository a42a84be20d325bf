// The MPI tests: every rank runs every test case (they are collective), Kokkos and MPI live for
// the whole Catch2 session. Run with mpirun -np 1, 2, 3.
#define CATCH_CONFIG_RUNNER
#include "catch_compat.hpp"

#include <mpi.h>
#include <Kokkos_Core.hpp>

int main(int argc, char* argv[]) {
  MPI_Init(&argc, &argv);
  int failures = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    failures = Catch::Session().run(argc, argv);
  }
  // Every rank's verdict counts: a failure on rank 2 must fail the ctest run.
  MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return failures;
}
