#include "factor/global_ilu0.hpp"

#include "core/block_size_dispatch.hpp"
#include "core/dense_block.hpp"
#include "core/errors.hpp"
#include "core/team_size.hpp"
#include "factor/pivot_shift.hpp"
#include "factor/whole_matrix_shift.hpp"

#include <algorithm>
#include <string>

namespace fgdd {

namespace detail {

constexpr Offset no_position = ~Offset(0);

// What every launch of the global ILU0 reads and writes.
struct GlobalIlu0Data {
  SparseMatrix::RowMap row_map;
  SparseMatrix::ColumnIndices col_ind;
  SparseMatrix::Values lu;
  Kokkos::View<Offset*, DeviceType> diag;
  Kokkos::View<Scalar*, DeviceType> inv_diag;
  Kokkos::View<Ordinal*, DeviceType> level_rows;
  Kokkos::View<Ordinal, DeviceType> failed_row;   // smallest failing block row, else n
  Kokkos::View<Scalar*, DeviceType> pivot_value;  // per block row: its (smallest |) pivot
  Kokkos::View<Offset, DeviceType> shifted;
  // CPUs (row order): per block column, the current row's block there, else no_position (all
  // of them between rows).
  Kokkos::View<Offset*, DeviceType> positions;
  int runtime_b = 1;
  PivotTreatment pivot;  // pivot.rule.tiny is relative: multiplied by the row's largest |entry|
};

// One level of the IKJ ILU0 (paper Algorithm 4 in the global DAG order): every row of the level
// depends only on rows of earlier levels, already final, and only its own thread writes it, so
// the rows are eliminated independently, one per team thread. For each L block (i, j) in column
// order, the vector lanes share row j's U blocks; each looks its column up in row i by binary
// search (columns are sorted) and subtracts L_ij·U_jk there; the targets are distinct, so no
// atomics, and the result is deterministic. U stays unscaled; Ildu0 scales it after the last
// level. B is the block size when known at compile time (the b = 1..4 fast paths), 0 for any
// b ≤ max_block_size.
template <int B>
struct GlobalIlu0LevelKernel {
  using Member = Kokkos::TeamPolicy<ExecSpace>::member_type;
  static constexpr int capacity = B > 0 ? B* B : max_block_size* max_block_size;

  GlobalIlu0Data data;
  Ordinal level_begin = 0;
  Ordinal level_end = 0;

  KOKKOS_INLINE_FUNCTION int b() const { return B > 0 ? B : data.runtime_b; }
  KOKKOS_INLINE_FUNCTION Scalar* block(Offset k) const { return &data.lu(k * Offset(b()) * b()); }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& member) const {
    const Ordinal p = level_begin + member.league_rank() * member.team_size() + member.team_rank();
    if (p >= level_end) return;  // no team barrier below, so idle threads may leave
    const Ordinal i = data.level_rows(p);
    const Offset end = data.row_map(i + 1);
    // Row i's block in column c, searched for after position kj (columns are sorted), or end.
    const auto find = [&](const Ordinal c, const Offset kj) {
      Offset lo = kj + 1, hi = end;
      while (lo < hi) {
        const Offset mid = lo + (hi - lo) / 2;
        if (data.col_ind(mid) < c)
          lo = mid + 1;
        else
          hi = mid;
      }
      return lo < end && data.col_ind(lo) == c ? lo : end;
    };
    eliminate(member, i, find);
  }

