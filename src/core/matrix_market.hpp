// Matrix Market (.mtx) reading and writing: coordinate matrices into validated SparseMatrix
// objects, and n×1 vectors (right-hand sides, solutions). Host-only file I/O.
#pragma once

#include "core/matrix_build.hpp"
#include "core/sparse_matrix.hpp"
#include "core/types.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fgdd {

// What every row of a matrix being read must hold. It bounds how many rows a file may announce
// for its entries, so that memory stays in proportion to the file.
enum class MatrixMarketRows {
  NeedDiagonal,  // make_matrix's rule: at most as many rows as entries (twice as many for a
                 // skew-symmetric file, whose entries each fill two rows)
  MayBeEmpty,    // no bound: the caller accepts memory in proportion to the rows announced
};

// Reads `%%MatrixMarket matrix coordinate real|integer|pattern general|symmetric|skew-symmetric`
// into host CSR arrays (block_size 1, 0-based columns). The banner is case-insensitive; comment
// (%) and blank lines may appear anywhere after it, and CRLF line endings are accepted.
// Symmetric and skew-symmetric files are expanded: every off-diagonal entry (i, j) is mirrored
// to (j, i), negated for skew-symmetric. Pattern entries get the value 1. Within a row, entries
// keep their file order; duplicates are kept (make_matrix sums them).
// Where the host execution space has more than one thread, the data lines are parsed in chunks
// at once (the same arrays and errors as one pass).
// Memory is in proportion to the file: entries are stored as they are read, and one counter per
// row is allocated only once the entries are read and, unless rows_hold is MayBeEmpty, there are
// enough of them for the rows (check_rows_fit_entries).
// Throws FileError naming the path and the 1-based line (0 when the file cannot be opened or is
// not a regular file) for every malformed or unsupported input: banner (a UTF-8 byte-order mark,
// CR-only line endings), size line, non-square matrix, more rows than the entries can fill,
// index out of range, bad or non-finite number ("+-4" included), truncated data or data after
// the announced entries. Text quoted from the file has control and non-UTF-8 bytes as \xNN.
HostMatrixArrays read_matrix_market_arrays(
    const std::string& path, MatrixMarketRows rows_hold = MatrixMarketRows::NeedDiagonal);

// read_matrix_market_arrays followed by make_matrix. An InvalidMatrix from make_matrix (e.g. a
// row without a diagonal entry) is rethrown as FileError(path, 0, ...) so the file is named.
SparseMatrix read_matrix_market(const std::string& path);

// The same file read as BSR with block_size × block_size blocks (block_size 1: the above). The
// pattern must be blocked: rows divisible by block_size, and every block holding a stored entry
// stored in full (explicit zeros count). Values, duplicates (summed), symmetric expansion and
// the file checks are read_matrix_market's; the scalar arrays are regrouped on the device in
// one pass after make_matrix's sort (core/block_pattern.hpp), so memory stays in proportion to
// the file. Throws InvalidInput for block_size < 1; FileError naming the size line when its rows
// are not a multiple of block_size; FileError(path, 0, ...) naming the first block row that is
// not blocked, its block column and a missing entry, numbered from 1 as in the file ("... is not
// 3x3-blocked: block row 18 (rows 52-54), block column 4 (columns 10-12): entry (53, 12) is not
// stored"); and, after that, make_matrix's errors as above (a block row without its diagonal
// block).
SparseMatrix read_matrix_market(const std::string& path, int block_size);

// Reads an n×1 vector: `matrix array real|integer general` (one value per line), or
// `matrix coordinate real|integer general` with one column (absent entries are 0, duplicates
// are summed and must stay finite). Throws FileError as read_matrix_market_arrays does.
// An array file's memory is in proportion to the file; a coordinate file's to the n its size
// line announces, so for a file you did not write pass the length you expect:
std::vector<Scalar> read_matrix_market_vector(const std::string& path);

// The same, but a size line announcing other than expected_rows rows is a FileError naming that
// line ("...length n; expected length expected_rows"), thrown before anything is allocated.
std::vector<Scalar> read_matrix_market_vector(const std::string& path, std::int64_t expected_rows);

// A dense matrix as a Matrix Market array file stores it: column by column, so value (i, j)
// is values[i + j * rows].
struct DenseArrays {
  std::int64_t rows = 0, columns = 0;
  std::vector<Scalar> values;
};

// Reads `matrix array real|integer general`: the size line `rows columns`, then rows × columns
// values one per line, column by column. A size line announcing other than expected_rows rows,
// or columns outside 1..max_columns, is a FileError naming that line, thrown before anything is
// allocated; memory then grows with the values read, in proportion to the file. Throws
// FileError naming the path and line as read_matrix_market_vector does (banner, bad or
// non-finite number, truncated data, extra data).
DenseArrays read_matrix_market_array(const std::string& path, std::int64_t expected_rows,
                                     std::int64_t max_columns);

