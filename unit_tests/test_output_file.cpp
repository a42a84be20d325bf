// OutputFile and the Matrix Market writers on it: a file is replaced whole or not at all, a
// planted symlink is never followed, concurrent writers of one path both succeed, and nothing
// temporary is left behind.
#include "catch_compat.hpp"
#include "core/errors.hpp"
#include "core/matrix_market.hpp"
#include "core/output_file.hpp"
#include "scratch_dir.hpp"

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

using namespace fgdd;
using testing::ScratchDir;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Runs write in a child process whose files may not grow beyond `limit` bytes (SIGXFSZ
// ignored, so a write past the limit fails with EFBIG as on a full disk). The child's exit code:
// 0 FileError thrown, 1 nothing thrown, 2 another exception.
int exit_code_with_file_size_limit(rlim_t limit, const std::function<void()>& write) {
  const pid_t child = fork();
  if (child == 0) {
    std::signal(SIGXFSZ, SIG_IGN);
    const rlimit small = {limit, limit};
    setrlimit(RLIMIT_FSIZE, &small);
    int code = 1;
    try {
      write();
    } catch (const FileError&) {
      code = 0;
    } catch (...) {
      code = 2;
    }
    _exit(code);
  }
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("OutputFile replaces the file whole on commit", "[core][output_file]") {
  ScratchDir dir;
  const std::string path = dir.path + "/report.json";
  write_text(path, "old contents, longer than the new ones");
  {
    OutputFile file(path);
    CHECK(file.temporary_path().rfind(path + ".", 0) == 0);
    CHECK(file.temporary_path().size() == path.size() + 7);  // path.XXXXXX
    file.write("new");
    CHECK(read_text(path) == "old contents, longer than the new ones");
    file.commit();
  }
  CHECK(read_text(path) == "new");
  CHECK(dir.names() == std::vector<std::string>{"report.json"});
}

TEST_CASE("OutputFile without a commit leaves the old file and no temporary file",
          "[core][output_file]") {
  ScratchDir dir;
  const std::string path = dir.path + "/x.mtx";
  write_text(path, "old");
  SECTION("destroyed without commit") {
    OutputFile file(path);
    file.write("new");
  }
  SECTION("an exception unwinding") {
    CHECK_THROWS_AS(
        [&] {
          OutputFile file(path);
          file.write("new");
          throw InvalidInput("something failed while writing");
        }(),
        InvalidInput);
  }
  CHECK(read_text(path) == "old");
  CHECK(dir.names() == std::vector<std::string>{"x.mtx"});
}

TEST_CASE("a write that fails keeps the old file and removes the temporary file",
          "[core][output_file]") {
  ScratchDir dir;
  const std::string path = dir.path + "/report.json";
  write_text(path, "the old report");
  SECTION("bytes still in the buffer when commit flushes them") {
    // Small enough to stay in the buffer until commit: a check of the stream before the flush
    // would miss the failure and rename an empty file into place.
    CHECK(exit_code_with_file_size_limit(100, [&] {
            OutputFile file(path);
            file.write(std::string(1000, 'x'));
            file.commit();
          }) == 0);
  }
  SECTION("the Matrix Market writer, beyond the buffer") {
    CHECK(exit_code_with_file_size_limit(4096, [&] {
            write_matrix_market_vector(path, std::vector<Scalar>(300000, 1.0 / 3));
          }) == 0);
  }
  CHECK(read_text(path) == "the old report");
  CHECK(dir.names() == std::vector<std::string>{"report.json"});
}

TEST_CASE("the writers never follow a planted symlink", "[core][output_file]") {
  ScratchDir dir;
  const std::string path = dir.path + "/x.mtx";
  const std::string victim = dir.path + "/victim";
  write_text(victim, "precious");
  // The name the writers used to write through, planted by someone else.
  std::filesystem::create_symlink(victim, path + ".tmp");
  write_matrix_market_vector(path, std::vector<Scalar>{1.5, 2.5});
  CHECK(read_text(victim) == "precious");
  CHECK_FALSE(std::filesystem::is_symlink(path));
  CHECK(read_matrix_market_vector(path) == std::vector<Scalar>{1.5, 2.5});
  CHECK(dir.names() == std::vector<std::string>{"victim", "x.mtx", "x.mtx.tmp"});
}

TEST_CASE("two writers of one path both succeed, the last commit wins", "[core][output_file]") {
  ScratchDir dir;
  const std::string path = dir.path + "/x.mtx";
  OutputFile first(path), second(path);
  CHECK(first.temporary_path() != second.temporary_path());
  first.write("first\n");
  second.write("second\n");
  first.commit();
  CHECK(read_text(path) == "first\n");
  second.commit();
  CHECK(read_text(path) == "second\n");
  CHECK(dir.names() == std::vector<std::string>{"x.mtx"});
}

TEST_CASE("OutputFile gives the mode fopen gives: 0666 less the umask", "[core][output_file]") {
  ScratchDir dir;
  const mode_t mask = GENERATE(mode_t(022), mode_t(077));
  const mode_t previous = umask(mask);
  const std::string path = dir.path + "/x.mtx";
  write_matrix_market_vector(path, std::vector<Scalar>{1.0});
  umask(previous);
  struct stat info;
  REQUIRE(stat(path.c_str(), &info) == 0);
  CHECK((info.st_mode & 0777) == (0666 & ~mask));
}

TEST_CASE("OutputFile refuses a directory before writing anything", "[core][output_file]") {
  ScratchDir dir;
  CHECK_THROWS_WITH(OutputFile(dir.path), FGDD_CONTAINS("is a directory"));
  CHECK_THROWS_WITH(OutputFile(dir.path + "/missing/x.mtx"),
                    FGDD_CONTAINS("cannot create a temporary file"));
  CHECK(dir.names().empty());
}
