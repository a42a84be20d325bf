// Defined here, not inline in the header: see the note on device lambdas in core/types.hpp.
#include "krylov/vector_ops.hpp"

#include "core/kokkos_compat.hpp"

namespace fgdd::detail {
namespace {

// Every reduction runs through ChunkedReduction. On host backends one call of the functor sums a
// chunk of entries into four local accumulators: with one accumulator per entry, a kernel that
// also stores (z(i) = ...) made the compiler reload the sum after every store, since both are
// doubles that might alias, and one chain of dependent adds set the pace; both made such kernels
// several times slower than a plain pass over the same vectors (measured:
// docs/PERFORMANCE_HISTORY.md, "Measurements behind code choices"). On GPUs a chunk is one
// entry. The order of the additions is fixed by the chunk size and the backend's thread count:
// the same bits on every run.
constexpr Offset reduction_chunk = host_memory ? 1024 : 1;
constexpr int host_lanes = 4;

// Body(i, double* sums) adds entry i's terms into sums[0..Count).
template <int Count, class Body>
struct ChunkedReduction {
  using value_type = double[];
  using size_type = Offset;
  Body body;
  Offset n;
  unsigned value_count = Count;  // Kokkos' array-reduction length; last, for brace init

  KOKKOS_INLINE_FUNCTION void operator()(const Offset chunk, value_type sums) const {
    if constexpr (reduction_chunk == 1) {  // GPUs: lanes would only cost registers
      body(chunk, sums);
    } else {
      const Offset begin = chunk * reduction_chunk;
      const Offset end = begin + reduction_chunk < n ? begin + reduction_chunk : n;
      double lanes[host_lanes][Count] = {};
      Offset i = begin;
      for (; i + host_lanes <= end; i += host_lanes)
        for (int lane = 0; lane < host_lanes; ++lane) body(i + lane, lanes[lane]);
      for (; i < end; ++i) body(i, lanes[0]);
      for (int k = 0; k < Count; ++k)
        sums[k] += (lanes[0][k] + lanes[1][k]) + (lanes[2][k] + lanes[3][k]);
    }
  }
  KOKKOS_INLINE_FUNCTION void init(value_type sums) const {
    for (int k = 0; k < Count; ++k) sums[k] = 0;
  }
  KOKKOS_INLINE_FUNCTION void join(value_type dst, const value_type src) const {
    for (int k = 0; k < Count; ++k) dst[k] += src[k];
  }
};

template <int Count, class Body>
std::array<double, Count> run_reduction(const ExecSpace& space, const char* label, Offset n,
                                        const Body& body) {
  std::array<double, Count> result{};
  Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> sums(
      result.data(), Count);
  const Offset chunks = (n + reduction_chunk - 1) / reduction_chunk;
  Kokkos::parallel_reduce(label, Kokkos::RangePolicy<ExecSpace>(space, 0, chunks),
                          ChunkedReduction<Count, Body>{body, n}, sums);
  space.fence();  // the host view is filled asynchronously on some backends
  return result;
}

}  // namespace

double dot(const ExecSpace& space, ConstVector x, ConstVector y) {
  return run_reduction<1>(
      space, "fgdd::krylov::dot", x.extent(0),
      KOKKOS_LAMBDA(const Offset i, double* sum) { sum[0] += x(i) * y(i); })[0];
}

std::array<double, 2> dots(const ExecSpace& space, ConstVector x1, ConstVector y1, ConstVector x2,
                           ConstVector y2) {
  return run_reduction<2>(
      space, "fgdd::krylov::dots2", x1.extent(0), KOKKOS_LAMBDA(const Offset i, double* sums) {
        sums[0] += x1(i) * y1(i);
        sums[1] += x2(i) * y2(i);
      });
}

std::array<double, 3> dots(const ExecSpace& space, ConstVector x1, ConstVector y1, ConstVector x2,
                           ConstVector y2, ConstVector x3, ConstVector y3) {
  return run_reduction<3>(
      space, "fgdd::krylov::dots3", x1.extent(0), KOKKOS_LAMBDA(const Offset i, double* sums) {
        sums[0] += x1(i) * y1(i);
        sums[1] += x2(i) * y2(i);
        sums[2] += x3(i) * y3(i);
      });
}

double max_abs(const ExecSpace& space, ConstVector x) {
  double result = 0;
  Kokkos::parallel_reduce(
      "fgdd::krylov::max_abs", Kokkos::RangePolicy<ExecSpace>(space, 0, x.extent(0)),
      KOKKOS_LAMBDA(const Offset i, double& largest) {
        const double value = fabs(x(i));
        if (value > largest) largest = value;
      },
      Kokkos::Max<double>(result));
  // An empty range leaves Max's identity, the lowest double, in result.
  return x.extent(0) > 0 ? result : 0.0;
}

Offset count_nonzero(const ExecSpace& space, ConstVector x) {
  Offset count = 0;
  Kokkos::parallel_reduce(
      "fgdd::krylov::count_nonzero", Kokkos::RangePolicy<ExecSpace>(space, 0, x.extent(0)),
      KOKKOS_LAMBDA(const Offset i, Offset& sum) { sum += x(i) != 0 ? 1 : 0; }, count);
  return count;
}

double scaled_norm2_squared(const ExecSpace& space, ConstVector x, double scale) {
  const double inverse = 1.0 / scale;
  return run_reduction<1>(
      space, "fgdd::krylov::scaled_norm2", x.extent(0), KOKKOS_LAMBDA(const Offset i, double* sum) {
        const double value = x(i) * inverse;
        sum[0] += value * value;
      })[0];
}

void axpy(const ExecSpace& space, double a, ConstVector x, Vector y) {
  Kokkos::parallel_for(
      "fgdd::krylov::axpy", Kokkos::RangePolicy<ExecSpace>(space, 0, x.extent(0)),
      KOKKOS_LAMBDA(const Offset i) { y(i) += a * x(i); });
}

void bicgstab_direction(const ExecSpace& space, ConstVector r, double beta, double omega,
                        ConstVector v, Vector p) {
  Kokkos::parallel_for(
      "fgdd::krylov::bicgstab_direction", Kokkos::RangePolicy<ExecSpace>(space, 0, r.extent(0)),
      KOKKOS_LAMBDA(const Offset i) { p(i) = r(i) + beta * (p(i) - omega * v(i)); });
}

double axpby_norm2(const ExecSpace& space, double a, ConstVector x, double b, Vector y) {
  return run_reduction<1>(
      space, "fgdd::krylov::axpby_norm2", x.extent(0), KOKKOS_LAMBDA(const Offset i, double* sum) {
        const double value = a * x(i) + b * y(i);
        y(i) = value;
        sum[0] += value * value;
      })[0];
}

double xpay_into_norm2(const ExecSpace& space, ConstVector x, double a, ConstVector y, Vector z) {
  return run_reduction<1>(
      space, "fgdd::krylov::xpay_norm2", x.extent(0), KOKKOS_LAMBDA(const Offset i, double* sum) {
        const double value = x(i) + a * y(i);
        z(i) = value;
        sum[0] += value * value;
      })[0];
}

std::array<double, 2> xpay_into_norm2_dot(const ExecSpace& space, ConstVector x, double a,
                                          ConstVector y, Vector z, ConstVector w) {
  return run_reduction<2>(
      space, "fgdd::krylov::xpay_norm2_dot", x.extent(0),
      KOKKOS_LAMBDA(const Offset i, double* sums) {
        const double value = x(i) + a * y(i);
        z(i) = value;
        sums[0] += value * value;
        sums[1] += w(i) * value;
      });
}

double cg_update(const ExecSpace& space, double alpha, ConstVector p, ConstVector q, Vector x,
                 Vector r) {
  return run_reduction<1>(
      space, "fgdd::krylov::cg_update", r.extent(0), KOKKOS_LAMBDA(const Offset i, double* sum) {
        x(i) += alpha * p(i);
        const double value = r(i) - alpha * q(i);
        r(i) = value;
        sum[0] += value * value;
      })[0];
}

double bicg_update(const ExecSpace& space, double alpha, ConstVector p, ConstVector q,
                   ConstVector q_shadow, Vector x, Vector r, Vector r_shadow) {
  return run_reduction<1>(
      space, "fgdd::krylov::bicg_update", r.extent(0), KOKKOS_LAMBDA(const Offset i, double* sum) {
        x(i) += alpha * p(i);
        r_shadow(i) -= alpha * q_shadow(i);
        const double value = r(i) - alpha * q(i);
        r(i) = value;
        sum[0] += value * value;
      })[0];
}

void bicg_directions(const ExecSpace& space, ConstVector z, ConstVector z_shadow, double beta,
                     Vector p, Vector p_shadow) {
  Kokkos::parallel_for(
      "fgdd::krylov::bicg_directions", Kokkos::RangePolicy<ExecSpace>(space, 0, z.extent(0)),
      KOKKOS_LAMBDA(const Offset i) {
        p(i) = z(i) + beta * p(i);
        p_shadow(i) = z_shadow(i) + beta * p_shadow(i);
      });
}

void xpby(const ExecSpace& space, ConstVector x, double b, Vector y) {
  Kokkos::parallel_for(
      "fgdd::krylov::xpby", Kokkos::RangePolicy<ExecSpace>(space, 0, x.extent(0)),
      KOKKOS_LAMBDA(const Offset i) { y(i) = x(i) + b * y(i); });
}

void scale_into(const ExecSpace& space, double a, ConstVector x, Vector y) {
  Kokkos::parallel_for(
      "fgdd::krylov::scale", Kokkos::RangePolicy<ExecSpace>(space, 0, x.extent(0)),
      KOKKOS_LAMBDA(const Offset i) { y(i) = a * x(i); });
}

void add_two_scaled(const ExecSpace& space, double a, ConstVector x, double b, ConstVector w,
                    Vector y) {
  Kokkos::parallel_for(
      "fgdd::krylov::add_two_scaled", Kokkos::RangePolicy<ExecSpace>(space, 0, x.extent(0)),
      KOKKOS_LAMBDA(const Offset i) { y(i) += a * x(i) + b * w(i); });
}

}  // namespace fgdd::detail
