#include "factor/subdomain_ilu0.hpp"

#include "core/block_size_dispatch.hpp"
#include "core/dense_block.hpp"
#include "core/errors.hpp"
#include "core/find_in_row.hpp"
#include "core/huge_pages.hpp"
#include "factor/elimination_streams.hpp"
#include "factor/pivot_shift.hpp"
#include "factor/symmetry.hpp"
#include "schedule/subdomain_levels.hpp"

#include <cstdint>
#include <sstream>
#include <string>

namespace fgdd {

namespace detail {

// ILU0 inside one subdomain, level by level (paper Algorithm 4 in the subdomain's DAG order): the
// rows of one level depend only on rows of earlier levels, so each thread of the team takes a row
// and eliminates it alone (IKJ: for every L entry j, subtract L_ij·U_jk from the entries k that
// row i also holds, read from the row's update list, EliminationStreams). One barrier per level,
// not per entry. U stays unscaled while rows are eliminated; the Ildu0 scaling (or, for Ildlt,
// the copy of Lᵀ) is a final pass. B is the block size when known at compile time (the b = 1..4
// fast paths), 0 for any b ≤ max_block_size.
template <int B>
struct SubdomainIlu0Kernel {
  using Member = Kokkos::TeamPolicy<ExecSpace>::member_type;

  SparseMatrix::RowMap row_map;
  SparseMatrix::ColumnIndices col_ind;
  SparseMatrix::Values lu;
  Kokkos::View<Offset*, DeviceType> diag;
  Kokkos::View<Scalar*, DeviceType> inv_diag;
  Kokkos::View<Ordinal*, DeviceType> offsets;
  SubdomainLevels levels;  // of the lower triangle (row_order: unused, may be empty)
  EliminationStreams streams;  // of levels (row_order or symmetric: unused, may be empty)
  bool row_order;          // FactorOrder::Rows: launched with one thread per team and
                           // row_scratch_bytes() of level-1 team scratch
  Ordinal largest_subdomain;
  Kokkos::View<Ordinal, DeviceType> failed_row;   // smallest failing block row, else n
  Kokkos::View<Scalar*, DeviceType> pivot_value;  // smallest |pivot| met per block row
  Kokkos::View<Offset, DeviceType> shifted;
  int runtime_b;
  bool scale_upper;
  // Rows order with scale_upper, not symmetric: per subdomain the largest i − j over its L
  // entries. No row past j + reach reads row j's U, so row j is scaled once that row is done,
  // while its values are still in cache, instead of in a final pass over the subdomain. Empty:
  // the final pass.
  Kokkos::View<Ordinal*, DeviceType> lower_reach;
  bool symmetric;        // Ildlt: L and D only
  detail::MirrorPositions mirror;  // Ildlt: of the factors' pattern
  PivotTreatment pivot;  // pivot.rule.tiny is relative: multiplied by the row's largest |entry|
  // Shift positive_definite: a failing subdomain starts again from initial with α = first_shift,
  // then doubling, for at most shift_attempts attempts (0: no retries); the α it ended with and
  // the attempts it took go to subdomain_shift and subdomain_attempts. symmetrize_initial: the
  // attempt starts from initial's symmetric part (Ildlt, initial the matrix before symmetrizing),
  // so no copy of the factors' first values is kept.
  int shift_attempts;
  Scalar first_shift;
  SparseMatrix::Values initial;
  bool symmetrize_initial;
  // Ildlt in place: each block row's diagonal block as the first attempt found it (then L's
  // first values are their upper mirrors'), instead of initial.
  Kokkos::View<Scalar*, DeviceType> initial_diagonal;
  Kokkos::View<Scalar*, DeviceType> subdomain_shift;
  Kokkos::View<int*, DeviceType> subdomain_attempts;
  // Rows order on CSR (dense_rows), without fill or retries: the matrix to factor when numeric()
  // did not copy it into lu first, at lu's positions or, with source_start, block row i's from
  // source_start(i) on (KeptRuns); each row's elimination reads its values there and writes the
  // whole row of lu. Empty: lu holds them.
  SparseMatrix::Values source;
  Kokkos::View<Offset*, DeviceType> source_start;

  static constexpr int capacity = B > 0 ? B* B : max_block_size* max_block_size;
  KOKKOS_INLINE_FUNCTION int b() const { return B > 0 ? B : runtime_b; }
  KOKKOS_INLINE_FUNCTION Scalar* block(Offset k) const { return &lu(k * Offset(b()) * b()); }

  // A_ik -= L_ij · U_jk for the entry kk of U_j: in the row's entry at target.
  KOKKOS_INLINE_FUNCTION void subtract_update(Offset kj, Offset kk, Offset target) const {
    const int bb = b() * b();
    Scalar product[capacity];
    multiply_blocks(block(kj), block(kk), product, b());
    Scalar* t = block(target);
    for (int e = 0; e < bb; ++e) t[e] -= product[e];
  }

