// Device vector kernels the Krylov solvers share; updates that a solver does together are fused
// into one pass (DESIGN.md: a kernel that does two axpys and a dot beats three library calls).
#pragma once

#include "core/types.hpp"

#include <array>

namespace fgdd::detail {

double dot(const ExecSpace& space, ConstVector x, ConstVector y);

// {<x1, y1>, <x2, y2>} in one pass.
std::array<double, 2> dots(const ExecSpace& space, ConstVector x1, ConstVector y1, ConstVector x2,
                           ConstVector y2);

// {<x1, y1>, <x2, y2>, <x3, y3>} in one pass.
std::array<double, 3> dots(const ExecSpace& space, ConstVector x1, ConstVector y1, ConstVector x2,
                           ConstVector y2, ConstVector x3, ConstVector y3);

inline double norm2_squared(const ExecSpace& space, ConstVector x) { return dot(space, x, x); }

// max_i |x_i| (0 for an empty x; NaN entries are skipped, so callers check finiteness apart).
double max_abs(const ExecSpace& space, ConstVector x);
// The number of entries of x that are not zero (NaN counts).
Offset count_nonzero(const ExecSpace& space, ConstVector x);

// Σ (x_i / scale)², for norms whose plain sum of squares would overflow or underflow.
double scaled_norm2_squared(const ExecSpace& space, ConstVector x, double scale);

// y = x
inline void copy(const ExecSpace& space, ConstVector x, Vector y) {
  Kokkos::deep_copy(space, y, x);
}

// y += a x
void axpy(const ExecSpace& space, double a, ConstVector x, Vector y);

// p = r + beta (p - omega v), BiCGSTAB's search direction in one pass.
void bicgstab_direction(const ExecSpace& space, ConstVector r, double beta, double omega,
                        ConstVector v, Vector p);

// y = a x + b y; returns ‖y‖² of the result.
double axpby_norm2(const ExecSpace& space, double a, ConstVector x, double b, Vector y);

// z = x + a y; returns ‖z‖².
double xpay_into_norm2(const ExecSpace& space, ConstVector x, double a, ConstVector y, Vector z);

// z = x + a y; returns {‖z‖², <w, z>} (BiCGSTAB's new residual with the next rho).
std::array<double, 2> xpay_into_norm2_dot(const ExecSpace& space, ConstVector x, double a,
                                          ConstVector y, Vector z, ConstVector w);

// CG's update: x += alpha p, r -= alpha q; returns ‖r‖² of the new r.
double cg_update(const ExecSpace& space, double alpha, ConstVector p, ConstVector q, Vector x,
                 Vector r);

// BiCG's update: x += alpha p, r -= alpha q, r_shadow -= alpha q_shadow; returns ‖r‖².
double bicg_update(const ExecSpace& space, double alpha, ConstVector p, ConstVector q,
                   ConstVector q_shadow, Vector x, Vector r, Vector r_shadow);

// BiCG's directions: p = z + beta p, p_shadow = z_shadow + beta p_shadow.
void bicg_directions(const ExecSpace& space, ConstVector z, ConstVector z_shadow, double beta,
                     Vector p, Vector p_shadow);

// y = x + b y
void xpby(const ExecSpace& space, ConstVector x, double b, Vector y);

// y = a x
void scale_into(const ExecSpace& space, double a, ConstVector x, Vector y);

// y += a x + b w
void add_two_scaled(const ExecSpace& space, double a, ConstVector x, double b, ConstVector w,
                    Vector y);

}  // namespace fgdd::detail