  // Row i, once every row it reads is final, by the calling thread and its vector lanes.
  // find(c, kj): the position of row i's block in column c (c > the column at kj), or the end
  // of row i when it holds none.
  template <class Find>
  KOKKOS_INLINE_FUNCTION void eliminate(const Member& member, const Ordinal i,
                                        const Find& find) const {
    const int bb = b() * b();
    const Offset begin = data.row_map(i), end = data.row_map(i + 1), d = data.diag(i);
    Scalar row_max = 0;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(member, begin * bb, end * bb),
        [&](const Offset e, Scalar& m) {
          const Scalar v = fabs(data.lu(e));
          if (v > m) m = v;
        },
        Kokkos::Max<Scalar>(row_max));
    for (Offset kj = begin; kj < d; ++kj) {
      const Ordinal j = data.col_ind(kj);
      // L_ij = A_ij · D_j⁻¹, computed by every lane into registers. Lane 0 stores it after the
      // update loop, whose end synchronizes the lanes, so no lane reads a half-written block.
      Scalar l[capacity];
      {
        Scalar a[capacity];
        for (int e = 0; e < bb; ++e) a[e] = block(kj)[e];
        multiply_blocks(a, &data.inv_diag(Offset(j) * bb), l, b());
      }
      // A_ik -= L_ij · U_jk for every k > j that row i also holds (k > j lies after kj).
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(member, data.diag(j) + 1, data.row_map(j + 1)),
                           [&](const Offset kk) {
                             const Offset lo = find(data.col_ind(kk), kj);
                             if (lo == end) return;
                             Scalar product[capacity];
                             multiply_blocks(l, block(kk), product, b());
                             Scalar* t = block(lo);
                             for (int e = 0; e < bb; ++e) t[e] -= product[e];
                           });
      Kokkos::single(Kokkos::PerThread(member), [&]() {
        Scalar* target = block(kj);
        for (int e = 0; e < bb; ++e) target[e] = l[e];
      });
    }
    // The pivot, exactly as SubdomainIlu0 treats it.
    Kokkos::single(Kokkos::PerThread(member), [&]() {
      bool changed = false;
      Scalar reported = 0;
      const int result =
          treat_pivot<capacity>(block(d), &data.inv_diag(Offset(i) * bb), b(), Offset(i) * b(),
                                row_max, data.pivot, changed, reported);
      data.pivot_value(i) = reported;
      if (result < 0)
        Kokkos::atomic_fetch_min(&data.failed_row(), i);
      else if (result > 0)
        Kokkos::atomic_add(&data.shifted(), Offset(result));
    });
  }
};

// The same elimination by one thread, rows in order (every row it reads is final before it gets
// there), looking columns up in a map of the row's positions instead of searching: on CPUs this
// reads the factors front to back instead of gathering a level's rows, and needs one launch
// instead of one per level.
template <int B>
struct GlobalIlu0RowOrderKernel {
  using Member = Kokkos::TeamPolicy<ExecSpace>::member_type;
  GlobalIlu0LevelKernel<B> row;
  Ordinal n = 0;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& member) const {
    const GlobalIlu0Data& data = row.data;
    const auto& position = data.positions;
    for (Ordinal i = 0; i < n; ++i) {
      const Offset begin = data.row_map(i), end = data.row_map(i + 1);
      for (Offset k = begin; k < end; ++k) position(data.col_ind(k)) = k;
      row.eliminate(member, i, [&](const Ordinal c, Offset) {
        const Offset at = position(c);
        return at == no_position ? end : at;
      });
      for (Offset k = begin; k < end; ++k) position(data.col_ind(k)) = no_position;
    }
  }
};

// Ildu0: U_ik ← D_i⁻¹ U_ik, independent per row, once every row is eliminated.
template <int B>
struct GlobalScaleUpperKernel {
  static constexpr int capacity = B > 0 ? B* B : max_block_size* max_block_size;
  GlobalIlu0Data data;

  KOKKOS_INLINE_FUNCTION int b() const { return B > 0 ? B : data.runtime_b; }

  KOKKOS_INLINE_FUNCTION void operator()(const Ordinal i) const {
    const int bb = b() * b();
    for (Offset k = data.diag(i) + 1; k < data.row_map(i + 1); ++k) {
      Scalar u[capacity];
      for (int e = 0; e < bb; ++e) u[e] = data.lu(k * bb + e);
      multiply_blocks(&data.inv_diag(Offset(i) * bb), u, &data.lu(k * bb), b());
    }
  }
};

