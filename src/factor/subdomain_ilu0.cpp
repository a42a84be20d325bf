#include "factor/subdomain_ilu0.hpp"

#include "core/dense_block.hpp"
#include "core/errors.hpp"

#include <string>

namespace fgdd {

namespace detail {

// Row-by-row ILU0 inside one subdomain (IKJ order). A scratch marker maps each column of the
// current row to its position, so the update of row i by an earlier row j (vector-parallel over
// row j's upper part, distinct targets) finds its target in O(1). U stays unscaled while rows are
// eliminated; the Ildu0 scaling is a final pass.
struct SubdomainIlu0Kernel {
  using Member = Kokkos::TeamPolicy<ExecSpace>::member_type;
  using Marker = Kokkos::View<int*, ExecSpace::scratch_memory_space,
                              Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  SparseMatrix::RowMap row_map;
  SparseMatrix::ColumnIndices col_ind;
  SparseMatrix::Values lu;
  Kokkos::View<Offset*, DeviceType> diag;
  Kokkos::View<Scalar*, DeviceType> inv_diag;
  Kokkos::View<Ordinal*, DeviceType> offsets;
  Kokkos::View<Ordinal, DeviceType> failed_row;    // smallest failing block row, else n
  Kokkos::View<Scalar*, DeviceType> pivot_value;   // smallest |pivot| met per block row
  Kokkos::View<Offset, DeviceType> shifted;
  int b;
  bool scale_upper;
  PivotRule rule;  // rule.tiny is relative: multiplied by the row's largest |entry|

  KOKKOS_INLINE_FUNCTION Scalar* block(Offset k) const { return &lu(k * Offset(b) * b); }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const Ordinal first = offsets(team.league_rank());
    const Ordinal last = offsets(team.league_rank() + 1);
    Marker marker(team.team_scratch(0), last - first);
    const int bb = b * b;
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, last - first),
                         [&](const Ordinal c) { marker(c) = -1; });
    team.team_barrier();
    for (Ordinal i = first; i < last; ++i) {
      const Offset begin = row_map(i), end = row_map(i + 1);
      Scalar row_max = 0;
      Kokkos::parallel_reduce(
          Kokkos::TeamVectorRange(team, Offset(0), (end - begin) * bb),
          [&](const Offset e, Scalar& m) {
            const Scalar v = fabs(lu(begin * bb + e));
            if (v > m) m = v;
          },
          Kokkos::Max<Scalar>(row_max));
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, begin, end),
                           [&](const Offset k) { marker(col_ind(k) - first) = int(k - begin); });
      team.team_barrier();
      for (Offset kj = begin; kj < diag(i); ++kj) {
        const Ordinal j = col_ind(kj);
        // L_ij = A_ij · D_j⁻¹ (one block product, done once for the team).
        Kokkos::single(Kokkos::PerTeam(team), [&]() {
          Scalar a[max_block_size * max_block_size];
          for (int e = 0; e < bb; ++e) a[e] = block(kj)[e];
          multiply_blocks(a, &inv_diag(Offset(j) * bb), block(kj), b);
        });
        team.team_barrier();
        // A_ik -= L_ij · U_jk for every k > j that row i also holds.
        Kokkos::parallel_for(Kokkos::TeamVectorRange(team, diag(j) + 1, row_map(j + 1)),
                             [&](const Offset kk) {
                               const int at = marker(col_ind(kk) - first);
                               if (at < 0) return;
                               Scalar product[max_block_size * max_block_size];
                               multiply_blocks(block(kj), block(kk), product, b);
                               Scalar* target = block(begin + at);
                               for (int e = 0; e < bb; ++e) target[e] -= product[e];
                             });
        team.team_barrier();
      }
      Kokkos::single(Kokkos::PerTeam(team), [&]() {
        Scalar a[max_block_size * max_block_size];
        for (int e = 0; e < bb; ++e) a[e] = block(diag(i))[e];
        PivotRule row_rule = rule;
        row_rule.tiny = rule.tiny * row_max;
        Scalar smallest = 0;
        const int result = invert_block(a, &inv_diag(Offset(i) * bb), b, row_rule, smallest);
        pivot_value(i) = b == 1 ? block(diag(i))[0] : smallest;
        if (result < 0) {
          Kokkos::atomic_fetch_min(&failed_row(), i);
        } else if (result > 0) {
          Kokkos::atomic_add(&shifted(), Offset(result));
          // Keep D consistent with the D⁻¹ actually used: D = (D⁻¹)⁻¹.
          Scalar d[max_block_size * max_block_size], unused;
          for (int e = 0; e < bb; ++e) d[e] = inv_diag(Offset(i) * bb + e);
          invert_block(d, block(diag(i)), b, PivotRule{}, unused);
        }
      });
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, begin, end),
                           [&](const Offset k) { marker(col_ind(k) - first) = -1; });
      team.team_barrier();
    }
    if (!scale_upper) return;
    // Ildu0: U_ik ← D_i⁻¹ U_ik, independent per block, so all rows at once.
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, row_map(first), row_map(last)),
                         [&](const Offset k) {
                           // The row of entry k: entries are contiguous per row, search back.
                           Ordinal i = first;
                           Ordinal hi = last - 1;
                           while (i < hi) {
                             const Ordinal mid = (i + hi + 1) / 2;
                             if (row_map(mid) <= k) i = mid; else hi = mid - 1;
                           }
                           if (k <= diag(i)) return;
                           Scalar u[max_block_size * max_block_size];
                           for (int e = 0; e < bb; ++e) u[e] = block(k)[e];
                           multiply_blocks(&inv_diag(Offset(i) * bb), u, block(k), b);
                         });
  }
};

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
  diag_position_ = Kokkos::View<Offset*, DeviceType>("fgdd::factor::diag_position", n);
  const Ordinal bad = n == 0 ? 0
                             : detail::find_diagonals(space, dropped, partition.subdomain_offsets,
                                                      partition.num_subdomains, diag_position_);
  if (bad < n)
    throw InvalidInput("block row " + std::to_string(bad) +
                       " has an entry outside its subdomain: factor the dropped matrix");
  for (Ordinal s = 0; s < partition.num_subdomains; ++s)
    largest_subdomain_ = std::max(largest_subdomain_, partition.host_subdomain_offsets[s + 1] -
                                                          partition.host_subdomain_offsets[s]);
  inv_diag_ = Kokkos::View<Scalar*, DeviceType>("fgdd::factor::inv_diag",
                                                Offset(n) * Offset(b) * Offset(b));
  factors_ = SparseMatrix(SparseMatrix::ValidatedTag{}, n, b, dropped.row_map(), dropped.col_ind(),
                          SparseMatrix::Values(Kokkos::view_alloc(Kokkos::WithoutInitializing,
                                                                  "fgdd::factor::lu"),
                                               dropped.num_entries()));
  failed_row_ = Kokkos::View<Ordinal, DeviceType>("fgdd::factor::failed_row");
  pivot_value_ = Kokkos::View<Scalar*, DeviceType>("fgdd::factor::pivot_value", n);
  shifted_count_ = Kokkos::View<Offset, DeviceType>("fgdd::factor::shifted");
  space.fence();
  const double symbolic = timer.seconds();
  numeric(space, dropped);
  report_.symbolic_seconds = symbolic;
}

