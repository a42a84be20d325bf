// Paper Table 5.4 analog: for each generated problem and each partitioner, rows per subdomain,
// subdomain count, nonzeros before and after the drop, dropped %, and the setup time of each step
// (best of the repeats). Prints one JSON line per (problem, partitioner).
#include "core/generators.hpp"
#include "partition/partition_matrix.hpp"

#include "bench_main.hpp"

#include <Kokkos_Core.hpp>

#include <string>
#include <vector>

namespace {

struct Options {
  std::vector<std::string> problems = {"gen:lap7:128", "gen:lap27:100", "gen:reservoir",
                                       "gen:bsr3:70"};
  fgdd::Offset subdomain_rows = 0;
  int repeats = 3;
};

// Every partitioner of the table that can run on this problem (auto would repeat one of them);
// rcb gets the grid's points and no grid, as a file with coordinates would give them.
std::vector<fgdd::Partitioner> partitioners_for(const fgdd::GeneratedProblem& problem) {
  using namespace fgdd;
  std::vector<Partitioner> list;
  for (const Partitioner partitioner : partitioner_names.values()) {
    const auto needs = [&](unsigned trait) { return partitioner_names.has(partitioner, trait); };
    if (needs(resolves_to_another) ||
        ((needs(needs_grid) || needs(needs_coordinates)) && problem.grid.empty()))
      continue;
#ifndef FGDD_HAVE_METIS
    if (needs(needs_metis)) continue;
#endif
    list.push_back(partitioner);
  }
  return list;
}

int benchmark_main(int argc, char* argv[]) {
  using namespace fgdd;
  Options options;
  bench::CommandLine("fgdd_partition_bench",
                     "Partition, reorder and drop per problem and partitioner (Table 5.4).")
      .repeated("--matrix", &options.problems, "gen:SPEC", "a generated problem")
      .option("--subdomain-rows", &options.subdomain_rows, "N",
              "scalar rows per subdomain at most; 0: the default")
      .at_least("--repeats", &options.repeats, 1, "R", "runs, the fastest is reported")
      .parse(argc, argv);
  const ExecSpace space;
  for (const std::string& spec : options.problems) {
    const GeneratedProblem problem = generate_problem(spec);
    const Coordinates points =
        problem.grid.empty() ? Coordinates() : grid_coordinates(space, problem.grid);
    for (const Partitioner partitioner : partitioners_for(problem)) {
      const bool rcb = partitioner_names.has(partitioner, needs_coordinates);
      PartitionOptions partition_options;
      partition_options.partitioner = partitioner;
      partition_options.subdomain_rows = options.subdomain_rows;
      PartitionReport best;
      for (int repeat = 0; repeat < options.repeats; ++repeat) {
        const PartitionReport report =
            partition_matrix(space, problem.matrix, rcb ? GridInfo{} : problem.grid,
                             rcb ? points : Coordinates(), partition_options)
                .report;
        if (repeat == 0 || report.partition_seconds + report.reorder_seconds <
                               best.partition_seconds + best.reorder_seconds)
          best = report;
      }
      bench::JsonObject line;
      line.add("benchmark", "partition")
          .add("commit", bench::commit())
          .add("kokkos_version", KOKKOS_VERSION)
          .add("backend", ExecSpace::name())
          .add("matrix", spec)
          .add("rows", problem.matrix.num_rows())
          .add("block_size", problem.matrix.block_size())
          .add("partitioner", to_string(partitioner))
          .add("cap_rows", best.cap_rows)
          .add("subdomains", best.num_subdomains)
          .add("rows_min", best.min_rows)
          .add("rows_avg", best.average_rows, bench::fixed(1))
          .add("rows_max", best.max_rows)
          .add("nnz", best.entries)
          .add("nnz_after_drop", best.entries_after_drop)
          .add("dropped_percent", 100.0 * best.dropped_fraction, bench::fixed(3))
          .add("partition_seconds", best.partition_seconds, bench::fixed(6))
          .add("reorder_seconds", best.reorder_seconds, bench::fixed(6))
          .add("repeats", options.repeats);
      bench::print_line(line);
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) { return fgdd::bench::run_benchmark(argc, argv, benchmark_main); }
