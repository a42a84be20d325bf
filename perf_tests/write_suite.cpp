// Writes generated problems as Matrix Market files, the form most users' matrices arrive in (no
// grid metadata): A as `coordinate real general` (BSR as scalar entries, block-interleaved) and
// b = 1 as an array, optionally scrambled by a random symmetric permutation P A Pᵀ, P b (issue
// 33). One JSON line per problem says where its files went.
#include "bench_main.hpp"
#include "scrambled_problem.hpp"

#include "core/errors.hpp"
#include "core/generators.hpp"
#include "core/matrix_market.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {

using namespace fgdd;

struct Options {
  // The solve benchmarks' suite.
  std::vector<std::string> problems = {"gen:lap7:160", "gen:bsr3:96", "gen:reservoir",
                                       "gen:convdiff:128", "gen:lap27:100"};
  std::string out_dir = ".";
  long long seed = -1;  // < 0: the generators' order
};

// "gen:lap7:40" -> "lap7_40"; with a seed, "lap7_40_scrambled_<seed>".
std::string file_stem(const std::string& spec, long long seed) {
  std::string stem = spec.substr(spec.find(':') + 1);
  for (char& c : stem)
    if (c == ':') c = '_';
  return seed < 0 ? stem : stem + "_scrambled_" + std::to_string(seed);
}

int write_main(int argc, char* argv[]) {
  Options options;
  bench::CommandLine("fgdd_write_suite",
                     "Writes generated problems' A and b (b = 1) as Matrix Market files.")
      .repeated("--matrix", &options.problems, "gen:SPEC", "a generated problem")
      .option("--out-dir", &options.out_dir, "DIR",
              "where STEM.mtx and STEM_b.mtx go (STEM: the spec after gen:, ':' as '_')")
      .option("--scramble", &options.seed, "SEED",
              "rows in a random symmetric order P A Pᵀ, P b (block rows for BSR) from SEED; the "
              "same seed gives the same files; < 0: the generators' order")
      .parse(argc, argv);
  const ExecSpace space;
  for (const std::string& spec : options.problems) {
    if (!is_generator_spec(spec))
      throw bench::UsageError("--matrix takes a generator spec (gen:...), got '" + spec + "'");
    Kokkos::Timer timer;
    GeneratedProblem problem = generate_problem(spec);
    Vector b(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::bench::b"),
             problem.matrix.num_rows());
    Kokkos::deep_copy(space, b, 1.0);
    if (options.seed >= 0) {
      const std::vector<Ordinal> position =
          bench::random_permutation(problem.matrix.num_block_rows(), std::uint64_t(options.seed));
      bench::ScrambledSystem scrambled = bench::scramble(space, problem.matrix, b, position);
      problem.matrix = scrambled.matrix;
      b = scrambled.rhs;
    }
    const std::string stem = options.out_dir + "/" + file_stem(spec, options.seed);
    const std::string matrix_path = stem + ".mtx", rhs_path = stem + "_b.mtx";
    write_matrix_market(matrix_path, problem.matrix);
    write_matrix_market_vector(
        rhs_path, ConstVector(b),
        "b = 1 of " + problem.description +
            (options.seed >= 0 ? ", scrambled with seed " + std::to_string(options.seed)
                               : std::string()));
    bench::JsonObject line = bench::report_header("write_suite");
    line.add("matrix", spec)
        .add("description", problem.description)
        .add("file", matrix_path)
        .add("rhs_file", rhs_path)
        .add("rows", std::size_t(problem.matrix.num_rows()))
        .add("block_size", problem.matrix.block_size())
        .add("entries", std::size_t(problem.matrix.num_entries()))
        .add("scrambled", options.seed >= 0);
    if (options.seed >= 0) line.add("seed", options.seed);
    line.add("seconds", timer.seconds(), bench::fixed(3));
    bench::print_line(line);
  }
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) { return fgdd::bench::run_benchmark(argc, argv, write_main); }
