// fgdd-solve: argument parsing, and the executable's exit codes, JSON and solution file.
#include "catch_compat.hpp"
#include "core/generators.hpp"
#include "core/matrix_market.hpp"
#include "core/types.hpp"
#include "precond/dd_ilu_preconditioner.hpp"
#include "scratch_dir.hpp"
#include "solve_options.hpp"

#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace fgdd;
using testing::ScratchDir;

namespace {

struct Run {
  int exit_code;
  std::string output;
};

Run run_solve(const std::string& arguments, const ScratchDir& dir) {
  const std::string log = dir.path + "/out.txt";
  const int status =
      std::system((std::string(FGDD_SOLVE_EXE) + " " + arguments + " > " + log + " 2>&1").c_str());
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, text.str()};
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The whole number after "key": in a JSON report (-1 when absent).
long json_integer(const std::string& json, const std::string& key) {
  const std::size_t at = json.find("\"" + key + "\":");
  return at == std::string::npos ? -1 : std::stol(json.substr(at + key.size() + 3));
}

}  // namespace

TEST_CASE("parse_solve_command fills the options", "[tools][cli]") {
  const auto command = cli::parse_solve_command(
      {"--matrix", "gen:lap7:8", "--precond", "none", "--tol", "1e-6", "--max-iters", "50",
       "--monitor", "--json", "r.json", "--write-solution", "x.mtx", "--abs-tol", "1e-12"});
  CHECK(command.matrix == "gen:lap7:8");
  CHECK(command.options.preconditioner == PreconditionerKind::None);
  CHECK(command.options.krylov.relative_tolerance == 1e-6);
  CHECK(command.options.krylov.absolute_tolerance == 1e-12);
  CHECK(command.options.krylov.max_iterations == 50);
  CHECK(command.monitor);
  CHECK(command.json == "r.json");
  CHECK(command.write_solution == "x.mtx");
  CHECK(command.options.method == KrylovMethod::Bicgstab);

  const auto defaults = cli::parse_solve_command({"--matrix", "a.mtx"});
  CHECK(defaults.options.preconditioner == PreconditionerKind::Ildu0Dd);
  CHECK(defaults.options.dd.apply == ApplyKernel::Auto);
  CHECK_FALSE(defaults.read_per_rank);
  CHECK(cli::parse_solve_command({"--matrix", "a.mtx", "--read-per-rank"}).read_per_rank);
  CHECK(cli::parse_solve_command({"--matrix", "gen:lap7:8", "--read-per-rank"}).read_per_rank);
  const auto dd = cli::parse_solve_command({"--matrix",
                                            "a.mtx",
                                            "--precond",
                                            "ilu0-dd",
                                            "--apply",
                                            "dag_vc_ILDU0_fused",
                                            "--shift-pivots",
                                            "--fill",
                                            "2",
                                            "--solver",
                                            "gmres",
                                            "--restart",
                                            "7",
                                            "--ortho",
                                            "mgs",
                                            "--team-size",
                                            "96",
                                            "--partitioner",
                                            "natural",
                                            "--subdomain-rows",
                                            "300"});
  CHECK(dd.options.preconditioner == PreconditionerKind::Ilu0Dd);
  CHECK(dd.options.dd.factor.level_of_fill == 2);
  CHECK(dd.options.dd.apply == ApplyKernel::DagVcIlduFused);
  CHECK(dd.options.dd.factor.shift_tiny_pivots);
  CHECK(dd.options.method == KrylovMethod::Gmres);
  CHECK(dd.options.krylov.restart == 7);
  CHECK(dd.options.krylov.orthogonalization == Orthogonalization::Mgs);
  CHECK(dd.options.dd.team_size == 96);
  CHECK(dd.options.partition.partitioner == Partitioner::Natural);
  CHECK(dd.options.partition.subdomain_rows == 300);
  const auto structured = cli::parse_solve_command(
      {"--matrix", "gen:lap27:8", "--precond", "struct-ilu0", "--struct-schedule", "levels",
       "--struct-factor-lanes", "16", "--struct-factor-threads", "2"});
  CHECK(structured.options.struct_schedule == StructSchedule::Levels);
  CHECK(structured.options.struct_factor_launch.lanes == 16);
  CHECK(structured.options.struct_factor_launch.team_threads == 2);
  CHECK(defaults.options.struct_factor_launch.lanes == 0);
  CHECK(defaults.options.struct_factor_launch.team_threads == 0);
}