  // Block k ← its mirror block transposed (Ildlt; present: the pattern is symmetric).
  KOKKOS_INLINE_FUNCTION void copy_mirror_transposed(const Offset k) const {
    const int n = b();
    const Scalar* from = block(mirror(k));
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c) block(k)[r * n + c] = from[c * n + r];
  }

  // The largest |entry| of row i before elimination (the scale of the relative tiny rule), its
  // values read from values (lu's or source's).
  KOKKOS_INLINE_FUNCTION Scalar row_max_of(const Ordinal i, const Scalar* values) const {
    const int bb = b() * b();
    Scalar row_max = 0;
    for (Offset e = row_map(i) * bb; e < row_map(i + 1) * bb; ++e)
      if (fabs(values[e]) > row_max) row_max = fabs(values[e]);
    return row_max;
  }

  // L_ij = A_ij · D_j⁻¹ in place at kj.
  KOKKOS_INLINE_FUNCTION void scale_lower(const Offset kj, const Ordinal j) const {
    const int bb = b() * b();
    Scalar a[capacity];
    for (int e = 0; e < bb; ++e) a[e] = block(kj)[e];
    multiply_blocks(a, &inv_diag(Offset(j) * bb), block(kj), b());
  }

  // Rows order for CSR: a dense copy of the row being eliminated (eliminate_row)...
  KOKKOS_INLINE_FUNCTION bool dense_rows() const { return !symmetric && b() == 1; }
  // ...or, for Ildlt, a dense array of L_ik D_k over the row's final columns, zero elsewhere.
  KOKKOS_INLINE_FUNCTION bool dense_ldlt_rows() const { return symmetric && b() == 1; }

  // Rows-order scratch per subdomain: a scalar per column of the subdomain for a dense row, else
  // each column's entry in the row being eliminated (an int per column).
  KOKKOS_INLINE_FUNCTION std::size_t row_scratch_bytes() const {
    const bool dense = dense_rows() || dense_ldlt_rows();
    return (dense ? sizeof(Scalar) : sizeof(int)) * std::size_t(largest_subdomain);
  }

  // eliminate_row on CSR: row i scattered into a dense array (the scratch, column c at c − first),
  // updated there without looking columns up, and gathered back, as in PETSc's numeric LU. Updates
  // to columns the row does not hold land in the array and are never gathered, so the inner loop
  // has no branch. The row's largest |entry| is found while scattering. The products are
  // multiply_blocks' with b = 1 (0 + a·b), then a subtraction: the arithmetic of scale_lower and
  // subtract_update, so that contracting compilers round both orders alike.
  KOKKOS_INLINE_FUNCTION bool eliminate_dense_row(const Ordinal i, const Scalar alpha,
                                                  const bool record, const Ordinal first,
                                                  const Scalar* const initial,
                                                  void* scratch) const {
    const Offset* const starts = row_map.data();
    const Offset* const diagonals = diag.data();
    const Ordinal* const columns = col_ind.data();
    Scalar* const values = lu.data();
    // row[c]: column c. The base lies before the scratch (at −first), so it is formed as an
    // integer (implementation-defined, flat on every target) rather than by pointer arithmetic
    // outside the array; indexing by column saves a subtraction an update (about 10 % of the
    // loop in one A/B on a CPU core).
    Scalar* const row = reinterpret_cast<Scalar*>(reinterpret_cast<std::uintptr_t>(scratch) -
                                                  std::uintptr_t(first) * sizeof(Scalar));
    const Offset begin = starts[i], end = starts[i + 1], pivot_at = diagonals[i];
    Scalar row_max = 0;
    for (Offset k = begin; k < end; ++k) {
      const Scalar a = initial[k];
      row[columns[k]] = a;
      if (fabs(a) > row_max) row_max = fabs(a);
    }
    for (Offset kj = begin; kj < pivot_at; ++kj) {
      const Ordinal j = columns[kj];
      const Scalar multiplier = Scalar(0) + row[j] * inv_diag(j);
      row[j] = multiplier;
      const Offset upper_end = starts[j + 1];
      for (Offset kk = diagonals[j] + 1; kk < upper_end; ++kk)
        row[columns[kk]] -= Scalar(0) + multiplier * values[kk];
    }
    for (Offset k = begin; k < end; ++k) values[k] = row[columns[k]];
    return invert_pivot(i, row_max, alpha, record);
  }

