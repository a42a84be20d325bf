#include "partition/chunk_coupling.hpp"

#include <cstdint>

#include "core/find_in_row.hpp"
#include "core/kokkos_compat.hpp"

namespace fgdd::detail {
namespace {

// Sums [0]: the weight of the blocks between chunks, [1]: the weight of every block, [2]: the
// rows' spans (last column − first).
struct NaturalChunkSums {
  using value_type = double[];
  using size_type = Ordinal;
  SparseMatrix::RowMap row_map;
  SparseMatrix::ColumnIndices col_ind;
  SparseMatrix::Values values;
  Ordinal n;
  std::int64_t parts;
  Offset block_entries;
  unsigned value_count = 3;  // Kokkos' array-reduction length; last, for brace init

  // Chunk c holds the rows from ceil(c·n / parts) on (natural_labeling's rule, inverted).
  KOKKOS_INLINE_FUNCTION Ordinal chunk_start(std::int64_t c) const {
    return Ordinal((c * n + parts - 1) / parts);
  }
  // Σ|values| over scalars [from, to), four partial sums: one chain of dependent adds would
  // set the pace on CPUs.
  KOKKOS_INLINE_FUNCTION double abs_sum(Offset from, Offset to) const {
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    Offset e = from;
    for (; e + 4 <= to; e += 4) {
      s0 += fabs(values(e));
      s1 += fabs(values(e + 1));
      s2 += fabs(values(e + 2));
      s3 += fabs(values(e + 3));
    }
    for (; e < to; ++e) s0 += fabs(values(e));
    return (s0 + s1) + (s2 + s3);
  }
  // Columns are sorted (a validated matrix): the blocks inside the row's chunk are one run.
  KOKKOS_INLINE_FUNCTION void operator()(const Ordinal i, value_type sums) const {
    const std::int64_t own = std::int64_t(i) * parts / n;
    const Ordinal first = chunk_start(own), last = chunk_start(own + 1);
    const Offset begin = row_map(i), end = row_map(i + 1);
    Offset inside_begin = 0, inside_end = 0;
    run_within(col_ind, begin, end, first, last, inside_begin, inside_end);
    const double between = abs_sum(begin * block_entries, inside_begin * block_entries) +
                           abs_sum(inside_end * block_entries, end * block_entries);
    sums[0] += between;
    sums[1] += between + abs_sum(inside_begin * block_entries, inside_end * block_entries);
    if (begin < end) sums[2] += double(col_ind(end - 1) - col_ind(begin));
  }
  KOKKOS_INLINE_FUNCTION void init(value_type sums) const { sums[0] = sums[1] = sums[2] = 0; }
  KOKKOS_INLINE_FUNCTION void join(value_type dst, const value_type src) const {
    for (int k = 0; k < 3; ++k) dst[k] += src[k];
  }
};

}  // namespace

NaturalChunks natural_chunks(const ExecSpace& space, const SparseMatrix& A, Ordinal parts) {
  const Ordinal n = A.num_block_rows();
  if (parts <= 1 || n == 0) return {};
  const Offset b = A.block_size();
  double sums[3] = {0, 0, 0};
  Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> result(sums, 3);
  Kokkos::parallel_reduce(
      "fgdd::partition::natural_chunks", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      NaturalChunkSums{A.row_map(), A.col_ind(), A.values(), n, parts, b * b}, result);
  space.fence();  // the host view is filled asynchronously on some backends
  NaturalChunks chunks;
  chunks.coupling = sums[1] > 0 ? sums[0] / sums[1] : 0;
  chunks.row_span = sums[2] / n / (double(n) / double(parts));
  return chunks;
}

}  // namespace fgdd::detail
