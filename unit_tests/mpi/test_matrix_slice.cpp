// The device steps that cut a rank's rows of A_p (mpi/matrix_slice.hpp) against a plain host
// reference: the diagonal and off-rank blocks, their source maps, the ghost numbering and the
// distinct-value sort, on random slices (CSR and BSR, rows with only ghosts, rows with only own
// columns, one row, no ghosts at all). Every rank runs the same cases on its own.
#include "catch_compat.hpp"
#include "fgdd.hpp"
#include "core/host_copy.hpp"
#include "mpi/matrix_slice.hpp"
#include "reference/dense.hpp"

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

using namespace fgdd;

namespace {

struct HostSlice {
  std::vector<Offset> row_map{0};
  std::vector<Ordinal> cols;
  std::vector<Scalar> values;
};

// rows rows of a matrix with global_cols columns; this rank owns [first, last). Each row holds
// its diagonal first + i and, with the given chances, some own and some ghost columns; the
// columns of each row sorted and distinct.
HostSlice random_slice(std::mt19937& rng, Ordinal rows, Ordinal first, Ordinal global_cols,
                       int block_size, double own_chance, double ghost_chance) {
  const Ordinal last = first + rows;
  std::uniform_real_distribution<double> coin(0, 1), value(-1, 1);
  std::uniform_int_distribution<Ordinal> column(0, global_cols - 1);
  HostSlice s;
  for (Ordinal i = 0; i < rows; ++i) {
    std::set<Ordinal> row{first + i};
    for (int t = 0; t < 6; ++t) {
      const Ordinal c = column(rng);
      const bool own = c >= first && c < last;
      if (coin(rng) < (own ? own_chance : ghost_chance)) row.insert(c);
    }
    for (const Ordinal c : row) {
      s.cols.push_back(c);
      for (int e = 0; e < block_size * block_size; ++e) s.values.push_back(value(rng));
    }
    s.row_map.push_back(s.cols.size());
  }
  return s;
}

void check_split(const HostSlice& s, Ordinal first, Ordinal last, int block_size) {
  const ExecSpace space;
  const detail::Slice slice{detail::to_device(s.row_map, "row_map"), detail::to_device(s.cols, "cols"),
                            detail::to_device(s.values, "values")};
  const detail::SplitSlice split = detail::split_columns(space, slice, first, last, block_size);
  // The reference: ghosts numbered in sorted order of their A_p column.
  std::vector<Ordinal> ghosts;
  for (const Ordinal c : s.cols)
    if (c < first || c >= last) ghosts.push_back(c);
  std::sort(ghosts.begin(), ghosts.end());
  ghosts.erase(std::unique(ghosts.begin(), ghosts.end()), ghosts.end());
  CHECK(split.off_rank.ghost_rows == ghosts);

  const auto d_rows = reference::host_vector(split.diagonal.row_map());
  const auto d_cols = reference::host_vector(split.diagonal.col_ind());
  const auto d_values = reference::host_vector(split.diagonal.values());
  const auto d_source = reference::host_vector(split.diagonal_source);
  const auto g_rows = reference::host_vector(split.off_rank.row_map);
  const auto g_cols = reference::host_vector(split.off_rank.ghost_col);
  const auto g_values = reference::host_vector(split.off_rank.values);
  const auto g_source = reference::host_vector(split.off_rank_source);
  const Ordinal n = Ordinal(s.row_map.size()) - 1;
  REQUIRE(split.diagonal.num_block_rows() == n);
  REQUIRE(d_rows.size() == std::size_t(n) + 1);
  REQUIRE(g_rows.size() == std::size_t(n) + 1);
  const Offset b2 = Offset(block_size) * block_size;
  for (Ordinal i = 0; i < n; ++i) {
    std::vector<Ordinal> own, ghost;
    std::vector<Offset> own_k, ghost_k;
    for (Offset k = s.row_map[i]; k < s.row_map[i + 1]; ++k) {
      const Ordinal c = s.cols[k];
      if (c >= first && c < last) {
        own.push_back(c - first);
        own_k.push_back(k);
      } else {
        ghost.push_back(Ordinal(std::lower_bound(ghosts.begin(), ghosts.end(), c) - ghosts.begin()));
        ghost_k.push_back(k);
      }
    }
    CAPTURE(i);
    REQUIRE(d_rows[i + 1] - d_rows[i] == own.size());
    REQUIRE(g_rows[i + 1] - g_rows[i] == ghost.size());
    for (std::size_t j = 0; j < own.size(); ++j) {
      const Offset e = d_rows[i] + j;
      CHECK(d_cols[e] == own[j]);
      CHECK(d_source[e] == own_k[j]);
      for (Offset v = 0; v < b2; ++v) CHECK(d_values[e * b2 + v] == s.values[own_k[j] * b2 + v]);
    }
    for (std::size_t j = 0; j < ghost.size(); ++j) {
      const Offset e = g_rows[i] + j;
      CHECK(g_cols[e] == ghost[j]);
      CHECK(g_source[e] == ghost_k[j]);
      for (Offset v = 0; v < b2; ++v) CHECK(g_values[e * b2 + v] == s.values[ghost_k[j] * b2 + v]);
    }
  }
}

}  // namespace