  // Eliminates row i in ascending-row order (FactorOrder::Rows) with the attempt's shift alpha;
  // false when its pivot failed (recorded in failed_row only when record is set: a failure that a
  // later attempt may still cure is not). The terms and their order are the update lists'
  // (Levels), so both orders give the same bits.
  // - CSR (dense_rows): eliminate_dense_row, a dense copy of the row (the P2 Poisson
  //   factorization 1.19× faster on a CPU core than looking columns up).
  // - Ildlt on CSR: the same idea for L D Lᵀ (factor_row_ldlt_dense).
  // - Blocks: position_of[c − first] is row i's entry in column c, or −1, and updates
  //   to columns the row does not hold are skipped (a b×b product each: the dense array made the
  //   BSR3 elasticity matrix 2.1× slower).
  KOKKOS_INLINE_FUNCTION bool eliminate_row(const Ordinal i, const Scalar alpha,
                                            const bool record, const Ordinal first,
                                            void* scratch) const {
    const Offset begin = row_map(i), end = row_map(i + 1);
    const Scalar* initial = lu.data();  // row i's values at initial[k], k in [begin, end)
    if (source.extent(0) > 0)
      initial = source.data() +
                (source_start.extent(0) > 0 ? (source_start(i) - begin) * b() * b() : Offset(0));
    if (dense_rows()) return eliminate_dense_row(i, alpha, record, first, initial, scratch);
    const Scalar row_max = row_max_of(i, initial);
    if (dense_ldlt_rows()) {
      factor_row_ldlt_dense(i, first, static_cast<Scalar*>(scratch));
      return invert_pivot(i, row_max, alpha, record);
    }
    int* const position_of = static_cast<int*>(scratch);
    for (Offset k = begin; k < end; ++k) position_of[col_ind(k) - first] = int(k - begin);
    for (Offset kj = begin; !symmetric && kj < diag(i); ++kj) {
      const Ordinal j = col_ind(kj);
      scale_lower(kj, j);
      // A_ik -= L_ij · U_jk for every k > j that row i also holds.
      for (Offset kk = diag(j) + 1; kk < row_map(j + 1); ++kk) {
        const int at = position_of[col_ind(kk) - first];
        if (at >= 0) subtract_update(kj, kk, begin + at);
      }
    }
    if (symmetric) factor_row_ldlt(i, first, position_of);
    for (Offset k = begin; k < end; ++k) position_of[col_ind(k) - first] = -1;
    return invert_pivot(i, row_max, alpha, record);
  }

  // The same for the row at position p of the level sets (FactorOrder::Levels): its updates come
  // from the streams, so no load waits on a column comparison.
  KOKKOS_INLINE_FUNCTION bool eliminate_level_row(const Ordinal p, const Scalar alpha,
                                                  const bool record) const {
    const Ordinal i = levels.rows(p);
    const Offset begin = row_map(i);
    const Scalar row_max = row_max_of(i, lu.data());
    if (symmetric) {
      factor_row_ldlt(i, 0, nullptr);
      return invert_pivot(i, row_max, alpha, record);
    }
    const std::uint16_t* code = streams.codes.data() + streams.start(p);
    for (Offset kj = begin; kj < diag(i); ++kj) {
      const Ordinal j = col_ind(kj);
      const Offset base = row_map(j);
      scale_lower(kj, j);
      for (Offset count = take_code(code); count > 0; --count) {
        const Offset target = begin + take_code(code);
        subtract_update(kj, base + take_code(code), target);
      }
    }
    return invert_pivot(i, row_max, alpha, record);
  }

  // D_i⁻¹ from the pivot block (treat_pivot: the tiny rule relative to the row's largest entry,
  // the shifts); the block keeps the pivot actually used.
  KOKKOS_INLINE_FUNCTION bool invert_pivot(const Ordinal i, const Scalar row_max,
                                           const Scalar alpha, const bool record) const {
    const int bb = b() * b();
    PivotTreatment attempt = pivot;
    attempt.alpha = alpha;
    bool changed = false;
    Scalar reported = 0;
    const int result = treat_pivot<capacity>(block(diag(i)), &inv_diag(Offset(i) * bb), b(),
                                             Offset(i) * b(), row_max, attempt, changed, reported);
    pivot_value(i) = reported;
    if (result < 0) {
      if (record) Kokkos::atomic_fetch_min(&failed_row(), i);
      return false;
    }
    if (result > 0) Kokkos::atomic_add(&shifted(), Offset(result));
    return true;
  }

  // sum -= (L_ik D_k) L_jkᵀ for row i's entry p and row j's entry q in column k.
  KOKKOS_INLINE_FUNCTION void subtract_ldlt_term(Scalar* sum, Offset p, Offset q) const {
    const int n = b(), bb = n * n;
    Scalar ld[capacity], product[capacity];
    multiply_blocks(block(p), block(diag(col_ind(p))), ld, n);  // L_ik D_k
    multiply_blocks_transposed(ld, block(q), product, n);       // (L_ik D_k) L_jkᵀ
    for (int e = 0; e < bb; ++e) sum[e] -= product[e];
  }

