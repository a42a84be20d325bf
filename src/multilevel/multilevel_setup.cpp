#include "multilevel/multilevel_setup.hpp"

#include "multilevel/crout_ildu.hpp"
#include "multilevel/level_ordering.hpp"

#include <Kokkos_Timer.hpp>

#include <algorithm>
#include <cmath>
#include <utility>

namespace fgdd::detail {

namespace {

// L_B, D_B and U_B in one square matrix with sorted rows (what GlobalTrsv reads as Ildu0).
HostCsr combined_factors(const CroutFactors& f) {
  HostCsr M;
  const Ordinal nb = Ordinal(f.d.size());
  M.cols = nb;
  M.ptr.reserve(std::size_t(nb) + 1);
  M.col.reserve(f.L.nnz() + nb + f.U.nnz());
  M.val.reserve(f.L.nnz() + nb + f.U.nnz());
  for (Ordinal i = 0; i < nb; ++i) {
    for (Offset k = f.L.ptr[i]; k < f.L.ptr[i + 1]; ++k) M.push(f.L.col[k], f.L.val[k]);
    M.push(i, f.d[i]);
    for (Offset k = f.U.ptr[i]; k < f.U.ptr[i + 1]; ++k) M.push(f.U.col[k], f.U.val[k]);
    M.end_row();
  }
  return M;
}

// The blocks of A (the level's scaled, reordered matrix) from the rows of `rows` to the columns
// of `columns` (positions in A, ascending), numbered by their places in the two lists.
HostCsr block_of(const HostCsr& A, const std::vector<Ordinal>& rows,
                 const std::vector<Ordinal>& columns) {
  std::vector<Ordinal> place(A.cols, -1);
  for (std::size_t q = 0; q < columns.size(); ++q) place[columns[q]] = Ordinal(q);
  HostCsr block;
  block.cols = Ordinal(columns.size());
  for (const Ordinal i : rows) {
    for (Offset k = A.ptr[i]; k < A.ptr[i + 1]; ++k)
      if (place[A.col[k]] >= 0) block.push(place[A.col[k]], A.val[k]);
    block.end_row();
  }
  return block;
}

// order: the level's fill-reducing order when known (a refactorization), else empty.
HostLevel factor_level(const ExecSpace& space, const HostCsr& A,
                       const MultilevelIluOptions& options, bool last, std::vector<Ordinal> order,
                       HostCsr& schur) {
  Kokkos::Timer timer;
  std::vector<Scalar> row_scale, col_scale;
  equilibrate(A, row_scale, col_scale);
  if (order.size() != std::size_t(A.rows)) order = fill_reducing_order(space, A, options.ordering);
  const HostCsr scaled = scaled_permuted(A, row_scale, col_scale, order);
  CroutOptions crout;
  crout.drop_tolerance = options.drop_tolerance;
  crout.inverse_bound = options.inverse_bound;
  crout.schur_drop = options.drop_tolerance / 10;
  crout.accept_all = last;
  CroutFactors f = crout_ildu(scaled, crout);
  // Deferring nearly everything makes no progress (the next level would be as large and
  // denser): accept every pivot here instead.
  if (!last && f.deferred.size() * 10 > std::size_t(A.rows) * 9) {
    crout.accept_all = true;
    f = crout_ildu(scaled, crout);
  }
  HostLevel level;
  level.n = A.rows;
  level.nb = Ordinal(f.accepted.size());
  for (const std::vector<Ordinal>* set : {&f.accepted, &f.deferred})
    for (const Ordinal q : *set) {
      level.perm.push_back(order[q]);
      level.row_scale.push_back(row_scale[order[q]]);
      level.col_scale.push_back(col_scale[order[q]]);
    }
  level.factors = combined_factors(f);
  level.inv_d.resize(f.d.size());
  for (std::size_t i = 0; i < f.d.size(); ++i) level.inv_d[i] = 1 / f.d[i];
  level.couplings = options.couplings;
  if (options.couplings == MultilevelCouplings::Original) {
    level.LC = block_of(scaled, f.deferred, f.accepted);
    level.UF = block_of(scaled, f.accepted, f.deferred);
  } else {
    level.LC = std::move(f.LC);
    level.UF = std::move(f.UF);
  }
  level.shifted = f.shifted;
  level.order = std::move(order);
  schur = std::move(f.S);
  level.seconds = timer.seconds();
  return level;
}

}  // namespace

std::vector<Scalar> dense_inverse(const HostCsr& S, double shift, Offset& shifted) {
  const Ordinal n = S.rows;
  std::vector<Scalar> lu(Offset(n) * n, 0), inverse(Offset(n) * n, 0);
  std::vector<Scalar> row_max(n, 0);
  for (Ordinal i = 0; i < n; ++i)
    for (Offset k = S.ptr[i]; k < S.ptr[i + 1]; ++k) {
      lu[Offset(i) * n + S.col[k]] = S.val[k];
      row_max[i] = std::max(row_max[i], std::fabs(S.val[k]));
    }
  std::vector<Ordinal> pivot_row(n);
  for (Ordinal c = 0; c < n; ++c) {
    Ordinal best = c;
    for (Ordinal r = c + 1; r < n; ++r)
      if (std::fabs(lu[Offset(r) * n + c]) > std::fabs(lu[Offset(best) * n + c])) best = r;
    pivot_row[c] = best;
    if (best != c)
      std::swap_ranges(lu.begin() + Offset(c) * n, lu.begin() + Offset(c + 1) * n,
                       lu.begin() + Offset(best) * n);
    Scalar& p = lu[Offset(c) * n + c];
    if (!(std::fabs(p) > 1e-14 * std::max(row_max[c], Scalar(1e-300)))) {
      p = std::max(Scalar(shift) * std::max(row_max[c], Scalar(1e-300)), Scalar(1e-300));
      ++shifted;
    }
    for (Ordinal r = c + 1; r < n; ++r) {
      const Scalar m = lu[Offset(r) * n + c] /= p;
      if (m != 0)
        for (Ordinal j = c + 1; j < n; ++j) lu[Offset(r) * n + j] -= m * lu[Offset(c) * n + j];
    }
  }
  // Solve L U X = P I column by column.
  std::vector<Scalar> x(n);
  for (Ordinal e = 0; e < n; ++e) {
    std::fill(x.begin(), x.end(), Scalar(0));
    x[e] = 1;
    for (Ordinal c = 0; c < n; ++c) std::swap(x[c], x[pivot_row[c]]);
    for (Ordinal r = 0; r < n; ++r)
      for (Ordinal j = 0; j < r; ++j) x[r] -= lu[Offset(r) * n + j] * x[j];
    for (Ordinal r = n; r-- > 0;) {
      for (Ordinal j = r + 1; j < n; ++j) x[r] -= lu[Offset(r) * n + j] * x[j];
      x[r] /= lu[Offset(r) * n + r];
    }
    for (Ordinal r = 0; r < n; ++r) inverse[Offset(r) * n + e] = x[r];
  }
  return inverse;
}

bool same_pivot_sets(const MultilevelHostSetup& a, const MultilevelHostSetup& b) {
  if (a.levels.size() != b.levels.size() || a.dense_n != b.dense_n) return false;
  for (std::size_t l = 0; l < a.levels.size(); ++l)
    if (a.levels[l].nb != b.levels[l].nb || a.levels[l].perm != b.levels[l].perm) return false;
  return true;
}

MultilevelHostSetup multilevel_setup(const ExecSpace& space, const HostCsr& A,
                                     const MultilevelIluOptions& options,
                                     const MultilevelHostSetup* previous) {
  options.validate();
  MultilevelHostSetup setup;
  HostCsr schur;                // the current level's matrix from level 1 on
  const HostCsr* current = &A;  // A itself at level 0, not a copy
  for (int level = 0; current->rows > 0; ++level) {
    if (current->rows <= options.coarsest_size) {
      Kokkos::Timer timer;
      setup.dense_n = current->rows;
      setup.dense_inverse = dense_inverse(*current, options.drop_tolerance, setup.dense_shifted);
      setup.dense_seconds = timer.seconds();
      break;
    }
    HostCsr next;
    std::vector<Ordinal> order;
    if (previous != nullptr && std::size_t(level) < previous->levels.size())
      order = previous->levels[level].order;
    setup.levels.push_back(factor_level(space, *current, options, level + 1 == options.max_levels,
                                        std::move(order), next));
    schur = std::move(next);
    current = &schur;
  }
  return setup;
}

}  // namespace fgdd::detail
