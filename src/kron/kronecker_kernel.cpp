// Kernel mapping: a team takes R consecutive block rows and gives one thread to each of their
// R·b·s (block row, row in block r, stage k) outputs. The threads of one block row read each
// block's row r once per stage from cache and x's s·b contiguous values of the block column, so
// one warp's loads of M, L and x are a few contiguous segments (Algorithm 3's reuse, without
// its shared-memory reduction). Combining after the product needs the s partial sums of a row,
// which the team exchanges through scratch across one barrier.
#include "kron/kronecker_kernel.hpp"

#include "core/block_size_dispatch.hpp"
#include "core/errors.hpp"
#include "core/team_size.hpp"

#include <string>

namespace fgdd::detail {

namespace {

using Policy = Kokkos::TeamPolicy<ExecSpace>;
using Member = Policy::member_type;
using ScratchValues =
    Kokkos::View<Scalar*, ExecSpace::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
using RandomAccessVector =
    Kokkos::View<const Scalar*, DeviceType, Kokkos::MemoryTraits<Kokkos::RandomAccess>>;

// The block row a kernel's position p computes: p itself, or only(p) when a row list is given.
KOKKOS_INLINE_FUNCTION Ordinal row_at(const RowList& only, Ordinal p) {
  return only.extent(0) > 0 ? only(p) : p;
}

// Outputs per team: R = max(1, team_outputs / (b·s)) block rows.
constexpr int team_outputs = 128;

// B: the block size when known at compile time (1..4), 0 for any. Combine: coefficients are
// applied after the product (x_m = x_l). SharedPattern: M and L share row map and columns.
template <int B, bool Combine, bool SharedPattern>
struct KroneckerRowsKernel {
  BlockRows M, L;
  RandomAccessVector x_m, x_l;
  Kokkos::View<const Scalar*, DeviceType> coefficients;
  Vector y;
  RowList only;            // the block rows to compute, or empty: all
  Ordinal num_block_rows;  // positions: only's length, or the rows
  int runtime_b;
  int stages;
  int rows_per_team;
  bool accumulate;

  KOKKOS_INLINE_FUNCTION int b() const { return B > 0 ? B : runtime_b; }

  // Row r of block e of A times stage k of the block column's x, summed into sum.
  KOKKOS_INLINE_FUNCTION void add_block(const BlockRows& A, const RandomAccessVector& x, Offset e,
                                        int r, int k, Scalar& sum) const {
    const int n = b();
    const Offset s = stages;
    const Scalar* block_row = &A.values(e * n * n + r * n);
    const Offset x_start = Offset(A.cols(e)) * n * s + k;
    for (int c = 0; c < n; ++c) sum += block_row[c] * x(x_start + c * s);
  }

  KOKKOS_INLINE_FUNCTION void products(Ordinal row, int r, int k, Scalar& p, Scalar& q) const {
    if (SharedPattern) {
      const int n = b();
      const Offset s = stages;
      for (Offset e = M.row_map(row); e < M.row_map(row + 1); ++e) {
        const Scalar* m_row = &M.values(e * n * n + r * n);
        const Scalar* l_row = &L.values(e * n * n + r * n);
        const Offset x_start = Offset(M.cols(e)) * n * s + k;
        for (int c = 0; c < n; ++c) {
          const Scalar xm = x_m(x_start + c * s);
          const Scalar xl = Combine ? xm : x_l(x_start + c * s);
          p += m_row[c] * xm;
          q += l_row[c] * xl;
        }
      }
    } else {
      for (Offset e = M.row_map(row); e < M.row_map(row + 1); ++e) add_block(M, x_m, e, r, k, p);
      for (Offset e = L.row_map(row); e < L.row_map(row + 1); ++e) add_block(L, x_l, e, r, k, q);
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int per_row = b() * stages;
    const Ordinal first = Ordinal(team.league_rank()) * rows_per_team;
    const Ordinal rows =
        rows_per_team < num_block_rows - first ? rows_per_team : num_block_rows - first;
    const int outputs = int(rows) * per_row;
    // Output t of the team: entry rk of block row row_at(first + t / per_row).
    const auto output = [&](const int t) {
      return Offset(row_at(only, first + t / per_row)) * Offset(per_row) + t % per_row;
    };
    if (!Combine) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, outputs), [&](const int t) {
        const int rk = t % per_row;
        Scalar p = 0, q = 0;
        products(row_at(only, first + t / per_row), rk / stages, rk % stages, p, q);
        const Offset out = output(t);
        y(out) = (accumulate ? y(out) : Scalar(0)) + p + q;
      });
      return;
    }
    const ScratchValues sums(team.team_scratch(0), 2 * Offset(rows_per_team) * per_row);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, outputs), [&](const int t) {
      const int rk = t % per_row;
      Scalar p = 0, q = 0;
      products(row_at(only, first + t / per_row), rk / stages, rk % stages, p, q);
      sums(2 * t) = p;
      sums(2 * t + 1) = q;
    });
    // Each output needs the s partial sums of its scalar row, written by other threads.
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, outputs), [&](const int t) {
      const int k = t % stages;
      const int row_start = t - k;  // output (block row, r, stage 0)
      const Offset s = stages;
      const Scalar* a = &coefficients(k * s);
      const Scalar* tau_b = &coefficients(s * s + k * s);
      Scalar sum = 0;
      for (int l = 0; l < stages; ++l)
        sum += a[l] * sums(2 * (row_start + l)) + tau_b[l] * sums(2 * (row_start + l) + 1);
      const Offset out = output(t);
      y(out) = (accumulate ? y(out) : Scalar(0)) + sum;
    });
  }
};