  // IC0 as L D Lᵀ, up-looking: for every L entry j of row i in ascending order,
  // L_ij = (A_ij − Σ_k L_ik D_k L_jkᵀ) D_j⁻¹ over the columns k < j both rows hold, ascending
  // (found by binary search in row i, or through position_of as in eliminate_row: the same terms
  // in the same order); then D_i = A_ii − Σ_j L_ij D_j L_ijᵀ. Rows j < i are final.
  KOKKOS_INLINE_FUNCTION void factor_row_ldlt(const Ordinal i, Ordinal first,
                                              const int* position_of) const {
    const int n = b(), bb = n * n;
    Scalar sum[capacity], ld[capacity], product[capacity];
    for (Offset kj = row_map(i); kj < diag(i); ++kj) {
      const Ordinal j = col_ind(kj);
      for (int e = 0; e < bb; ++e) sum[e] = block(kj)[e];
      if (position_of != nullptr) {
        for (Offset q = row_map(j); q < diag(j); ++q) {
          const int at = position_of[col_ind(q) - first];
          if (at >= 0) subtract_ldlt_term(sum, row_map(i) + at, q);
        }
      } else {
        for_each_common_column(col_ind, row_map(j), diag(j), row_map(i), kj,
                               [&](Offset q, Offset p) { subtract_ldlt_term(sum, p, q); });
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

  // factor_row_ldlt for CSR in rows order, as PETSc's numeric ICC: L_ik D_k of the row's final
  // entries sit in a dense array (column k at k − first, zero where the row has no entry), so the
  // sum over row j's columns needs no lookup and no branch; a zero term leaves the sum's bits as
  // they are. The terms, their order and their arithmetic are factor_row_ldlt's.
  KOKKOS_INLINE_FUNCTION void factor_row_ldlt_dense(const Ordinal i, const Ordinal first,
                                                    Scalar* const ld) const {
    for (Offset kj = row_map(i); kj < diag(i); ++kj) {
      const Ordinal j = col_ind(kj);
      Scalar sum = lu(kj);
      for (Offset q = row_map(j); q < diag(j); ++q) {
        Scalar product;
        multiply_blocks_transposed(&ld[col_ind(q) - first], &lu(q), &product, 1);
        sum -= product;
      }
      multiply_blocks(&sum, &inv_diag(j), &lu(kj), 1);
      multiply_blocks(&lu(kj), &lu(diag(j)), &ld[j - first], 1);
    }
    Scalar& d = lu(diag(i));
    for (Offset kj = row_map(i); kj < diag(i); ++kj) {
      Scalar product;
      multiply_blocks_transposed(&ld[col_ind(kj) - first], &lu(kj), &product, 1);
      d -= product;
      ld[col_ind(kj) - first] = 0;
    }
  }

  // The values of rows [first, last) as the first attempt found them: initial's, or its
  // symmetric part formed as symmetric_part forms it (symmetric_block: the same bits), or (with
  // initial_diagonal) L's blocks transposed back from their untouched upper mirrors, which the
  // symmetric part gave the same bits.
  KOKKOS_INLINE_FUNCTION void restore_values(const Member& team, const Ordinal first,
                                             const Ordinal last) const {
    const int bb = b() * b();
    if (initial_diagonal.extent(0) > 0) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, first, last), [&](const Ordinal i) {
        for (Offset k = row_map(i); k < diag(i); ++k) copy_mirror_transposed(k);
        for (int e = 0; e < bb; ++e) block(diag(i))[e] = initial_diagonal(Offset(i) * bb + e);
      });
      return;
    }
    if (!symmetrize_initial) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, row_map(first) * bb, row_map(last) * bb),
                           [&](const Offset e) { lu(e) = initial(e); });
      return;
    }
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, row_map(first), row_map(last)),
                         [&](const Offset k) { symmetric_block(initial, lu, k, mirror(k), b()); });
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const Ordinal s = team.league_rank();
    const Ordinal first = offsets(s), last = offsets(s + 1), base = first + s;
    void* row_scratch = nullptr;
    if (row_order) {
      row_scratch = team.team_scratch(1).get_shmem(row_scratch_bytes());
      if (dense_ldlt_rows())
        for (Ordinal t = 0; t < last - first; ++t) static_cast<Scalar*>(row_scratch)[t] = 0;
      else if (!dense_rows())
        for (Ordinal t = 0; t < last - first; ++t) static_cast<int*>(row_scratch)[t] = -1;
    }
    // Attempts of this subdomain alone (shift positive_definite): every thread sees the same
    // failure count (a team reduction), so all take the same path and α.
    const bool scales_early = lower_reach.extent(0) > 0;
    const Ordinal reach = scales_early ? lower_reach(s) : 0;
    Scalar alpha = 0;
    int attempt = 0;
    for (;; ++attempt) {
      const bool final_attempt = attempt >= shift_attempts;
      int failures = 0;
      if (row_order) {
        // A team of one thread: ascending rows are a dependency order, no barriers needed.
        for (Ordinal i = first; i < last && (final_attempt || failures == 0); ++i) {
          if (!eliminate_row(i, alpha, final_attempt, first, row_scratch)) ++failures;
          if (scales_early && i - reach >= first) scale_upper_row(i - reach);
        }
        if (scales_early && (final_attempt || failures == 0))
          for (Ordinal i = last - reach > first ? last - reach : first; i < last; ++i)
            scale_upper_row(i);
      }
      for (Ordinal l = 0; !row_order && l < levels.num_levels(s) &&
                          (final_attempt || failures == 0);
           ++l) {
        const Ordinal begin = levels.level_ptr(base + l), end = levels.level_ptr(base + l + 1);
        if (shift_attempts == 0) {
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, begin, end), [&](const Ordinal p) {
            eliminate_level_row(p, alpha, true);
          });
        } else {
          int level_failures = 0;
          Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(team, begin, end),
              [&](const Ordinal p, int& count) {
                if (!eliminate_level_row(p, alpha, final_attempt)) ++count;
              },
              level_failures);
          failures += level_failures;
        }
        team.team_barrier();
      }
      if (failures == 0 || final_attempt) break;
      alpha = attempt == 0 ? first_shift : 2 * alpha;
      restore_values(team, first, last);
      team.team_barrier();
    }
    if (shift_attempts > 0)
      Kokkos::single(Kokkos::PerTeam(team), [&]() {
        subdomain_shift(s) = alpha;
        subdomain_attempts(s) = attempt;
      });
    if (!scale_upper || scales_early) return;  // the level loop ended with a barrier
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, first, last),
                         [&](const Ordinal i) { scale_upper_row(i); });
  }

  // Ildu0: U_ik ← D_i⁻¹ U_ik; Ildlt: U_ik = L_kiᵀ.
  KOKKOS_INLINE_FUNCTION void scale_upper_row(const Ordinal i) const {
    const int n = b(), bb = n * n;
    for (Offset k = diag(i) + 1; k < row_map(i + 1); ++k) {
      if (symmetric) {
        copy_mirror_transposed(k);
      } else {
        Scalar u[capacity];
        for (int e = 0; e < bb; ++e) u[e] = block(k)[e];
        multiply_blocks(&inv_diag(Offset(i) * bb), u, block(k), n);
      }
    }
  }
};

