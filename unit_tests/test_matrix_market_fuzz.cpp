// Fuzz test of the Matrix Market readers (issue 30 §5): deterministic mutations of small valid
// files (truncation, byte flips, huge numbers, inserted NUL/CR/BOM/ESC, duplicated lines) must
// each give a valid matrix or vector or an fgdd::Error whose message is safe to print; the
// readers stay within a memory limit throughout, and files announcing 2^31 - 1 rows fail early.
#include "catch_compat.hpp"
#include "child_process.hpp"
#include "core/errors.hpp"
#include "core/matrix_market.hpp"
#include "core/matrix_market_chunks.hpp"
#include "message_bytes.hpp"

#include <unistd.h>

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

using namespace fgdd;

namespace {

enum class Kind { Matrix, ArrayVector, CoordinateVector };

struct Seed {
  const char* name;
  Kind kind;
  std::string text;
};

// Valid small files of every accepted kind; each vector has 4 rows.
const std::vector<Seed>& seeds() {
  static const std::vector<Seed> all = {
      {"general real", Kind::Matrix,
       "%%MatrixMarket matrix coordinate real general\n% a comment\n4 4 7\n1 1 4.5\n2 1 -1\n"
       "2 2 4\n3 3 2.5e1\n4 3 -0.5\n3 4 1e-3\n4 4 +3\n"},
      {"symmetric real", Kind::Matrix,
       "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 4\n2 1 -1\n2 2 4\n3 3 4\n"},
      {"pattern", Kind::Matrix,
       "%%MatrixMarket matrix coordinate pattern general\n3 3 5\n1 1\n2 2\n3 3\n1 3\n3 2\n"},
      {"integer", Kind::Matrix,
       "%%MatrixMarket matrix coordinate integer general\n3 3 4\n1 1 7\n2 2 -3\n3 3 12\n3 1 2\n"},
      {"array vector", Kind::ArrayVector,
       "%%MatrixMarket matrix array real general\n% b\n4 1\n1.5\n-2\n0\n3e2\n"},
      {"coordinate vector", Kind::CoordinateVector,
       "%%MatrixMarket matrix coordinate real general\n4 1 3\n3 1 2.5\n1 1 1\n4 1 -1\n"},
      {"symmetric, comments and blank lines among the entries", Kind::Matrix,
       "%%MatrixMarket matrix coordinate real symmetric\n% c\n5 5 8\n1 1 4\n\n% mid\n2 1 -1\n"
       "2 2 4\n  \t\n3 2 -1\r\n3 3 4\n4 3 -1\n%\n4 4 4\n5 5 4"},
  };
  return all;
}

struct Mutation {
  std::string what;  // for the failure report
  std::string text;
};

// Token boundaries [begin, end) of the text's whitespace-separated tokens.
std::vector<std::pair<std::size_t, std::size_t>> tokens(const std::string& text) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t k = 0; k < text.size();) {
    while (k < text.size() && std::isspace(static_cast<unsigned char>(text[k]))) ++k;
    const std::size_t begin = k;
    while (k < text.size() && !std::isspace(static_cast<unsigned char>(text[k]))) ++k;
    if (k > begin) out.emplace_back(begin, k);
  }
  return out;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t k = 0; k < text.size();) {
    std::size_t end = text.find('\n', k);
    end = end == std::string::npos ? text.size() : end + 1;
    out.push_back(text.substr(k, end - k));
    k = end;
  }
  return out;
}