template <int B, bool Combine, bool SharedPattern>
void launch(const ExecSpace& space, Ordinal num_block_rows, int block_size, int stages,
            const BlockRows& M, ConstVector x_m, const BlockRows& L, ConstVector x_l,
            Kokkos::View<const Scalar*, DeviceType> coefficients, bool accumulate, Vector y,
            const RowList& only) {
  const int per_row = block_size * stages;
  const int rows_per_team = per_row >= team_outputs ? 1 : team_outputs / per_row;
  const KroneckerRowsKernel<B, Combine, SharedPattern> kernel{
      M,          L,          x_m,    x_l,           coefficients, y, only, num_block_rows,
      block_size, stages, rows_per_team, accumulate};
  const Ordinal league = (num_block_rows + rows_per_team - 1) / rows_per_team;
  const std::size_t scratch_bytes =
      Combine ? ScratchValues::shmem_size(2 * Offset(rows_per_team) * per_row) : 0;
  // One thread per output, rounded up to whole warps or wavefronts. On host backends a team is
  // one thread (a team spanning cores would only add barriers); its outputs run in order.
  Policy probe(space, 1, 1);
  probe.set_scratch_size(0, Kokkos::PerTeam(scratch_bytes));
  const int team_max = host_memory ? 1 : probe.team_size_max(kernel, Kokkos::ParallelForTag());
  const int team_size =
      detail::whole_simd_groups(rows_per_team * per_row, detail::simd_width(), team_max);
  Policy policy(space, league, team_size);
  policy.set_scratch_size(0, Kokkos::PerTeam(scratch_bytes));
  Kokkos::parallel_for("fgdd::kron::kronecker_rows", policy, kernel);
}

// s = 1 and b = 1 with long rows: there are no columns for a loaded entry to serve, so a row
// is a plain sparse dot product, and one thread per row (the kernel above) makes a warp read
// 32 rows' entries with a stride of the row length, loads that do not coalesce: far slower than
// two separate SpMVs. A vector of lanes per row reads them contiguously, as an SpMV does
// (measured: docs/PERFORMANCE_HISTORY.md, "Measurements behind code choices").
struct ScalarRowsKernel {
  BlockRows M, L;
  RandomAccessVector x_m, x_l;
  Kokkos::View<const Scalar*, DeviceType> coefficients;  // a and tau*b, or empty: 1 and 1
  Vector y;
  RowList only;      // the rows to compute, or empty: all
  Ordinal num_rows;  // positions: only's length, or the rows
  int rows_per_team;
  bool shared;
  bool accumulate;