// Writes A as `coordinate real general` with 1-based indices, one line per stored scalar entry:
// BSR blocks are expanded, zeros inside stored blocks included, so the pattern survives a round
// trip. Values use the shortest form that reads back to the same double. Written through
// OutputFile (core/output_file.hpp): path holds the whole new file or keeps its old one, and
// no temporary file or followed symlink is left behind.
// Throws FileError(path, 0, reason) when the file cannot be written.
void write_matrix_market(const std::string& path, const SparseMatrix& A);

// Writes x as `array real general`, n×1, with the same precision and guarantees. Each line of
// comment (if any) becomes a `%` line after the banner. Non-finite values are written as
// to_chars spells them (nan, inf), which the reader rejects.
void write_matrix_market_vector(const std::string& path, const std::vector<Scalar>& x,
                                const std::string& comment = {});

// The same for a device vector (copied to the host first).
void write_matrix_market_vector(const std::string& path, const ConstVector& x,
                                const std::string& comment = {});

namespace detail {

// Throws FileError(path, size_line, ...) unless block_size divides rows: a matrix read as BSR
// has whole block rows.
void check_rows_divisible(const std::string& path, std::int64_t size_line, std::int64_t rows,
                          int block_size);

// What a reader of part of a coordinate matrix file needs from its banner and size line.
struct MatrixMarketLayout {
  std::int64_t rows = 0, entries = 0;
  bool mirror = false, skew = false;  // symmetric or skew-symmetric: (i, j) stands for (j, i) too
  bool pattern = false, integer = false;
  std::size_t data_offset = 0;  // the byte after the size line
  std::int64_t data_line = 0;   // the line there
  std::int64_t size_line = 0;
};

// Throws FileError(path, size_line, reason) when the size line announces more rows than
// `entries` entries can fill: every row needs a diagonal entry (make_matrix requires it, and
// symmetric files store it), and a skew-symmetric file's entry fills at most two rows. Readers
// call it before allocating anything per row.
void check_rows_fit_entries(const std::string& path, std::int64_t size_line, std::int64_t rows,
                            std::int64_t entries, bool skew);

// The layout of the file at path from its first size bytes (prefix[size] == '\0'); whole: the
// prefix is the whole file. nullopt when the prefix ends before the size line does. Throws
// FileError as read_matrix_market_arrays, for square coordinate matrices only.
std::optional<MatrixMarketLayout> parse_matrix_market_layout(const std::string& path,
                                                             const char* prefix, std::size_t size,
                                                             bool whole);

// A coordinate file's entries in file order, 0-based.
struct MatrixMarketEntries {
  std::vector<Ordinal> rows, columns;
  std::vector<Scalar> values;
};

// The entries of whole data lines [text, text + size) (text[size] == '\0'), the first of
// which is line first_line of the file: at most at_most of them, and then any further entry is
// a FileError ("extra data"). Throws FileError naming the line for a bad entry.
MatrixMarketEntries parse_matrix_market_entries(const std::string& path,
                                                const MatrixMarketLayout& layout, const char* text,
                                                std::size_t size, std::int64_t first_line,
                                                std::int64_t at_most);

// The line feeds and the data lines (neither blank nor a % comment: the lines that hold entries)
// of [text, text + size).
struct MatrixMarketLineCounts {
  std::int64_t newlines = 0, data_lines = 0;
};
MatrixMarketLineCounts count_matrix_market_lines(const char* text, std::size_t size);

// The entries of whole data lines [text, text + size) (text[size] == '\0'), the first of which
// is line first_line of the file, into rows, columns and values at [0, count). False when the
// lines hold other than count entries; throws FileError naming the line for a bad entry.
bool parse_matrix_market_entries_into(const std::string& path, const MatrixMarketLayout& layout,
                                      const char* text, std::size_t size, std::int64_t first_line,
                                      std::int64_t count, Ordinal* rows, Ordinal* columns,
                                      Scalar* values);

// read_matrix_market_arrays with the data lines parsed in chunks of about chunk_bytes at once
// on the host execution space (core/matrix_market_chunks.hpp); chunk_bytes 0: the default
// (read_matrix_market_arrays'). The same arrays and the same errors for every chunk size.
HostMatrixArrays read_matrix_market_arrays_in_chunks(
    const std::string& path, std::size_t chunk_bytes,
    MatrixMarketRows rows_hold = MatrixMarketRows::NeedDiagonal);

}  // namespace detail
}  // namespace fgdd