TEST_CASE("parse_solve_command names the bad argument", "[tools][cli]") {
  using Args = std::vector<std::string>;
  const auto fails_with = [](const Args& args, const std::string& word) {
    CAPTURE(word);
    CHECK_THROWS_WITH(cli::parse_solve_command(args), FGDD_CONTAINS(word));
  };
  fails_with({}, "--matrix");
  fails_with({"--matrix"}, "--matrix needs a value");
  fails_with({"--matrix", "a.mtx", "--tol", "small"}, "'small'");
  fails_with({"--matrix", "a.mtx", "--tol", "-1"}, "relative_tolerance");
  fails_with({"--matrix", "a.mtx", "--max-iters", "-3"}, "'-3'");
  fails_with({"--matrix", "a.mtx", "--max-iters", "1e3"}, "'1e3'");
  fails_with({"--matrix", "a.mtx", "--solver", "minres"}, "bicgstab|gmres|cg|bicg");
  fails_with({"--matrix", "a.mtx", "--ortho", "householder"}, "cgs2|mgs");
  fails_with({"--matrix", "a.mtx", "--restart", "0"}, "restart");
  fails_with({"--matrix", "a.mtx", "--precond", "ilu"}, "jacobi|none");
  fails_with({"--matrix", "a.mtx", "--frobnicate"}, "'--frobnicate'");
  fails_with({"--matrix", "a.mtx", "--apply", "fastest"}, "dag_ec_ILDU0_fused");
  fails_with({"--matrix", "a.mtx", "--fill", "12"}, "level_of_fill");
  fails_with({"--matrix", "a.mtx", "--refactor-solves", "-1"}, "--refactor-solves: '-1'");
  fails_with({"--matrix", "a.mtx", "--refactor-solves", "two"}, "--refactor-solves: 'two'");
  CHECK(cli::parse_solve_command({"--help"}).help);
  CHECK(cli::parse_solve_command({"--matrix", "a.mtx", "--refactor-solves", "3"}).refactor_solves ==
        3);
}

TEST_CASE("fgdd-solve --factor-precision", "[tools][cli][float]") {
  CHECK(cli::parse_solve_command({"--matrix", "a.mtx"}).options.dd.factor_precision ==
        FactorPrecision::Auto);
  CHECK(cli::parse_solve_command({"--matrix", "a.mtx", "--factor-precision", "float"})
            .options.dd.factor_precision == FactorPrecision::Float);
  CHECK_THROWS_WITH(cli::parse_solve_command({"--matrix", "a.mtx", "--factor-precision", "half"}),
                    FGDD_CONTAINS("double|float|auto"));
  ScratchDir dir;
  const Run run = run_solve("--matrix gen:bsr3:5 --tol 1e-10 --factor-precision float", dir);
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK(run.output.find("float factors") != std::string::npos);
  CHECK(run.output.find("status:        converged") != std::string::npos);
  // auto, the default: on a CPU backend float for both; on a GPU float for BSR3 and double for
  // a scalar grid; each saying why.
  const Run bsr = run_solve("--matrix gen:bsr3:5 --tol 1e-10", dir);
  INFO(bsr.output);
  REQUIRE(bsr.exit_code == 0);
  CHECK(bsr.output.find(host_memory ? "float factors (auto: a CPU backend"
                                    : "float factors (auto: 3x3 blocks") != std::string::npos);
  const Run scalar = run_solve("--matrix gen:lap7:8 --tol 1e-10 --factor-precision auto", dir);
  INFO(scalar.output);
  REQUIRE(scalar.exit_code == 0);
  CHECK(scalar.output.find(host_memory
                               ? "float factors (auto: a CPU backend"
                               : "double factors (auto: scalar entries") != std::string::npos);
}

