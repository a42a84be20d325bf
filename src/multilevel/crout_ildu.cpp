#include "multilevel/crout_ildu.hpp"

#include "multilevel/crout_subtrees.hpp"
#include "multilevel/crout_sweep.hpp"
#include "multilevel/pending_positions.hpp"
#include "multilevel/rows_in_chunks.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace fgdd::detail {

namespace {

// A row being eliminated: its values and the positions it has yet to eliminate.
struct EliminationRow {
  Accumulator t;
  PendingPositions pending;
  explicit EliminationRow(Ordinal n) : t(n), pending(n) {}
};

// Eliminates a row (or, with L and U swapped, a column) of A against the accepted pivots in
// ascending order: t_p ← t_p / d_p, then t_j −= t_p d_p T_pj over the pivot's triangle row T_p
// (row p of triangle: U_B, or L_B transposed; its columns lie past p, so the fill comes later in
// the order). row.t holds the row's entries on B positions; the result, dropped below drop, goes
// to out.
void eliminate_against(EliminationRow& row, const HostCsr& triangle, const std::vector<Scalar>& d,
                       double drop, HostCsr& out) {
  Accumulator& t = row.t;
  for (const Ordinal i : t.touched) row.pending.insert(i);
  for (Ordinal p = row.pending.take_from(0); p >= 0; p = row.pending.take_from(p + 1)) {
    const Scalar factor = t.value[p] / d[p];
    if (!(std::fabs(factor) > drop)) continue;
    out.push(p, factor);
    const Scalar scaled = factor * d[p];
    for (Offset e = triangle.ptr[p]; e < triangle.ptr[p + 1]; ++e)
      if (t.add(triangle.col[e], -scaled * triangle.val[e])) row.pending.insert(triangle.col[e]);
  }
  out.end_row();
  t.clear();
}

// The leading block in B numbering: out.L, out.d and out.U (an accepted row's L entries all lie
// in accepted columns; its U entries may not).
void leading_block(const CroutSweep& sweep, const std::vector<Ordinal>& position,
                   CroutFactors& out) {
  const Ordinal nb = Ordinal(out.accepted.size());
  out.L.cols = out.U.cols = nb;
  out.d.resize(nb);
  const HostCsr l_rows = transpose(sweep.l_col);  // rows of L, ascending columns
  Offset l_entries = 0, u_entries = 0;
  for (const Ordinal k : out.accepted) {
    l_entries += l_rows.ptr[k + 1] - l_rows.ptr[k];
    u_entries += sweep.u_row.ptr[k + 1] - sweep.u_row.ptr[k];
  }
  for (HostCsr* M : {&out.L, &out.U}) M->ptr.reserve(std::size_t(nb) + 1);
  out.L.col.reserve(l_entries);
  out.L.val.reserve(l_entries);
  out.U.col.reserve(u_entries);
  out.U.val.reserve(u_entries);
  for (Ordinal q = 0; q < nb; ++q) {
    const Ordinal k = out.accepted[q];
    out.d[q] = sweep.d[k];
    for (Offset e = l_rows.ptr[k]; e < l_rows.ptr[k + 1]; ++e)
      out.L.push(position[l_rows.col[e]], l_rows.val[e]);  // columns p < k, accepted
    out.L.end_row();
    const HostCsr& u = sweep.u_row;
    for (Offset e = u.ptr[k]; e < u.ptr[k + 1]; ++e)
      if (sweep.accepted[u.col[e]]) out.U.push(position[u.col[e]], u.val[e]);
    out.U.end_row();
  }
}

// L_C = A_CB (D_B U_B)⁻¹ row by row against U_B's rows; U_F = (L_B D_B)⁻¹ A_BC column by column
// against L_B's columns (the rows of L_Bᵀ, ascending as the sweep's columns of L were).
void couplings(const CroutSweep& sweep, const std::vector<Ordinal>& position, CroutFactors& out) {
  const Ordinal nb = Ordinal(out.accepted.size()), nc = Ordinal(out.deferred.size());
  const double tau = sweep.options.drop_tolerance;
  const auto scratch = [nb] { return EliminationRow(std::max(nb, Ordinal(1))); };
  // Row r of C in M (A for L_C's rows, Aᵀ for U_F's columns) on the accepted positions, in B
  // numbering, eliminated against triangle into out.
  const auto eliminate_row = [&](const HostCsr& M, const HostCsr& triangle) {
    return [&, &M = M, &triangle = triangle](Ordinal r, EliminationRow& row, HostCsr& into) {
      const Ordinal i = out.deferred[r];
      for (Offset e = M.ptr[i]; e < M.ptr[i + 1]; ++e)
        if (sweep.accepted[M.col[e]]) row.t.add(position[M.col[e]], M.val[e]);
      eliminate_against(row, triangle, out.d, tau, into);
    };
  };
  out.LC = rows_in_chunks(nc, nb, scratch, eliminate_row(sweep.A, out.U));
  const HostCsr l_b_columns = transpose(out.L);
  // U_Fᵀ: |C|×|B|
  out.UF = transpose(rows_in_chunks(nc, nb, scratch, eliminate_row(sweep.At, l_b_columns)));
}

// S_C = A_CC − L_C D_B U_F, entries below schur_drop of their row's largest dropped, the
// diagonal always kept.
void schur_complement(const CroutSweep& sweep, const std::vector<Ordinal>& position,
                      CroutFactors& out) {
  const Ordinal nc = Ordinal(out.deferred.size());
  const HostCsr& A = sweep.A;
  const auto schur_row = [&](Ordinal r, Accumulator& s, HostCsr& S) {
    const Ordinal i = out.deferred[r];
    s.add(r, 0);
    for (Offset e = A.ptr[i]; e < A.ptr[i + 1]; ++e)
      if (!sweep.accepted[A.col[e]]) s.add(position[A.col[e]], A.val[e]);
    for (Offset e = out.LC.ptr[r]; e < out.LC.ptr[r + 1]; ++e) {
      const Ordinal p = out.LC.col[e];
      const Scalar f = out.LC.val[e] * out.d[p];
      for (Offset q = out.UF.ptr[p]; q < out.UF.ptr[p + 1]; ++q)
        s.add(out.UF.col[q], -f * out.UF.val[q]);
    }
    Scalar largest = 0;
    for (const Ordinal j : s.touched) largest = std::max(largest, std::fabs(s.value[j]));
    const auto kept_end = s.sort_kept([&](Ordinal j) {
      return j == r || std::fabs(s.value[j]) > sweep.options.schur_drop * largest;
    });
    for (auto it = s.touched.begin(); it != kept_end; ++it) S.push(*it, s.value[*it]);
    S.end_row();
    s.clear();
  };
  out.S = rows_in_chunks(
      nc, nc, [nc] { return Accumulator(std::max(nc, Ordinal(1))); }, schur_row);
}

}  // namespace

CroutFactors crout_ildu(const HostCsr& A, const CroutOptions& options) {
  CroutFactors out;
  CroutSweep sweep(A, options);
  out.shifted = sweep_by_subtrees(sweep);
  // B and C numberings.
  std::vector<Ordinal> position(A.rows);
  for (Ordinal k = 0; k < A.rows; ++k) {
    std::vector<Ordinal>& set = sweep.accepted[k] ? out.accepted : out.deferred;
    position[k] = Ordinal(set.size());
    set.push_back(k);
  }
  leading_block(sweep, position, out);
  couplings(sweep, position, out);
  schur_complement(sweep, position, out);
  return out;
}

}  // namespace fgdd::detail