template <int B>
void launch_global_ilu0(const ExecSpace& space, const GlobalIlu0Data& data,
                        const std::vector<Ordinal>& level_ptr, int vector_length, bool scale_upper,
                        Ordinal n) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  GlobalIlu0LevelKernel<B> kernel{data, 0, 0};
  if (host_memory) {
    Kokkos::parallel_for("fgdd::factor::global_ilu0_row_order", Policy(space, 1, 1),
                         GlobalIlu0RowOrderKernel<B>{kernel, n});
  } else {
    // A few rows per team, one per thread; their lanes share a row's work.
    const int team_size = independent_team_size(space, kernel, vector_length, 128 / vector_length);
    for (std::size_t l = 0; l + 1 < level_ptr.size(); ++l) {
      kernel.level_begin = level_ptr[l];
      kernel.level_end = level_ptr[l + 1];
      const Ordinal league = (kernel.level_end - kernel.level_begin + team_size - 1) / team_size;
      Kokkos::parallel_for("fgdd::factor::global_ilu0_level",
                           Policy(space, league, team_size, vector_length), kernel);
    }
  }
  if (scale_upper)
    Kokkos::parallel_for("fgdd::factor::global_ildu0_scale_upper",
                         Kokkos::RangePolicy<ExecSpace>(space, 0, n),
                         GlobalScaleUpperKernel<B>{data});
}

// True when B has A's block rows, block size and pattern (compared on the device unless the
// arrays are the same).
bool global_same_pattern(const ExecSpace& space, const SparseMatrix& A, const SparseMatrix& B) {
  if (A.num_block_rows() != B.num_block_rows() || A.block_size() != B.block_size() ||
      A.num_block_entries() != B.num_block_entries())
    return false;
  if (A.row_map().data() == B.row_map().data() && A.col_ind().data() == B.col_ind().data())
    return true;
  const auto a_row_map = A.row_map(), b_row_map = B.row_map();
  const auto a_col_ind = A.col_ind(), b_col_ind = B.col_ind();
  const Offset rows = Offset(A.num_block_rows()) + 1, entries = A.num_block_entries();
  Offset differences = 0;
  Kokkos::parallel_reduce(
      "fgdd::factor::global_compare_pattern",
      Kokkos::RangePolicy<ExecSpace>(space, 0, std::max(rows, entries)),
      KOKKOS_LAMBDA(const Offset k, Offset& count) {
        if (k < rows && a_row_map(k) != b_row_map(k)) ++count;
        if (k < entries && a_col_ind(k) != b_col_ind(k)) ++count;
      },
      differences);
  return differences == 0;
}

}  // namespace detail

GlobalIlu0::GlobalIlu0(const ExecSpace& space, const SparseMatrix& A, const FactorOptions& options)
    : options_(options) {
  options_.validate();
  if (options_.form != IluForm::Ilu0 && options_.form != IluForm::Ildu0)
    throw InvalidInput(
        "GlobalIlu0 computes IluForm::Ilu0 or IluForm::Ildu0 (Ildlt is offered by "
        "SubdomainIlu0 only)");
  if (options_.level_of_fill != 0)
    throw InvalidInput("GlobalIlu0 is ILU0: level_of_fill must be 0, not " +
                       std::to_string(options_.level_of_fill));
  Kokkos::Timer timer;
  const Ordinal n = A.num_block_rows();
  const int b = A.block_size();
  if (b > detail::max_block_size)
    throw InvalidInput("block size " + std::to_string(b) + " exceeds the supported " +
                       std::to_string(detail::max_block_size));
  diag_position_ = diagonal_positions(space, A);
  if (!host_memory) {  // the level-by-level factorization's order
    lower_levels_ = build_global_levels(space, A, diag_position_, Triangle::Lower);
    has_lower_levels_ = true;
  }
  inv_diag_ = Kokkos::View<Scalar*, DeviceType>("fgdd::factor::global_inv_diag",
                                                Offset(n) * Offset(b) * Offset(b));
  factors_ = SparseMatrix(SparseMatrix::ValidatedTag{}, n, b, A.row_map(), A.col_ind(),
                          SparseMatrix::Values(Kokkos::view_alloc(Kokkos::WithoutInitializing,
                                                                  "fgdd::factor::global_lu"),
                                               A.num_entries()));
  pivots_ = detail::PivotStatus("fgdd::factor::global", n);
  // Lanes per row: about the U blocks a row reads per L block, a power of two (at most 32, and
  // what the backend allows).
  const Offset upper_blocks = n > 0 ? (A.num_block_entries() - Offset(n)) / 2 / Offset(n) : 0;
  vector_length_ = detail::lanes_covering(upper_blocks);
  if (host_memory) {  // the row-order factorization's column map, kept for every refactor
    row_positions_ = Kokkos::View<Offset*, DeviceType>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::factor::global_ilu0_positions"), n);
    Kokkos::deep_copy(space, row_positions_, detail::no_position);
  }
  space.fence();
  const double symbolic = timer.seconds();
  numeric(space, A);
  report_.symbolic_seconds = symbolic;
}

