#include "kron/union_pattern.hpp"

#include "core/errors.hpp"
#include "core/exclusive_scan.hpp"

#include <string>

namespace fgdd {

bool shares_pattern(const SparseMatrix& M, const SparseMatrix& L) noexcept {
  return M.num_block_rows() == L.num_block_rows() && M.block_size() == L.block_size() &&
         M.row_map().data() == L.row_map().data() && M.col_ind().data() == L.col_ind().data();
}

bool equal_patterns(const ExecSpace& space, const SparseMatrix& A, const SparseMatrix& B) {
  if (shares_pattern(A, B)) return true;
  if (A.num_block_rows() != B.num_block_rows() || A.block_size() != B.block_size() ||
      A.num_block_entries() != B.num_block_entries())
    return false;
  const auto a_rows = A.row_map();
  const auto a_cols = A.col_ind();
  const auto b_rows = B.row_map();
  const auto b_cols = B.col_ind();
  const Offset rows = a_rows.extent(0), entries = a_cols.extent(0);
  Offset differences = 0;
  Kokkos::parallel_reduce(
      "fgdd::kron::compare_patterns",
      Kokkos::RangePolicy<ExecSpace>(space, 0, rows > entries ? rows : entries),
      KOKKOS_LAMBDA(const Offset i, Offset& count) {
        if (i < rows && a_rows(i) != b_rows(i)) ++count;
        if (i < entries && a_cols(i) != b_cols(i)) ++count;
      },
      differences);
  return differences == 0;
}

SharedPatternPair on_union_pattern(const ExecSpace& space, const SparseMatrix& M,
                                   const SparseMatrix& L) {
  if (M.num_block_rows() != L.num_block_rows() || M.block_size() != L.block_size())
    throw DimensionMismatch("M has " + std::to_string(M.num_block_rows()) + " block rows of size " +
                            std::to_string(M.block_size()) + ", L " +
                            std::to_string(L.num_block_rows()) + " of size " +
                            std::to_string(L.block_size()) + "; they must match");
  if (shares_pattern(M, L)) return {M, L};
  const Ordinal n = M.num_block_rows();
  const Offset b2 = Offset(M.block_size()) * Offset(M.block_size());
  const auto m_rows = M.row_map();
  const auto m_cols = M.col_ind();
  const auto m_values = M.values();
  const auto l_rows = L.row_map();
  const auto l_cols = L.col_ind();
  const auto l_values = L.values();
  using Policy = Kokkos::RangePolicy<ExecSpace>;

  // Both column lists are sorted and unique: a two-pointer merge counts, then fills.
  Kokkos::View<Offset*, DeviceType> row_map("fgdd::kron::union_row_map", n + 1);
  Kokkos::parallel_for(
      "fgdd::kron::union_count", Policy(space, 0, n), KOKKOS_LAMBDA(const Ordinal i) {
        Offset p = m_rows(i), q = l_rows(i), count = 0;
        const Offset p_end = m_rows(i + 1), q_end = l_rows(i + 1);
        while (p < p_end || q < q_end) {
          const bool take_m = q == q_end || (p < p_end && m_cols(p) <= l_cols(q));
          const bool take_l = p == p_end || (q < q_end && l_cols(q) <= m_cols(p));
          p += take_m ? 1 : 0;
          q += take_l ? 1 : 0;
          ++count;
        }
        row_map(i) = count;
      });
  const Offset blocks =
      detail::exclusive_scan_in_place(space, "fgdd::kron::union_row_map_scan", row_map);
  SparseMatrix::ColumnIndices cols(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::kron::union_col_ind"), blocks);
  SparseMatrix::Values new_m(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::kron::union_m_values"), blocks * b2);
  SparseMatrix::Values new_l(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::kron::union_l_values"), blocks * b2);
  Kokkos::parallel_for(
      "fgdd::kron::union_fill", Policy(space, 0, n), KOKKOS_LAMBDA(const Ordinal i) {
        Offset p = m_rows(i), q = l_rows(i), out = row_map(i);
        const Offset p_end = m_rows(i + 1), q_end = l_rows(i + 1);
        while (p < p_end || q < q_end) {
          const bool take_m = q == q_end || (p < p_end && m_cols(p) <= l_cols(q));
          const bool take_l = p == p_end || (q < q_end && l_cols(q) <= m_cols(p));
          cols(out) = take_m ? m_cols(p) : l_cols(q);
          for (Offset e = 0; e < b2; ++e) {
            new_m(out * b2 + e) = take_m ? m_values(p * b2 + e) : 0.0;
            new_l(out * b2 + e) = take_l ? l_values(q * b2 + e) : 0.0;
          }
          p += take_m ? 1 : 0;
          q += take_l ? 1 : 0;
          ++out;
        }
      });
  const int b = M.block_size();
  return {SparseMatrix(SparseMatrix::ValidatedTag{}, n, b, row_map, cols, new_m),
          SparseMatrix(SparseMatrix::ValidatedTag{}, n, b, row_map, cols, new_l)};
}

SparseMatrix combine_shared(const ExecSpace& space, double alpha, const SparseMatrix& M,
                            double beta, const SparseMatrix& L) {
  if (!shares_pattern(M, L))
    throw InvalidInput("combine_shared: M and L do not share a pattern (use on_union_pattern)");
  const auto m_values = M.values();
  const auto l_values = L.values();
  SparseMatrix::Values values(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::kron::combined_values"),
      m_values.extent(0));
  Kokkos::parallel_for(
      "fgdd::kron::combine_values", Kokkos::RangePolicy<ExecSpace>(space, 0, values.extent(0)),
      KOKKOS_LAMBDA(const Offset e) { values(e) = alpha * m_values(e) + beta * l_values(e); });
  return SparseMatrix(SparseMatrix::ValidatedTag{}, M.num_block_rows(), M.block_size(), M.row_map(),
                      M.col_ind(), values);
}

}  // namespace fgdd
