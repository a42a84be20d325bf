#include "factor/subdomain_ilu0.hpp"

#include "core/dense_block.hpp"
#include "core/errors.hpp"
#include "core/first_row_where.hpp"
#include "trsv/subdomain_levels.hpp"

#include <string>

namespace fgdd {

namespace detail {

// ILU0 inside one subdomain, level by level (paper Algorithm 4 in the subdomain's DAG order): the
// rows of one level depend only on rows of earlier levels, so each thread of the team takes a row
// and eliminates it alone (IKJ: for every L entry j, subtract L_ij·U_jk from the entries k that
// row i also holds, found by merging the two sorted rows). One barrier per level, not per entry.
// U stays unscaled while rows are eliminated; the Ildu0 scaling (or, for Ildlt, the copy of Lᵀ)
// is a final pass. B is the block
// size when known at compile time (the b = 1..4 fast paths), 0 for any b ≤ max_block_size.
template <int B>
struct SubdomainIlu0Kernel {
  using Member = Kokkos::TeamPolicy<ExecSpace>::member_type;

  SparseMatrix::RowMap row_map;
  SparseMatrix::ColumnIndices col_ind;
  SparseMatrix::Values lu;
  Kokkos::View<Offset*, DeviceType> diag;
  Kokkos::View<Scalar*, DeviceType> inv_diag;
  Kokkos::View<Ordinal*, DeviceType> offsets;
  SubdomainLevels levels;                          // of the lower triangle
  Kokkos::View<Ordinal, DeviceType> failed_row;    // smallest failing block row, else n
  Kokkos::View<Scalar*, DeviceType> pivot_value;   // smallest |pivot| met per block row
  Kokkos::View<Offset, DeviceType> shifted;
  int runtime_b;
  bool scale_upper;
  bool symmetric;  // Ildlt: L and D only
  PivotRule rule;  // rule.tiny is relative: multiplied by the row's largest |entry|

  static constexpr int capacity = B > 0 ? B * B : max_block_size * max_block_size;
  KOKKOS_INLINE_FUNCTION int b() const { return B > 0 ? B : runtime_b; }
  KOKKOS_INLINE_FUNCTION Scalar* block(Offset k) const { return &lu(k * Offset(b()) * b()); }

  KOKKOS_INLINE_FUNCTION void eliminate_row(const Ordinal i) const {
    const int bb = b() * b();
    const Offset begin = row_map(i), end = row_map(i + 1);
    Scalar row_max = 0;
    for (Offset e = begin * bb; e < end * bb; ++e)
      if (fabs(lu(e)) > row_max) row_max = fabs(lu(e));
    if (symmetric) {
      factor_row_ldlt(i);
      invert_pivot(i, row_max);
      return;
    }
    for (Offset kj = begin; kj < diag(i); ++kj) {
      const Ordinal j = col_ind(kj);
      // L_ij = A_ij · D_j⁻¹
      Scalar a[capacity];
      for (int e = 0; e < bb; ++e) a[e] = block(kj)[e];
      multiply_blocks(a, &inv_diag(Offset(j) * bb), block(kj), b());
      // A_ik -= L_ij · U_jk for every k > j that row i also holds.
      Offset target = kj + 1;
      for (Offset kk = diag(j) + 1; kk < row_map(j + 1); ++kk) {
        const Ordinal c = col_ind(kk);
        while (target < end && col_ind(target) < c) ++target;
        if (target == end) break;
        if (col_ind(target) != c) continue;
        Scalar product[capacity];
        multiply_blocks(block(kj), block(kk), product, b());
        Scalar* t = block(target);
        for (int e = 0; e < bb; ++e) t[e] -= product[e];
      }
    }
    invert_pivot(i, row_max);
  }

  // D_i⁻¹ from the pivot block, with the tiny-pivot rule relative to the row's largest entry.
  KOKKOS_INLINE_FUNCTION void invert_pivot(const Ordinal i, const Scalar row_max) const {
    const int bb = b() * b();
    Scalar a[capacity];
    for (int e = 0; e < bb; ++e) a[e] = block(diag(i))[e];
    PivotRule row_rule = rule;
    row_rule.tiny = rule.tiny * row_max;
    Scalar smallest = 0;
    const int result = invert_block(a, &inv_diag(Offset(i) * bb), b(), row_rule, smallest);
    pivot_value(i) = b() == 1 ? block(diag(i))[0] : smallest;
    if (result < 0) {
      Kokkos::atomic_fetch_min(&failed_row(), i);
    } else if (result > 0) {
      Kokkos::atomic_add(&shifted(), Offset(result));
      // Keep D consistent with the D⁻¹ actually used: D = (D⁻¹)⁻¹.
      Scalar d[capacity], unused;
      for (int e = 0; e < bb; ++e) d[e] = inv_diag(Offset(i) * bb + e);
      invert_block(d, block(diag(i)), b(), PivotRule{}, unused);
    }
  }

