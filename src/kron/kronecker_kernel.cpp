// Kernel mapping: a team takes R consecutive block rows and gives one thread to each of their
// R·b·s (block row, row in block r, stage k) outputs. The threads of one block row read each
// block's row r once per stage from cache and x's s·b contiguous values of the block column, so
// one warp's loads of M, L and x are a few contiguous segments (Algorithm 3's reuse, without
// its shared-memory reduction). When b·s is small (scalar CSR with one or two stages) one
// thread per output would walk a long row alone with scattered loads, so each output then gets
// V vector lanes that split the row's blocks (Kokkos-Kernels' SpMV does the same). Combining
// after the product needs the s partial sums of a row, which the team exchanges through
// scratch across one barrier.
#include "kron/kronecker_kernel.hpp"

#include "core/errors.hpp"

#include <string>

namespace fgdd::detail {

namespace {

using Policy = Kokkos::TeamPolicy<ExecSpace>;
using Member = Policy::member_type;
using ScratchValues =
    Kokkos::View<Scalar*, ExecSpace::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
using RandomAccessVector =
    Kokkos::View<const Scalar*, DeviceType, Kokkos::MemoryTraits<Kokkos::RandomAccess>>;

// Threads per team (outputs × vector lanes): R = max(1, team_threads / (b·s·V)) block rows.
constexpr int team_threads = 128;
// Below this many outputs per block row, each output gets vector lanes on GPUs.
constexpr int min_outputs_without_lanes = 8;

// B: the block size when known at compile time (1..4), 0 for any. Combine: coefficients are
// applied after the product (x_m = x_l). SharedPattern: M and L share row map and columns.
template <int B, bool Combine, bool SharedPattern>
struct KroneckerRowsKernel {
  BlockRows M, L;
  RandomAccessVector x_m, x_l;
  Kokkos::View<const Scalar*, DeviceType> coefficients;
  Vector y;
  Ordinal num_block_rows;
  int runtime_b;
  int stages;
  int rows_per_team;
  bool accumulate;
  int lanes;  // vector lanes per output

  KOKKOS_INLINE_FUNCTION int b() const { return B > 0 ? B : runtime_b; }

  // Row r of block e of A times stage k of the block column's x.
  KOKKOS_INLINE_FUNCTION Scalar block_product(const BlockRows& A, const RandomAccessVector& x,
                                              Offset e, int r, int k) const {
    const int n = b();
    const Offset s = stages;
    const Scalar* block_row = &A.values(e * n * n + r * n);
    const Offset x_start = Offset(A.cols(e)) * n * s + k;
    Scalar sum = 0;
    for (int c = 0; c < n; ++c) sum += block_row[c] * x(x_start + c * s);
    return sum;
  }

  // Σ_e over block row `row` of A of block_product, split across the thread's vector lanes.
  KOKKOS_INLINE_FUNCTION Scalar row_product(const Member& team, const BlockRows& A,
                                            const RandomAccessVector& x, Ordinal row, int r,
                                            int k) const {
    Scalar sum = 0;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, A.row_map(row), A.row_map(row + 1)),
        [&](const Offset e, Scalar& partial) { partial += block_product(A, x, e, r, k); }, sum);
    return sum;
  }

  // p = (M x_m) and q = (L x_l) at output (row, r, k). Without lanes and with a shared
  // pattern, one pass reads the column indices and x once for both.
  KOKKOS_INLINE_FUNCTION void products(const Member& team, Ordinal row, int r, int k, Scalar& p,
                                       Scalar& q) const {
    if (lanes > 1 || !SharedPattern) {
      p = row_product(team, M, x_m, row, r, k);
      q = row_product(team, L, x_l, row, r, k);
      return;
    }
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
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int per_row = b() * stages;
    const Ordinal first = Ordinal(team.league_rank()) * rows_per_team;
    const Ordinal rows =
        rows_per_team < num_block_rows - first ? rows_per_team : num_block_rows - first;
    const int outputs = int(rows) * per_row;
    const Offset y_first = Offset(first) * Offset(per_row);
    if (!Combine) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, outputs), [&](const int t) {
        const int rk = t % per_row;
        Scalar p = 0, q = 0;
        products(team, first + t / per_row, rk / stages, rk % stages, p, q);
        Kokkos::single(Kokkos::PerThread(team), [&] {
          const Offset out = y_first + t;
          y(out) = (accumulate ? y(out) : Scalar(0)) + p + q;
        });
      });
      return;
    }
    const ScratchValues sums(team.team_scratch(0), 2 * Offset(rows_per_team) * per_row);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, outputs), [&](const int t) {
      const int rk = t % per_row;
      Scalar p = 0, q = 0;
      products(team, first + t / per_row, rk / stages, rk % stages, p, q);
      Kokkos::single(Kokkos::PerThread(team), [&] {
        sums(2 * t) = p;
        sums(2 * t + 1) = q;
      });
    });
    // Each output needs the s partial sums of its scalar row, written by other threads.
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, outputs), [&](const int t) {
      Kokkos::single(Kokkos::PerThread(team), [&] {
        const int k = t % stages;
        const int row_start = t - k;  // output (block row, r, stage 0)
        const Offset s = stages;
        const Scalar* a = &coefficients(k * s);
        const Scalar* tau_b = &coefficients(s * s + k * s);
        Scalar sum = 0;
        for (int l = 0; l < stages; ++l)
          sum += a[l] * sums(2 * (row_start + l)) + tau_b[l] * sums(2 * (row_start + l) + 1);
        const Offset out = y_first + t;
        y(out) = (accumulate ? y(out) : Scalar(0)) + sum;
      });
    });
  }
};