// to(i·b² + e) = block e of row i's diagonal block in values.
void copy_diagonal_blocks(const ExecSpace& space, const SparseMatrix::Values& values,
                          const Kokkos::View<Offset*, DeviceType>& diag, int b,
                          const Kokkos::View<Scalar*, DeviceType>& to) {
  const Offset bb = Offset(b) * b;
  Kokkos::parallel_for(
      "fgdd::factor::initial_diagonal", Kokkos::RangePolicy<ExecSpace>(space, 0, diag.extent(0)),
      KOKKOS_LAMBDA(const Offset i) {
        for (Offset e = 0; e < bb; ++e) to(i * bb + e) = values(diag(i) * bb + e);
      });
}

template <int B>
void launch_subdomain_ilu0(const ExecSpace& space, const SubdomainIlu0Kernel<0>& settings,
                           Ordinal num_subdomains) {
  SubdomainIlu0Kernel<B> kernel{settings.row_map,
                                settings.col_ind,
                                settings.lu,
                                settings.diag,
                                settings.inv_diag,
                                settings.offsets,
                                settings.levels,
                                settings.streams,
                                settings.row_order,
                                settings.largest_subdomain,
                                settings.failed_row,
                                settings.pivot_value,
                                settings.shifted,
                                settings.runtime_b,
                                settings.scale_upper,
                                settings.lower_reach,
                                settings.symmetric,
                                settings.mirror,
                                settings.pivot,
                                settings.shift_attempts,
                                settings.first_shift,
                                settings.initial,
                                settings.symmetrize_initial,
                                settings.initial_diagonal,
                                settings.subdomain_shift,
                                settings.subdomain_attempts,
                                settings.source,
                                settings.source_start};
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  Policy policy = kernel.row_order ? Policy(space, num_subdomains, 1)
                                   : Policy(space, num_subdomains, Kokkos::AUTO);
  if (kernel.row_order) policy.set_scratch_size(1, Kokkos::PerTeam(kernel.row_scratch_bytes()));
  Kokkos::parallel_for("fgdd::factor::subdomain_ilu0", policy, kernel);
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
          if (offsets(mid) <= i)
            lo = mid;
          else
            hi = mid - 1;
        }
        // Columns are sorted (a validated matrix): the row's first and last bound the rest, and
        // the diagonal is found by halving (a scan of every entry took 1.0 ms of SUPG's setup).
        const Offset begin = row_map(i), end = row_map(i + 1);
        const Offset at = find_sorted(col_ind, begin, end, i);
        if (at < end) diag(i) = at;
        const bool ok = begin == end || (col_ind(begin) >= offsets(lo) &&
                                         col_ind(end - 1) < offsets(lo + 1));
        if (!ok && i < first_bad) first_bad = i;
      },
      Kokkos::Min<Ordinal>(bad));
  return bad < n ? bad : n;
}