  // IC0 as L D Lᵀ, up-looking: for every L entry j of row i in ascending order,
  // L_ij = (A_ij − Σ_k L_ik D_k L_jkᵀ) D_j⁻¹ over the columns k < j both rows hold (a merge);
  // then D_i = A_ii − Σ_j L_ij D_j L_ijᵀ. Rows j < i are final: they are in earlier levels.
  KOKKOS_INLINE_FUNCTION void factor_row_ldlt(const Ordinal i) const {
    const int n = b(), bb = n * n;
    Scalar sum[capacity], ld[capacity], product[capacity];
    for (Offset kj = row_map(i); kj < diag(i); ++kj) {
      const Ordinal j = col_ind(kj);
      for (int e = 0; e < bb; ++e) sum[e] = block(kj)[e];
      Offset q = row_map(j);
      for (Offset p = row_map(i); p < kj; ++p) {
        const Ordinal k = col_ind(p);
        while (q < diag(j) && col_ind(q) < k) ++q;
        if (q == diag(j)) break;
        if (col_ind(q) != k) continue;
        multiply_blocks(block(p), block(diag(k)), ld, n);    // L_ik D_k
        multiply_blocks_transposed(ld, block(q), product, n);  // (L_ik D_k) L_jkᵀ
        for (int e = 0; e < bb; ++e) sum[e] -= product[e];
      }
      multiply_blocks(sum, &inv_diag(Offset(j) * bb), block(kj), n);
    }
    Scalar* d = block(diag(i));
    for (Offset kj = row_map(i); kj < diag(i); ++kj) {
      multiply_blocks(block(kj), block(diag(col_ind(kj))), ld, n);
      multiply_blocks_transposed(ld, block(kj), product, n);
      for (int e = 0; e < bb; ++e) d[e] -= product[e];
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const Ordinal s = team.league_rank();
    const Ordinal first = offsets(s), last = offsets(s + 1), base = first + s;
    for (Ordinal l = 0; l < levels.num_levels(s); ++l) {
      Kokkos::parallel_for(
          Kokkos::TeamThreadRange(team, levels.level_ptr(base + l), levels.level_ptr(base + l + 1)),
          [&](const Ordinal p) { eliminate_row(levels.rows(p)); });
      team.team_barrier();
    }
    if (!scale_upper) return;  // the level loop ended with a barrier: every row is final
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, first, last), [&](const Ordinal i) {
      const int n = b(), bb = n * n;
      for (Offset k = diag(i) + 1; k < row_map(i + 1); ++k) {
        if (symmetric) {
          // Ildlt: U_ij = L_jiᵀ, the mirror entry (present: the pattern is symmetric).
          const Ordinal j = col_ind(k);
          Offset lo = row_map(j), hi = diag(j);
          while (lo < hi) {
            const Offset mid = (lo + hi) / 2;
            if (col_ind(mid) < i) lo = mid + 1; else hi = mid;
          }
          for (int r = 0; r < n; ++r)
            for (int c = 0; c < n; ++c) block(k)[r * n + c] = block(lo)[c * n + r];
        } else {
          // Ildu0: U_ik ← D_i⁻¹ U_ik.
          Scalar u[capacity];
          for (int e = 0; e < bb; ++e) u[e] = block(k)[e];
          multiply_blocks(&inv_diag(Offset(i) * bb), u, block(k), n);
        }
      }
    });
  }
};

template <int B>
void launch_subdomain_ilu0(const ExecSpace& space, const SubdomainIlu0Kernel<0>& settings,
                           Ordinal num_subdomains) {
  SubdomainIlu0Kernel<B> kernel{settings.row_map,    settings.col_ind,     settings.lu,
                                settings.diag,       settings.inv_diag,    settings.offsets,
                                settings.levels,     settings.failed_row,  settings.pivot_value,
                                settings.shifted,    settings.runtime_b,   settings.scale_upper,
                                settings.symmetric,  settings.rule};
  Kokkos::parallel_for("fgdd::factor::subdomain_ilu0",
                       Kokkos::TeamPolicy<ExecSpace>(space, num_subdomains, Kokkos::AUTO), kernel);
}

// Diagonal positions and a check that every entry lies in its row's subdomain block; returns the
// first offending block row or n.
Ordinal find_diagonals(const ExecSpace& space, const SparseMatrix& A,
                       const Kokkos::View<Ordinal*, DeviceType>& offsets, Ordinal num_subdomains,
                       const Kokkos::View<Offset*, DeviceType>& diag) {
  const auto row_map = A.row_map();
  const auto col_ind = A.col_ind();
  const Ordinal n = A.num_block_rows();
  Ordinal bad = n;
  Kokkos::parallel_reduce(
      "fgdd::factor::find_diagonals", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const Ordinal i, Ordinal& first_bad) {
        Ordinal lo = 0, hi = num_subdomains - 1;  // subdomain of row i by binary search
        while (lo < hi) {
          const Ordinal mid = (lo + hi + 1) / 2;
          if (offsets(mid) <= i) lo = mid; else hi = mid - 1;
        }
        bool ok = true;
        for (Offset k = row_map(i); k < row_map(i + 1); ++k) {
          const Ordinal c = col_ind(k);
          if (c == i) diag(i) = k;
          if (c < offsets(lo) || c >= offsets(lo + 1)) ok = false;
        }
        if (!ok && i < first_bad) first_bad = i;
      },
      Kokkos::Min<Ordinal>(bad));
  return bad < n ? bad : n;
}

