// The opening every driver shares: Kokkos initialized from argv and finalized on return, MPI
// around it for the MPI drivers, one rule for --help and errors, and the fields that say where
// the numbers come from (commit, backend, device).
#pragma once

#include "bench_json.hpp"
#include "bench_options.hpp"

#ifdef FGDD_HAVE_MPI
#include "mpi/communicator.hpp"
#endif

#include <functional>
#include <string>

namespace fgdd::bench {

// The commit the numbers belong to (FGDD_GIT_COMMIT at configure time, "unknown" without git).
const char* commit();

// The GPU's name on CUDA builds, "cpu" otherwise.
std::string device_name();

// "benchmark", "commit", "kokkos_version", "backend", "device": the fields most reports open with.
JsonObject report_header(const std::string& benchmark);

using Body = std::function<int(int argc, char* argv[])>;

// Runs body(argc, argv) with Kokkos initialized from argv (which loses the flags Kokkos takes)
// and returns its exit code. HelpRequested prints the usage and returns 0; a UsageError prints
// "program: message" and returns 2; any other exception prints "program: message", returns 1.
int run_benchmark(int argc, char* argv[], const Body& body);

#ifdef FGDD_HAVE_MPI
using MpiBody = std::function<int(const Communicator& comm, int argc, char* argv[])>;

// Collective. The same between MPI_Init and MPI_Finalize, body given MPI_COMM_WORLD. Every rank
// parses the same argv, so the root alone prints the usage or a usage error, which then ends
// every rank with code 2 (MPI_Abort); any other exception goes to abort_all_ranks (code 1).
int run_mpi_benchmark(int argc, char* argv[], const MpiBody& body);
#endif

}  // namespace fgdd::bench
