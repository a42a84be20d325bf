// fgdd-solve: argument parsing, and the executable's exit codes, JSON and solution file.
#include "catch_compat.hpp"
#include "core/matrix_market.hpp"
#include "solve_options.hpp"

#include <sys/wait.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

using namespace fgdd;

namespace {

struct TempDir {
  std::string path;
  TempDir() {
    char pattern[] = "/tmp/fgdd_solve_test_XXXXXX";
    path = mkdtemp(pattern);
  }
  ~TempDir() { std::system(("rm -rf '" + path + "'").c_str()); }
};

struct Run {
  int exit_code;
  std::string output;
};

Run run_solve(const std::string& arguments, const TempDir& dir) {
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
  CHECK(cli::parse_solve_command({"--help"}).help);
}

TEST_CASE("fgdd-solve solves a generated problem and writes JSON and the solution",
          "[tools][cli]") {
  TempDir dir;
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

TEST_CASE("fgdd-solve exit codes", "[tools][cli]") {
  TempDir dir;
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