// Per subdomain, the largest i − j over the L entries of its block rows (columns sorted: a row's
// first column is its smallest), 0 where there are none.
Kokkos::View<Ordinal*, DeviceType> lower_reach(const ExecSpace& space, const SparseMatrix& factors,
                                               const Partition& partition) {
  Kokkos::View<Ordinal*, DeviceType> reach("fgdd::factor::lower_reach", partition.num_subdomains);
  const auto row_map = factors.row_map();
  const auto col_ind = factors.col_ind();
  const auto offsets = partition.subdomain_offsets;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  Kokkos::parallel_for(
      "fgdd::factor::lower_reach", Policy(space, partition.num_subdomains, Kokkos::AUTO),
      KOKKOS_LAMBDA(const Policy::member_type& team) {
        const Ordinal s = team.league_rank();
        Ordinal largest = 0;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(team, offsets(s), offsets(s + 1)),
            [&](const Ordinal i, Ordinal& m) {
              const Ordinal j = row_map(i) < row_map(i + 1) ? col_ind(row_map(i)) : i;
              if (i - j > m) m = i - j;
            },
            Kokkos::Max<Ordinal>(largest));
        Kokkos::single(Kokkos::PerTeam(team), [&]() { reach(s) = largest; });
      });
  return reach;
}

}  // namespace detail

SubdomainIlu0::SubdomainIlu0(const ExecSpace& space, const SparseMatrix& dropped,
                             const Partition& partition, const FactorOptions& options,
                             const KeptRuns& runs)
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
  // IC0 in place too: checked_symmetric_part forms ½(A + Aᵀ) over the dropped values.
  const bool in_place = options_.factor_in_place && options_.level_of_fill == 0;
  factors_ = SparseMatrix(
      SparseMatrix::ValidatedTag{}, n, b, row_map, col_ind,
      in_place ? dropped.values()
               : detail::uninitialized_view<Scalar>("fgdd::factor::lu",
                                                    col_ind.extent(0) * Offset(b) * Offset(b)));
  diag_position_ = Kokkos::View<Offset*, DeviceType>("fgdd::factor::diag_position", n);
  const Ordinal bad = n == 0 ? 0
                             : detail::find_diagonals(space, factors_, partition.subdomain_offsets,
                                                      partition.num_subdomains, diag_position_);
  if (bad < n)
    throw InvalidInput("block row " + std::to_string(bad) +
                       " has an entry outside its subdomain: factor the dropped matrix");
  if (resolve_auto(options_.order) == FactorOrder::Levels) {
    lower_levels_ =
        build_subdomain_levels(space, factors_, diag_position_, partition, Triangle::Lower);
    if (options_.form != IluForm::Ildlt) {
      streams_ = detail::build_elimination_streams(space, factors_, diag_position_, lower_levels_);
      report_.update_list_bytes = Offset(streams_.start.span() * sizeof(Offset) +
                                         streams_.codes.span() * sizeof(std::uint16_t));
    }
  } else if (options_.form == IluForm::Ildu0) {
    lower_reach_ = detail::lower_reach(space, factors_, partition);
  }
  inv_diag_ = Kokkos::View<Scalar*, DeviceType>("fgdd::factor::inv_diag",
                                                Offset(n) * Offset(b) * Offset(b));
  pivots_ = detail::PivotStatus("fgdd::factor", n);
  if (options_.shift == PivotShift::PositiveDefinite) {
    // A retry restarts from the dropped matrix (or, with fill, its scattered values) where they
    // survive the factorization; a copy is kept only where the factors overwrite them.
    if (in_place && options_.form == IluForm::Ildlt)
      initial_diagonal_ =
          detail::uninitialized_view<Scalar>("fgdd::factor::initial_diagonal", Offset(n) * b * b);
    else if (in_place || (options_.level_of_fill > 0 && options_.form != IluForm::Ildlt))
      initial_values_ = detail::uninitialized_view<Scalar>("fgdd::factor::initial_values",
                                                           factors_.values().extent(0));
    shift_scale_ = Kokkos::View<Scalar*, DeviceType>("fgdd::factor::shift_scale", Offset(n) * b);
    subdomain_shift_ = Kokkos::View<Scalar*, DeviceType>("fgdd::factor::subdomain_shift",
                                                         partition.num_subdomains);
    subdomain_attempts_ = Kokkos::View<int*, DeviceType>("fgdd::factor::subdomain_attempts",
                                                         partition.num_subdomains);
  }
  if (options_.form == IluForm::Ildlt)
    mirror_ = detail::mirror_positions(space, factors_, diag_position_, partition.subdomain_offsets,
                                       partition.num_subdomains);
  if (options_.form == IluForm::Ildlt && options_.level_of_fill > 0)
    unsymmetric_values_ = detail::uninitialized_view<Scalar>("fgdd::factor::unsymmetric_values",
                                                             factors_.values().extent(0));
  space.fence();
  const double symbolic = timer.seconds();
  numeric(space, dropped, runs);
  report_.symbolic_seconds = symbolic;
}

