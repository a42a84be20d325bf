// sort_crs_rows and sort_crs_rows_on against std::sort of each row: the host path (insertion for
// short rows and for rows of up to 128 with few descents; long ones placed by key when their
// keys fill a range, else std::sort; already-sorted rows left alone), Kokkos-Kernels' device
// sort and the device path without a readback (a thread per short row, teams for long ones)
// alike.
#include "catch_compat.hpp"
#include "core/host_copy.hpp"
#include "core/kokkos_compat.hpp"
#include "core/types.hpp"

#include <algorithm>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

using namespace fgdd;

namespace {

// Rows of the given lengths: every third row already sorted, one in three reversed, one shuffled;
// value = 10 key + 1.
struct RowsCase {
  std::vector<Offset> row_map{0};
  std::vector<Ordinal> keys;
  std::vector<Offset> values;
};

// Keys of row r: 3r, 3r + 1, ... (a range); with gaps, every other one; with repeats, each key
// twice (as a scatter before its duplicates are merged); with a repeat and a gap, a range's
// length but one key twice and one missing.
enum class Keys { Range, Gaps, Repeats, RepeatAndGap };

RowsCase rows_case(const std::vector<int>& lengths, Keys keys = Keys::Range) {
  std::mt19937 rng(17);
  RowsCase c;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    std::vector<Ordinal> row(lengths[r]);
    std::iota(row.begin(), row.end(), Ordinal(3 * r));
    for (Ordinal& key : row) {
      const Ordinal i = key - Ordinal(3 * r);
      if (keys == Keys::Gaps) key += i;
      if (keys == Keys::Repeats) key -= (i + 1) / 2;
    }
    if (keys == Keys::RepeatAndGap && row.size() > 2) row[1] = row[0];
    if (r % 3 == 1) std::reverse(row.begin(), row.end());
    if (r % 3 == 2) std::shuffle(row.begin(), row.end(), rng);  // r % 3 == 0 stays sorted
    for (const Ordinal key : row) {
      c.keys.push_back(key);
      c.values.push_back(Offset(key) * 10 + 1);
    }
    c.row_map.push_back(Offset(c.keys.size()));
  }
  return c;
}

// Sorts the case on the device with sort and checks every row against std::sort.
template <class Sort>
void check_sorted_rows(const RowsCase& c, const Sort& sort) {
  auto d_row_map = detail::to_device(c.row_map, "row_map");
  auto d_keys = detail::to_device(c.keys, "keys");
  auto d_values = detail::to_device(c.values, "values");
  sort(d_row_map, d_keys, d_values);
  Kokkos::fence();
  const auto sorted_keys = detail::to_host_vector(d_keys);
  const auto sorted_values = detail::to_host_vector(d_values);
  for (std::size_t r = 0; r + 1 < c.row_map.size(); ++r) {
    CAPTURE(r, c.row_map[r + 1] - c.row_map[r]);
    std::vector<Ordinal> expected(c.keys.begin() + c.row_map[r],
                                  c.keys.begin() + c.row_map[r + 1]);
    std::sort(expected.begin(), expected.end());
    for (Offset k = c.row_map[r]; k < c.row_map[r + 1]; ++k) {
      CHECK(sorted_keys[k] == expected[k - c.row_map[r]]);
      CHECK(sorted_values[k] == Offset(sorted_keys[k]) * 10 + 1);
    }
  }
}

// Sorted rows of the given lengths with `swaps` disjoint pairs of neighbours swapped, spread
// over the row: `swaps` descents. Keys 0, 2, 4, ... (Gaps) or 0, 0, 1, 1, ... (Repeats, where a
// swapped pair may be equal and make no descent).
RowsCase nearly_sorted_case(const std::vector<std::pair<int, int>>& lengths_and_swaps, Keys keys) {
  RowsCase c;
  for (const auto& [length, swaps] : lengths_and_swaps) {
    std::vector<Ordinal> row(length);
    for (int i = 0; i < length; ++i) row[i] = keys == Keys::Repeats ? i / 2 : 2 * i;
    for (int s = 0; s < swaps; ++s) {
      const int at = int(std::int64_t(s) * length / swaps);  // at least 3 apart when swaps <= n/3
      if (at + 1 < length) std::swap(row[at], row[at + 1]);
    }
    for (const Ordinal key : row) {
      c.keys.push_back(key);
      c.values.push_back(Offset(key) * 10 + 1);
    }
    c.row_map.push_back(Offset(c.keys.size()));
  }
  return c;
}

// Lengths around the one-thread/team and short/long row switches (32), empty and one-entry rows,
// long rows.
const std::vector<int> row_lengths = {0, 1, 2, 3, 31, 32, 33, 64, 0, 5, 1000, 7, 2, 3001, 40};

}  // namespace

TEST_CASE("sort_crs_rows sorts every row by key and moves the values along", "[core]") {
  for (const Keys kind : {Keys::Range, Keys::Gaps, Keys::Repeats, Keys::RepeatAndGap}) {
    CAPTURE(int(kind));
    check_sorted_rows(rows_case(row_lengths, kind),
                      [](const auto& row_map, const auto& keys, const auto& values) {
                        detail::sort_crs_rows<ExecSpace>(row_map, keys, values);
                      });
  }
}

TEST_CASE("sort_crs_rows_on sorts every row without a readback", "[core]") {
  const RowsCase c = rows_case(row_lengths);
  check_sorted_rows(c, [](const auto& row_map, const auto& keys, const auto& values) {
    detail::sort_crs_rows_on(ExecSpace(), row_map, keys, values);
  });
#if KOKKOS_VERSION >= 40000
  // Its device path (a thread per short row, teams for long rows) on this backend too.
  check_sorted_rows(c, [](const auto& row_map, const auto& keys, const auto& values) {
    detail::sort_crs_rows_by_length(ExecSpace(), row_map, keys, values);
  });
  // Many rows: more than the teams that stride over them.
  std::vector<int> many(20000);
  for (std::size_t r = 0; r < many.size(); ++r) many[r] = r % 4001 == 0 ? 300 : int(r % 37);
  check_sorted_rows(rows_case(many), [](const auto& row_map, const auto& keys, const auto& values) {
    detail::sort_crs_rows_by_length(ExecSpace(), row_map, keys, values);
  });
#endif
}

TEST_CASE("sort_crs_rows sorts rows with few descents on both sides of the insertion rule",
          "[core]") {
  // Rows of 33 to 128 entries with at most one descent in eight take insertion, other rows
  // std::sort (or placement by key); 129 and 300 are past the insertion sort's buffer.
  std::vector<std::pair<int, int>> rows;
  for (const int length : {33, 42, 64, 100, 127, 128, 129, 300})
    for (const int swaps : {1, length / 8, length / 8 + 1, length / 4})
      rows.emplace_back(length, swaps);
  for (const Keys kind : {Keys::Gaps, Keys::Repeats}) {
    CAPTURE(int(kind));
    check_sorted_rows(nearly_sorted_case(rows, kind),
                      [](const auto& row_map, const auto& keys, const auto& values) {
                        detail::sort_crs_rows<ExecSpace>(row_map, keys, values);
                      });
  }
}
