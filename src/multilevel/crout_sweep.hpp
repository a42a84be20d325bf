// The Crout sweep of one multilevel ILU level (crout_ildu.hpp): its sparse accumulator, the
// column cursors it reads L's rows and U's columns through, and the sweep itself, which either
// runs its positions in order or adopts those a sweep of an independent subtree ran.
#pragma once

#include "multilevel/crout_ildu.hpp"

#include <algorithm>
#include <cstdint>
#include <cmath>
#include <utility>
#include <vector>

namespace fgdd::detail {

using CroutEntries = std::vector<std::pair<Ordinal, Scalar>>;

// Dense values with the list of indices touched since the last clear (a sparse accumulator).
struct Accumulator {
  // A byte per index that is not a char: a char store may alias any object, so after each one
  // the compiler reloaded the sweep's array pointers inside its innermost loops.
  enum class Mark : std::uint8_t { unused, used };

  std::vector<Scalar> value;
  std::vector<Mark> used;
  std::vector<Ordinal> touched;

  explicit Accumulator(Ordinal n) : value(n, 0), used(n, Mark::unused) {}
  // Returns whether i was new.
  bool add(Ordinal i, Scalar v) {
    if (used[i] == Mark::used) {
      value[i] += v;
      return false;
    }
    used[i] = Mark::used;
    value[i] = v;
    touched.push_back(i);
    return true;
  }
  void clear() {
    for (const Ordinal i : touched) {
      used[i] = Mark::unused;
      value[i] = 0;
    }
    touched.clear();
  }
  // The touched indices for which keep(i) holds, moved to the front of touched and sorted there;
  // returns their end. Only the kept are sorted (clear() takes touched in any order): the same
  // indices in the same order as sorting all, a shorter sort where most are dropped.
  template <class Keep>
  std::vector<Ordinal>::iterator sort_kept(const Keep& keep) {
    const auto kept_end = std::partition(touched.begin(), touched.end(), keep);
    std::sort(touched.begin(), kept_end);
    return kept_end;
  }
};

// An append-only CSR read by columns (Saad's ILUC lists): once row p is complete it waits in
// the bucket of its next unread column, so column k's entries over the rows before k come out
// at step k without a second copy of the matrix by columns.
class ColumnCursor {
 public:
  explicit ColumnCursor(Ordinal n) : head_(n, -1), link_(n, -1), next_(n, 0) {}

  // Row p of M is complete; its first `read` entries were taken already (by the sweep of a
  // subtree that computed the row, ColumnCursor::read).
  void add_row(const HostCsr& M, Ordinal p, Offset read = 0) {
    next_[p] = M.ptr[p] + read;
    wait(M, p);
  }
  Offset read(const HostCsr& M, Ordinal p) const { return next_[p] - M.ptr[p]; }

