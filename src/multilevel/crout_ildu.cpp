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

// The greedy right-hand side of the estimator: b_k = ∓1 against the running sum s_k, so that
// |x_k| = |b_k − s_k| = 1 + |s_k|.
Scalar estimator_entry(Scalar running_sum) {
  return (running_sum >= 0 ? Scalar(-1) : Scalar(1)) - running_sum;
}

// Eliminates a row (or, with L and U swapped, a column) of A against the accepted pivots in
// ascending order: t_p ← t_p / d_p, then t_j −= t_p d_p T_pj over the pivot's triangle row T_p.
// t holds the row's entries on B positions; the result, dropped below drop, goes to out.
void eliminate_against(Accumulator& t, const std::vector<Entries>& triangle,
                       const std::vector<Scalar>& d, double drop, HostCsr& out) {
  std::priority_queue<Ordinal, std::vector<Ordinal>, std::greater<Ordinal>> order(
      std::greater<Ordinal>(), std::vector<Ordinal>(t.touched.begin(), t.touched.end()));
  while (!order.empty()) {
    const Ordinal p = order.top();
    order.pop();
    const Scalar factor = t.value[p] / d[p];
    if (!(std::fabs(factor) > drop)) continue;
    out.push(p, factor);
    const Scalar scaled = factor * d[p];
    for (const auto& [j, v] : triangle[p])
      if (t.add(j, -scaled * v)) order.push(j);
  }
  out.end_row();
  t.clear();
}

}  // namespace