// The same mutations on every run: a fixed-seed generator, reduced with % (not a
// distribution, whose output the standard leaves to the library).
std::vector<Mutation> mutations(const std::string& base, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  const auto pick = [&](std::size_t n) { return std::size_t(random() % n); };
  std::vector<Mutation> out;
  for (std::size_t k = 0; k < base.size(); ++k)
    out.push_back({"truncated to " + std::to_string(k), base.substr(0, k)});
  for (int t = 0; t < 150; ++t) {
    std::string text = base;
    const std::size_t at = pick(text.size());
    const int bit = int(pick(8));
    text[at] = t % 2 ? char(text[at] ^ (1 << bit)) : char(pick(256));
    out.push_back({"byte " + std::to_string(at) + " changed", text});
  }
  static const char* numbers[] = {"1e400",
                                  "-1e400",
                                  "1e-400",
                                  "9223372036854775807",
                                  "9223372036854775808",
                                  "-9223372036854775809",
                                  "18446744073709551616",
                                  "99999999999",
                                  "2147483647",
                                  "2147483648",
                                  "4294967296",
                                  "0",
                                  "-0",
                                  "-1",
                                  "+-4",
                                  "++4",
                                  "-+4",
                                  "+",
                                  "-",
                                  "nan",
                                  "inf",
                                  "-inf",
                                  "0x10",
                                  "1e308",
                                  "1.7976931348623157e308",
                                  "4.9e-324",
                                  "1d0",
                                  "1e",
                                  ".",
                                  "00000000000000000000000000001"};
  const auto spans = tokens(base);
  for (int t = 0; t < 120; ++t) {
    const auto [begin, end] = spans[pick(spans.size())];
    const char* number = numbers[pick(std::size(numbers))];
    std::string text = base;
    text.replace(begin, end - begin, number);
    out.push_back({"token at " + std::to_string(begin) + " replaced by " + number, text});
  }
  static const std::string inserts[] = {std::string(1, '\0'),
                                        "\r",
                                        "\r\n",
                                        "\xEF\xBB\xBF",
                                        "\x1b[2J",
                                        "\x7f",
                                        "\xff",
                                        "\xc3",
                                        "\n",
                                        " ",
                                        "%",
                                        "\t",
                                        "\x1b]0;title\x07",
                                        std::string("4\0", 2)};
  for (int t = 0; t < 120; ++t) {
    const std::size_t at = t < 3 ? 0 : pick(base.size() + 1);
    const std::string& insert = inserts[t < 3 ? 3 : pick(std::size(inserts))];
    std::string text = base;
    text.insert(at, insert);
    out.push_back({"inserted byte(s) " + std::to_string(int((unsigned char)insert[0])) + " at " +
                       std::to_string(at),
                   text});
  }
  const std::vector<std::string> all = lines(base);
  for (std::size_t l = 0; l < all.size(); ++l) {
    std::string duplicated, deleted;
    for (std::size_t k = 0; k < all.size(); ++k) {
      duplicated += all[k];
      if (k == l) duplicated += all[k];
      if (k != l) deleted += all[k];
    }
    out.push_back({"line " + std::to_string(l + 1) + " duplicated", duplicated});
    out.push_back({"line " + std::to_string(l + 1) + " deleted", deleted});
  }
  std::string cr_only = base, crlf;
  for (char& c : cr_only) c = c == '\n' ? '\r' : c;
  for (const char c : base) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  out.push_back({"CR-only line endings", cr_only});
  out.push_back({"CRLF line endings", crlf});
  return out;
}

// Reads the file as its kind asks; "" when it gave a valid result or a typed error with a
// printable message, else what went wrong. host_only: the readers without make_matrix (Kokkos),
// for a forked child.
std::string check_read(Kind kind, const std::string& path, bool host_only) {
  try {
    if (kind == Kind::Matrix) {
      if (host_only) {
        const HostMatrixArrays m = read_matrix_market_arrays(path);
        if (m.row_map.size() != std::size_t(m.num_block_rows) + 1) return "bad row map";
      } else {
        read_matrix_market(path);  // make_matrix validates what it returns
      }
      return "";
    }
    const std::vector<Scalar> x = read_matrix_market_vector(path, 4);
    if (x.size() != 4) return "vector of length " + std::to_string(x.size());
    for (const Scalar v : x) {
      if (!std::isfinite(v)) return "non-finite value read";
    }
    // An array file bounds its own length, so the reader without an expected one is safe too.
    if (kind == Kind::ArrayVector && read_matrix_market_vector(path) != x) return "lengths differ";
    return "";
  } catch (const FileError& error) {
    if (!test::is_printable_message(error.what())) return "unprintable message";
    if (error.path() != path) return "message without the path";
    return "";
  } catch (const Error& error) {
    return test::is_printable_message(error.what()) ? "" : "unprintable message";
  } catch (const std::exception& error) {
    return std::string("untyped exception: ") + error.what();
  }
}

std::string scratch_file() {
  return (std::filesystem::temp_directory_path() /
          ("fgdd_mm_fuzz_" + std::to_string(getpid()) + ".mtx"))
      .string();
}

// Removed first: rewriting a truncated file makes ext4 flush it to disk on close (auto_da_alloc),
// 4 ms a file.
void write_new(const std::string& path, const std::string& text) {
  std::filesystem::remove(path);
  std::ofstream(path, std::ios::binary) << text;
}

