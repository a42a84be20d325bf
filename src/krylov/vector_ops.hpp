// Device vector kernels the Krylov solvers share; updates that a solver does together are fused
// into one pass (DESIGN.md: a kernel that does two axpys and a dot beats three library calls).
#pragma once

#include "core/types.hpp"

namespace fgdd::detail {

inline double dot(const ExecSpace& space, ConstVector x, ConstVector y) {
  double result = 0;
  Kokkos::parallel_reduce(
      "fgdd::krylov::dot", Kokkos::RangePolicy<ExecSpace>(space, 0, x.extent(0)),
      KOKKOS_LAMBDA(const Offset i, double& sum) { sum += x(i) * y(i); }, result);
  return result;
}

inline double norm2_squared(const ExecSpace& space, ConstVector x) { return dot(space, x, x); }

// y = x
inline void copy(const ExecSpace& space, ConstVector x, Vector y) { Kokkos::deep_copy(space, y, x); }

// y += a x
inline void axpy(const ExecSpace& space, double a, ConstVector x, Vector y) {
  Kokkos::parallel_for(
      "fgdd::krylov::axpy", Kokkos::RangePolicy<ExecSpace>(space, 0, x.extent(0)),
      KOKKOS_LAMBDA(const Offset i) { y(i) += a * x(i); });
}

// p = r + beta (p - omega v), BiCGSTAB's search direction in one pass.
inline void bicgstab_direction(const ExecSpace& space, ConstVector r, double beta, double omega,
                               ConstVector v, Vector p) {
  Kokkos::parallel_for(
      "fgdd::krylov::bicgstab_direction", Kokkos::RangePolicy<ExecSpace>(space, 0, r.extent(0)),
      KOKKOS_LAMBDA(const Offset i) { p(i) = r(i) + beta * (p(i) - omega * v(i)); });
}

// y = a x + b y; returns ‖y‖² of the result.
inline double axpby_norm2(const ExecSpace& space, double a, ConstVector x, double b, Vector y) {
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

// z = x + a y; returns ‖z‖².
inline double xpay_into_norm2(const ExecSpace& space, ConstVector x, double a, ConstVector y,
                              Vector z) {
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

// y += a x + b w
inline void add_two_scaled(const ExecSpace& space, double a, ConstVector x, double b,
                           ConstVector w, Vector y) {
  Kokkos::parallel_for(
      "fgdd::krylov::add_two_scaled", Kokkos::RangePolicy<ExecSpace>(space, 0, x.extent(0)),
      KOKKOS_LAMBDA(const Offset i) { y(i) += a * x(i) + b * w(i); });
}

}  // namespace fgdd::detail
