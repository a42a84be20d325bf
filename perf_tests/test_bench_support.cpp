// The benchmark drivers' shared command line (bench_options), JSON lines (bench_json) and
// option helpers (bench_common): what the drivers, render_tables.py and the smoke tests' regular
// expressions rely on.
#define CATCH_CONFIG_RUNNER
#include "catch_compat.hpp"

#include "bench_common.hpp"
#include "bench_json.hpp"
#include "bench_options.hpp"
#include "core/errors.hpp"
#include "factor/factor_options.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

using namespace fgdd::bench;

namespace {

// Parses args (the program name first) with command_line.
void parse(const CommandLine& command_line, std::vector<std::string> args) {
  args.insert(args.begin(), "fgdd_test_bench");
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  command_line.parse(int(argv.size()), argv.data());
}

struct Options {
  std::vector<std::string> problems = {"gen:lap7:160", "gen:bsr3:96"};
  std::size_t subdomain_rows = 0;
  int repeats = 20;
  double copy_mb = 1024;
  std::vector<int> stages = {1, 2, 4};
  std::string input = "root";
  bool gmres = true;
};

CommandLine declare(Options& options) {
  CommandLine command_line("fgdd_test_bench", "what it measures");
  command_line.repeated("--matrix", &options.problems, "gen:SPEC", "a problem")
      .option("--subdomain-rows", &options.subdomain_rows, "N", "rows per subdomain")
      .at_least("--repeats", &options.repeats, 1, "R", "timed runs")
      .at_least("--copy-mb", &options.copy_mb, 1.0, "MB", "copy size")
      .list("--stages", &options.stages, "S,S", "stage counts")
      .choice("--input", &options.input, {"root", "local_rows"}, "who reads A")
      .toggle("--no-gmres", &options.gmres, false, "skip GMRES");
  return command_line;
}

// The message of the UsageError that parsing args throws ("" when none).
std::string usage_error(std::vector<std::string> args) {
  Options options;
  try {
    parse(declare(options), std::move(args));
  } catch (const UsageError& error) {
    return error.what();
  }
  return "";
}

}  // namespace

int main(int argc, char* argv[]) { return Catch::Session().run(argc, argv); }

TEST_CASE("flags keep their defaults and read typed values", "[perf_tests]") {
  Options options;
  const CommandLine command_line = declare(options);
  SECTION("no flags: the defaults") {
    parse(command_line, {});
    CHECK(options.problems == std::vector<std::string>{"gen:lap7:160", "gen:bsr3:96"});
    CHECK(options.repeats == 20);
    CHECK(options.gmres);
  }
  SECTION("values, lists, choices and toggles") {
    parse(command_line, {"--subdomain-rows", "150", "--repeats", "3", "--copy-mb", "8.5",
                         "--stages", "1,,3", "--input", "local_rows", "--no-gmres"});
    CHECK(options.subdomain_rows == 150);
    CHECK(options.repeats == 3);
    CHECK(options.copy_mb == 8.5);
    CHECK(options.stages == std::vector<int>{1, 3});  // empty parts dropped, as split_list does
    CHECK(options.input == "local_rows");
    CHECK_FALSE(options.gmres);
  }
  SECTION("the first --matrix replaces the defaults, later ones add to it") {
    parse(command_line, {"--matrix", "gen:lap7:12", "--matrix", "a.mtx"});
    CHECK(options.problems == std::vector<std::string>{"gen:lap7:12", "a.mtx"});
  }
  SECTION("counts below their minimum are raised to it") {
    parse(command_line, {"--repeats", "0", "--copy-mb", "0.25"});
    CHECK(options.repeats == 1);
    CHECK(options.copy_mb == 1.0);
  }
  SECTION("Kokkos's own flags are left to Kokkos") {
    parse(command_line, {"--kokkos-num-threads=2", "--repeats", "4"});
    CHECK(options.repeats == 4);
  }
}

TEST_CASE("a bad command line is a UsageError that names the flag", "[perf_tests]") {
  CHECK(usage_error({"--bogus", "1"}) == "unknown option '--bogus'");
  CHECK(usage_error({"--repeats"}) == "--repeats needs a value (R)");
  CHECK(usage_error({"--repeats", "3x"}) == "--repeats takes an integer, got '3x'");
  CHECK(usage_error({"--subdomain-rows", "-1"}) ==
        "--subdomain-rows takes a non-negative integer, got '-1'");
  CHECK(usage_error({"--copy-mb", "fast"}) == "--copy-mb takes a number, got 'fast'");
  CHECK(usage_error({"--stages", "1,two"}) == "--stages takes an integer, got 'two'");
  CHECK(usage_error({"--input", "everywhere"}) ==
        "--input takes root|local_rows, got 'everywhere'");
  CHECK(usage_error({"--repeats", "99999999999"}) ==
        "--repeats takes an integer, got '99999999999'");
}

TEST_CASE("a custom flag's own error is reported with the flag's name", "[perf_tests]") {
  int value = 0;
  CommandLine command_line("fgdd_test_bench", "");
  command_line.custom("--scheme", "radau|gauss", "radau", "the scheme", [&](const std::string&) {
    throw fgdd::InvalidInput("unknown IRK scheme 'x'");
  });
  command_line.option("--value", &value, "V", "a value");
  CHECK_THROWS_WITH(parse(command_line, {"--scheme", "x"}), "--scheme: unknown IRK scheme 'x'");
}

