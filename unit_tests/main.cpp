// One test binary for all units: Kokkos lives for the whole Catch2 session.
#define CATCH_CONFIG_RUNNER
#include "catch_compat.hpp"

#include <Kokkos_Core.hpp>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  return Catch::Session().run(argc, argv);
}
