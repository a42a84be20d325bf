// Device vector kernels the Krylov solvers share; updates that a solver does together are fused
// into one pass (DESIGN.md: a kernel that does two axpys and a dot beats three library calls).
#pragma once

#include "core/types.hpp"

namespace fgdd::detail {

double dot(const ExecSpace& space, ConstVector x, ConstVector y);

inline double norm2_squared(const ExecSpace& space, ConstVector x) { return dot(space, x, x); }

// y = x
inline void copy(const ExecSpace& space, ConstVector x, Vector y) { Kokkos::deep_copy(space, y, x); }

// y += a x
void axpy(const ExecSpace& space, double a, ConstVector x, Vector y);

// p = r + beta (p - omega v), BiCGSTAB's search direction in one pass.
void bicgstab_direction(const ExecSpace& space, ConstVector r, double beta, double omega,
                        ConstVector v, Vector p);

// y = a x + b y; returns ‖y‖² of the result.
double axpby_norm2(const ExecSpace& space, double a, ConstVector x, double b, Vector y);

// z = x + a y; returns ‖z‖².
double xpay_into_norm2(const ExecSpace& space, ConstVector x, double a, ConstVector y, Vector z);

// y = x + b y
void xpby(const ExecSpace& space, ConstVector x, double b, Vector y);

// y = a x
void scale_into(const ExecSpace& space, double a, ConstVector x, Vector y);

// y += a x + b w
void add_two_scaled(const ExecSpace& space, double a, ConstVector x, double b, ConstVector w,
                    Vector y);

}  // namespace fgdd::detail