// Every mutation of every seed; the failures, described.
std::vector<std::string> fuzz(const std::string& path, bool host_only) {
  std::vector<std::string> failures;
  std::uint64_t seed = 30;
  for (const Seed& s : seeds()) {
    for (const Mutation& m : mutations(s.text, seed++)) {
      write_new(path, m.text);
      const std::string problem = check_read(s.kind, path, host_only);
      if (!problem.empty())
        failures.push_back(std::string(s.name) + ", " + m.what + ": " + problem);
    }
  }
  return failures;
}

// No failures; else the first 20 of them in the report.
void check_none(const std::vector<std::string>& failures) {
  std::string first;
  for (std::size_t k = 0; k < failures.size() && k < 20; ++k) first += failures[k] + "\n";
  INFO(failures.size() << " failures; the first:\n" << first);
  CHECK(failures.empty());
}

// What reading a matrix file gave: its arrays, or the error's line and message.
struct Outcome {
  bool read = false;
  HostMatrixArrays arrays;
  std::int64_t line = -1;
  std::string message;

  bool operator==(const Outcome& o) const {
    return read == o.read && line == o.line && message == o.message &&
           arrays.row_map == o.arrays.row_map && arrays.col_ind == o.arrays.col_ind &&
           arrays.values == o.arrays.values;
  }
};

Outcome read_in_chunks(const std::string& path, std::size_t chunk_bytes) {
  Outcome outcome;
  try {
    outcome.arrays = detail::read_matrix_market_arrays_in_chunks(path, chunk_bytes);
    outcome.read = true;
  } catch (const FileError& error) {
    outcome.line = error.line();
    outcome.message = error.what();
  }
  return outcome;
}

// One pass: a chunk larger than any test file.
constexpr std::size_t one_chunk = std::size_t(1) << 40;

}  // namespace

TEST_CASE("Matrix Market fuzz: chunked parsing gives the single pass's arrays or error",
          "[core][matrix_market][io][fuzz]") {
  // Chunks of 1 byte end at every line feed, so every line of every mutation is some chunk's
  // first and last (comments, blank lines, CRLF and bad entries among them); 5 and 16 bytes
  // group a few lines.
  const std::string path = scratch_file();
  std::uint64_t seed = 30;
  std::size_t compared = 0, read = 0;
  std::vector<std::string> failures;
  for (const Seed& s : seeds()) {
    const std::uint64_t mutation_seed = seed++;
    if (s.kind != Kind::Matrix) continue;
    for (const Mutation& m : mutations(s.text, mutation_seed)) {
      write_new(path, m.text);
      const Outcome single = read_in_chunks(path, one_chunk);
      for (const std::size_t chunk_bytes : {1, 5, 16}) {
        ++compared;
        if (!(read_in_chunks(path, chunk_bytes) == single))
          failures.push_back(std::string(s.name) + ", " + m.what + ", chunks of " +
                             std::to_string(chunk_bytes));
      }
      read += single.read;
    }
  }
  std::filesystem::remove(path);
  INFO(compared << " comparisons, " << read << " files read");
  CHECK(read > 100);  // the valid mutations exercise the chunked parse itself, not only errors
  check_none(failures);
}

TEST_CASE("Matrix Market chunked parsing of a larger file keeps the file order",
          "[core][matrix_market][io]") {
  // 20,000 entries in random row order with a comment every 1,000 lines, in chunks of 1 KB and
  // 64 KB, against the single pass.
  std::mt19937_64 random(7);
  const int n = 2000;
  std::string text = "%%MatrixMarket matrix coordinate real general\n" + std::to_string(n) + " " +
                     std::to_string(n) + " 20000\n";
  for (int k = 0; k < 20000; ++k) {
    if (k % 1000 == 0) text += "% block " + std::to_string(k) + "\n";
    text += std::to_string(1 + random() % n) + " " + std::to_string(1 + random() % n) + " " +
            std::to_string(double(random() % 100000) / 7.0) + "\n";
  }
  const std::string path = scratch_file();
  write_new(path, text);
  const Outcome whole = read_in_chunks(path, one_chunk);
  REQUIRE(whole.read);
  for (const std::size_t chunk_bytes : {std::size_t(1024), std::size_t(65536)}) {
    CAPTURE(chunk_bytes);
    CHECK(read_in_chunks(path, chunk_bytes) == whole);
  }
  CHECK(whole.arrays.col_ind.size() == 20000);
  // The chunks themselves parse it (they decline only when something is wrong), and hand the
  // line feeds back.
  const std::size_t data = text.find('\n', text.find('\n') + 1) + 1;
  std::string lines = text.substr(data);
  const std::string before = lines;
  detail::MatrixMarketLayout layout;
  layout.rows = n;
  layout.entries = 20000;
  std::vector<Ordinal> rows, columns;
  std::vector<Scalar> values;
  CHECK(detail::parse_entries_in_chunks(path, layout, lines.data(), lines.size(), 3, 1024, rows,
                                        columns, values));
  CHECK(lines == before);
  CHECK(values.size() == 20000);
  layout.entries = 19999;  // one entry more than announced
  CHECK_FALSE(detail::parse_entries_in_chunks(path, layout, lines.data(), lines.size(), 3, 1024,
                                              rows, columns, values));
  CHECK(lines == before);
  CHECK(rows.empty());
  std::filesystem::remove(path);
}

