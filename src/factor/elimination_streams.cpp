#include "factor/elimination_streams.hpp"

#include "core/exclusive_scan.hpp"
#include "core/find_in_row.hpp"
#include "core/huge_pages.hpp"

namespace fgdd::detail {

namespace {

// The updates L_ij brings to row i (ending at end): f(kk, target) for every entry kk of U_j whose
// column row i also holds after kj, in ascending columns.
template <class F>
KOKKOS_INLINE_FUNCTION void for_each_update(const SparseMatrix::RowMap& row_map,
                                            const SparseMatrix::ColumnIndices& col_ind,
                                            const Kokkos::View<Offset*, DeviceType>& diag,
                                            Offset kj, Offset end, F&& f) {
  const Ordinal j = col_ind(kj);
  for_each_common_column(col_ind, diag(j) + 1, row_map(j + 1), kj + 1, end, f);
}

}  // namespace

EliminationStreams build_elimination_streams(const ExecSpace& space, const SparseMatrix& factors,
                                             const Kokkos::View<Offset*, DeviceType>& diag_position,
                                             const SubdomainLevels& levels) {
  using Policy = Kokkos::RangePolicy<ExecSpace>;
  const Ordinal n = factors.num_block_rows();
  const auto row_map = factors.row_map();
  const auto col_ind = factors.col_ind();
  const auto diag = diag_position;
  const auto rows = levels.rows;
  EliminationStreams streams;
  streams.start = Kokkos::View<Offset*, DeviceType>("fgdd::factor::stream_start", n + 1);
  const auto start = streams.start;
  Kokkos::parallel_for(
      "fgdd::factor::count_stream_codes", Policy(space, 0, n), KOKKOS_LAMBDA(const Ordinal p) {
        const Ordinal i = rows(p);
        const Offset begin = row_map(i), end = row_map(i + 1);
        Offset length = 0;
        for (Offset kj = begin; kj < diag(i); ++kj) {
          const Offset base = row_map(col_ind(kj));
          Offset count = 0;
          for_each_update(row_map, col_ind, diag, kj, end, [&](Offset kk, Offset target) {
            ++count;
            length += code_length(target - begin) + code_length(kk - base);
          });
          length += code_length(count);
        }
        start(p) = length;
      });
  const Offset total = exclusive_scan_in_place(space, "fgdd::factor::stream_start_scan", start);
  streams.codes = uninitialized_view<std::uint16_t>("fgdd::factor::stream_codes", total);
  const auto codes = streams.codes;
  Kokkos::parallel_for(
      "fgdd::factor::fill_stream_codes", Policy(space, 0, n), KOKKOS_LAMBDA(const Ordinal p) {
        const Ordinal i = rows(p);
        const Offset begin = row_map(i), end = row_map(i + 1);
        std::uint16_t* at = codes.data() + start(p);
        for (Offset kj = begin; kj < diag(i); ++kj) {
          const Offset base = row_map(col_ind(kj));
          Offset count = 0;
          for_each_update(row_map, col_ind, diag, kj, end, [&](Offset, Offset) { ++count; });
          put_code(at, count);
          for_each_update(row_map, col_ind, diag, kj, end, [&](Offset kk, Offset target) {
            put_code(at, target - begin);
            put_code(at, kk - base);
          });
        }
      });
  return streams;
}

}  // namespace fgdd::detail