  KOKKOS_INLINE_FUNCTION Scalar row_sum(const Member& team, const BlockRows& A,
                                        const RandomAccessVector& x, Ordinal row) const {
    Scalar sum = 0;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, A.row_map(row), A.row_map(row + 1)),
        [&](const Offset e, Scalar& partial) { partial += A.values(e) * x(A.cols(e)); }, sum);
    return sum;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const bool combine = coefficients.extent(0) > 0;
    const Scalar m_scale = combine ? coefficients(0) : Scalar(1);
    const Scalar l_scale = combine ? coefficients(1) : Scalar(1);
    const Ordinal first = Ordinal(team.league_rank()) * rows_per_team;
    const Ordinal rows = rows_per_team < num_rows - first ? rows_per_team : num_rows - first;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rows), [&](const Ordinal t) {
      const Ordinal row = row_at(only, first + t);
      Scalar sum = 0;
      if (shared) {  // one pass over the shared columns
        Kokkos::parallel_reduce(
            Kokkos::ThreadVectorRange(team, M.row_map(row), M.row_map(row + 1)),
            [&](const Offset e, Scalar& partial) {
              const Ordinal col = M.cols(e);
              partial += m_scale * M.values(e) * x_m(col) + l_scale * L.values(e) * x_l(col);
            },
            sum);
      } else {
        sum = m_scale * row_sum(team, M, x_m, row) + l_scale * row_sum(team, L, x_l, row);
      }
      Kokkos::single(Kokkos::PerThread(team),
                     [&] { y(row) = (accumulate ? y(row) : Scalar(0)) + sum; });
    });
  }
};

// Lanes per row for ScalarRowsKernel on GPUs, 0 where the thread-per-output kernel is better:
// with short rows a warp's strided reads still share cache lines, and with several outputs per
// row they share the loaded blocks
// (measured: docs/PERFORMANCE_HISTORY.md, "Measurements behind code choices").
int scalar_row_lanes(int block_size, int stages, Ordinal num_block_rows, const BlockRows& M) {
  if (host_memory || block_size != 1 || stages != 1) return 0;
  const double mean_row = double(M.cols.extent(0)) / double(num_block_rows);
  if (mean_row < 16) return 0;
  int lanes = 4;
  while (lanes < detail::max_vector_lanes() && lanes < mean_row / 4) lanes *= 2;
  return lanes;
}

void launch_scalar_rows(const ExecSpace& space, Ordinal num_rows, int lanes, const BlockRows& M,
                        ConstVector x_m, const BlockRows& L, ConstVector x_l,
                        Kokkos::View<const Scalar*, DeviceType> coefficients, bool shared,
                        bool accumulate, Vector y, const RowList& only) {
  const int rows_per_team = team_outputs / lanes;
  const ScalarRowsKernel kernel{M,    L,        x_m,           x_l,    coefficients,
                                y,    only,     num_rows,      rows_per_team, shared,
                                accumulate};
  const Ordinal league = (num_rows + rows_per_team - 1) / rows_per_team;
  Kokkos::parallel_for("fgdd::kron::kronecker_scalar_rows",
                       Policy(space, league, rows_per_team, lanes), kernel);
}

template <bool Combine, bool SharedPattern>
void dispatch_block_size(const ExecSpace& space, Ordinal num_block_rows, int block_size, int stages,
                         const BlockRows& M, ConstVector x_m, const BlockRows& L, ConstVector x_l,
                         Kokkos::View<const Scalar*, DeviceType> coefficients, bool accumulate,
                         Vector y, const RowList& only) {
  with_block_size(block_size, [&](auto fast) {
    launch<decltype(fast)::value, Combine, SharedPattern>(space, num_block_rows, block_size,
                                                          stages, M, x_m, L, x_l, coefficients,
                                                          accumulate, y, only);
  });
}

}  // namespace

Kokkos::View<Scalar*, DeviceType> stage_coefficients_on_device(const StageCoefficients& c,
                                                               double tau) {
  c.validate();
  const std::size_t s2 = std::size_t(c.stages) * std::size_t(c.stages);
  Kokkos::View<Scalar*, DeviceType> device("fgdd::kron::stage_coefficients", 2 * s2);
  const auto host = Kokkos::create_mirror_view(device);
  for (std::size_t e = 0; e < s2; ++e) {
    host(e) = c.A[e];
    host(s2 + e) = tau * c.B[e];
  }
  Kokkos::deep_copy(device, host);
  return device;
}