TEST_CASE("split_columns equals the host reference on random slices", "[mpi][slice]") {
  std::mt19937 rng(20261127);
  struct Case {
    const char* name;
    Ordinal rows, first, global_cols;
    int block_size;
    double own, ghost;
  };
  const Case cases[] = {
      {"CSR, both kinds", 57, 20, 150, 1, 0.5, 0.5},
      {"BSR b=3, both kinds", 23, 0, 60, 3, 0.6, 0.4},
      {"BSR b=2, rank in the middle", 31, 40, 120, 2, 0.5, 0.5},
      {"only diagonals and ghosts", 40, 100, 180, 1, 0.0, 0.9},
      {"no ghosts", 33, 7, 200, 1, 0.8, 0.0},
      {"one row", 1, 5, 9, 1, 0.5, 0.9},
      {"the whole matrix (one rank)", 45, 0, 45, 2, 0.7, 0.7},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const HostSlice s =
        random_slice(rng, c.rows, c.first, c.global_cols, c.block_size, c.own, c.ghost);
    check_split(s, c.first, c.first + c.rows, c.block_size);
  }
}

TEST_CASE("sorted_distinct gives each value once, ascending", "[mpi][slice]") {
  const ExecSpace space;
  std::mt19937 rng(7);
  for (const int size : {0, 1, 2, 17, 1000}) {
    CAPTURE(size);
    std::uniform_int_distribution<Ordinal> value(-5, size / 3 + 3);
    std::vector<Ordinal> v(size);
    for (Ordinal& e : v) e = value(rng);
    const auto device = detail::to_device(v, "v");
    const std::vector<Ordinal> distinct =
        reference::host_vector(detail::sorted_distinct(space, device, "distinct"));
    std::vector<Ordinal> expected = v;
    std::sort(expected.begin(), expected.end());
    expected.erase(std::unique(expected.begin(), expected.end()), expected.end());
    CHECK(distinct == expected);
    CHECK(reference::host_vector(device) == v);  // the input is left alone
  }
}

TEST_CASE("rows_with_entries lists the rows with an entry in either row map", "[mpi][slice]") {
  const ExecSpace space;
  std::mt19937 rng(11);
  for (const int rows : {0, 1, 9, 300}) {
    CAPTURE(rows);
    std::uniform_int_distribution<int> length(0, 3);
    std::vector<Offset> a{0}, b{0};
    std::vector<Ordinal> expected_a, expected_union;
    for (int i = 0; i < rows; ++i) {
      const int la = i % 4 == 0 ? length(rng) : 0, lb = i % 3 == 0 ? length(rng) : 0;
      a.push_back(a.back() + la);
      b.push_back(b.back() + lb);
      if (la > 0) expected_a.push_back(i);
      if (la > 0 || lb > 0) expected_union.push_back(i);
    }
    const auto device_a = detail::to_device(a, "a"), device_b = detail::to_device(b, "b");
    CHECK(reference::host_vector(detail::rows_with_entries(space, device_a)) == expected_a);
    CHECK(reference::host_vector(detail::rows_with_entries(space, device_a, device_b)) ==
          expected_union);
  }
  const auto four = detail::to_device(std::vector<Offset>{0, 1, 1, 2, 2}, "four");
  const auto two = detail::to_device(std::vector<Offset>{0, 1, 1}, "two");
  CHECK_THROWS_AS(detail::rows_with_entries(space, four, two), Error);
}

TEST_CASE("local_partition: identity order, subdomains by offsets, the caller's rows kept",
          "[mpi][slice]") {
  const ExecSpace space;
  const std::vector<Ordinal> whole = {0, 3, 3 + 4, 3 + 4 + 1, 3 + 4 + 1 + 5};
  const std::vector<Ordinal> original = {90, 91, 92, 93, 94};  // rows of subdomains 1..2
  const Partition p = detail::local_partition(space, whole, 1, 3, detail::to_device(original, "o"));
  CHECK(p.num_subdomains == 2);
  CHECK(p.host_subdomain_offsets == std::vector<Ordinal>{0, 4, 5});
  CHECK(reference::host_vector(p.perm) == std::vector<Ordinal>{0, 1, 2, 3, 4});
  CHECK(reference::host_vector(p.part_of_row) == std::vector<Ordinal>{0, 0, 0, 0, 1});
  CHECK(reference::host_vector(p.iperm) == original);
}
