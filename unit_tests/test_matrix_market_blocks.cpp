// Reading a Matrix Market file as BSR (read_matrix_market(path, block_size)): the blocks equal
// make_matrix's of the same blocks, symmetric files expand into whole blocks, and a pattern that
// is not blocked is refused naming its first block row and a missing entry.
#include "catch_compat.hpp"
#include "core/block_pattern.hpp"
#include "core/errors.hpp"
#include "core/host_copy.hpp"
#include "core/matrix_build.hpp"
#include "core/matrix_market.hpp"
#include "scratch_dir.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

using namespace fgdd;
using testing::ScratchDir;

namespace {

struct HostBsr {
  int block_size = 0;
  std::vector<Offset> row_map;
  std::vector<Ordinal> col_ind;
  std::vector<Scalar> values;
};

HostBsr to_host(const SparseMatrix& A) {
  const auto r = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.row_map());
  const auto c = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.col_ind());
  const auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.values());
  return {A.block_size(), std::vector<Offset>(r.data(), r.data() + r.extent(0)),
          std::vector<Ordinal>(c.data(), c.data() + c.extent(0)),
          std::vector<Scalar>(v.data(), v.data() + v.extent(0))};
}

// A random BSR matrix: the diagonal block and up to three others per block row, columns unsorted,
// values with exact zeros inside stored blocks (they stay stored entries).
HostMatrixArrays random_blocks(Ordinal block_rows, int b, std::uint32_t seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  HostMatrixArrays m;
  m.num_block_rows = m.num_block_cols = block_rows;
  m.block_size = b;
  m.row_map = {0};
  for (Ordinal i = 0; i < block_rows; ++i) {
    std::vector<Ordinal> columns = {i};
    for (int extra = 0; extra < 3; ++extra) {
      const Ordinal j = Ordinal(random() % std::uint32_t(block_rows));
      if (std::find(columns.begin(), columns.end(), j) == columns.end()) columns.push_back(j);
    }
    std::shuffle(columns.begin(), columns.end(), random);
    for (const Ordinal j : columns) {
      m.col_ind.push_back(j);
      for (int e = 0; e < b * b; ++e) m.values.push_back(random() % 5 == 0 ? 0.0 : value(random));
    }
    m.row_map.push_back(Offset(m.col_ind.size()));
  }
  return m;
}

using Entry = std::tuple<Offset, Offset, Scalar>;  // 1-based row, column; value

// The scalar entries of host BSR arrays, 1-based, zeros inside blocks included.
std::vector<Entry> scalar_entries(const HostMatrixArrays& m) {
  const Offset b = Offset(m.block_size);
  std::vector<Entry> entries;
  for (Ordinal i = 0; i < m.num_block_rows; ++i) {
    for (Offset k = m.row_map[i]; k < m.row_map[i + 1]; ++k) {
      for (Offset e = 0; e < b * b; ++e)
        entries.emplace_back(i * b + e / b + 1, m.col_ind[k] * b + e % b + 1,
                             m.values[k * b * b + e]);
    }
  }
  return entries;
}

std::string coordinate_file(const std::string& banner, Offset rows,
                            const std::vector<Entry>& entries) {
  std::ostringstream text;
  text.precision(17);
  text << "%%MatrixMarket matrix coordinate " << banner << "\n"
       << rows << " " << rows << " " << entries.size() << "\n";
  for (const auto& [i, j, v] : entries) text << i << " " << j << " " << v << "\n";
  return text.str();
}

void check_same(const SparseMatrix& got, const SparseMatrix& expected) {
  const HostBsr a = to_host(got), e = to_host(expected);
  CHECK(a.block_size == e.block_size);
  CHECK(got.num_block_rows() == expected.num_block_rows());
  CHECK(a.row_map == e.row_map);
  CHECK(a.col_ind == e.col_ind);
  CHECK(a.values == e.values);  // bitwise: the same doubles, in the same places
}

// read_matrix_market(path, b) must throw FileError at line naming every word of what.
void require_refusal(const std::string& path, int b, std::int64_t line,
                     const std::vector<std::string>& what) {
  try {
    read_matrix_market(path, b);
    FAIL("expected FileError for " << path << " read with block size " << b);
  } catch (const FileError& error) {
    INFO(error.what());
    CHECK(error.path() == path);
    CHECK(error.line() == line);
    for (const std::string& word : what)
      CHECK(std::string(error.what()).find(word) != std::string::npos);
  }
}

}  // namespace