void kronecker_rows(const ExecSpace& space, Ordinal num_block_rows, int block_size, int stages,
                    const BlockRows& M, ConstVector x_m, const BlockRows& L, ConstVector x_l,
                    Kokkos::View<const Scalar*, DeviceType> coefficients, bool accumulate,
                    Vector y, const RowList& only_rows) {
  // From here on num_block_rows counts positions: only_rows' entries when a list is given.
  if (only_rows.extent(0) > 0) num_block_rows = Ordinal(only_rows.extent(0));
  if (num_block_rows == 0) return;
  const bool combine = coefficients.extent(0) > 0;
  if (combine && coefficients.extent(0) != 2 * std::size_t(stages) * std::size_t(stages))
    throw InvalidInput("kronecker_rows: " + std::to_string(coefficients.extent(0)) +
                       " coefficients for " + std::to_string(stages) + " stages");
  const bool shared = M.row_map.data() == L.row_map.data() && M.cols.data() == L.cols.data();
  if (const int lanes = scalar_row_lanes(block_size, stages, num_block_rows, M))
    launch_scalar_rows(space, num_block_rows, lanes, M, x_m, L, x_l, coefficients, shared,
                       accumulate, y, only_rows);
  else if (combine && shared)
    dispatch_block_size<true, true>(space, num_block_rows, block_size, stages, M, x_m, L, x_l,
                                    coefficients, accumulate, y, only_rows);
  else if (combine)
    dispatch_block_size<true, false>(space, num_block_rows, block_size, stages, M, x_m, L, x_l,
                                     coefficients, accumulate, y, only_rows);
  else if (shared)
    dispatch_block_size<false, true>(space, num_block_rows, block_size, stages, M, x_m, L, x_l,
                                     coefficients, accumulate, y, only_rows);
  else
    dispatch_block_size<false, false>(space, num_block_rows, block_size, stages, M, x_m, L, x_l,
                                      coefficients, accumulate, y, only_rows);
}

void combine_stages(const ExecSpace& space, Offset rows, int stages, ConstVector x,
                    Kokkos::View<const Scalar*, DeviceType> coefficients, bool transpose,
                    Vector x_a, Vector x_b) {
  const Offset s = stages;
  // One thread per output entry (i, k): the s reads of row i are contiguous and shared by the
  // row's s threads through cache; the writes are contiguous.
  Kokkos::parallel_for(
      "fgdd::kron::combine_stages", Kokkos::RangePolicy<ExecSpace>(space, 0, rows * s),
      KOKKOS_LAMBDA(const Offset e) {
        const Offset k = e % s, row_start = e - k;
        // Entry (k, l) of C or its transpose: C is row-major s×s.
        const Offset stride = transpose ? s : 1, start = transpose ? k : k * s;
        Scalar a = 0, b = 0;
        for (Offset l = 0; l < s; ++l) {
          const Scalar xl = x(row_start + l);
          a += coefficients(start + l * stride) * xl;
          b += coefficients(s * s + start + l * stride) * xl;
        }
        x_a(e) = a;
        x_b(e) = b;
      });
}

void kronecker_rows_transpose(const ExecSpace& space, Ordinal num_block_rows, int block_size,
                              int stages, const BlockRows& M, ConstVector x_a, const BlockRows& L,
                              ConstVector x_b, Vector y) {
  const Offset s = stages, b = block_size, per_row = b * s;
  const auto m_rows = M.row_map;
  const auto m_cols = M.cols;
  const auto m_values = M.values;
  const auto l_rows = L.row_map;
  const auto l_cols = L.cols;
  const auto l_values = L.values;
  // Thread (block row i, row r, stage k) owns x(i, r, k) and scatters row r of each block.
  Kokkos::parallel_for(
      "fgdd::kron::kronecker_rows_transpose",
      Kokkos::RangePolicy<ExecSpace>(space, 0, Offset(num_block_rows) * per_row),
      KOKKOS_LAMBDA(const Offset t) {
        const Offset i = t / per_row, rk = t % per_row, r = rk / s, k = rk % s;
        const Scalar xa = x_a(t), xb = x_b(t);
        for (Offset e = m_rows(i); e < m_rows(i + 1); ++e) {
          const Offset y_start = Offset(m_cols(e)) * per_row + k;
          for (Offset c = 0; c < b; ++c)
            Kokkos::atomic_add(&y(y_start + c * s), m_values(e * b * b + r * b + c) * xa);
        }
        for (Offset e = l_rows(i); e < l_rows(i + 1); ++e) {
          const Offset y_start = Offset(l_cols(e)) * per_row + k;
          for (Offset c = 0; c < b; ++c)
            Kokkos::atomic_add(&y(y_start + c * s), l_values(e * b * b + r * b + c) * xb);
        }
      });
}

}  // namespace fgdd::detail
