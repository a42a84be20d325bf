// Matrix Market reader and writer. The reader loads the whole file with one fread and parses it
// in place with std::from_chars (no iostreams), then turns COO into CSR with one counting sort.
#include "core/matrix_market.hpp"

#include "core/block_pattern.hpp"
#include "core/errors.hpp"
#include "core/file_bytes.hpp"
#include "core/host_copy.hpp"
#include "core/huge_pages.hpp"
#include "core/matrix_market_chunks.hpp"
#include "core/output_file.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <string_view>
#include <system_error>
#include <utility>

namespace fgdd {

namespace {

enum class Format { Coordinate, Array };
enum class Field { Real, Integer, Pattern };
enum class Symmetry { General, Symmetric, SkewSymmetric };

struct Header {
  Format format = Format::Coordinate;
  Field field = Field::Real;
  Symmetry symmetry = Symmetry::General;
};

// What the caller accepts, so each reader rejects the rest with a message listing its choices.
enum class Target { SparseMatrix, Vector, DenseMatrix };

struct Sizes {
  std::int64_t rows = 0;
  std::int64_t columns = 0;
  std::int64_t entries = 0;  // announced entries (coordinate) or rows × columns (array)
  std::int64_t line = 0;     // where the size line was
};

// The whole file plus a NUL one past its end, so whitespace skipping needs no bounds check.
struct FreeBytes {
  void operator()(char* p) const noexcept { std::free(p); }
};
struct FileBuffer {
  std::unique_ptr<char[], FreeBytes> data;
  std::size_t size = 0;
};

FileBuffer read_whole_file(const std::string& path) {
  const detail::FileBytes file(path);
  FileBuffer buffer;
  // Not zero-filled (read overwrites it), on 2 MB boundaries and advised huge pages: copying a
  // file into fresh 4 KB pages spent more time in page faults than in the copy.
  const std::size_t page = detail::huge_page_bytes;
  const std::size_t bytes = (file.size() + 1 + page - 1) / page * page;
  buffer.data.reset(static_cast<char*>(std::aligned_alloc(page, bytes)));
  if (!buffer.data) throw std::bad_alloc();
  detail::advise_huge_pages(buffer.data.get(), bytes);
  buffer.size = file.size();
  file.read_into(0, buffer.size, buffer.data.get());
  buffer.data[buffer.size] = '\0';
  return buffer;
}

inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// The length of the well-formed UTF-8 sequence at [p, end), 0 when there is none (a stray
// continuation byte, an overlong form, a surrogate, a code point beyond U+10FFFF, a cut one).
std::size_t utf8_sequence(const unsigned char* p, const unsigned char* end) {
  const auto continuation = [&](std::size_t k, unsigned char low = 0x80,
                                unsigned char high = 0xbf) {
    return p + k < end && p[k] >= low && p[k] <= high;
  };
  const unsigned char lead = p[0];
  if (lead >= 0xc2 && lead <= 0xdf) return continuation(1) ? 2 : 0;
  if (lead >= 0xe0 && lead <= 0xef) {
    const bool second = lead == 0xe0   ? continuation(1, 0xa0)
                        : lead == 0xed ? continuation(1, 0x80, 0x9f)
                                       : continuation(1);
    return second && continuation(2) ? 3 : 0;
  }
  if (lead >= 0xf0 && lead <= 0xf4) {
    const bool second = lead == 0xf0   ? continuation(1, 0x90)
                        : lead == 0xf4 ? continuation(1, 0x80, 0x8f)
                                       : continuation(1);
    return second && continuation(2) && continuation(3) ? 4 : 0;
  }
  return 0;
}

// File text for a message: control bytes (a NUL would cut what(), an ESC would drive the
// terminal), DEL and bytes that are not UTF-8 become \xNN; printable ASCII and UTF-8 stay.
std::string printable(std::string_view text) {
  static const char hex[] = "0123456789ABCDEF";
  std::string out;
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const auto* end = p + text.size();
  while (p < end) {
    if (*p >= 0x20 && *p < 0x7f) {
      out += static_cast<char>(*p++);
    } else if (const std::size_t length = *p >= 0x80 ? utf8_sequence(p, end) : 0; length > 0) {
      out.append(reinterpret_cast<const char*>(p), length);
      p += length;
    } else {
      out += "\\x";
      out += hex[*p >> 4];
      out += hex[*p & 0xf];
      ++p;
    }
  }
  return out;
}

// Where a number's digits start: past a '+' that from_chars does not take, unless a second sign
// follows it ("+-4" must not read as -4; from_chars then rejects the whole token).
inline const char* number_start(const char* p) {
  return p[0] == '+' && p[1] != '+' && p[1] != '-' ? p + 1 : p;
}

std::string lowercase(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// A cursor over the file that knows its line number, so every error can name the line.
class Parser {
 public:
  Parser(const std::string& path, const FileBuffer& buffer)
      : path_(path), begin_(buffer.data.get()), end_(buffer.data.get() + buffer.size), p_(begin_) {}
  // Text [text, text + size) with a NUL at text[size], whose first line is line first_line.
  Parser(const std::string& path, const char* text, std::size_t size, std::int64_t first_line)
      : path_(path), begin_(text), end_(text + size), p_(text), line_(first_line) {}

  [[noreturn]] void fail(std::int64_t line, const std::string& what) const {
    throw FileError(path_, line, what);
  }
  [[noreturn]] void fail(const std::string& what) const { fail(line_, what); }

  Header parse_banner(Target target) {
    if (begin_ == end_) fail(1, "empty file: expected the %%MatrixMarket banner on line 1");
    if (end_ - p_ >= 3 && std::memcmp(p_, "\xEF\xBB\xBF", 3) == 0) {
      fail(1, "file starts with a UTF-8 byte-order mark (EF BB BF); remove it");
    }
    const char* eol = static_cast<const char*>(std::memchr(p_, '\n', end_ - p_));
    if (eol == nullptr) eol = end_;
    // Text after a CR on the first line (not just CRs before its LF, as CRLF or CR CR LF
    // conversions leave): the file ends its lines with CR alone.
    if (const char* cr = static_cast<const char*>(std::memchr(p_, '\r', eol - p_))) {
      while (cr < eol && is_blank(*cr)) ++cr;
      if (cr < eol) {
        fail(1,
             "the file uses CR-only line endings (classic Mac OS): line 1 has text after a "
             "carriage return without a line feed; convert the line endings to LF or CRLF");
      }
    }
    std::vector<std::string_view> words;
    for (const char* q = p_; q < eol;) {
      while (q < eol && is_blank(*q)) ++q;
      const char* start = q;
      while (q < eol && !is_blank(*q)) ++q;
      if (q > start) words.emplace_back(start, q - start);
    }
    const char* usage = "expected '%%MatrixMarket matrix coordinate real general'";
    if (words.empty() || lowercase(words[0]) != "%%matrixmarket") {
      fail(1, std::string("missing or bad banner: ") + usage + ", found '" + quote(p_, eol) + "'");
    }
    if (words.size() < 5) {
      fail(1, "incomplete banner (" + std::to_string(words.size()) + " of 5 words): " + usage);
    }
    if (words.size() > 5) {
      fail(1, "bad banner: unexpected text '" + printable(words[5]) + "' after 5 words");
    }
    const std::string object = lowercase(words[1]);
    const std::string format = lowercase(words[2]);
    const std::string field = lowercase(words[3]);
    const std::string symmetry = lowercase(words[4]);
    // A dense matrix file takes what a vector file takes, in the array format only.
    const bool dense = target == Target::DenseMatrix;
    const bool vector = target == Target::Vector || dense;
    Header header;

    if (object != "matrix") {
      fail(1, "unsupported object '" + printable(object) + "'; supported: matrix");
    }

    if (format == "coordinate" && dense) {
      fail(1, "unsupported format 'coordinate' for a dense matrix; supported: array");
    } else if (format == "coordinate") {
      header.format = Format::Coordinate;
    } else if (format == "array" && vector) {
      header.format = Format::Array;
    } else if (format == "array") {
      fail(1, "unsupported format 'array' for a sparse matrix; supported: coordinate");
    } else {
      fail(1, "unsupported format '" + printable(format) + "'; supported: " +
                  (dense    ? "array"
                   : vector ? "coordinate, array"
                            : "coordinate"));
    }

    if (field == "real") {
      header.field = Field::Real;
    } else if (field == "integer") {
      header.field = Field::Integer;
    } else if (field == "pattern" && !vector) {
      header.field = Field::Pattern;
    } else {
      fail(1, "unsupported field '" + printable(field) + "'; supported: real, integer" +
                  (vector ? "" : ", pattern"));
    }

    if (symmetry == "general") {
      header.symmetry = Symmetry::General;
    } else if (symmetry == "symmetric" && !vector) {
      header.symmetry = Symmetry::Symmetric;
    } else if (symmetry == "skew-symmetric" && !vector) {
      header.symmetry = Symmetry::SkewSymmetric;
    } else {
      fail(1, "unsupported symmetry '" + printable(symmetry) + "'; supported: general" +
                  (dense    ? " (a dense matrix file)"
                   : vector ? " (a vector file)"
                            : ", symmetric, skew-symmetric"));
    }
    if (header.field == Field::Pattern && header.symmetry == Symmetry::SkewSymmetric) {
      fail(1, "unsupported combination 'pattern skew-symmetric' (the spec does not allow it)");
    }

    p_ = eol;
    if (p_ < end_) {
      ++p_;
      ++line_;
    }
    return header;
  }

  // Moves to the first non-blank, non-comment character; false at the end of the file.
  bool skip_to_data() {
    for (;;) {
      while (is_blank(*p_)) ++p_;
      if (*p_ == '\n') {
        ++p_;
        ++line_;
      } else if (*p_ == '%') {
        const char* eol = static_cast<const char*>(std::memchr(p_, '\n', end_ - p_));
        if (eol == nullptr) {
          p_ = end_;
          return false;
        }
        p_ = eol;
      } else {
        return p_ < end_;
      }
    }
  }

  Sizes parse_size_line(const Header& header, Target target) {
    const bool coordinate = header.format == Format::Coordinate;
    const char* expected = coordinate ? "'rows columns entries'" : "'rows columns'";
    if (!skip_to_data()) fail(last_line(), "missing size line after the banner");
    Sizes sizes;
    sizes.line = line_;
    const char* names[3] = {"rows", "columns", "entries"};
    std::int64_t values[3] = {0, 0, 0};
    const int fields = coordinate ? 3 : 2;
    for (int i = 0; i < fields; ++i) {
      if (at_end_of_line()) {
        fail("bad size line: expected " + std::string(expected) + ", found only " +
             std::to_string(i) + " field" + (i == 1 ? "" : "s"));
      }
      const char* start = p_;
      const auto [ptr, ec] = std::from_chars(number_start(p_), end_, values[i]);
      if (ec == std::errc::invalid_argument || !ends_token(ptr)) {
        fail("bad size line: " + std::string(names[i]) + " '" + token(start) +
             "' is not a non-negative integer; expected " + expected);
      }
      if (ec == std::errc::result_out_of_range || values[i] < 0) {
        fail("bad size line: " + std::string(names[i]) + " '" + token(start) +
             (ec == std::errc() ? "' is negative" : "' is out of range"));
      }
      p_ = ptr;
      while (is_blank(*p_)) ++p_;
    }
    if (!at_end_of_line()) {
      fail("bad size line: unexpected text '" + token(p_) + "' after " + expected);
    }
    finish_line();
    sizes.rows = values[0];
    sizes.columns = values[1];
    constexpr std::int64_t max_size = std::numeric_limits<Ordinal>::max();
    for (int i = 0; i < 2; ++i) {
      if (values[i] > max_size) {
        fail(sizes.line, "bad size line: " + std::string(names[i]) + " " +
                             std::to_string(values[i]) + " exceeds the largest supported size " +
                             std::to_string(max_size));
      }
    }
    // Both fit in 31 bits, so the product fits in int64.
    const std::int64_t capacity = sizes.rows * sizes.columns;
    if (coordinate) {
      sizes.entries = values[2];
      if (sizes.entries > capacity) {
        fail(sizes.line, "bad size line: " + std::to_string(sizes.entries) +
                             " entries are too many for a " + std::to_string(sizes.rows) + " x " +
                             std::to_string(sizes.columns) + " matrix (at most " +
                             std::to_string(capacity) + ")");
      }
    } else {
      sizes.entries = capacity;
    }
    if (target == Target::SparseMatrix && sizes.rows != sizes.columns) {
      fail(sizes.line, "matrix is not square: " + std::to_string(sizes.rows) + " rows, " +
                           std::to_string(sizes.columns) + " columns");
    }
    if (target == Target::Vector && sizes.columns != 1) {
      fail(sizes.line, "expected a vector (one column), found " + std::to_string(sizes.rows) +
                           " rows and " + std::to_string(sizes.columns) + " columns");
    }
    return sizes;
  }

  // A 1-based index in 1..limit, returned 0-based. p_ is at a non-blank character.
  Ordinal parse_index(const char* name, std::int64_t limit) {
    if (at_end_of_line()) fail(std::string("missing ") + name + " index");
    const char* start = p_;
    std::int64_t value = 0;
    const auto [ptr, ec] = std::from_chars(number_start(p_), end_, value);
    if (ec == std::errc::invalid_argument || !ends_token(ptr)) {
      fail(std::string("bad ") + name + " index '" + token(start) + "' (not an integer)");
    }
    if (ec == std::errc::result_out_of_range || value < 1 || value > limit) {
      fail(std::string(name) + " index " + token(start) + " out of range 1.." +
           std::to_string(limit));
    }
    p_ = ptr;
    while (is_blank(*p_)) ++p_;
    return static_cast<Ordinal>(value - 1);
  }

  Scalar parse_value(Field field) {
    if (field == Field::Pattern) return 1.0;
    if (at_end_of_line()) {
      fail(std::string("missing value (field is ") + (field == Field::Real ? "real" : "integer") +
           ")");
    }
    const char* start = p_;
    // from_chars rejects a leading '+', which Matrix Market writers may emit.
    const char* number = number_start(p_);
    Scalar value = 0;
    if (field == Field::Integer) {
      std::int64_t integer = 0;
      const auto [ptr, ec] = std::from_chars(number, end_, integer);
      if (ec == std::errc::invalid_argument || !ends_token(ptr)) {
        fail("bad number: '" + token(start) + "' is not an integer (field is integer)");
      }
      if (ec == std::errc::result_out_of_range) {
        fail("bad number: integer value '" + token(start) + "' is out of range");
      }
      value = static_cast<Scalar>(integer);
      p_ = ptr;
    } else {
      const auto [ptr, ec] = std::from_chars(number, end_, value);
      if (ec == std::errc::invalid_argument || !ends_token(ptr)) {
        fail("bad number: '" + token(start) + "' is not a real number");
      }
      if (ec == std::errc::result_out_of_range) value = reparse_out_of_range(start, ptr);
      if (!std::isfinite(value)) {
        fail("value '" + token(start) + "' is not finite (NaN and Inf are not allowed)");
      }
      p_ = ptr;
    }
    while (is_blank(*p_)) ++p_;
    return value;
  }

  // One coordinate entry line, 0-based, the cursor then on the next line. skew: a diagonal
  // entry is an error (skew-symmetric files store none).
  struct Entry {
    Ordinal row, column;
    Scalar value;
  };
  Entry parse_entry(std::int64_t rows, std::int64_t columns, Field field, bool skew) {
    const Ordinal i = parse_index("row", rows);
    const Ordinal j = parse_index("column", columns);
    const Scalar v = parse_value(field);
    if (i == j && skew) {
      fail("diagonal entry (" + std::to_string(i + 1) + ", " + std::to_string(j + 1) +
           ") in a skew-symmetric file (its diagonal must be zero and is not stored)");
    }
    finish_line();
    return {i, j, v};
  }

  // After the last field of a line: only blanks may remain.
  void finish_line() {
    if (*p_ == '\n') {
      ++p_;
      ++line_;
      return;
    }
    if (p_ == end_) return;
    bool bare_cr = false;
    for (const char* q = p_; q > begin_ && is_blank(q[-1]); --q) bare_cr |= q[-1] == '\r';
    fail("unexpected text '" + token(p_) + "' after the last field of the line" +
         (bare_cr ? " (after a carriage return without a line feed: CR-only line endings are "
                    "not supported; convert them to LF or CRLF)"
                  : ""));
  }

  void expect_no_more_data(std::int64_t announced, const char* what) {
    if (skip_to_data()) {
      fail("extra data after the " + std::to_string(announced) + " announced " + what + ": '" +
           token(p_) + "'");
    }
  }

  [[noreturn]] void fail_truncated(std::int64_t found, std::int64_t announced, const char* what) {
    fail(last_line(), "truncated data: expected " + std::to_string(announced) + " " + what +
                          ", found " + std::to_string(found) +
                          " (last line read: " + std::to_string(last_line()) + ")");
  }

  std::size_t bytes_left() const { return static_cast<std::size_t>(end_ - p_); }
  std::size_t offset() const { return static_cast<std::size_t>(p_ - begin_); }
  std::int64_t line() const { return line_; }

 private:
  // The line the cursor is on, or at the end of the file the last line that exists.
  std::int64_t last_line() const {
    return (p_ == end_ && end_ > begin_ && end_[-1] == '\n') ? line_ - 1 : line_;
  }
  bool at_end_of_line() const { return *p_ == '\n' || p_ == end_; }
  bool ends_token(const char* q) const { return q == end_ || is_blank(*q) || *q == '\n'; }

  // The token starting at q, for messages; long tokens are cut.
  std::string token(const char* q) const {
    const char* stop = q;
    while (stop < end_ && !is_blank(*stop) && *stop != '\n' && stop - q < 40) ++stop;
    std::string text = printable(std::string_view(q, stop - q));
    if (stop < end_ && !is_blank(*stop) && *stop != '\n') text += "...";
    return text;
  }
  static std::string quote(const char* from, const char* to) {
    while (to > from && is_blank(to[-1])) --to;
    if (to - from > 60) return printable(std::string_view(from, 60)) + "...";
    return printable(std::string_view(from, to - from));
  }

  // from_chars reports underflow (1e-400) and overflow (1e400) alike; strtod tells them apart,
  // and a value that underflows to zero or a subnormal is a legitimate number.
  static Scalar reparse_out_of_range(const char* start, const char* stop) {
    const std::string text(start, stop);
    return std::strtod(text.c_str(), nullptr);
  }

  const std::string& path_;
  const char* begin_;
  const char* end_;
  const char* p_;
  std::int64_t line_ = 1;
};

// What a reader of the data lines needs from the banner and the size line, and where the data
// starts (the parser just past the size line).
detail::MatrixMarketLayout layout_of(const Header& header, const Sizes& sizes,
                                     const Parser& parser) {
  detail::MatrixMarketLayout layout;
  layout.rows = sizes.rows;
  layout.entries = sizes.entries;
  layout.mirror = header.symmetry != Symmetry::General;
  layout.skew = header.symmetry == Symmetry::SkewSymmetric;
  layout.pattern = header.field == Field::Pattern;
  layout.integer = header.field == Field::Integer;
  layout.data_offset = parser.offset();
  layout.data_line = parser.line();
  layout.size_line = sizes.line;
  return layout;
}

Field field_of(const detail::MatrixMarketLayout& layout) {
  return layout.pattern ? Field::Pattern : layout.integer ? Field::Integer : Field::Real;
}

// Room for the announced entries, but never more than the bytes left could hold, so a size line
// announcing absurdly many entries fails as truncated data rather than as bad_alloc.
std::size_t reserve_for(std::int64_t announced, std::size_t bytes_left, std::size_t min_line) {
  return std::min<std::size_t>(static_cast<std::size_t>(announced), bytes_left / min_line + 1);
}

}  // namespace

namespace {

// A coordinate file's entries in file order.
struct CoordinateEntries {
  Header header;
  Sizes sizes;
  std::vector<Ordinal> rows;
  std::vector<Ordinal> columns;
  std::vector<Scalar> values;
};

// Pass 1. Kept apart so the file buffer is freed before the CSR arrays are allocated. The data
// lines are parsed in chunks at once where chunk_bytes asks for more than one chunk (and then
// again in one pass when the chunks found anything wrong, so that the error names the first bad
// line as a single pass does).
CoordinateEntries parse_coordinate_file(const std::string& path, int block_size,
                                        std::size_t chunk_bytes) {
  const FileBuffer buffer = read_whole_file(path);
  Parser parser(path, buffer);
  CoordinateEntries coo;
  coo.header = parser.parse_banner(Target::SparseMatrix);
  coo.sizes = parser.parse_size_line(coo.header, Target::SparseMatrix);
  const Header& header = coo.header;
  const Sizes& sizes = coo.sizes;
  detail::check_rows_divisible(path, sizes.line, sizes.rows, block_size);

  const detail::MatrixMarketLayout layout = layout_of(header, sizes, parser);
  if (detail::parse_entries_in_chunks(path, layout, buffer.data.get() + parser.offset(),
                                      parser.bytes_left(), parser.line(), chunk_bytes, coo.rows,
                                      coo.columns, coo.values))
    return coo;

  // "1 1\n" is the shortest possible entry line.
  const std::size_t capacity = reserve_for(sizes.entries, parser.bytes_left(), 4);
  detail::reserve_advised(coo.rows, capacity);
  detail::reserve_advised(coo.columns, capacity);
  detail::reserve_advised(coo.values, capacity);
  const bool skew = header.symmetry == Symmetry::SkewSymmetric;
  for (std::int64_t k = 0; k < sizes.entries; ++k) {
    if (!parser.skip_to_data()) parser.fail_truncated(k, sizes.entries, "entries");
    const auto [i, j, v] = parser.parse_entry(sizes.rows, sizes.columns, header.field, skew);
    coo.rows.push_back(i);
    coo.columns.push_back(j);
    coo.values.push_back(v);
  }
  parser.expect_no_more_data(sizes.entries, "entries");
  return coo;
}

// read_matrix_market_arrays, refusing a size line whose rows block_size does not divide.
HostMatrixArrays read_scalar_arrays(const std::string& path, MatrixMarketRows rows_hold,
                                    int block_size, std::size_t chunk_bytes = 0) {
  const CoordinateEntries coo = parse_coordinate_file(path, block_size, chunk_bytes);
  const bool mirror = coo.header.symmetry != Symmetry::General;
  const bool skew = coo.header.symmetry == Symmetry::SkewSymmetric;
  const Scalar mirror_sign = skew ? -1.0 : 1.0;
  const std::vector<Ordinal>& rows = coo.rows;
  const std::vector<Ordinal>& columns = coo.columns;
  const std::vector<Scalar>& values = coo.values;
  // Only now, the entries read, may the rows cost memory: one counter each.
  if (rows_hold == MatrixMarketRows::NeedDiagonal) {
    detail::check_rows_fit_entries(path, coo.sizes.line, coo.sizes.rows, coo.sizes.entries, skew);
  }
  HostMatrixArrays arrays;
  arrays.num_block_rows = static_cast<Ordinal>(coo.sizes.rows);
  arrays.num_block_cols = static_cast<Ordinal>(coo.sizes.columns);
  arrays.block_size = 1;
  // Entries of row i (mirrored ones included) counted at row_map[i + 2]; see the scatter below.
  std::vector<Offset>& row_map = arrays.row_map;
  row_map.assign(static_cast<std::size_t>(coo.sizes.rows) + 2, 0);
  for (std::size_t k = 0; k < rows.size(); ++k) {
    ++row_map[static_cast<std::size_t>(rows[k]) + 2];
    if (mirror && rows[k] != columns[k]) ++row_map[static_cast<std::size_t>(columns[k]) + 2];
  }

  // Pass 2: counting sort by row, O(nnz), stable so each row keeps the file order. After the
  // prefix sum row_map[i + 1] is the start of row i; scattering advances it to the end of row i,
  // which is the start of row i + 1, leaving a correct row map without a second offsets array.
  for (std::size_t i = 2; i < row_map.size(); ++i) row_map[i] += row_map[i - 1];
  const Offset total = row_map.back();
  detail::reserve_advised(arrays.col_ind, total);
  detail::reserve_advised(arrays.values, total);
  arrays.col_ind.resize(total);
  arrays.values.resize(total);
  Ordinal* col_out = arrays.col_ind.data();
  Scalar* val_out = arrays.values.data();
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const Ordinal i = rows[k];
    const Ordinal j = columns[k];
    const Offset at = row_map[static_cast<std::size_t>(i) + 1]++;
    col_out[at] = j;
    val_out[at] = values[k];
    if (mirror && i != j) {
      const Offset mirrored = row_map[static_cast<std::size_t>(j) + 1]++;
      col_out[mirrored] = i;
      val_out[mirrored] = mirror_sign * values[k];
    }
  }
  row_map.pop_back();
  return arrays;
}

// make_matrix's complaint about a file's matrix, naming the file.
[[noreturn]] void throw_for_file(const std::string& path, const InvalidMatrix& error) {
  throw FileError(
      path, 0,
      std::string(error.what()) + " (rows/columns in the message are 0-based; add 1 for the file)");
}

// The scalar CSR arrays of a file regrouped into block_size × block_size blocks on the device:
// sorted and merged as make_matrix would, checked to be blocked, regrouped, then made a matrix
// (whose diagonal check now asks for diagonal blocks).
SparseMatrix make_blocked_matrix(const std::string& path, HostMatrixArrays arrays, int block_size) {
  const Ordinal n = arrays.num_block_rows;
  try {
    // The file's order is dropped once sorted, so at most two copies of the entries live on the
    // device at a time (sorted scalar and blocks), as for block size 1.
    detail::SortedArrays scalar = detail::sorted_unique_arrays(
        n, n, 1, detail::to_device(arrays.row_map, "fgdd::core::row_map"),
        detail::to_device(arrays.col_ind, "fgdd::core::col_ind"),
        detail::to_device(arrays.values, "fgdd::core::values"), /*arrays_may_change=*/true);
    arrays = {};
    if (const auto gap = detail::first_block_gap(n, block_size, scalar))
      throw FileError(path, 0, "the matrix is " + detail::describe_block_gap(block_size, *gap));
    const detail::SortedArrays blocks = detail::regroup_into_blocks(n, block_size, scalar);
    scalar = {};
    return make_matrix(n / block_size, n / block_size, block_size, blocks.row_map, blocks.col_ind,
                       blocks.values, /*arrays_may_change=*/true);
  } catch (const InvalidMatrix& error) {
    throw_for_file(path, error);
  }
}

}  // namespace

HostMatrixArrays read_matrix_market_arrays(const std::string& path, MatrixMarketRows rows_hold) {
  return read_scalar_arrays(path, rows_hold, 1);
}

namespace detail {

HostMatrixArrays read_matrix_market_arrays_in_chunks(const std::string& path,
                                                     std::size_t chunk_bytes,
                                                     MatrixMarketRows rows_hold) {
  return read_scalar_arrays(path, rows_hold, 1, chunk_bytes);
}

}  // namespace detail

SparseMatrix read_matrix_market(const std::string& path) {
  const HostMatrixArrays arrays = read_matrix_market_arrays(path);
  try {
    return make_matrix(arrays);
  } catch (const InvalidMatrix& error) {
    throw_for_file(path, error);
  }
}

SparseMatrix read_matrix_market(const std::string& path, int block_size) {
  if (block_size < 1)
    throw InvalidInput("read_matrix_market: block size must be at least 1, got " +
                       std::to_string(block_size) + " (for " + path + ")");
  if (block_size == 1) return read_matrix_market(path);
  return make_blocked_matrix(
      path, read_scalar_arrays(path, MatrixMarketRows::NeedDiagonal, block_size), block_size);
}

namespace detail {

void check_rows_divisible(const std::string& path, std::int64_t size_line, std::int64_t rows,
                          int block_size) {
  if (rows % block_size == 0) return;
  throw FileError(path, size_line,
                  "the size line announces " + std::to_string(rows) +
                      " rows, not a multiple of the block size " + std::to_string(block_size) +
                      " (a matrix read as " + std::to_string(block_size) + "x" +
                      std::to_string(block_size) + " blocks has whole block rows)");
}

void check_rows_fit_entries(const std::string& path, std::int64_t size_line, std::int64_t rows,
                            std::int64_t entries, bool skew) {
  // A skew-symmetric file stores no diagonal; each of its entries fills two rows.
  const std::int64_t most_rows = skew ? 2 * entries : entries;
  if (rows <= most_rows) return;
  const std::string announced = "the size line announces " + std::to_string(rows) +
                                " rows but only " + std::to_string(entries) +
                                (entries == 1 ? " entry" : " entries");
  throw FileError(path, size_line,
                  announced + (skew ? ": every row needs an entry, and an entry of a "
                                      "skew-symmetric file fills at most two rows"
                                    : ": every row needs a diagonal entry"));
}

std::optional<MatrixMarketLayout> parse_matrix_market_layout(const std::string& path,
                                                             const char* prefix, std::size_t size,
                                                             bool whole) {
  if (!whole) {
    // The prefix must hold the banner, any comment or blank lines, and the size line, whole.
    const char* end = prefix + size;
    const char* line = static_cast<const char*>(std::memchr(prefix, '\n', size));
    for (bool size_line_read = false; !size_line_read;) {
      if (line == nullptr) return std::nullopt;
      const char* start = line + 1;
      const char* q = start;
      while (q < end && is_blank(*q)) ++q;
      size_line_read = q < end && *q != '\n' && *q != '%';
      line = static_cast<const char*>(std::memchr(start, '\n', end - start));
    }
    if (line == nullptr) return std::nullopt;
  }
  Parser parser(path, prefix, size, 1);
  const Header header = parser.parse_banner(Target::SparseMatrix);
  const Sizes sizes = parser.parse_size_line(header, Target::SparseMatrix);
  return layout_of(header, sizes, parser);
}

MatrixMarketEntries parse_matrix_market_entries(const std::string& path,
                                                const MatrixMarketLayout& layout, const char* text,
                                                std::size_t size, std::int64_t first_line,
                                                std::int64_t at_most) {
  Parser parser(path, text, size, first_line);
  const Field field = field_of(layout);
  MatrixMarketEntries entries;
  std::int64_t k = 0;
  for (; k < at_most; ++k) {
    if (!parser.skip_to_data()) break;
    const auto [i, j, v] = parser.parse_entry(layout.rows, layout.rows, field, layout.skew);
    entries.rows.push_back(i);
    entries.columns.push_back(j);
    entries.values.push_back(v);
  }
  if (k == at_most) parser.expect_no_more_data(layout.entries, "entries");
  return entries;
}

MatrixMarketLineCounts count_matrix_market_lines(const char* text, std::size_t size) {
  MatrixMarketLineCounts counts;
  const char* end = text + size;
  for (const char* line = text; line < end;) {
    const char* q = line;
    while (q < end && is_blank(*q)) ++q;
    if (q < end && *q != '\n' && *q != '%') ++counts.data_lines;
    const char* eol = static_cast<const char*>(std::memchr(q, '\n', end - q));
    if (eol == nullptr) break;
    ++counts.newlines;
    line = eol + 1;
  }
  return counts;
}

bool parse_matrix_market_entries_into(const std::string& path, const MatrixMarketLayout& layout,
                                      const char* text, std::size_t size, std::int64_t first_line,
                                      std::int64_t count, Ordinal* rows, Ordinal* columns,
                                      Scalar* values) {
  Parser parser(path, text, size, first_line);
  const Field field = field_of(layout);
  for (std::int64_t k = 0; k < count; ++k) {
    if (!parser.skip_to_data()) return false;
    const auto [i, j, v] = parser.parse_entry(layout.rows, layout.rows, field, layout.skew);
    rows[k] = i;
    columns[k] = j;
    values[k] = v;
  }
  return !parser.skip_to_data();
}

}  // namespace detail

namespace {

std::vector<Scalar> read_vector(const std::string& path,
                                std::optional<std::int64_t> expected_rows) {
  const FileBuffer buffer = read_whole_file(path);
  Parser parser(path, buffer);
  const Header header = parser.parse_banner(Target::Vector);
  const Sizes sizes = parser.parse_size_line(header, Target::Vector);
  if (expected_rows && sizes.rows != *expected_rows) {
    parser.fail(sizes.line, "the size line announces a vector of length " +
                                std::to_string(sizes.rows) + "; expected length " +
                                std::to_string(*expected_rows));
  }
  if (header.format == Format::Array) {
    // Grown as values are read ("0\n" is the shortest line), never sized by the size line alone.
    std::vector<Scalar> x;
    x.reserve(reserve_for(sizes.rows, parser.bytes_left(), 2));
    for (std::int64_t k = 0; k < sizes.rows; ++k) {
      if (!parser.skip_to_data()) parser.fail_truncated(k, sizes.rows, "values");
      x.push_back(parser.parse_value(header.field));
      parser.finish_line();
    }
    if (parser.skip_to_data()) {
      parser.fail("too many values: the size line announces " + std::to_string(sizes.rows) +
                  " (extra data after the announced values)");
    }
    return x;
  }
  // A coordinate vector may leave rows out, so its length is the size line's (or the caller's).
  std::vector<Scalar> x(static_cast<std::size_t>(sizes.rows), 0.0);
  for (std::int64_t k = 0; k < sizes.entries; ++k) {
    if (!parser.skip_to_data()) parser.fail_truncated(k, sizes.entries, "entries");
    const Ordinal i = parser.parse_index("row", sizes.rows);
    parser.parse_index("column", 1);
    Scalar& sum = x[static_cast<std::size_t>(i)];
    sum += parser.parse_value(header.field);
    if (!std::isfinite(sum)) {
      parser.fail("the duplicate entries of row " + std::to_string(i + 1) +
                  " sum to a value that is not finite");
    }
    parser.finish_line();
  }
  parser.expect_no_more_data(sizes.entries, "entries");
  return x;
}

}  // namespace

std::vector<Scalar> read_matrix_market_vector(const std::string& path) {
  return read_vector(path, std::nullopt);
}

DenseArrays read_matrix_market_array(const std::string& path, std::int64_t expected_rows,
                                     std::int64_t max_columns) {
  const FileBuffer buffer = read_whole_file(path);
  Parser parser(path, buffer);
  const Header header = parser.parse_banner(Target::DenseMatrix);
  const Sizes sizes = parser.parse_size_line(header, Target::DenseMatrix);
  if (sizes.rows != expected_rows) {
    parser.fail(sizes.line, "the size line announces " + std::to_string(sizes.rows) +
                                " rows; expected " + std::to_string(expected_rows));
  }
  if (sizes.columns < 1 || sizes.columns > max_columns) {
    parser.fail(sizes.line, "the size line announces " + std::to_string(sizes.columns) +
                                " columns; expected 1 to " + std::to_string(max_columns));
  }
  DenseArrays dense;
  dense.rows = sizes.rows;
  dense.columns = sizes.columns;
  // Grown as values are read ("0\n" is the shortest line), never sized by the size line alone.
  dense.values.reserve(reserve_for(sizes.entries, parser.bytes_left(), 2));
  for (std::int64_t k = 0; k < sizes.entries; ++k) {
    if (!parser.skip_to_data()) parser.fail_truncated(k, sizes.entries, "values");
    dense.values.push_back(parser.parse_value(header.field));
    parser.finish_line();
  }
  if (parser.skip_to_data()) {
    parser.fail("too many values: the size line announces " + std::to_string(sizes.entries) +
                " (extra data after the announced values)");
  }
  return dense;
}

std::vector<Scalar> read_matrix_market_vector(const std::string& path, std::int64_t expected_rows) {
  return read_vector(path, expected_rows);
}

namespace {

template <class Integer>
char* put_integer(char* out, Integer value) {
  return std::to_chars(out, out + 24, value).ptr;
}

// Shortest text that reads back to the same double (C++17 to_chars without a format).
char* put_scalar(char* out, Scalar value) { return std::to_chars(out, out + 32, value).ptr; }

// Each line of comment as a "% " line (a line break inside it cannot end the comment early).
void write_comment_lines(OutputFile& out, const std::string& comment) {
  std::size_t begin = 0;
  while (begin < comment.size()) {
    const std::size_t end = std::min(comment.find('\n', begin), comment.size());
    out.write("% ");
    out.write(std::string_view(comment).substr(begin, end - begin));
    out.write("\n");
    begin = end + 1;
  }
}

}  // namespace

void write_matrix_market(const std::string& path, const SparseMatrix& A) {
  const auto row_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.row_map());
  const auto col_ind = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.col_ind());
  const auto values = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.values());
  const std::size_t b = static_cast<std::size_t>(A.block_size());
  const std::size_t block_rows = static_cast<std::size_t>(A.num_block_rows());

  OutputFile out(path);
  out.write("%%MatrixMarket matrix coordinate real general\n");
  out.write("% written by fgdd\n");
  char* line = out.line_start();
  line = put_integer(line, A.num_rows());
  *line++ = ' ';
  line = put_integer(line, A.num_rows());
  *line++ = ' ';
  line = put_integer(line, A.num_entries());
  *line++ = '\n';
  out.line_end(line);
  // Scalar row by scalar row, so the file lists rows in order even for BSR.
  for (std::size_t block_row = 0; block_row < block_rows; ++block_row) {
    for (std::size_t r = 0; r < b; ++r) {
      const std::size_t row = block_row * b + r + 1;
      for (Offset k = row_map(block_row); k < row_map(block_row + 1); ++k) {
        const std::size_t first_column = static_cast<std::size_t>(col_ind(k)) * b + 1;
        const Scalar* block_values = &values(k * b * b + r * b);
        for (std::size_t c = 0; c < b; ++c) {
          line = out.line_start();
          line = put_integer(line, row);
          *line++ = ' ';
          line = put_integer(line, first_column + c);
          *line++ = ' ';
          line = put_scalar(line, block_values[c]);
          *line++ = '\n';
          out.line_end(line);
        }
      }
    }
  }
  out.commit();
}

void write_matrix_market_vector(const std::string& path, const std::vector<Scalar>& x,
                                const std::string& comment) {
  OutputFile out(path);
  out.write("%%MatrixMarket matrix array real general\n");
  out.write("% written by fgdd\n");
  write_comment_lines(out, comment);
  char* line = out.line_start();
  line = put_integer(line, x.size());
  *line++ = ' ';
  *line++ = '1';
  *line++ = '\n';
  out.line_end(line);
  for (const Scalar value : x) {
    line = out.line_start();
    line = put_scalar(line, value);
    *line++ = '\n';
    out.line_end(line);
  }
  out.commit();
}

void write_matrix_market_vector(const std::string& path, const ConstVector& x,
                                const std::string& comment) {
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  write_matrix_market_vector(path, std::vector<Scalar>(host.data(), host.data() + host.extent(0)),
                             comment);
}

}  // namespace fgdd