TEST_CASE("Matrix Market fuzz: every mutation is a valid result or a typed error",
          "[core][matrix_market][io][fuzz]") {
  std::size_t count = 0;
  for (std::size_t k = 0; k < seeds().size(); ++k)
    count += mutations(seeds()[k].text, 30 + k).size();
  INFO(count << " mutations");
  CHECK(count > 2000);
  const std::string path = scratch_file();
  const std::vector<std::string> failures = fuzz(path, false);
  std::filesystem::remove(path);
  check_none(failures);
}

TEST_CASE("Matrix Market fuzz: the readers stay within a memory limit",
          "[core][matrix_market][io][fuzz]") {
  // The host-only readers in a child whose address space may grow by 256 MB: a reader that
  // sizes anything by an announced count alone fails with bad_alloc (or is killed).
  const std::string path = scratch_file();
  const test::ChildResult child = test::run_in_child(256 << 20, 60, [&](std::string& report) {
    const std::vector<std::string> failures = fuzz(path, true);
    for (std::size_t k = 0; k < failures.size() && k < 20; ++k) report += failures[k] + "\n";
    return failures.empty() ? 0 : 1;
  });
  std::filesystem::remove(path);
  INFO(child.output);
  CHECK(child.signal == 0);
  CHECK(child.exit_code == 0);
}

TEST_CASE("Matrix Market readers refuse huge announced sizes before allocating",
          "[core][matrix_market][io][fuzz]") {
  const std::string general = "%%MatrixMarket matrix coordinate real general\n";
  struct Case {
    const char* name;
    std::string text;
    int reader;  // 0: matrix arrays, 1: vector, 2: vector of 3 rows expected
    std::int64_t line;
    const char* reason;
  };
  const std::vector<Case> cases = {
      // The 76-byte file of the issue: 17 GB of row counters before the fix.
      {"2^31 - 1 rows, 1 entry", general + "2147483647 2147483647 1\n1 1 1\n", 0, 2,
       "announces 2147483647 rows but only 1 entry: every row needs a diagonal entry"},
      {"100M rows, 1 entry", general + "100000000 100000000 1\n1 1 1\n", 0, 2,
       "every row needs a diagonal entry"},
      {"2^31 - 1 rows and entries, 1 line", general + "2147483647 2147483647 2147483647\n1 1 1\n",
       0, 3, "truncated data: expected 2147483647 entries, found 1"},
      {"2^62 entries", general + "2147483647 2147483647 4611686014132420609\n1 1 1\n", 0, 3,
       "truncated data"},
      {"rhs array of 2^31 - 1 rows", "%%MatrixMarket matrix array real general\n2147483647 1\n1\n",
       1, 3, "truncated data: expected 2147483647 values, found 1"},
      {"rhs array of 2^31 - 1 rows, 3 expected",
       "%%MatrixMarket matrix array real general\n2147483647 1\n1\n", 2, 2,
       "length 2147483647; expected length 3"},
      {"rhs coordinate of 2^31 - 1 rows, 3 expected", general + "2147483647 1 1\n1 1 1\n", 2, 2,
       "length 2147483647; expected length 3"},
  };
  const std::string path = scratch_file();
  for (const Case& c : cases) {
    CAPTURE(c.name);
    write_new(path, c.text);
    const test::ChildResult child = test::run_in_child(256 << 20, 30, [&](std::string& report) {
      try {
        if (c.reader == 0) read_matrix_market_arrays(path);
        if (c.reader == 1) read_matrix_market_vector(path);
        if (c.reader == 2) read_matrix_market_vector(path, 3);
        report = "no error";
        return 1;
      } catch (const FileError& error) {
        report = error.what();
        return error.line() == c.line && report.find(c.reason) != std::string::npos ? 0 : 2;
      }
    });
    INFO(child.output);
    CHECK(child.signal == 0);
    CHECK(child.exit_code == 0);
  }
  std::filesystem::remove(path);
}