// Vector lanes per output: 1 on host backends and when a block row already has enough outputs;
// otherwise about one lane per block of an average row, a power of two up to a warp.
int lanes_per_output(bool host, int per_row, Offset entries, Ordinal block_rows) {
  if (host || per_row >= min_outputs_without_lanes || block_rows == 0) return 1;
  const Offset average = (entries + block_rows - 1) / block_rows;
  int lanes = 1;
  while (lanes < 32 && Offset(lanes) < average) lanes *= 2;
  return lanes;
}

template <int B, bool Combine, bool SharedPattern>
void launch(const ExecSpace& space, Ordinal num_block_rows, int block_size, int stages,
            const BlockRows& M, ConstVector x_m, const BlockRows& L, ConstVector x_l,
            Kokkos::View<const Scalar*, DeviceType> coefficients, bool accumulate, Vector y) {
  // On host backends a team is one thread (a team spanning cores would only add barriers);
  // its outputs run in order.
  constexpr bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemSpace>::accessible;
  const int per_row = block_size * stages;
  const int lanes = lanes_per_output(host, per_row, Offset(M.cols.extent(0)), num_block_rows);
  const int rows_per_team = per_row * lanes >= team_threads ? 1 : team_threads / (per_row * lanes);
  const KroneckerRowsKernel<B, Combine, SharedPattern> kernel{
      M,          L,      x_m,           x_l,       coefficients, y, num_block_rows,
      block_size, stages, rows_per_team, accumulate, lanes};
  const Ordinal league = (num_block_rows + rows_per_team - 1) / rows_per_team;
  const std::size_t scratch_bytes =
      Combine ? ScratchValues::shmem_size(2 * Offset(rows_per_team) * per_row) : 0;
  // One thread (of `lanes` lanes) per output, rounded up to whole warps.
  Policy probe(space, 1, 1, lanes);
  probe.set_scratch_size(0, Kokkos::PerTeam(scratch_bytes));
  const int team_max = host ? 1 : probe.team_size_max(kernel, Kokkos::ParallelForTag());
  int team_size = rows_per_team * per_row;
  const int per_warp = 32 / lanes;
  if (team_max >= per_warp) team_size = (team_size + per_warp - 1) / per_warp * per_warp;
  team_size = team_size < team_max ? team_size : team_max;
  Policy policy(space, league, team_size, lanes);
  policy.set_scratch_size(0, Kokkos::PerTeam(scratch_bytes));
  Kokkos::parallel_for("fgdd::kron::kronecker_rows", policy, kernel);
}

template <bool Combine, bool SharedPattern>
void dispatch_block_size(const ExecSpace& space, Ordinal num_block_rows, int block_size, int stages,
                         const BlockRows& M, ConstVector x_m, const BlockRows& L, ConstVector x_l,
                         Kokkos::View<const Scalar*, DeviceType> coefficients, bool accumulate,
                         Vector y) {
  switch (block_size) {
    case 1:
      return launch<1, Combine, SharedPattern>(space, num_block_rows, block_size, stages, M, x_m, L,
                                               x_l, coefficients, accumulate, y);
    case 2:
      return launch<2, Combine, SharedPattern>(space, num_block_rows, block_size, stages, M, x_m, L,
                                               x_l, coefficients, accumulate, y);
    case 3:
      return launch<3, Combine, SharedPattern>(space, num_block_rows, block_size, stages, M, x_m, L,
                                               x_l, coefficients, accumulate, y);
    case 4:
      return launch<4, Combine, SharedPattern>(space, num_block_rows, block_size, stages, M, x_m, L,
                                               x_l, coefficients, accumulate, y);
    default:
      return launch<0, Combine, SharedPattern>(space, num_block_rows, block_size, stages, M, x_m, L,
                                               x_l, coefficients, accumulate, y);
  }
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
                    Vector y) {
  if (num_block_rows == 0) return;
  const bool combine = coefficients.extent(0) > 0;
  if (combine && coefficients.extent(0) != 2 * std::size_t(stages) * std::size_t(stages))
    throw InvalidInput("kronecker_rows: " + std::to_string(coefficients.extent(0)) +
                       " coefficients for " + std::to_string(stages) + " stages");
  const bool shared = M.row_map.data() == L.row_map.data() && M.cols.data() == L.cols.data();
  if (combine && shared)
    dispatch_block_size<true, true>(space, num_block_rows, block_size, stages, M, x_m, L, x_l,
                                    coefficients, accumulate, y);
  else if (combine)
    dispatch_block_size<true, false>(space, num_block_rows, block_size, stages, M, x_m, L, x_l,
                                     coefficients, accumulate, y);
  else if (shared)
    dispatch_block_size<false, true>(space, num_block_rows, block_size, stages, M, x_m, L, x_l,
                                     coefficients, accumulate, y);
  else
    dispatch_block_size<false, false>(space, num_block_rows, block_size, stages, M, x_m, L, x_l,
                                      coefficients, accumulate, y);
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