Ordinal first_asymmetric_row(const ExecSpace& space, const SparseMatrix& A) {
  const auto row_map = A.row_map();
  const auto col_ind = A.col_ind();
  const auto values = A.values();
  const int b = A.block_size();
  return first_row_where(
      space, A.num_block_rows(), "fgdd::factor::check_symmetric", KOKKOS_LAMBDA(const Ordinal i) {
        for (Offset k = row_map(i); k < row_map(i + 1); ++k) {
          const Ordinal j = col_ind(k);
          Offset lo = row_map(j), hi = row_map(j + 1);
          while (lo < hi) {
            const Offset mid = (lo + hi) / 2;
            if (col_ind(mid) < i) lo = mid + 1; else hi = mid;
          }
          if (lo == row_map(j + 1) || col_ind(lo) != i) return true;
          for (int r = 0; r < b; ++r)
            for (int c = 0; c < b; ++c) {
              const Scalar a = values(k * b * b + r * b + c), m = values(lo * b * b + c * b + r);
              if (fabs(a - m) > 1e-12 * (fabs(a) > fabs(m) ? fabs(a) : fabs(m))) return true;
            }
        }
        return false;
      });
}

}  // namespace detail

SubdomainIlu0::SubdomainIlu0(const ExecSpace& space, const SparseMatrix& dropped,
                             const Partition& partition, const FactorOptions& options)
    : options_(options), partition_(partition) {
  options_.validate();
  Kokkos::Timer timer;
  const Ordinal n = dropped.num_block_rows();
  const int b = dropped.block_size();
  if (partition.num_block_rows() != n)
    throw InvalidInput("the partition covers " + std::to_string(partition.num_block_rows()) +
                       " block rows but the matrix has " + std::to_string(n));
  if (b > detail::max_block_size)
    throw InvalidInput("block size " + std::to_string(b) + " exceeds the supported " +
                       std::to_string(detail::max_block_size));
  source_row_map_ = dropped.row_map();
  source_col_ind_ = dropped.col_ind();
  SparseMatrix::RowMap row_map = dropped.row_map();
  SparseMatrix::ColumnIndices col_ind = dropped.col_ind();
  if (options_.level_of_fill > 0) {
    fill_ = ilu_fill_pattern(dropped, options_.level_of_fill);
    row_map = fill_.row_map;
    col_ind = fill_.col_ind;
    report_.fill_entries = fill_.fill_entries;
  }
  factors_ = SparseMatrix(SparseMatrix::ValidatedTag{}, n, b, row_map, col_ind,
                          SparseMatrix::Values(Kokkos::view_alloc(Kokkos::WithoutInitializing,
                                                                  "fgdd::factor::lu"),
                                               col_ind.extent(0) * Offset(b) * Offset(b)));
  diag_position_ = Kokkos::View<Offset*, DeviceType>("fgdd::factor::diag_position", n);
  const Ordinal bad = n == 0 ? 0
                             : detail::find_diagonals(space, factors_, partition.subdomain_offsets,
                                                      partition.num_subdomains, diag_position_);
  if (bad < n)
    throw InvalidInput("block row " + std::to_string(bad) +
                       " has an entry outside its subdomain: factor the dropped matrix");
  if (options_.form == IluForm::Ildlt) {
    const Ordinal asymmetric = detail::first_asymmetric_row(space, dropped);
    if (asymmetric < n) {
      Ordinal original = 0;
      Kokkos::deep_copy(original, Kokkos::subview(partition.iperm, asymmetric));
      throw InvalidInput("IC0 (IluForm::Ildlt) needs a symmetric matrix: block row " +
                         std::to_string(original) +
                         " has an entry whose mirror is missing or differs");
    }
  }
  lower_levels_ = build_subdomain_levels(space, factors_, diag_position_, partition, Triangle::Lower);
  inv_diag_ = Kokkos::View<Scalar*, DeviceType>("fgdd::factor::inv_diag",
                                                Offset(n) * Offset(b) * Offset(b));
  pivots_ = detail::PivotStatus("fgdd::factor", n);
  space.fence();
  const double symbolic = timer.seconds();
  numeric(space, dropped);
  report_.symbolic_seconds = symbolic;
}