TEST_CASE("fgdd-solve --precond multilevel-ilu reports its levels", "[tools][cli][mlilu]") {
  const cli::SolveCommand command = cli::parse_solve_command(
      {"--matrix", "a.mtx", "--precond", "multilevel-ilu", "--ml-drop-tol", "0.02",
       "--ml-inverse-bound", "3", "--ml-coarsest", "50", "--ml-max-levels", "4", "--ml-ordering",
       "rcm"});
  CHECK(command.options.preconditioner == PreconditionerKind::MultilevelIlu);
  CHECK(command.options.multilevel.drop_tolerance == 0.02);
  CHECK(command.options.multilevel.inverse_bound == 3);
  CHECK(command.options.multilevel.coarsest_size == 50);
  CHECK(command.options.multilevel.max_levels == 4);
  CHECK(command.options.multilevel.ordering == MultilevelOrdering::Rcm);
  CHECK_THROWS_WITH(cli::parse_solve_command({"--matrix", "a.mtx", "--ml-ordering", "amd"}),
                    FGDD_CONTAINS("auto|nd|rcm|natural"));

  ScratchDir dir;
  const std::string json = dir.path + "/report.json";
  const Run run = run_solve("--matrix gen:reservoir:12:12:6 --solver gmres --precond "
                            "multilevel-ilu --ml-inverse-bound 2 --ml-coarsest 50 --json " + json,
                            dir);
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK(run.output.find("level 0:       864 rows") != std::string::npos);
  CHECK(run.output.find("multilevel:    fill") != std::string::npos);
  const std::string report = read_file(json);
  CHECK(report.find("\"multilevel\":{\"levels\":[{\"rows\":864,") != std::string::npos);
  CHECK(report.find("\"fill_ratio\":") != std::string::npos);
}

TEST_CASE("fgdd-solve reports the DD level sets where the apply walks them", "[tools][cli]") {
  ScratchDir dir;
  const std::string json = dir.path + "/report.json";
  // A 12³ 27-point grid in one box of 1,728 rows. In the grid's order point (i, j, k) waits for
  // (i + 1, j − 1, k) and (i + 1, j + 1, k − 1), so its level is i + 2j + 4k: 78 levels. By
  // colour at most 8 (a 27-point box is eight-coloured).
  const std::string common =
      "--matrix gen:lap27:12 --partitioner geometric --subdomain-rows 1728 --apply "
      "dag_ec_ordered_ILDU0_fused --json " + json;
  Run run = run_solve(common + " --subdomain-order partitioner", dir);
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const std::string grid_order = "lower / upper at most 78 / 78 a subdomain (mean 78 / 78)";
  CHECK(run.output.find("dd levels:     " + grid_order) != std::string::npos);
  CHECK(read_file(json).find("\"dd_levels\":{\"lower_max\":78,\"upper_max\":78,") !=
        std::string::npos);
  run = run_solve(common + " --subdomain-order colours", dir);
  REQUIRE(run.exit_code == 0);
  CHECK(run.output.find("dd levels:     lower / upper at most 8 / 8 a subdomain") !=
        std::string::npos);
  // The row-order apply (the CPU default) builds no level sets: nothing to report.
  run = run_solve("--matrix gen:lap27:12 --apply row_order_ILDU0_fused --json " + json, dir);
  REQUIRE(run.exit_code == 0);
  CHECK(run.output.find("dd levels:") == std::string::npos);
  CHECK(read_file(json).find("dd_levels") == std::string::npos);
}