const FactorReport& SubdomainIlu0::numeric(const ExecSpace& space, const SparseMatrix& dropped,
                                           const KeptRuns& runs) {
  const Ordinal n = factors_.num_block_rows();
  const int b = factors_.block_size();
  if (dropped.num_block_rows() != n || dropped.block_size() != b ||
      dropped.row_map().data() != source_row_map_.data() ||
      dropped.col_ind().data() != source_col_ind_.data())
    throw InvalidInput(
        "numeric: the matrix is not the pattern the factorization was set up with "
        "(refresh values with update_values and pass the same dropped matrix)");
  Kokkos::Timer timer;
  const bool ildlt = options_.form == IluForm::Ildlt;
  const bool positive_definite = options_.shift == PivotShift::PositiveDefinite;
  // CSR in rows order reads each row from dropped as it eliminates it, instead of a copy of
  // every value first (a pass over the matrix: SUPG's 1.6M entries, 1.5 ms on one core). Not
  // where retries restore rows or the shift's scale reads lu's first values.
  const bool separate = factors_.values().data() != dropped.values().data();  // else in place
  const bool reads_rows = !ildlt && options_.level_of_fill == 0 && b == 1 &&
                          lower_levels() == nullptr && !positive_definite;
  const bool reads_runs = !runs.empty() && reads_rows;
  const bool reads_dropped = runs.empty() && separate && reads_rows;
  // Values left in runs that this form does not read there: into dropped's first.
  if (!runs.empty() && !reads_runs)
    copy_kept_runs(space, runs, dropped.row_map(), b, dropped.values());
  if (ildlt && options_.level_of_fill > 0) {
    refuse_asymmetric(detail::check_symmetry(space, dropped));
    detail::scatter_into_pattern(space, dropped, fill_, unsymmetric_values_);
    detail::symmetric_part(space, factors_, mirror_, unsymmetric_values_, factors_.values());
  } else if (ildlt) {
    // Without fill the dropped pattern is the factors' pattern, whose mirrors are kept.
    refuse_asymmetric(detail::checked_symmetric_part(space, dropped, mirror_, factors_.values()));
  } else if (options_.level_of_fill > 0) {
    detail::scatter_into_pattern(space, dropped, fill_, factors_.values());
  } else if (separate && !reads_dropped && !reads_runs) {
    Kokkos::deep_copy(space, factors_.values(), dropped.values());
  }
  if (positive_definite) {
    if (initial_values_.extent(0) > 0) Kokkos::deep_copy(space, initial_values_, factors_.values());
    if (initial_diagonal_.extent(0) > 0)
      detail::copy_diagonal_blocks(space, factors_.values(), diag_position_, b, initial_diagonal_);
    detail::compute_shift_scale(space, factors_.row_map(), factors_.values(), diag_position_, b,
                                ildlt, shift_scale_);
  }

  detail::SubdomainIlu0Kernel<0> kernel;
  kernel.row_map = factors_.row_map();
  kernel.col_ind = factors_.col_ind();
  kernel.lu = factors_.values();
  kernel.diag = diag_position_;
  kernel.inv_diag = inv_diag_;
  kernel.offsets = partition_.subdomain_offsets;
  kernel.levels = lower_levels_;
  kernel.streams = streams_;
  kernel.row_order = lower_levels() == nullptr;
  kernel.largest_subdomain = partition_.largest_subdomain();
  kernel.failed_row = pivots_.failed_row;
  kernel.pivot_value = pivots_.pivot_value;
  kernel.shifted = pivots_.shifted;
  pivots_.reset(space);
  kernel.runtime_b = b;
  kernel.scale_upper = options_.form != IluForm::Ilu0;
  kernel.lower_reach = lower_reach_;
  kernel.symmetric = ildlt;
  kernel.mirror = mirror_;
  kernel.pivot.rule = options_.pivot_rule();
  kernel.pivot.positive_definite = positive_definite;
  kernel.pivot.shift_scale = shift_scale_;
  kernel.shift_attempts = options_.shift_attempts();
  kernel.first_shift = Scalar(options_.shift_amount);
  kernel.initial = initial_values_;
  kernel.symmetrize_initial = false;
  kernel.initial_diagonal = initial_diagonal_;
  if (positive_definite && initial_values_.extent(0) == 0 && initial_diagonal_.extent(0) == 0) {
    kernel.initial = ildlt && options_.level_of_fill > 0 ? unsymmetric_values_ : dropped.values();
    kernel.symmetrize_initial = ildlt;
  }
  kernel.subdomain_shift = subdomain_shift_;
  kernel.subdomain_attempts = subdomain_attempts_;
  if (reads_dropped) kernel.source = dropped.values();
  if (reads_runs) {
    kernel.source = runs.values;
    kernel.source_start = runs.start;
  }
  const Ordinal subdomains = partition_.num_subdomains;
  if (subdomains > 0) {
    detail::with_block_size(b, [&](auto fast) {
      detail::launch_subdomain_ilu0<decltype(fast)::value>(space, kernel, subdomains);
    });
  }
  ++numeric_count_;
  if (positive_definite) read_shift_report(space);
  const detail::PivotReadback pivots = pivots_.read(space);
  if (pivots.failed_row < n) {
    Ordinal original = 0;  // the row in the matrix the user gave
    Kokkos::deep_copy(original, Kokkos::subview(partition_.iperm, pivots.failed_row));
    detail::throw_pivot_failure(std::int64_t(original) * b, pivots.pivot, options_.shift,
                                report_.shift);
  }
  report_.shifted_pivots = pivots.shifted;
  report_.numeric_seconds = timer.seconds();
  return report_;
}

