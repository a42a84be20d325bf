// Defined here, not inline in the header: see the note on device lambdas in core/types.hpp.
#include "krylov/vector_ops.hpp"

#include "core/kokkos_compat.hpp"

namespace fgdd::detail {
namespace {

// Array reductions (value_type double[]) have no lambda form, hence functors.

// Count dot products <x_k, y_k> in one pass, each element of every vector read once.
template <int Count>
struct FusedDots {
  using value_type = double[];
  using size_type = Offset;
  ConstVector x[Count], y[Count];
  unsigned value_count = Count;  // Kokkos' array-reduction length; last, for brace init

  KOKKOS_INLINE_FUNCTION void operator()(const Offset i, value_type sums) const {
    for (int k = 0; k < Count; ++k) sums[k] += x[k](i) * y[k](i);
  }
  KOKKOS_INLINE_FUNCTION void init(value_type sums) const {
    for (int k = 0; k < Count; ++k) sums[k] = 0;
  }
  KOKKOS_INLINE_FUNCTION void join(value_type dst, const value_type src) const {
    for (int k = 0; k < Count; ++k) dst[k] += src[k];
  }
};

// z = x + a y with {‖z‖², <w, z>}.
struct XpayNorm2Dot {
  using value_type = double[];
  using size_type = Offset;
  ConstVector x, y;
  Vector z;
  ConstVector w;
  double a;
  unsigned value_count = 2;

  KOKKOS_INLINE_FUNCTION void operator()(const Offset i, value_type sums) const {
    const double value = x(i) + a * y(i);
    z(i) = value;
    sums[0] += value * value;
    sums[1] += w(i) * value;
  }
  KOKKOS_INLINE_FUNCTION void init(value_type sums) const { sums[0] = sums[1] = 0; }
  KOKKOS_INLINE_FUNCTION void join(value_type dst, const value_type src) const {
    dst[0] += src[0];
    dst[1] += src[1];
  }
};

template <int Count, class Functor>
std::array<double, Count> run_reduction(const ExecSpace& space, const char* label, Offset n,
                                        const Functor& functor) {
  std::array<double, Count> result{};
  Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> sums(
      result.data(), Count);
  Kokkos::parallel_reduce(label, Kokkos::RangePolicy<ExecSpace>(space, 0, n), functor, sums);
  space.fence();  // the host view is filled asynchronously on some backends
  return result;
}

}  // namespace

double dot(const ExecSpace& space, ConstVector x, ConstVector y) {
  double result = 0;
  Kokkos::parallel_reduce(
      "fgdd::krylov::dot", Kokkos::RangePolicy<ExecSpace>(space, 0, x.extent(0)),
      KOKKOS_LAMBDA(const Offset i, double& sum) { sum += x(i) * y(i); }, result);
  return result;
}

std::array<double, 2> dots(const ExecSpace& space, ConstVector x1, ConstVector y1, ConstVector x2,
                           ConstVector y2) {
  return run_reduction<2>(space, "fgdd::krylov::dots2", x1.extent(0),
                          FusedDots<2>{{x1, x2}, {y1, y2}});
}

std::array<double, 3> dots(const ExecSpace& space, ConstVector x1, ConstVector y1, ConstVector x2,
                           ConstVector y2, ConstVector x3, ConstVector y3) {
  return run_reduction<3>(space, "fgdd::krylov::dots3", x1.extent(0),
                          FusedDots<3>{{x1, x2, x3}, {y1, y2, y3}});
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
  return result;
}

double scaled_norm2_squared(const ExecSpace& space, ConstVector x, double scale) {
  const double inverse = 1.0 / scale;
  double result = 0;
  Kokkos::parallel_reduce(
      "fgdd::krylov::scaled_norm2", Kokkos::RangePolicy<ExecSpace>(space, 0, x.extent(0)),
      KOKKOS_LAMBDA(const Offset i, double& sum) {
        const double value = x(i) * inverse;
        sum += value * value;
      },
      result);
  return result;
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
  double result = 0;
  Kokkos::parallel_reduce(
      "fgdd::krylov::axpby_norm2", Kokkos::RangePolicy<ExecSpace>(space, 0, x.extent(0)),
      KOKKOS_LAMBDA(const Offset i, double& sum) {
        const double value = a * x(i) + b * y(i);
        y(i) = value;
        sum += value * value;
      },
      result);
  return result;
}

double xpay_into_norm2(const ExecSpace& space, ConstVector x, double a, ConstVector y, Vector z) {
  double result = 0;
  Kokkos::parallel_reduce(
      "fgdd::krylov::xpay_norm2", Kokkos::RangePolicy<ExecSpace>(space, 0, x.extent(0)),
      KOKKOS_LAMBDA(const Offset i, double& sum) {
        const double value = x(i) + a * y(i);
        z(i) = value;
        sum += value * value;
      },
      result);
  return result;
}

std::array<double, 2> xpay_into_norm2_dot(const ExecSpace& space, ConstVector x, double a,
                                          ConstVector y, Vector z, ConstVector w) {
  return run_reduction<2>(space, "fgdd::krylov::xpay_norm2_dot", x.extent(0),
                          XpayNorm2Dot{x, y, z, w, a});
}

double cg_update(const ExecSpace& space, double alpha, ConstVector p, ConstVector q, Vector x,
                 Vector r) {
  double result = 0;
  Kokkos::parallel_reduce(
      "fgdd::krylov::cg_update", Kokkos::RangePolicy<ExecSpace>(space, 0, r.extent(0)),
      KOKKOS_LAMBDA(const Offset i, double& sum) {
        x(i) += alpha * p(i);
        const double value = r(i) - alpha * q(i);
        r(i) = value;
        sum += value * value;
      },
      result);
  return result;
}

double bicg_update(const ExecSpace& space, double alpha, ConstVector p, ConstVector q,
                   ConstVector q_shadow, Vector x, Vector r, Vector r_shadow) {
  double result = 0;
  Kokkos::parallel_reduce(
      "fgdd::krylov::bicg_update", Kokkos::RangePolicy<ExecSpace>(space, 0, r.extent(0)),
      KOKKOS_LAMBDA(const Offset i, double& sum) {
        x(i) += alpha * p(i);
        r_shadow(i) -= alpha * q_shadow(i);
        const double value = r(i) - alpha * q(i);
        r(i) = value;
        sum += value * value;
      },
      result);
  return result;
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