const FactorReport& SubdomainIlu0::numeric(const ExecSpace& space, const SparseMatrix& dropped) {
  const Ordinal n = factors_.num_block_rows();
  const int b = factors_.block_size();
  if (dropped.num_block_rows() != n || dropped.block_size() != b ||
      dropped.row_map().data() != source_row_map_.data() ||
      dropped.col_ind().data() != source_col_ind_.data())
    throw InvalidInput("numeric: the matrix is not the pattern the factorization was set up with "
                       "(refresh values with update_values and pass the same dropped matrix)");
  Kokkos::Timer timer;
  if (options_.level_of_fill > 0)
    detail::scatter_into_pattern(space, dropped, fill_, factors_.values());
  else
    Kokkos::deep_copy(space, factors_.values(), dropped.values());

  detail::SubdomainIlu0Kernel<0> kernel;
  kernel.row_map = factors_.row_map();
  kernel.col_ind = factors_.col_ind();
  kernel.lu = factors_.values();
  kernel.diag = diag_position_;
  kernel.inv_diag = inv_diag_;
  kernel.offsets = partition_.subdomain_offsets;
  kernel.levels = lower_levels_;
  kernel.failed_row = pivots_.failed_row;
  kernel.pivot_value = pivots_.pivot_value;
  kernel.shifted = pivots_.shifted;
  pivots_.reset(space);
  kernel.runtime_b = b;
  kernel.scale_upper = options_.form != IluForm::Ilu0;
  kernel.symmetric = options_.form == IluForm::Ildlt;
  kernel.rule = options_.pivot_rule();
  const Ordinal subdomains = partition_.num_subdomains;
  if (subdomains > 0) {
    switch (b) {
      case 1: detail::launch_subdomain_ilu0<1>(space, kernel, subdomains); break;
      case 2: detail::launch_subdomain_ilu0<2>(space, kernel, subdomains); break;
      case 3: detail::launch_subdomain_ilu0<3>(space, kernel, subdomains); break;
      case 4: detail::launch_subdomain_ilu0<4>(space, kernel, subdomains); break;
      default: detail::launch_subdomain_ilu0<0>(space, kernel, subdomains); break;
    }
  }
  ++numeric_count_;
  const detail::PivotReadback pivots = pivots_.read(space);
  if (pivots.failed_row < n) {
    Ordinal original = 0;  // the row in the matrix the user gave
    Kokkos::deep_copy(original, Kokkos::subview(partition_.iperm, pivots.failed_row));
    throw ZeroPivot(std::int64_t(original) * b, pivots.pivot);
  }
  report_.shifted_pivots = pivots.shifted;
  report_.numeric_seconds = timer.seconds();
  return report_;
}

}  // namespace fgdd