void SubdomainIlu0::refuse_asymmetric(const detail::SymmetryCheck& check) const {
  if (check.first_row == factors_.num_block_rows()) return;
  Ordinal row = 0, column = 0;  // in the matrix the user gave
  Kokkos::deep_copy(row, Kokkos::subview(partition_.iperm, check.first_row));
  Kokkos::deep_copy(column, Kokkos::subview(partition_.iperm, check.column));
  std::ostringstream message;
  message << "IC0 (IluForm::Ildlt) needs a symmetric matrix: block row " << row << ", column "
          << column;
  if (check.missing_mirror)
    message << " has no mirror entry (" << column << ", " << row << ") in the pattern";
  else
    message << " differs from its mirror: max |a_ij - a_ji| / max(|row i|_inf, |row j|_inf) = "
            << check.asymmetry << " exceeds the rounding tolerance " << detail::symmetry_tolerance;
  throw InvalidInput(message.str());
}

namespace {

// The shift fields of a FactorReport from each subdomain's α and attempts. A free function:
// CUDA refuses extended lambdas inside private member functions.
void summarize_shifts(const ExecSpace& space, const Kokkos::View<Scalar*, DeviceType>& alphas,
                      const Kokkos::View<int*, DeviceType>& attempts,
                      const Kokkos::View<Ordinal*, DeviceType>& offsets, Ordinal subdomains, int b,
                      FactorReport& report) {
  Scalar largest = 0;
  Kokkos::parallel_reduce(
      "fgdd::factor::largest_shift", Kokkos::RangePolicy<ExecSpace>(space, 0, subdomains),
      KOKKOS_LAMBDA(const Ordinal s, Scalar& m) {
        if (alphas(s) > m) m = alphas(s);
      },
      Kokkos::Max<Scalar>(largest));
  int most_attempts = 0;
  Kokkos::parallel_reduce(
      "fgdd::factor::most_shift_attempts", Kokkos::RangePolicy<ExecSpace>(space, 0, subdomains),
      KOKKOS_LAMBDA(const Ordinal s, int& m) {
        if (attempts(s) > m) m = attempts(s);
      },
      Kokkos::Max<int>(most_attempts));
  Offset rows = 0;
  Kokkos::parallel_reduce(
      "fgdd::factor::shifted_rows", Kokkos::RangePolicy<ExecSpace>(space, 0, subdomains),
      KOKKOS_LAMBDA(const Ordinal s, Offset& sum) {
        if (alphas(s) > 0) sum += Offset(offsets(s + 1) - offsets(s)) * b;
      },
      rows);
  Ordinal shifted = 0;
  Kokkos::parallel_reduce(
      "fgdd::factor::shifted_subdomains", Kokkos::RangePolicy<ExecSpace>(space, 0, subdomains),
      KOKKOS_LAMBDA(const Ordinal s, Ordinal& sum) {
        if (alphas(s) > 0) ++sum;
      },
      shifted);
  report.shift = largest;
  report.shift_attempts = most_attempts;
  report.shifted_rows = rows;
  report.shifted_subdomains = shifted;
}

}  // namespace

void SubdomainIlu0::read_shift_report(const ExecSpace& space) {
  summarize_shifts(space, subdomain_shift_, subdomain_attempts_, partition_.subdomain_offsets,
                   partition_.num_subdomains, factors_.block_size(), report_);
}

}  // namespace fgdd