TEST_CASE("canonical_items: equal commands compare equal however ordered", "[tools][cli]") {
  const auto items = [](const std::vector<std::string>& args) {
    return cli::canonical_items(cli::parse_solve_command(args));
  };
  const auto base = items({"--matrix", "a.mtx", "--tol", "1e-6", "--restart", "7"});
  CHECK(base == items({"--restart", "7", "--tol", "0.000001", "--matrix", "a.mtx"}));
  CHECK(base != items({"--matrix", "a.mtx", "--tol", "1e-6", "--restart", "8"}));
  CHECK(base != items({"--matrix", "a.mtx", "--tol", "1e-6", "--restart", "7", "--monitor"}));
  CHECK(base != items({"--matrix", "b.mtx", "--tol", "1e-6", "--restart", "7"}));
  CHECK(std::find(base.begin(), base.end(), "restart=7") != base.end());
  CHECK(std::find(base.begin(), base.end(), "matrix=a.mtx") != base.end());
  const auto unconverged = cli::parse_solve_command(
      {"--matrix", "a.mtx", "--write-solution", "x.mtx", "--write-unconverged"});
  CHECK(unconverged.write_unconverged);
  CHECK_THROWS_WITH(cli::parse_solve_command({"--matrix", "a.mtx", "--write-unconverged"}),
                    FGDD_CONTAINS("--write-unconverged needs --write-solution"));
}

TEST_CASE("fgdd-solve solves a generated problem and writes JSON and the solution",
          "[tools][cli]") {
  ScratchDir dir;
  const std::string json = dir.path + "/report.json";
  const std::string solution = dir.path + "/x.mtx";
  const Run run = run_solve("--matrix gen:lap7:6 --tol 1e-10 --json " + json +
                                " --write-solution " + solution + " --monitor",
                            dir);
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK(run.output.find("status:        converged") != std::string::npos);
  CHECK(run.output.find("iteration") != std::string::npos);
  const std::string report = read_file(json);
  CHECK(report.find("\"status\":\"converged\"") != std::string::npos);
  CHECK(report.find("\"rows\":216") != std::string::npos);
  const std::vector<Scalar> x = read_matrix_market_vector(solution);
  REQUIRE(x.size() == 216);
  // The 7-point Laplacian with b = 1 has a positive solution, largest at the centre.
  for (double v : x) CHECK(v > 0);
}

TEST_CASE("fgdd-solve --refactor-solves refactors with the same values and solves alike",
          "[tools][cli]") {
  ScratchDir dir;
  const std::string json = dir.path + "/report.json";
  // A partitioned problem: update_values regathers the reordered and dropped matrices and
  // refactors every subdomain; with A's own values the factors, so the iterations, are the
  // setup's.
  const Run run =
      run_solve("--matrix gen:reservoir:12:12:6 --tol 1e-9 --refactor-solves 2 --json " + json, dir);
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK(run.output.find("refactor:      2 times") != std::string::npos);
  const std::string report = read_file(json);
  const long iterations = json_integer(report, "iterations");
  CHECK(iterations > 0);
  CHECK(json_integer(report, "refactor_solves") == 2);
  CHECK(json_integer(report, "resolves_converged") == 2);
  CHECK(json_integer(report, "resolve_iterations_min") == iterations);
  CHECK(json_integer(report, "resolve_iterations_max") == iterations);
  CHECK(report.find("\"refactor_seconds\":") != std::string::npos);
}

