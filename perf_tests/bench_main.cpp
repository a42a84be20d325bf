#include "bench_main.hpp"

#include "core/types.hpp"

#include <Kokkos_Core.hpp>

#ifdef KOKKOS_ENABLE_CUDA
#include <cuda_runtime.h>
#endif

#include <cstdio>
#include <exception>
#include <vector>

#ifndef FGDD_GIT_COMMIT
#define FGDD_GIT_COMMIT "unknown"
#endif

namespace fgdd::bench {

const char* commit() { return FGDD_GIT_COMMIT; }

std::string device_name() {
#ifdef KOKKOS_ENABLE_CUDA
  cudaDeviceProp properties;
  if (cudaGetDeviceProperties(&properties, 0) == cudaSuccess) return properties.name;
#endif
  return "cpu";
}

JsonObject report_header(const std::string& benchmark) {
  JsonObject header;
  header.add("benchmark", benchmark)
      .add("commit", commit())
      .add("kokkos_version", KOKKOS_VERSION)
      .add("backend", ExecSpace::name())
      .add("device", device_name());
  return header;
}

namespace {

std::string program_name(const char* argv0) {
  const std::string path = argv0 ? argv0 : "fgdd_bench";
  return path.substr(path.find_last_of('/') + 1);
}

void report_usage_error(const std::string& program, const UsageError& error) {
  std::fprintf(stderr, "%s: %s (--help lists the options)\n", program.c_str(), error.what());
}

// Runs run(argc, argv) inside Kokkos. Kokkos answers --help with its own argument list (on
// every rank), so it initializes from argv without --help / -h, and run gets --help first, before
// any flag that could fail.
template <class Run>
int with_kokkos(int argc, char* argv[], const Run& run) {
  static char help_flag[] = "--help";
  std::vector<char*> args;
  bool help = false;
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i > 0 && (arg == "--help" || arg == "-h"))
      help = true;
    else
      args.push_back(argv[i]);
  }
  int count = int(args.size());
  args.push_back(nullptr);
  Kokkos::ScopeGuard kokkos(count, args.data());  // takes its flags out of args
  args.resize(count);
  if (help) args.insert(args.begin() + 1, help_flag);
  count = int(args.size());
  args.push_back(nullptr);
  return run(count, args.data());
}

}  // namespace

int run_benchmark(int argc, char* argv[], const Body& body) {
  const std::string program = program_name(argv[0]);
  try {
    return with_kokkos(argc, argv, body);
  } catch (const HelpRequested& help) {
    std::printf("%s", help.usage.c_str());
    return 0;
  } catch (const UsageError& error) {
    report_usage_error(program, error);
    return 2;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s: %s\n", program.c_str(), error.what());
    return 1;
  }
}

#ifdef FGDD_HAVE_MPI
int run_mpi_benchmark(int argc, char* argv[], const MpiBody& body) {
  MPI_Init(&argc, &argv);
  const std::string program = program_name(argv[0]);
  const Communicator comm;
  int code = 0;
  try {
    code =
        with_kokkos(argc, argv, [&](int count, char* args[]) { return body(comm, count, args); });
  } catch (const HelpRequested& help) {
    if (comm.is_root()) std::printf("%s", help.usage.c_str());
  } catch (const UsageError& error) {
    if (comm.is_root()) report_usage_error(program, error);
    std::fflush(stderr);
    MPI_Abort(comm.get(), 2);
  } catch (const std::exception& error) {
    abort_all_ranks(comm, error);
  }
  MPI_Finalize();
  return code;
}
#endif

}  // namespace fgdd::bench