CroutFactors crout_ildu(const HostCsr& A, const CroutOptions& options) {
  const Ordinal n = A.rows;
  const HostCsr At = transpose(A);
  const double tau = options.drop_tolerance, kappa = options.inverse_bound;
  std::vector<Entries> l_col(n), u_row(n), l_row(n), u_col(n);
  std::vector<Offset> first_l(n, 0), first_u(n, 0);
  std::vector<Scalar> d(n, 0), sum_l(n, 0), sum_u(n, 0), row_max(n, 0);
  std::vector<char> accepted(n, 0);
  for (Ordinal i = 0; i < n; ++i) {
    Offset left = 0;
    for (Offset k = A.ptr[i]; k < A.ptr[i + 1]; ++k) {
      row_max[i] = std::max(row_max[i], std::fabs(A.val[k]));
      left += A.col[k] < i;
    }
    Offset above = 0;
    for (Offset k = At.ptr[i]; k < At.ptr[i + 1]; ++k) above += At.col[k] < i;
    // Room for the entries of A's pattern and as many again of fill, before any reallocation.
    l_row[i].reserve(2 * left);
    u_col[i].reserve(2 * above);
  }
  Accumulator z(n), w(n);
  CroutFactors out;

  for (Ordinal k = 0; k < n; ++k) {
    // Row k of U (columns > k) and the pivot: A_k − Σ_p L_kp d_p U_p over accepted p < k.
    Scalar pivot = 0;
    for (Offset e = A.ptr[k]; e < A.ptr[k + 1]; ++e) {
      if (A.col[e] == k) pivot += A.val[e];
      if (A.col[e] > k) z.add(A.col[e], A.val[e]);
    }
    for (const auto& [p, l] : l_row[k]) {
      const Scalar f = l * d[p];
      const Entries& u = u_row[p];
      Offset& first = first_u[p];
      while (first < u.size() && u[first].first < k) ++first;
      for (Offset q = first; q < u.size(); ++q) {
        if (u[q].first == k)
          pivot -= f * u[q].second;
        else
          z.add(u[q].first, -f * u[q].second);
      }
    }
    // Column k of L (rows > k): A_{:,k} − Σ_p L_{:,p} d_p U_pk.
    for (Offset e = At.ptr[k]; e < At.ptr[k + 1]; ++e)
      if (At.col[e] > k) w.add(At.col[e], At.val[e]);
    for (const auto& [p, u] : u_col[k]) {
      const Scalar f = u * d[p];
      const Entries& l = l_col[p];
      Offset& first = first_l[p];
      while (first < l.size() && l[first].first <= k) ++first;
      for (Offset q = first; q < l.size(); ++q) w.add(l[q].first, -f * l[q].second);
    }

    // Accept while both inverse estimates, and the new column and row, stay within κ.
    const Scalar nu_l = 1 + std::fabs(sum_l[k]), nu_u = 1 + std::fabs(sum_u[k]);
    const bool tiny = !(std::fabs(pivot) > 1e-12 * row_max[k]);
    Scalar largest = 0;
    if (!tiny) {
      for (const Ordinal i : w.touched) largest = std::max(largest, std::fabs(w.value[i] / pivot));
      for (const Ordinal j : z.touched) largest = std::max(largest, std::fabs(z.value[j] / pivot));
    }
    bool accept = !tiny && nu_l <= kappa && nu_u <= kappa && largest <= kappa;
    if (!accept && options.accept_all) {
      if (tiny) {
        const Scalar magnitude = std::max(Scalar(tau) * row_max[k], Scalar(1e-300));
        pivot = pivot < 0 ? -magnitude : magnitude;
        ++out.shifted;
      }
      accept = true;
    }
    if (!accept) {
      z.clear();
      w.clear();
      continue;
    }
    accepted[k] = 1;
    d[k] = pivot;
    const Scalar x_l = estimator_entry(sum_l[k]), x_u = estimator_entry(sum_u[k]);
    std::sort(w.touched.begin(), w.touched.end());
    l_col[k].reserve(w.touched.size());
    u_row[k].reserve(z.touched.size());
    for (const Ordinal i : w.touched) {
      const Scalar l = w.value[i] / pivot;
      if (!(std::fabs(l) * nu_l > tau)) continue;
      l_col[k].emplace_back(i, l);
      l_row[i].emplace_back(k, l);
      sum_l[i] += l * x_l;
    }
    std::sort(z.touched.begin(), z.touched.end());
    for (const Ordinal j : z.touched) {
      const Scalar u = z.value[j] / pivot;
      if (!(std::fabs(u) * nu_u > tau)) continue;
      u_row[k].emplace_back(j, u);
      u_col[j].emplace_back(k, u);
      sum_u[j] += u * x_u;
    }
    z.clear();
    w.clear();
  }

  // B and C numberings.
  std::vector<Ordinal> position(n);
  for (Ordinal k = 0; k < n; ++k) {
    std::vector<Ordinal>& set = accepted[k] ? out.accepted : out.deferred;
    position[k] = Ordinal(set.size());
    set.push_back(k);
  }
  const Ordinal nb = Ordinal(out.accepted.size()), nc = Ordinal(out.deferred.size());
  // L_B and U_B in B numbering; their rows (U) and columns (L) for the eliminations below.
  std::vector<Entries> u_b(nb), l_b_col(nb);
  out.L.cols = out.U.cols = nb;
  out.d.resize(nb);
  for (Ordinal q = 0; q < nb; ++q) {
    const Ordinal k = out.accepted[q];
    out.d[q] = d[k];
    for (const auto& [p, l] : l_row[k]) out.L.push(position[p], l);  // p < k, all accepted
    out.L.end_row();
    for (const auto& [j, u] : u_row[k])
      if (accepted[j]) u_b[q].emplace_back(position[j], u);
    for (const auto& [j, u] : u_b[q]) out.U.push(j, u);
    out.U.end_row();
    for (const auto& [i, l] : l_col[k])
      if (accepted[i]) l_b_col[q].emplace_back(position[i], l);
  }

  // L_C = A_CB (D_B U_B)⁻¹ row by row; U_F = (L_B D_B)⁻¹ A_BC column by column.
  Accumulator t(std::max(nb, Ordinal(1)));
  out.LC.cols = nb;
  for (const Ordinal i : out.deferred) {
    for (Offset e = A.ptr[i]; e < A.ptr[i + 1]; ++e)
      if (accepted[A.col[e]]) t.add(position[A.col[e]], A.val[e]);
    eliminate_against(t, u_b, out.d, tau, out.LC);
  }
  HostCsr uf_columns;  // U_Fᵀ: |C|×|B|
  uf_columns.cols = nb;
  for (const Ordinal j : out.deferred) {
    for (Offset e = At.ptr[j]; e < At.ptr[j + 1]; ++e)
      if (accepted[At.col[e]]) t.add(position[At.col[e]], At.val[e]);
    eliminate_against(t, l_b_col, out.d, tau, uf_columns);
  }
  out.UF = transpose(uf_columns);

  // S_C = A_CC − L_C D_B U_F, small entries dropped, the diagonal always kept.
  Accumulator s(std::max(nc, Ordinal(1)));
  out.S.cols = nc;
  for (Ordinal r = 0; r < nc; ++r) {
    const Ordinal i = out.deferred[r];
    s.add(r, 0);
    for (Offset e = A.ptr[i]; e < A.ptr[i + 1]; ++e)
      if (!accepted[A.col[e]]) s.add(position[A.col[e]], A.val[e]);
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
      if (j == r || std::fabs(s.value[j]) > options.schur_drop * largest)
        out.S.push(j, s.value[j]);
    out.S.end_row();
    s.clear();
  }
  return out;
}

}  // namespace fgdd::detail