TEST_CASE("fgdd-solve exit codes", "[tools][cli]") {
  ScratchDir dir;
  SECTION("not converged within the iteration limit: 1 with the reason") {
    const Run run = run_solve("--matrix gen:lap7:10 --precond none --max-iters 2", dir);
    INFO(run.output);
    CHECK(run.exit_code == 1);
    CHECK(run.output.find("max_iterations") != std::string::npos);
  }
  SECTION("invalid usage: 2") {
    const Run run = run_solve("--matrix gen:lap7:4 --tol nope", dir);
    CHECK(run.exit_code == 2);
    CHECK(run.output.find("'nope'") != std::string::npos);
  }
  SECTION("bad generator spec: 2 naming the token") {
    const Run run = run_solve("--matrix gen:lap7:zero", dir);
    CHECK(run.exit_code == 2);
    CHECK(run.output.find("zero") != std::string::npos);
  }
  SECTION("missing file: 2 naming the file") {
    const Run run = run_solve("--matrix " + dir.path + "/missing.mtx", dir);
    CHECK(run.exit_code == 2);
    CHECK(run.output.find("missing.mtx") != std::string::npos);
  }
  SECTION("right-hand side of the wrong length: 2") {
    const std::string rhs = dir.path + "/b.mtx";
    write_matrix_market_vector(rhs, std::vector<Scalar>(7, 1.0));
    const Run run = run_solve("--matrix gen:lap7:3 --rhs " + rhs, dir);
    CHECK(run.exit_code == 2);
    CHECK(run.output.find("length 7") != std::string::npos);
  }
  SECTION("zero pivot with ildu0-dd or Jacobi: 1, preconditioner_failed with the row") {
    const std::string matrix = dir.path + "/zero_diag.mtx";
    std::ofstream(matrix) << "%%MatrixMarket matrix coordinate real general\n"
                             "2 2 3\n1 1 2\n2 1 1\n2 2 0\n";
    for (const std::string precond : {"ildu0-dd", "jacobi"}) {
      const Run run = run_solve("--matrix " + matrix + " --precond " + precond, dir);
      INFO(precond << ": " << run.output);
      CHECK(run.exit_code == 1);
      CHECK(run.output.find("preconditioner_failed") != std::string::npos);
      CHECK(run.output.find("row 1") != std::string::npos);
    }
  }
}

TEST_CASE("fgdd-solve --coordinates partitions a file by recursive coordinate bisection",
          "[tools][cli]") {
  ScratchDir dir;
  // A 6 x 5 x 4 Laplacian from a file (no grid metadata) with its grid points, column by column.
  const std::string matrix = dir.path + "/lap.mtx";
  write_matrix_market(matrix, laplace7(6, 5, 4).matrix);
  std::ostringstream points;
  points << "%%MatrixMarket matrix array real general\n% x, y, z of each row\n120 3\n";
  for (int axis = 0; axis < 3; ++axis)
    for (int row = 0; row < 120; ++row)
      points << (axis == 0 ? row % 6 : axis == 1 ? row / 6 % 5 : row / 30) << "\n";
  const std::string coordinates = dir.path + "/points.mtx";
  std::ofstream(coordinates) << points.str();
  CHECK(cli::parse_solve_command({"--matrix", matrix, "--coordinates", coordinates}).coordinates ==
        coordinates);

  SECTION("auto picks rcb and says why") {
    const std::string json = dir.path + "/report.json";
    const Run run = run_solve("--matrix " + matrix + " --coordinates " + coordinates +
                                  " --subdomain-rows 32 --json " + json,
                              dir);
    INFO(run.output);
    CHECK(run.exit_code == 0);
    CHECK(run.output.find("partitioner:   rcb (auto: coordinates given, no grid metadata), 4 "
                          "subdomains") != std::string::npos);
    CHECK(read_file(json).find("\"partitioner\":\"rcb\",\"partitioner_reason\":\"auto: "
                               "coordinates given, no grid metadata\"") != std::string::npos);
  }
  SECTION("a file with the wrong row count or a bad value: 2, naming the file and line") {
    const std::string short_file = dir.path + "/short.mtx";
    std::ofstream(short_file) << "%%MatrixMarket matrix array real general\n3 1\n0\n1\n2\n";
    Run run = run_solve("--matrix " + matrix + " --coordinates " + short_file, dir);
    INFO(run.output);
    CHECK(run.exit_code == 2);
    CHECK(run.output.find(short_file + ":2: the size line announces 3 rows; expected 120") !=
          std::string::npos);
    const std::string nan_file = dir.path + "/nan.mtx";
    std::ofstream(nan_file) << "%%MatrixMarket matrix array real general\n120 1\nnan\n";
    run = run_solve("--matrix " + matrix + " --coordinates " + nan_file, dir);
    CHECK(run.exit_code == 2);
    CHECK(run.output.find(nan_file + ":3: value 'nan' is not finite") != std::string::npos);
  }
  SECTION("rcb without coordinates: 2, saying what it needs") {
    const Run run = run_solve("--matrix " + matrix + " --partitioner rcb", dir);
    CHECK(run.exit_code == 2);
    CHECK(run.output.find("the rcb partitioner needs coordinates") != std::string::npos);
  }
}

