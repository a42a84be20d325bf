// Paper Table 5.4 analog: for each generated problem and each partitioner, rows per subdomain,
// subdomain count, nonzeros before and after the drop, dropped %, and the setup time of each step
// (best of the repeats). Prints one JSON line per (problem, partitioner).
#include "core/generators.hpp"
#include "partition/partition_matrix.hpp"

#include <Kokkos_Core.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#ifndef FGDD_GIT_COMMIT
#define FGDD_GIT_COMMIT "unknown"
#endif

namespace {

struct Options {
  std::vector<std::string> problems = {"gen:lap7:128", "gen:lap27:100", "gen:reservoir",
                                       "gen:bsr3:70"};
  fgdd::Offset subdomain_rows = 0;
  int repeats = 3;
};

Options parse_options(int argc, char* argv[]) {
  Options options;
  bool replaced = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--matrix" && i + 1 < argc) {
      if (!replaced) options.problems.clear(), replaced = true;
      options.problems.push_back(argv[++i]);
    } else if (arg == "--subdomain-rows" && i + 1 < argc) {
      options.subdomain_rows = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--repeats" && i + 1 < argc) {
      options.repeats = std::max(1, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr,
                   "usage: fgdd_partition_bench [--matrix gen:SPEC]... [--subdomain-rows N] "
                   "[--repeats R]\n");
      std::exit(2);
    }
  }
  return options;
}

std::vector<fgdd::Partitioner> partitioners_for(const fgdd::GeneratedProblem& problem) {
  std::vector<fgdd::Partitioner> list;
  if (!problem.grid.empty()) list.push_back(fgdd::Partitioner::Geometric);
#ifdef FGDD_HAVE_METIS
  list.push_back(fgdd::Partitioner::Metis);
#endif
  list.push_back(fgdd::Partitioner::Rcm);
  list.push_back(fgdd::Partitioner::Natural);
  return list;
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const Options options = parse_options(argc, argv);
  const fgdd::ExecSpace space;
  for (const std::string& spec : options.problems) {
    const fgdd::GeneratedProblem problem = fgdd::generate_problem(spec);
    for (const fgdd::Partitioner partitioner : partitioners_for(problem)) {
      fgdd::PartitionOptions partition_options;
      partition_options.partitioner = partitioner;
      partition_options.subdomain_rows = options.subdomain_rows;
      fgdd::PartitionReport best;
      for (int repeat = 0; repeat < options.repeats; ++repeat) {
        const fgdd::PartitionReport report =
            fgdd::partition_matrix(space, problem.matrix, problem.grid, partition_options).report;
        if (repeat == 0 || report.partition_seconds + report.reorder_seconds <
                               best.partition_seconds + best.reorder_seconds)
          best = report;
      }
      std::printf(
          "{\"benchmark\":\"partition\",\"commit\":\"%s\",\"kokkos_version\":%d,"
          "\"backend\":\"%s\",\"matrix\":\"%s\",\"rows\":%zu,\"block_size\":%d,"
          "\"partitioner\":\"%s\",\"cap_rows\":%zu,\"subdomains\":%d,\"rows_min\":%zu,"
          "\"rows_avg\":%.1f,\"rows_max\":%zu,\"nnz\":%zu,\"nnz_after_drop\":%zu,"
          "\"dropped_percent\":%.3f,\"partition_seconds\":%.6f,\"reorder_seconds\":%.6f,"
          "\"repeats\":%d}\n",
          FGDD_GIT_COMMIT, KOKKOS_VERSION, fgdd::ExecSpace::name(), spec.c_str(),
          problem.matrix.num_rows(), problem.matrix.block_size(), fgdd::to_string(partitioner),
          best.cap_rows, best.num_subdomains, best.min_rows, best.average_rows, best.max_rows,
          best.entries, best.entries_after_drop, 100.0 * best.dropped_fraction,
          best.partition_seconds, best.reorder_seconds, options.repeats);
      std::fflush(stdout);
    }
  }
}
