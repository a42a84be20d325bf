// sort_crs_rows against std::sort of each row: the host path (insertion for short rows, heapsort
// for long ones, already-sorted rows left alone) and Kokkos-Kernels' device sort alike.
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

TEST_CASE("sort_crs_rows sorts every row by key and moves the values along", "[core]") {
  // Lengths around the insertion/heapsort switch (32), empty and one-entry rows, a long row;
  // keys distinct within a row, as column indices are.
  const std::vector<int> lengths = {0, 1, 2, 3, 31, 32, 33, 64, 0, 5, 1000, 7, 2};
  std::mt19937 rng(17);
  std::vector<Offset> row_map = {0};
  std::vector<Ordinal> keys;
  std::vector<Offset> values;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    std::vector<Ordinal> row(lengths[r]);
    std::iota(row.begin(), row.end(), Ordinal(3 * r));
    if (r % 3 == 1) std::reverse(row.begin(), row.end());
    if (r % 3 == 2) std::shuffle(row.begin(), row.end(), rng);  // r % 3 == 0 stays sorted
    for (const Ordinal key : row) {
      keys.push_back(key);
      values.push_back(Offset(key) * 10 + 1);
    }
    row_map.push_back(Offset(keys.size()));
  }
  auto d_row_map = detail::to_device(row_map, "row_map");
  auto d_keys = detail::to_device(keys, "keys");
  auto d_values = detail::to_device(values, "values");
  detail::sort_crs_rows<ExecSpace>(d_row_map, d_keys, d_values);
  const auto sorted_keys = detail::to_host_vector(d_keys);
  const auto sorted_values = detail::to_host_vector(d_values);
  for (std::size_t r = 0; r + 1 < row_map.size(); ++r) {
    CAPTURE(r, lengths[r]);
    std::vector<Ordinal> expected(keys.begin() + row_map[r], keys.begin() + row_map[r + 1]);
    std::sort(expected.begin(), expected.end());
    for (Offset k = row_map[r]; k < row_map[r + 1]; ++k) {
      CHECK(sorted_keys[k] == expected[k - row_map[r]]);
      CHECK(sorted_values[k] == Offset(sorted_keys[k]) * 10 + 1);
    }
  }
}