TEST_CASE("Matrix Market read as BSR equals make_matrix of the same blocks",
          "[core][matrix_market][block_size]") {
  ScratchDir dir;
  // 5 has no fast path: the generic runtime block size.
  for (const int b : {1, 2, 3, 4, 5}) {
    for (const Ordinal block_rows : {1, 2, 9}) {
      CAPTURE(b, block_rows);
      const HostMatrixArrays blocks =
          random_blocks(block_rows, b, std::uint32_t(100 * b + block_rows));
      std::vector<Entry> entries = scalar_entries(blocks);
      // Any order in the file, and (where the size line allows one more entry) a duplicate of
      // the first entry, summed as for block size 1.
      std::shuffle(entries.begin(), entries.end(), std::mt19937(7));
      HostMatrixArrays expected = blocks;
      const Offset rows = Offset(block_rows) * Offset(b);
      if (entries.size() < rows * rows) {
        const Entry first = entries.front();
        entries.emplace_back(std::get<0>(first), std::get<1>(first), 0.5);
        const std::vector<Entry> expanded = scalar_entries(expected);  // in values' order
        const auto at = std::find(expanded.begin(), expanded.end(), first);
        expected.values[Offset(at - expanded.begin())] += 0.5;
      }
      const std::string path = dir.file("a.mtx", coordinate_file("real general", rows, entries));
      const SparseMatrix A = read_matrix_market(path, b);
      REQUIRE(A.block_size() == b);
      check_same(A, make_matrix(expected));
    }
  }
}

TEST_CASE("Matrix Market symmetric files read as BSR expand into whole blocks",
          "[core][matrix_market][block_size]") {
  ScratchDir dir;
  // A symmetric 2x2-blocked matrix of 3 block rows, of which the file stores the lower triangle:
  // half of each diagonal block, and the mirrored blocks come from the other side.
  const HostMatrixArrays blocks = [] {
    HostMatrixArrays m;
    m.num_block_rows = m.num_block_cols = 3;
    m.block_size = 2;
    // Blocks (0,0) (0,2) | (1,1) (1,2) | (2,0) (2,1) (2,2); (2,0) and (2,1) are (0,2) and (1,2)
    // transposed, and the explicit zero of (0,2) must come back from its mirror in (2,0).
    m.row_map = {0, 2, 4, 7};
    m.col_ind = {0, 2, 1, 2, 0, 1, 2};
    m.values = {4, 1, 1,   5, 0.5, -1, 0, 2, 6, -2, -2, 7,    3,    0,
                0, 3, 0.5, 0, -1,  2,  3, 0, 0, 3,  8,  0.25, 0.25, 9};
    return m;
  }();
  std::vector<Entry> lower;
  for (const Entry& entry : scalar_entries(blocks)) {
    if (std::get<0>(entry) >= std::get<1>(entry)) lower.push_back(entry);
  }
  SECTION("real symmetric") {
    const std::string path = dir.file("s.mtx", coordinate_file("real symmetric", 6, lower));
    check_same(read_matrix_market(path, 2), make_matrix(blocks));
  }
  SECTION("pattern symmetric: every stored entry is 1") {
    std::ostringstream text;
    text << "%%MatrixMarket matrix coordinate pattern symmetric\n6 6 " << lower.size() << "\n";
    for (const auto& [i, j, v] : lower) text << i << " " << j << "\n";
    HostMatrixArrays ones = blocks;
    std::fill(ones.values.begin(), ones.values.end(), 1.0);
    check_same(read_matrix_market(dir.file("p.mtx", text.str()), 2), make_matrix(ones));
  }
  SECTION("skew-symmetric: the diagonal is not stored, so no diagonal block is whole") {
    const std::string path =
        dir.file("k.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 3\n");
    require_refusal(path, 2, 0, {"not 2x2-blocked", "block row 1 (rows 1-2)", "entry (1, 1)"});
  }
}