const FactorReport& SubdomainIlu0::numeric(const ExecSpace& space, const SparseMatrix& dropped) {
  const Ordinal n = factors_.num_block_rows();
  const int b = factors_.block_size();
  if (dropped.num_block_rows() != n || dropped.block_size() != b ||
      dropped.row_map().data() != factors_.row_map().data() ||
      dropped.col_ind().data() != factors_.col_ind().data())
    throw InvalidInput("numeric: the matrix is not the pattern the factorization was set up with "
                       "(refresh values with update_values and pass the same dropped matrix)");
  Kokkos::Timer timer;
  Kokkos::deep_copy(space, factors_.values(), dropped.values());

  detail::SubdomainIlu0Kernel kernel;
  kernel.row_map = factors_.row_map();
  kernel.col_ind = factors_.col_ind();
  kernel.lu = factors_.values();
  kernel.diag = diag_position_;
  kernel.inv_diag = inv_diag_;
  kernel.offsets = partition_.subdomain_offsets;
  kernel.failed_row = failed_row_;
  kernel.pivot_value = pivot_value_;
  kernel.shifted = shifted_count_;
  Kokkos::deep_copy(space, failed_row_, n);
  Kokkos::deep_copy(space, shifted_count_, Offset(0));
  kernel.b = b;
  kernel.scale_upper = options_.form == IluForm::Ildu0;
  kernel.rule.tiny = options_.pivot_threshold;
  kernel.rule.shift = options_.shift_tiny_pivots;
  kernel.rule.absolute_shift = options_.absolute_shift;
  kernel.rule.relative_shift = options_.relative_shift;

  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  const int vector_length = std::min(32, Policy::vector_length_max());
  const std::size_t scratch = detail::SubdomainIlu0Kernel::Marker::shmem_size(largest_subdomain_);
  if (partition_.num_subdomains > 0) {
    Kokkos::parallel_for("fgdd::factor::subdomain_ilu0",
                         Policy(space, partition_.num_subdomains, 1, vector_length)
                             .set_scratch_size(0, Kokkos::PerTeam(scratch)),
                         kernel);
  }
  Ordinal failed = n;
  Offset shifted = 0;
  Kokkos::deep_copy(space, failed, kernel.failed_row);
  Kokkos::deep_copy(space, shifted, kernel.shifted);
  space.fence();
  if (failed < n) {
    Scalar value = 0;
    Kokkos::deep_copy(value, Kokkos::subview(kernel.pivot_value, failed));
    Ordinal original = 0;
    Kokkos::deep_copy(original, Kokkos::subview(partition_.iperm, failed));
    throw ZeroPivot(std::int64_t(original) * b, value);
  }
  report_.shifted_pivots = shifted;
  report_.numeric_seconds = timer.seconds();
  return report_;
}

}  // namespace fgdd