const FactorReport& GlobalIlu0::numeric(const ExecSpace& space, const SparseMatrix& A) {
  const Ordinal n = factors_.num_block_rows();
  const int b = factors_.block_size();
  if (!detail::global_same_pattern(space, factors_, A))
    throw InvalidInput("numeric: the matrix is not the pattern the global ILU0 was set up with (" +
                       std::to_string(A.num_block_rows()) + " block rows of size " +
                       std::to_string(A.block_size()) + ", " +
                       std::to_string(A.num_block_entries()) + " blocks; expected " +
                       std::to_string(n) + ", " + std::to_string(b) + ", " +
                       std::to_string(factors_.num_block_entries()) + ")");
  Kokkos::Timer timer;
  const bool positive_definite = options_.shift == PivotShift::PositiveDefinite;
  if (positive_definite) {
    if (shift_scale_.extent(0) == 0)
      shift_scale_ =
          Kokkos::View<Scalar*, DeviceType>("fgdd::factor::global_shift_scale", Offset(n) * b);
    detail::compute_shift_scale(space, A.row_map(), A.values(), diag_position_, b, false,
                                shift_scale_);
  }

  detail::GlobalIlu0Data data;
  data.row_map = factors_.row_map();
  data.col_ind = factors_.col_ind();
  data.lu = factors_.values();
  data.diag = diag_position_;
  data.inv_diag = inv_diag_;
  data.level_rows = lower_levels_.rows;
  data.failed_row = pivots_.failed_row;
  data.pivot_value = pivots_.pivot_value;
  data.shifted = pivots_.shifted;
  data.positions = row_positions_;
  data.runtime_b = b;
  data.pivot.rule = options_.pivot_rule();
  data.pivot.positive_definite = positive_definite;
  data.pivot.shift_scale = shift_scale_;
  const bool scale = options_.form == IluForm::Ildu0;
  detail::factor_shifting_whole_matrix(space, options_, pivots_, n, b, report_, [&](Scalar alpha) {
    Kokkos::deep_copy(space, factors_.values(), A.values());
    data.pivot.alpha = alpha;
    launch(space, data, scale);
  });
  ++numeric_count_;
  report_.numeric_seconds = timer.seconds();
  return report_;
}

const GlobalLevels& GlobalIlu0::lower_levels() const {
  if (!has_lower_levels_) {
    lower_levels_ = build_global_levels(ExecSpace(), factors_, diag_position_, Triangle::Lower);
    has_lower_levels_ = true;
  }
  return lower_levels_;
}

void GlobalIlu0::launch(const ExecSpace& space, const detail::GlobalIlu0Data& data,
                        bool scale) const {
  const Ordinal n = factors_.num_block_rows();
  const auto& levels = lower_levels_.host_level_ptr;
  detail::with_block_size(factors_.block_size(), [&](auto fast) {
    detail::launch_global_ilu0<decltype(fast)::value>(space, data, levels, vector_length_, scale,
                                                      n);
  });
}

}  // namespace fgdd