TEST_CASE("Matrix Market read as BSR refuses a pattern that is not blocked",
          "[core][matrix_market][block_size]") {
  ScratchDir dir;
  // A 3x3-blocked 9x9 matrix: block rows 1-3 each hold the diagonal block and the next one.
  std::vector<Entry> full;
  for (Offset i = 1; i <= 9; ++i) {
    const Offset block_row = (i - 1) / 3;
    for (Offset j = 1; j <= 9; ++j) {
      const Offset block_column = (j - 1) / 3;
      if (block_column == block_row || block_column == (block_row + 1) % 3)
        full.emplace_back(i, j, i == j ? 10.0 : -1.0);
    }
  }
  const auto without = [&](Offset i, Offset j) {
    std::vector<Entry> entries;
    for (const Entry& entry : full) {
      if (std::get<0>(entry) != i || std::get<1>(entry) != j) entries.push_back(entry);
    }
    return entries;
  };
  SECTION("the whole pattern reads, and as scalar CSR too") {
    const std::string path = dir.file("full.mtx", coordinate_file("real general", 9, full));
    CHECK(read_matrix_market(path, 3).num_block_entries() == 6);
    CHECK(read_matrix_market(path, 1).num_entries() == 54);
  }
  SECTION("an off-diagonal entry missing: its block row, block and entry") {
    // Block row 2 (rows 4-6) holds block columns 2 and 3; (5, 8) is in block column 3.
    const std::string path = dir.file("m.mtx", coordinate_file("real general", 9, without(5, 8)));
    require_refusal(path, 3, 0,
                    {"the matrix is not 3x3-blocked: block row 2 (rows 4-6), block column 3 "
                     "(columns 7-9): entry (5, 8) is not stored"});
  }
  SECTION("a diagonal entry missing inside a stored diagonal block: not blocked, not a pivot") {
    const std::string path = dir.file("d.mtx", coordinate_file("real general", 9, without(9, 9)));
    require_refusal(path, 3, 0, {"block row 3 (rows 7-9), block column 3", "entry (9, 9)"});
  }
  SECTION("the first offending block row is named, not a later one") {
    std::vector<Entry> entries = without(8, 1);
    entries.erase(std::remove(entries.begin(), entries.end(), Entry{2, 5, -1.0}), entries.end());
    const std::string path = dir.file("two.mtx", coordinate_file("real general", 9, entries));
    require_refusal(path, 3, 0, {"block row 1 (rows 1-3)", "entry (2, 5)"});
  }
  SECTION("a pattern blocked for another block size") {
    const std::string path = dir.file("full.mtx", coordinate_file("real general", 9, full));
    // 9 rows: block size 2 fails at the size line, 9 at the first row's gap.
    require_refusal(path, 2, 2, {"announces 9 rows, not a multiple of the block size 2"});
    require_refusal(path, 9, 0,
                    {"not 9x9-blocked: block row 1 (rows 1-9), block column 1 (columns 1-9): "
                     "entry (1, 7) is not stored"});
    // 2x2-blocked 6x6 (tridiagonal blocks), read with block size 3: row 1 reaches column 4 only,
    // row 3 columns 4-6, so the 3x3 block (1-3, 4-6) is stored but not whole.
    std::vector<Entry> twos;
    for (Offset i = 1; i <= 6; ++i) {
      for (Offset j = 1; j <= 6; ++j) {
        const long di = long((i - 1) / 2), dj = long((j - 1) / 2);
        if (di - dj <= 1 && dj - di <= 1) twos.emplace_back(i, j, i == j ? 4.0 : -0.5);
      }
    }
    const std::string blocked_by_two =
        dir.file("two.mtx", coordinate_file("real general", 6, twos));
    CHECK(read_matrix_market(blocked_by_two, 2).num_block_entries() == 7);
    require_refusal(blocked_by_two, 3, 0,
                    {"not 3x3-blocked: block row 1 (rows 1-3), block column 2 (columns 4-6): "
                     "entry (1, 5) is not stored"});
  }
  SECTION("a blocked pattern without a diagonal block: make_matrix's error, naming the file") {
    std::vector<Entry> entries;
    for (Offset i = 1; i <= 4; ++i) {
      for (Offset j = 1; j <= 4; ++j) {
        if (i > 2 || j <= 2) entries.emplace_back(i, j, 1.0);  // block (1, 2) absent
      }
    }
    entries.erase(
        std::remove_if(entries.begin(), entries.end(),
                       [](const Entry& e) { return std::get<0>(e) > 2 && std::get<1>(e) > 2; }),
        entries.end());
    require_refusal(dir.file("nodiag.mtx", coordinate_file("real general", 4, entries)), 2, 0,
                    {"no diagonal block"});
  }
  SECTION("duplicates and out-of-range entries keep their errors") {
    const std::string path = dir.file(
        "r.mtx",
        "%%MatrixMarket matrix coordinate real general\n2 2 4\n1 1 1\n1 2 1\n2 1 1\n2 3 1\n");
    require_refusal(path, 2, 6, {"column index"});
  }
  SECTION("block size below 1") {
    const std::string path = dir.file("full.mtx", coordinate_file("real general", 9, full));
    CHECK_THROWS_AS(read_matrix_market(path, 0), InvalidInput);
  }
}

TEST_CASE("block_pattern regroups scalar rows with global columns", "[core][block_size]") {
  // Two rows of a 2x2-blocked matrix whose columns lie beyond the rows (an MPI rank's share).
  detail::SortedArrays scalar;
  const std::vector<Offset> row_map = {0, 4, 8};
  const std::vector<Ordinal> col_ind = {2, 3, 8, 9, 2, 3, 8, 9};
  const std::vector<Scalar> values = {1, 2, 3, 4, 5, 6, 7, 8};
  scalar.row_map = detail::to_device(row_map, "row_map");
  scalar.col_ind = detail::to_device(col_ind, "col_ind");
  scalar.values = detail::to_device(values, "values");
  REQUIRE_FALSE(detail::first_block_gap(2, 2, scalar));
  const detail::SortedArrays blocks = detail::regroup_into_blocks(2, 2, scalar);
  CHECK(detail::to_host_vector(blocks.row_map) == std::vector<Offset>{0, 2});
  CHECK(detail::to_host_vector(blocks.col_ind) == std::vector<Ordinal>{1, 4});
  CHECK(detail::to_host_vector(blocks.values) == std::vector<Scalar>{1, 2, 5, 6, 3, 4, 7, 8});
  // Columns 3 and 4 pair across a block boundary: not blocked, at block column 2 (columns 3-4).
  const std::vector<Ordinal> shifted = {3, 4, 8, 9, 3, 4, 8, 9};
  scalar.col_ind = detail::to_device(shifted, "col_ind");
  const auto gap = detail::first_block_gap(2, 2, scalar);
  REQUIRE(gap);
  CHECK(gap->block_row == 0);
  CHECK(gap->block_column == 1);
  CHECK(gap->row == 0);
  CHECK(gap->column == 2);
}
