#include "multilevel/crout_ildu.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>
#include <utility>

namespace fgdd::detail {

namespace {

using Entries = std::vector<std::pair<Ordinal, Scalar>>;

// Dense values with the list of indices touched since the last clear (a sparse accumulator).
struct Accumulator {
  std::vector<Scalar> value;
  std::vector<char> used;
  std::vector<Ordinal> touched;

  explicit Accumulator(Ordinal n) : value(n, 0), used(n, 0) {}
  // Returns whether i was new.
  bool add(Ordinal i, Scalar v) {
    if (used[i]) {
      value[i] += v;
      return false;
    }
    used[i] = 1;
    value[i] = v;
    touched.push_back(i);
    return true;
  }
  void clear() {
    for (const Ordinal i : touched) {
      used[i] = 0;
      value[i] = 0;
    }
    touched.clear();
  }
};

// An append-only CSR read by columns (Saad's ILUC lists): once row p is complete it waits in
// the bucket of its next unread column, so column k's entries over the rows before k come out
// at step k without a second copy of the matrix by columns.
class ColumnCursor {
 public:
  explicit ColumnCursor(Ordinal n) : head_(n, -1), link_(n, -1), next_(n, 0) {}

  // Row p of M is complete.
  void add_row(const HostCsr& M, Ordinal p) {
    next_[p] = M.ptr[p];
    wait(M, p);
  }

  // Column k's entries (row p, value), ascending in p, into out; each row then waits for its
  // next column. Rows must hold no column below k that was not taken yet.
  void take_column(const HostCsr& M, Ordinal k, Entries& out) {
    out.clear();
    for (Ordinal p = head_[k]; p >= 0; p = link_[p]) out.emplace_back(p, M.val[next_[p]]);
    head_[k] = -1;
    std::sort(out.begin(), out.end());
    for (const auto& entry : out) {
      ++next_[entry.first];
      wait(M, entry.first);
    }
  }

 private:
  void wait(const HostCsr& M, Ordinal p) {
    if (next_[p] == M.ptr[p + 1]) return;
    const Ordinal column = M.col[next_[p]];
    link_[p] = head_[column];
    head_[column] = p;
  }

  std::vector<Ordinal> head_;  // per column: the first row waiting for it, or -1
  std::vector<Ordinal> link_;  // per row: the next row waiting for the same column
  std::vector<Offset> next_;   // per row: its next unread entry
};

// The greedy right-hand side of the estimator: b_k = ∓1 against the running sum s_k, so that
// |x_k| = |b_k − s_k| = 1 + |s_k|.
Scalar estimator_entry(Scalar running_sum) {
  return (running_sum >= 0 ? Scalar(-1) : Scalar(1)) - running_sum;
}

// Eliminates a row (or, with L and U swapped, a column) of A against the accepted pivots in
// ascending order: t_p ← t_p / d_p, then t_j −= t_p d_p T_pj over the pivot's triangle row T_p
// (row p of triangle: U_B, or L_B transposed). t holds the row's entries on B positions; the
// result, dropped below drop, goes to out.
void eliminate_against(Accumulator& t, const HostCsr& triangle, const std::vector<Scalar>& d,
                       double drop, HostCsr& out) {
  std::priority_queue<Ordinal, std::vector<Ordinal>, std::greater<Ordinal>> order(
      std::greater<Ordinal>(), std::vector<Ordinal>(t.touched.begin(), t.touched.end()));
  while (!order.empty()) {
    const Ordinal p = order.top();
    order.pop();
    const Scalar factor = t.value[p] / d[p];
    if (!(std::fabs(factor) > drop)) continue;
    out.push(p, factor);
    const Scalar scaled = factor * d[p];
    for (Offset e = triangle.ptr[p]; e < triangle.ptr[p + 1]; ++e)
      if (t.add(triangle.col[e], -scaled * triangle.val[e])) order.push(triangle.col[e]);
  }
  out.end_row();
  t.clear();
}

// The Crout sweep over A's positions in order (Li, Saad and Chow's Crout ILU with Bollhöfer's
// estimator): L by columns and rows, U by rows and columns, all in A's positions; a deferred
// position gets no column or row. The members are what the later steps read.
struct CroutSweep {
  const HostCsr& A;
  const HostCsr At;
  const CroutOptions& options;
  const Ordinal n;
  // L by columns and U by rows, one "row" per position appended as the sweep passes it (empty
  // for a deferred position); the sweep reads L by rows and U by columns through cursors.
  HostCsr l_col, u_row;
  std::vector<Scalar> d;
  std::vector<Scalar> sum_l, sum_u;  // the estimator's running sums, per row of L⁻¹ / U⁻¹
  std::vector<Scalar> row_max;
  std::vector<char> accepted;