namespace {

// Runs fgdd-solve with output through a pipe (not a file: the limit below does not apply to
// pipes), its files limited to 512 bytes (dash) with SIGXFSZ ignored: a write past that fails with
// EFBIG, as on a full disk. (Open MPI's PMIx keeps its data store in a file unless told to
// hash it in memory; MPI_Init would fail under the limit.)
Run run_solve_file_limited(const std::string& arguments) {
  const std::string command = "PMIX_MCA_gds=hash sh -c \"trap '' XFSZ; ulimit -f 1; exec " +
                              std::string(FGDD_SOLVE_EXE) + " " + arguments + "\" 2>&1";
  std::FILE* pipe = popen(command.c_str(), "r");
  std::string output;
  char chunk[4096];
  for (std::size_t got; (got = std::fread(chunk, 1, sizeof(chunk), pipe)) > 0;)
    output.append(chunk, got);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

std::vector<std::string> names_in(const std::string& directory) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(directory))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

TEST_CASE("fgdd-solve keeps an old solution unless the solve converged", "[tools][cli]") {
  ScratchDir dir;
  const std::string solution = dir.path + "/x.mtx";
  const std::vector<Scalar> old = {1, 2, 3};
  write_matrix_market_vector(solution, old);
  const std::string not_converging = "--matrix gen:lap7:10 --precond none --max-iters 2";
  SECTION("not converged: the old file stays, stderr says so") {
    const Run run = run_solve(not_converging + " --write-solution " + solution, dir);
    INFO(run.output);
    CHECK(run.exit_code == 1);
    CHECK(read_matrix_market_vector(solution) == old);
    CHECK(run.output.find(solution + " left as it was") != std::string::npos);
    CHECK(run.output.find("--write-unconverged") != std::string::npos);
  }
  SECTION("--write-unconverged: the iterate, with a header that says it did not converge") {
    const Run run =
        run_solve(not_converging + " --write-solution " + solution + " --write-unconverged", dir);
    INFO(run.output);
    CHECK(run.exit_code == 1);
    CHECK(read_matrix_market_vector(solution).size() == 1000);
    const std::string text = read_file(solution);
    CHECK(text.find("\n% NOT CONVERGED") != std::string::npos);
    CHECK(text.find("\n% status max_iterations after 2 iterations") != std::string::npos);
    CHECK(text.find("\n% relative true residual") != std::string::npos);
  }
  SECTION("--write-unconverged alone is a usage error") {
    const Run run = run_solve("--matrix gen:lap7:4 --write-unconverged", dir);
    CHECK(run.exit_code == 2);
    CHECK(run.output.find("--write-unconverged needs --write-solution") != std::string::npos);
  }
  SECTION("a zero pivot: no x, the old file stays") {
    const std::string matrix = dir.path + "/zero_diag.mtx";
    std::ofstream(matrix) << "%%MatrixMarket matrix coordinate real general\n"
                             "2 2 3\n1 1 2\n2 1 1\n2 2 0\n";
    const Run run = run_solve("--matrix " + matrix + " --write-solution " + solution, dir);
    INFO(run.output);
    CHECK(run.exit_code == 1);
    CHECK(read_matrix_market_vector(solution) == old);
  }
  for (const std::string& name : names_in(dir.path)) CHECK(name.rfind("x.mtx.", 0) != 0);
}

TEST_CASE("fgdd-solve prints the summary before it writes files", "[tools][cli]") {
  ScratchDir dir;
  // A directory cannot take the solution; the JSON report still gets written.
  const std::string json = dir.path + "/report.json";
  const Run run =
      run_solve("--matrix gen:lap7:6 --write-solution " + dir.path + " --json " + json, dir);
  INFO(run.output);
  CHECK(run.exit_code == 2);
  CHECK(run.output.find("status:        converged") != std::string::npos);
  CHECK(run.output.find("is a directory") != std::string::npos);
  CHECK(read_file(json).find("\"status\":\"converged\"") != std::string::npos);
}

TEST_CASE("fgdd-solve on a full disk keeps the old files and exits 2", "[tools][cli]") {
  ScratchDir dir;
  const std::string json = dir.path + "/report.json";
  const std::string solution = dir.path + "/x.mtx";
  std::ofstream(json) << "old report";
  write_matrix_market_vector(solution, std::vector<Scalar>{7});
  // A report of about 1.6 KB (37 iterations) and a solution of 70 KB: both beyond the limit
  // (1 KB where sh is bash, whose ulimit counts kilobytes).
  const Run run = run_solve_file_limited("--matrix gen:lap7:16 --precond none --tol 1e-12 --json " +
                                         json + " --write-solution " + solution);
  INFO(run.output);
  CHECK(run.exit_code == 2);
  CHECK(run.output.find("status:        converged") != std::string::npos);
  CHECK(run.output.find("File too large") != std::string::npos);
  CHECK(read_file(json) == "old report");
  CHECK(read_matrix_market_vector(solution) == std::vector<Scalar>{7});
  CHECK(names_in(dir.path) == std::vector<std::string>{"report.json", "x.mtx"});
}

TEST_CASE("fgdd-solve refuses options the backend or the problem cannot take", "[tools][cli]") {
  ScratchDir dir;
  SECTION("a team size above the backend's limit (Serial: 1; GPUs: 1024 at most)") {
    const Run run = run_solve("--matrix gen:lap7:8 --team-size 100000", dir);
    INFO(run.output);
    CHECK(run.exit_code == 2);
    CHECK(run.output.find("team_size 100000 exceeds") != std::string::npos);
    CHECK(run.output.find("allowed: 0") != std::string::npos);
  }
  SECTION("a GMRES restart above the rows") {
    const Run run = run_solve("--matrix gen:lap7:6 --solver gmres --restart 2000000000", dir);
    INFO(run.output);
    CHECK(run.exit_code == 2);
    CHECK(run.output.find("restart 2000000000 exceeds the 216 rows") != std::string::npos);
    CHECK(run.output.find("allowed: 1 to 216") != std::string::npos);
  }
  SECTION("the default restart on a problem smaller than it runs") {
    const Run run = run_solve("--matrix gen:lap7:2 --solver gmres", dir);
    INFO(run.output);
    CHECK(run.exit_code == 0);
  }
}

TEST_CASE("fgdd-solve out of memory: exit 2 with the reason, no abort", "[tools][cli]") {
  // A GMRES basis of 17,576 × 16,001 doubles (2.2 GB) under a 1 GB address-space limit. CUDA and
  // HIP reserve far more address space than that at start, so only host backends run this.
  if (!Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemSpace>::accessible) return;
  const std::string command = "PMIX_MCA_gds=hash sh -c \"ulimit -v 1000000; exec " +
                              std::string(FGDD_SOLVE_EXE) +
                              " --matrix gen:lap7:26 --solver gmres --restart 16000\" 2>&1";
  std::FILE* pipe = popen(command.c_str(), "r");
  std::string output;
  char chunk[4096];
  for (std::size_t got; (got = std::fread(chunk, 1, sizeof(chunk), pipe)) > 0;)
    output.append(chunk, got);
  const int status = pclose(pipe);
  INFO(output);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 2);
  CHECK(output.find("fgdd-solve: out of memory: gmres solve of 17576 rows") != std::string::npos);
}

