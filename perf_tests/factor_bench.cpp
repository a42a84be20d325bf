// Factorization time of the subdomain ILDU0 (symbolic once, numeric refactor best of the
// repeats) on the generated suite, against Kokkos-Kernels spiluk(0) on the same dropped matrix
// (CSR only; -1 when skipped), one JSON line per problem.
#include "core/generators.hpp"
#include "factor/subdomain_ilu0.hpp"
#include "partition/partition_matrix.hpp"

#include "kk_ilu0_baseline.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#ifndef FGDD_GIT_COMMIT
#define FGDD_GIT_COMMIT "unknown"
#endif

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  std::vector<std::string> problems = {"gen:lap7:160", "gen:lap27:100", "gen:reservoir",
                                       "gen:bsr3:70"};
  int repeats = 5;
  bool replaced = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--matrix" && i + 1 < argc) {
      if (!replaced) problems.clear(), replaced = true;
      problems.push_back(argv[++i]);
    } else if (arg == "--repeats" && i + 1 < argc) {
      repeats = std::max(1, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: fgdd_factor_bench [--matrix gen:SPEC]... [--repeats R]\n");
      return 2;
    }
  }
  const fgdd::ExecSpace space;
  for (const std::string& spec : problems) {
    const fgdd::GeneratedProblem problem = fgdd::generate_problem(spec);
    const fgdd::PartitionedMatrix dd =
        fgdd::partition_matrix(space, problem.matrix, problem.grid, fgdd::PartitionOptions{});
    fgdd::SubdomainIlu0 ilu(space, dd.system.dropped, dd.partition, fgdd::FactorOptions{});
    double best = 1e300;
    for (int r = 0; r < repeats; ++r)
      best = std::min(best, ilu.numeric(space, dd.system.dropped).numeric_seconds);
    // Vendor baseline on the same dropped matrix (CSR): Kokkos-Kernels spiluk level 0.
    double kk_setup = -1, kk_best = -1;
    if (problem.matrix.is_csr()) {
      Kokkos::Timer timer;
      fgdd::bench::KkIlu0 kk(dd.system.dropped);
      space.fence();
      kk_setup = timer.seconds();
      kk_best = 1e300;
      for (int r = 0; r < repeats; ++r) {
        timer.reset();
        kk.numeric();
        space.fence();
        kk_best = std::min(kk_best, timer.seconds());
      }
    }
    std::printf(
        "{\"benchmark\":\"factor_subdomain_ildu0\",\"commit\":\"%s\",\"backend\":\"%s\","
        "\"matrix\":\"%s\",\"rows\":%zu,\"block_size\":%d,\"partitioner\":\"%s\","
        "\"subdomains\":%d,\"nnz_factored\":%zu,\"symbolic_seconds\":%.6f,"
        "\"numeric_seconds_min\":%.6f,\"kk_spiluk_setup_seconds\":%.6f,"
        "\"kk_spiluk_numeric_seconds_min\":%.6f,\"repeats\":%d}\n",
        FGDD_GIT_COMMIT, fgdd::ExecSpace::name(), spec.c_str(), problem.matrix.num_rows(),
        problem.matrix.block_size(), fgdd::to_string(dd.report.partitioner),
        dd.report.num_subdomains, dd.system.dropped.num_entries(), ilu.report().symbolic_seconds,
        best, kk_setup, kk_best, repeats);
    std::fflush(stdout);
  }
}