  CroutSweep(const HostCsr& matrix, const CroutOptions& crout_options)
      : A(matrix), At(transpose(matrix)), options(crout_options), n(matrix.rows), d(n, 0),
        sum_l(n, 0), sum_u(n, 0), row_max(n, 0), accepted(n, 0), first_l_(n, 0),
        first_u_(n, 0), l_rows_(n), u_columns_(n), z_(n), w_(n) {
    // Room for a triangle of 3 nnz(A) (5.1× fill in all holds 2.6 a triangle): growing one
    // copies it, and reserved pages nobody writes are never faulted in.
    for (HostCsr* M : {&l_col, &u_row}) {
      M->cols = n;
      M->ptr.reserve(std::size_t(n) + 1);
      M->col.reserve(3 * std::size_t(A.nnz()));
      M->val.reserve(3 * std::size_t(A.nnz()));
    }
    for (Ordinal i = 0; i < n; ++i)
      for (Offset k = A.ptr[i]; k < A.ptr[i + 1]; ++k)
        row_max[i] = std::max(row_max[i], std::fabs(A.val[k]));
  }

  // Every position in order: accepted with its column and row, or deferred.
  void run(Offset& shifted) {
    for (Ordinal k = 0; k < n; ++k) {
      Scalar pivot = row_and_column(k);
      if (acceptable(k, pivot, shifted)) keep(k, pivot);
      l_col.end_row();
      u_row.end_row();
      l_rows_.add_row(l_col, k);
      u_columns_.add_row(u_row, k);
      z_.clear();
      w_.clear();
    }
  }

 private:
  // Row k of U (columns > k) into z, column k of L (rows > k) into w, unscaled; returns the
  // pivot: A_k − Σ_p L_kp d_p U_p and A_{:,k} − Σ_p L_{:,p} d_p U_pk over accepted p < k.
  Scalar row_and_column(Ordinal k) {
    Scalar pivot = 0;
    for (Offset e = A.ptr[k]; e < A.ptr[k + 1]; ++e) {
      if (A.col[e] == k) pivot += A.val[e];
      if (A.col[e] > k) z_.add(A.col[e], A.val[e]);
    }
    l_rows_.take_column(l_col, k, l_row_k_);  // row k of L
    for (const auto& [p, l] : l_row_k_) {
      const Scalar f = l * d[p];
      const Offset begin = u_row.ptr[p], end = u_row.ptr[p + 1];
      Offset& first = first_u_[p];
      while (begin + first < end && u_row.col[begin + first] < k) ++first;
      for (Offset q = begin + first; q < end; ++q) {
        if (u_row.col[q] == k)
          pivot -= f * u_row.val[q];
        else
          z_.add(u_row.col[q], -f * u_row.val[q]);
      }
    }
    for (Offset e = At.ptr[k]; e < At.ptr[k + 1]; ++e)
      if (At.col[e] > k) w_.add(At.col[e], At.val[e]);
    u_columns_.take_column(u_row, k, u_col_k_);  // column k of U
    for (const auto& [p, u] : u_col_k_) {
      const Scalar f = u * d[p];
      const Offset begin = l_col.ptr[p], end = l_col.ptr[p + 1];
      Offset& first = first_l_[p];
      while (begin + first < end && l_col.col[begin + first] <= k) ++first;
      for (Offset q = begin + first; q < end; ++q) w_.add(l_col.col[q], -f * l_col.val[q]);
    }
    return pivot;
  }

  // Accept while both inverse estimates, and the new column and row, stay within κ; with
  // accept_all, always (a tiny pivot shifted to ±τ‖row‖∞ and counted).
  bool acceptable(Ordinal k, Scalar& pivot, Offset& shifted) const {
    const double kappa = options.inverse_bound;
    const bool tiny = !(std::fabs(pivot) > 1e-12 * row_max[k]);
    Scalar largest = 0;
    if (!tiny) {
      for (const Ordinal i : w_.touched) largest = std::max(largest, std::fabs(w_.value[i] / pivot));
      for (const Ordinal j : z_.touched) largest = std::max(largest, std::fabs(z_.value[j] / pivot));
    }
    if (!tiny && 1 + std::fabs(sum_l[k]) <= kappa && 1 + std::fabs(sum_u[k]) <= kappa &&
        largest <= kappa)
      return true;
    if (!options.accept_all) return false;
    if (tiny) {
      const Scalar magnitude =
          std::max(Scalar(options.drop_tolerance) * row_max[k], Scalar(1e-300));
      pivot = pivot < 0 ? -magnitude : magnitude;
      ++shifted;
    }
    return true;
  }