TEST_CASE("parse_solve_command --block-size", "[tools][cli][block_size]") {
  const auto parse = [](const std::vector<std::string>& args) {
    return cli::parse_solve_command(args);
  };
  CHECK_FALSE(parse({"--matrix", "a.mtx"}).block_size);
  CHECK(parse({"--matrix", "a.mtx"}).read_block_size() == 1);
  CHECK(parse({"--matrix", "a.mtx", "--block-size", "3"}).read_block_size() == 3);
  CHECK(parse({"--matrix", "a.mtx", "--block-size", "5"}).read_block_size() == 5);
  // A generated problem's own block size may be restated, no other.
  CHECK(parse({"--matrix", "gen:bsr3:4", "--block-size", "3"}).read_block_size() == 3);
  CHECK(parse({"--matrix", "gen:lap7:4", "--block-size", "1"}).read_block_size() == 1);
  CHECK(cli::canonical_items(parse({"--matrix", "a.mtx", "--block-size", "3"})) !=
        cli::canonical_items(parse({"--matrix", "a.mtx"})));
  const auto fails_with = [&](const std::vector<std::string>& args, const std::string& words) {
    CAPTURE(words);
    CHECK_THROWS_AS(parse(args), cli::UsageError);
    CHECK_THROWS_WITH(parse(args), FGDD_CONTAINS(words));
  };
  for (const std::string bad : {"0", "-3", "3x", "", "1.5", "99999999999"})
    fails_with({"--matrix", "a.mtx", "--block-size", bad}, "'" + bad + "' is not a block size");
  fails_with({"--matrix", "a.mtx", "--block-size"}, "--block-size needs a value");
  fails_with({"--matrix", "gen:lap7:4", "--block-size", "3"},
             "--block-size 3 does not apply to gen:lap7:4: a generated problem has its own block "
             "size (1)");
  fails_with({"--matrix", "gen:bsr3:4", "--block-size", "1"}, "its own block size (3)");
  fails_with({"--matrix", "gen:bsr3:4", "--read-per-rank", "--block-size", "2"},
             "its own block size (3)");
}