TEST_CASE("--help gives the usage with every flag and its default", "[perf_tests]") {
  Options options;
  const CommandLine command_line = declare(options);
  std::string usage;
  try {
    parse(command_line, {"--repeats", "3", "--help"});
  } catch (const HelpRequested& help) {
    usage = help.usage;
  }
  CHECK_THAT(usage, FGDD_CONTAINS("usage: fgdd_test_bench [options]\nwhat it measures\n"));
  CHECK_THAT(usage, FGDD_CONTAINS("--matrix gen:SPEC"));
  CHECK_THAT(usage, FGDD_CONTAINS("[gen:lap7:160,gen:bsr3:96]"));
  CHECK_THAT(usage, FGDD_CONTAINS("--stages S,S"));
  CHECK_THAT(usage, FGDD_CONTAINS("[1,2,4]"));
  CHECK_THAT(usage, FGDD_CONTAINS("--input root|local_rows"));
  CHECK_THAT(usage, FGDD_CONTAINS("--no-gmres"));
  CHECK_THAT(usage, FGDD_CONTAINS("--help"));
}

TEST_CASE("JSON lines keep field order and the printf formats", "[perf_tests]") {
  JsonObject kernel;
  kernel.add("min_s", 1.5e-4, scientific(6)).add("gb_per_s", 812.34, fixed(1));
  JsonObject line;
  line.add("benchmark", "dd_apply")
      .add("rows", std::size_t(1728))
      .add("block_size", 3)
      .add("tau", 0.1, significant(6))
      .add("bytes", 1234567.0, fixed(0))
      .add("kernels", kernel)
      .add("history", std::vector<double>{0.5, 0.25}, scientific(3))
      .add("weights", std::vector<int>{1, 2, 3})
      .add("verified", true);
  CHECK(line.str() ==
        "{\"benchmark\":\"dd_apply\",\"rows\":1728,\"block_size\":3,\"tau\":0.1,"
        "\"bytes\":1234567,\"kernels\":{\"min_s\":1.500000e-04,\"gb_per_s\":812.3},"
        "\"history\":[5.000e-01,2.500e-01],\"weights\":[1,2,3],\"verified\":true}");
}

TEST_CASE("JSON strings are escaped and non-finite numbers are null", "[perf_tests]") {
  JsonObject line;
  line.add("skipped", "file \"a\\b.mtx\"\nline 3\t\x01")
      .add("nan", std::numeric_limits<double>::quiet_NaN(), fixed(6))
      .add("inf", -std::numeric_limits<double>::infinity())
      .add("exact", 0.1);
  CHECK(line.str() ==
        "{\"skipped\":\"file \\\"a\\\\b.mtx\\\"\\nline 3\\t\\u0001\",\"nan\":null,\"inf\":null,"
        "\"exact\":0.10000000000000001}");
}

TEST_CASE("JSON objects append the fields of another", "[perf_tests]") {
  JsonObject context, fields, empty;
  context.add("benchmark", "subdomain_sweep");
  fields.add("partition_s", 0.25, fixed(6));
  CHECK(JsonObject(context).append(fields).str() ==
        "{\"benchmark\":\"subdomain_sweep\",\"partition_s\":0.250000}");
  CHECK(JsonObject(context).append(empty).str() == "{\"benchmark\":\"subdomain_sweep\"}");
  CHECK(JsonObject(empty).append(fields).str() == "{\"partition_s\":0.250000}");
}

TEST_CASE("JSON objects refuse a key added twice", "[perf_tests]") {
  JsonObject line, more;
  line.add("setup_seconds", 0.5);
  more.add("setup_seconds", 0.25);
  CHECK_THROWS_AS(JsonObject(line).add("setup_seconds", 1), std::logic_error);
  CHECK_THROWS_AS(JsonObject(line).append(more), std::logic_error);
  CHECK(JsonObject(line).add("apply_ms", 1).str() == "{\"setup_seconds\":0.5,\"apply_ms\":1}");
}

TEST_CASE("--subdomain-order: auto as Solver resolves it, the others as named", "[perf_tests]") {
  using fgdd::SubdomainRowOrder;
  // Solver's rule for the DD preconditioners: levels where the factorization runs by levels;
  // elsewhere auto, which partition_matrix resolves with the partitioner.
  const SubdomainRowOrder solver_auto =
      fgdd::resolve_auto(fgdd::FactorOrder::Auto) == fgdd::FactorOrder::Levels
          ? SubdomainRowOrder::Levels
          : SubdomainRowOrder::Auto;
  CHECK(subdomain_row_order("auto") == solver_auto);
  CHECK(subdomain_row_order("partitioner") == SubdomainRowOrder::Partitioner);
  CHECK(subdomain_row_order("levels") == SubdomainRowOrder::Levels);
  CHECK(subdomain_row_order("colours") == SubdomainRowOrder::Colours);
  CHECK(subdomain_row_order("rcm") == SubdomainRowOrder::Rcm);
  CHECK_THROWS_AS(subdomain_row_order("sideways"), fgdd::InvalidInput);
}