  // Position k accepted: L's column and U's row scaled by the pivot, entries below τ over the
  // estimate of their row of L⁻¹ (U⁻¹) dropped, and the estimator's sums updated.
  void keep(Ordinal k, Scalar pivot) {
    accepted[k] = 1;
    d[k] = pivot;
    store_scaled(k, pivot, w_, l_col, sum_l);
    store_scaled(k, pivot, z_, u_row, sum_u);
  }

  // One triangle's part of keep: acc's entries (L's column k in w, U's row k in z) over the
  // pivot, each kept one appended to k's row of at_k, and the estimator's running sums of that
  // triangle's inverse updated.
  void store_scaled(Ordinal k, Scalar pivot, Accumulator& acc, HostCsr& at_k,
                    std::vector<Scalar>& sums) {
    const double tau = options.drop_tolerance;
    const Scalar nu = 1 + std::fabs(sums[k]), x = estimator_entry(sums[k]);
    std::sort(acc.touched.begin(), acc.touched.end());
    for (const Ordinal i : acc.touched) {
      const Scalar v = acc.value[i] / pivot;
      if (!(std::fabs(v) * nu > tau)) continue;
      at_k.push(i, v);
      sums[i] += v * x;
    }
  }

  std::vector<Offset> first_l_, first_u_;  // per pivot: its first entry past the sweep, from
                                           // the start of its column of L (row of U)
  ColumnCursor l_rows_, u_columns_;        // L's rows out of l_col, U's columns out of u_row
  Entries l_row_k_, u_col_k_;              // row k of L and column k of U at step k
  Accumulator z_, w_;                      // U's row and L's column being computed
};

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
  const Ordinal nb = Ordinal(out.accepted.size());
  const double tau = sweep.options.drop_tolerance;
  Accumulator t(std::max(nb, Ordinal(1)));
  // Row i of M (A for L_C's rows, Aᵀ for U_F's columns) on the accepted positions, in B
  // numbering, eliminated against triangle into out.
  const auto eliminate_row = [&](const HostCsr& M, Ordinal i, const HostCsr& triangle,
                                 HostCsr& into) {
    for (Offset e = M.ptr[i]; e < M.ptr[i + 1]; ++e)
      if (sweep.accepted[M.col[e]]) t.add(position[M.col[e]], M.val[e]);
    eliminate_against(t, triangle, out.d, tau, into);
  };
  out.LC.cols = nb;
  for (const Ordinal i : out.deferred) eliminate_row(sweep.A, i, out.U, out.LC);
  const HostCsr l_b_columns = transpose(out.L);
  HostCsr uf_columns;  // U_Fᵀ: |C|×|B|
  uf_columns.cols = nb;
  for (const Ordinal j : out.deferred) eliminate_row(sweep.At, j, l_b_columns, uf_columns);
  out.UF = transpose(uf_columns);
}

// S_C = A_CC − L_C D_B U_F, entries below schur_drop of their row's largest dropped, the
// diagonal always kept.
void schur_complement(const CroutSweep& sweep, const std::vector<Ordinal>& position,
                      CroutFactors& out) {
  const Ordinal nc = Ordinal(out.deferred.size());
  const HostCsr& A = sweep.A;
  Accumulator s(std::max(nc, Ordinal(1)));
  out.S.cols = nc;
  for (Ordinal r = 0; r < nc; ++r) {
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
    std::sort(s.touched.begin(), s.touched.end());
    for (const Ordinal j : s.touched)
      if (j == r || std::fabs(s.value[j]) > sweep.options.schur_drop * largest)
        out.S.push(j, s.value[j]);
    out.S.end_row();
    s.clear();
  }
}

}  // namespace

CroutFactors crout_ildu(const HostCsr& A, const CroutOptions& options) {
  CroutFactors out;
  CroutSweep sweep(A, options);
  sweep.run(out.shifted);
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
