// Defined here, not inline in the header: see the note on device lambdas in core/types.hpp.
#include "krylov/vector_ops.hpp"

namespace fgdd::detail {

double dot(const ExecSpace& space, ConstVector x, ConstVector y) {
  double result = 0;
  Kokkos::parallel_reduce(
      "fgdd::krylov::dot", Kokkos::RangePolicy<ExecSpace>(space, 0, x.extent(0)),
      KOKKOS_LAMBDA(const Offset i, double& sum) { sum += x(i) * y(i); }, result);
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