  // Column k's entries (row p, value), ascending in p, into out; each row then waits for its
  // next column. Rows must hold no column below k that was not taken yet.
  void take_column(const HostCsr& M, Ordinal k, CroutEntries& out) {
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
inline Scalar estimator_entry(Scalar running_sum) {
  return (running_sum >= 0 ? Scalar(-1) : Scalar(1)) - running_sum;
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

  // room: the entries of the matrix whose factors l_col and u_row end up in (0: this one's; a
  // first subtree's arrays are taken over by its parent, CroutSweep::adopt).
  CroutSweep(const HostCsr& matrix, const CroutOptions& crout_options, Offset room = 0)
      : A(matrix),
        At(transpose(matrix)),
        options(crout_options),
        n(matrix.rows),
        d(n, 0),
        sum_l(n, 0),
        sum_u(n, 0),
        row_max(n, 0),
        accepted(n, 0),
        first_l_(n, 0),
        first_u_(n, 0),
        l_rows_(n),
        u_columns_(n),
        z_(n),
        w_(n) {
    // Room for a triangle of 3 nnz (5.1× fill in all holds 2.6 a triangle): growing one copies
    // it, and reserved pages nobody writes are never faulted in.
    const std::size_t entries = 3 * std::size_t(std::max(room, A.nnz()));
    for (HostCsr* M : {&l_col, &u_row}) {
      M->cols = n;
      M->ptr.reserve(std::size_t(n) + 1);
      M->col.reserve(entries);
      M->val.reserve(entries);
    }
    for (Ordinal i = 0; i < n; ++i)
      for (Offset k = A.ptr[i]; k < A.ptr[i + 1]; ++k)
        row_max[i] = std::max(row_max[i], std::fabs(A.val[k]));
  }

  // Positions [begin, end) in order, each accepted with its column and row or deferred; the
  // positions before begin are done (run_steps or adopt).
  void run_steps(Ordinal begin, Ordinal end, Offset& shifted) {
    for (Ordinal k = begin; k < end; ++k) {
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

  // Takes over the first `steps` positions of child, a sweep over a principal submatrix of this
  // one's matrix whose positions map here through own (child position → this one's, increasing)
  // and which shares no entry with the positions between those steps and this one's next step.
  // Those positions come next here; the first child's arrays are taken over, not copied. The
  // estimator's sums of this sweep's later rows then get the child's updates, step by step as
  // run_steps would have added them: the same bits as running the steps here.
  template <class Map>
  void adopt(CroutSweep& child, Ordinal steps, Map own) {
    const bool first = l_col.rows == 0 && steps > 0 && own(0) == 0;
    if (first)
      for (const auto& [from, to] :
           {std::pair{&child.l_col, &l_col}, std::pair{&child.u_row, &u_row}}) {
        for (Ordinal& c : from->col) c = own(c);
        from->cols = n;
        *to = std::move(*from);
      }
    // The child's rows, their columns numbered here (first) or in the child: past its steps
    // either way where they reach beyond them.
    const HostCsr& rows_l = first ? l_col : child.l_col;
    const HostCsr& rows_u = first ? u_row : child.u_row;
    const auto here = [&](Ordinal c) { return first ? c : own(c); };
    for (Ordinal k = 0; k < steps; ++k) {
      const Ordinal p = own(k);  // == l_col.rows unless first: the steps continue this sweep's
      d[p] = child.d[k];
      accepted[p] = child.accepted[k];
      sum_l[p] = child.sum_l[k];
      sum_u[p] = child.sum_u[k];
      first_l_[p] = child.first_l_[k];
      first_u_[p] = child.first_u_[k];
      if (!first)
        for (const auto& [from, to] : {std::pair{&rows_l, &l_col}, std::pair{&rows_u, &u_row}}) {
          for (Offset e = from->ptr[k]; e < from->ptr[k + 1]; ++e)
            to->push(own(from->col[e]), from->val[e]);
          to->end_row();
        }
      l_rows_.add_row(l_col, p, child.l_rows_.read(rows_l, k));
      u_columns_.add_row(u_row, p, child.u_columns_.read(rows_u, k));
    }
    for (Ordinal k = 0; k < steps; ++k) {
      const Scalar x_l = estimator_entry(child.sum_l[k]), x_u = estimator_entry(child.sum_u[k]);
      for (Offset e = rows_l.ptr[k]; e < rows_l.ptr[k + 1]; ++e)
        if (rows_l.col[e] >= steps) sum_l[here(rows_l.col[e])] += rows_l.val[e] * x_l;
      for (Offset e = rows_u.ptr[k]; e < rows_u.ptr[k + 1]; ++e)
        if (rows_u.col[e] >= steps) sum_u[here(rows_u.col[e])] += rows_u.val[e] * x_u;
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
      for (const Ordinal i : w_.touched)
        largest = std::max(largest, std::fabs(w_.value[i] / pivot));
      for (const Ordinal j : z_.touched)
        largest = std::max(largest, std::fabs(z_.value[j] / pivot));
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
    const auto kept_end =
        acc.sort_kept([&](Ordinal i) { return std::fabs(acc.value[i] / pivot) * nu > tau; });
    for (auto it = acc.touched.begin(); it != kept_end; ++it) {
      const Scalar v = acc.value[*it] / pivot;
      at_k.push(*it, v);
      sums[*it] += v * x;
    }
  }

  std::vector<Offset> first_l_, first_u_;  // per pivot: its first entry past the sweep, from
                                           // the start of its column of L (row of U)
  ColumnCursor l_rows_, u_columns_;        // L's rows out of l_col, U's columns out of u_row
  CroutEntries l_row_k_, u_col_k_;         // row k of L and column k of U at step k
  Accumulator z_, w_;                      // U's row and L's column being computed
};

}  // namespace fgdd::detail
