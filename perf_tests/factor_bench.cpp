// Factorization time of the subdomain ILDU0 (symbolic once, numeric refactor best of the
// repeats) on the generated suite or Matrix Market files, against Kokkos-Kernels spiluk(0) on
// the same dropped matrix (CSR only; -1 when skipped), and the apply of the factors with the
// default kernel; rows inside subdomains in the partitioner's order or by level
// (--subdomain-order). One JSON line per problem.
#include "core/generators.hpp"
#include "factor/subdomain_ilu0.hpp"
#include "partition/partition_matrix.hpp"
#include "trsv/subdomain_trsv.hpp"

#include "bench_common.hpp"
#include "bench_main.hpp"
#include "kk_ilu0_baseline.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace {

// The fastest of repeats applies of the factors with the backend's default kernel.
double best_apply_seconds(const fgdd::ExecSpace& space, const fgdd::SubdomainIlu0& ilu,
                          int repeats) {
  using namespace fgdd;
  SubdomainTrsv trsv(space, ilu);
  trsv.prepare(space, ApplyKernel::Auto);
  const Ordinal n = ilu.factors().num_rows();
  Vector r("r", n), z("z", n);
  Kokkos::deep_copy(space, r, 1.0);
  return bench::time_it(space, 1, repeats, [&] { trsv.apply(space, ApplyKernel::Auto, r, z); }).min;
}

int benchmark_main(int argc, char* argv[]) {
  using namespace fgdd;
  std::vector<std::string> problems = {"gen:lap7:160", "gen:lap27:100", "gen:reservoir",
                                       "gen:bsr3:70"};
  int repeats = 5;
  std::string order = "auto";
  SubdomainRowOrder row_order = SubdomainRowOrder::Partitioner;
  bench::CommandLine("fgdd_factor_bench",
                     "Subdomain ILDU0 factorization against Kokkos-Kernels spiluk(0).")
      .repeated("--matrix", &problems, "FILE.mtx|gen:SPEC",
                "a matrix; a generator spec keeps its grid (a file is partitioned like Solver's "
                "default without a grid)")
      .at_least("--repeats", &repeats, 1, "R", "numeric refactorizations, the best is reported")
      .choice("--order", &order, {"auto", "levels", "rows"},
              "factorization order (auto: rows on CPU backends, levels on GPUs)")
      .custom("--subdomain-order", subdomain_row_order_names.joined(), "partitioner",
              bench::subdomain_order_help, bench::subdomain_order_parser(&row_order))
      .parse(argc, argv);
  const ExecSpace space;
  for (const std::string& spec : problems) {
    const GeneratedProblem problem = bench::load_problem(spec);
    PartitionOptions partition;
    partition.row_order = row_order;
    const PartitionedMatrix dd =
        partition_matrix(space, problem.matrix, problem.grid, Coordinates(), partition);
    FactorOptions factor_options;
    factor_options.order = factor_order_names.parse(order);
    SubdomainIlu0 ilu(space, dd.system.dropped, dd.partition, factor_options);
    double best = 1e300;
    for (int r = 0; r < repeats; ++r)
      best = std::min(best, ilu.numeric(space, dd.system.dropped).numeric_seconds);
    // Vendor baseline on the same dropped matrix (CSR): Kokkos-Kernels spiluk level 0.
    double kk_setup = -1, kk_best = -1;
    if (problem.matrix.is_csr()) {
      Kokkos::Timer timer;
      bench::KkIlu0 kk(dd.system.dropped);
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
    using bench::fixed;
    bench::JsonObject line;
    line.add("benchmark", "factor_subdomain_ildu0")
        .add("commit", bench::commit())
        .add("backend", ExecSpace::name())
        .add("matrix", spec)
        .add("rows", problem.matrix.num_rows())
        .add("block_size", problem.matrix.block_size())
        .add("partitioner", to_string(dd.report.partitioner))
        .add("subdomains", dd.report.num_subdomains)
        .add("nnz_factored", dd.system.dropped.num_entries())
        .add("order", factor_order_names.name(resolve_auto(factor_options.order)))
        .add("subdomain_order", subdomain_row_order_names.name(row_order))
        .add("update_list_bytes_per_entry",
             double(ilu.report().update_list_bytes) / double(dd.system.dropped.num_entries()),
             fixed(2))
        .add("symbolic_seconds", ilu.report().symbolic_seconds, fixed(6))
        .add("numeric_seconds_min", best, fixed(6))
        .add("apply_seconds_min", best_apply_seconds(space, ilu, repeats), fixed(6))
        .add("kk_spiluk_setup_seconds", kk_setup, fixed(6))
        .add("kk_spiluk_numeric_seconds_min", kk_best, fixed(6))
        .add("repeats", repeats);
    bench::print_line(line);
  }
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) { return fgdd::bench::run_benchmark(argc, argv, benchmark_main); }