TEST_CASE("fgdd-solve --block-size reads a file as BSR", "[tools][cli][block_size]") {
  ScratchDir dir;
  // gen:bsr3 written as scalar entries, then read back as 3x3 blocks.
  const std::string matrix = dir.path + "/bsr3.mtx";
  write_matrix_market(matrix, generate_problem("gen:bsr3:5").matrix);
  const std::string json = dir.path + "/report.json";
  SECTION("blocked: solved as BSR, the right-hand side a vector of all rows") {
    const std::string rhs = dir.path + "/b.mtx";
    write_matrix_market_vector(rhs, std::vector<Scalar>(375, 1.0));
    const Run run =
        run_solve("--matrix " + matrix + " --block-size 3 --rhs " + rhs + " --json " + json, dir);
    INFO(run.output);
    CHECK(run.exit_code == 0);
    CHECK(run.output.find("block size 3") != std::string::npos);
    const std::string report = read_file(json);
    CHECK(report.find("\"block_size\":3") != std::string::npos);
    CHECK(report.find("\"rows\":375") != std::string::npos);
  }
  SECTION("without --block-size the same file is scalar CSR") {
    const Run run = run_solve("--matrix " + matrix + " --json " + json, dir);
    INFO(run.output);
    CHECK(run.exit_code == 0);
    CHECK(read_file(json).find("\"block_size\":1") != std::string::npos);
  }
  SECTION("rows not a multiple of the block size: 2, naming the size line") {
    const Run run = run_solve("--matrix " + matrix + " --block-size 2", dir);
    INFO(run.output);
    CHECK(run.exit_code == 2);
    CHECK(run.output.find("bsr3.mtx:3: the size line announces 375 rows, not a multiple of the "
                          "block size 2") != std::string::npos);
  }
  SECTION("a pattern blocked for 3 but not for 5: 2, naming the first block row") {
    const Run run = run_solve("--matrix " + matrix + " --block-size 5", dir);
    INFO(run.output);
    CHECK(run.exit_code == 2);
    CHECK(run.output.find("the matrix is not 5x5-blocked: block row 1 (rows 1-5)") !=
          std::string::npos);
  }
  SECTION("a generated problem refuses another block size: 2") {
    const Run run = run_solve("--matrix gen:lap7:4 --block-size 3", dir);
    INFO(run.output);
    CHECK(run.exit_code == 2);
    CHECK(run.output.find("does not apply to gen:lap7:4") != std::string::npos);
  }
}
