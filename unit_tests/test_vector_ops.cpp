// The fused Krylov vector kernels against plain host loops, on sizes 0, 1, odd and large.
// Tolerances: a dot of n products is within γ_n Σ|x_i y_i| of the exact sum (γ_n = n u / (1 − n u),
// any summation order); an update x + a y is within 2u (|x| + |a y|) (one rounding, or a fused
// multiply-add on a GPU, against the host's two roundings).
#include "catch_compat.hpp"
#include "krylov/vector_ops.hpp"

#include <cmath>
#include <limits>
#include <vector>

using namespace fgdd;

namespace {

constexpr double unit_roundoff = std::numeric_limits<double>::epsilon() / 2;

std::vector<double> pattern(Offset n, int seed) {
  std::vector<double> values(n);
  for (Offset i = 0; i < n; ++i) values[i] = std::sin(0.37 * double(i) + seed) * (1 + seed % 3);
  return values;
}

Vector to_device(const std::vector<double>& host) {
  Vector v("test::v", host.size());
  const auto mirror = Kokkos::create_mirror_view(v);
  for (std::size_t i = 0; i < host.size(); ++i) mirror(i) = host[i];
  Kokkos::deep_copy(v, mirror);
  return v;
}

std::vector<double> to_host(ConstVector v) {
  const auto mirror = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<double>(mirror.data(), mirror.data() + mirror.extent(0));
}

// |computed − Σ x_i y_i| within γ_n Σ|x_i y_i|.
void check_dot(double computed, const std::vector<double>& x, const std::vector<double>& y) {
  double exact = 0, magnitude = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    exact += x[i] * y[i];
    magnitude += std::abs(x[i] * y[i]);
  }
  const double n_u = 2.0 * x.size() * unit_roundoff;  // host and device sums both round
  CHECK(std::abs(computed - exact) <= n_u / (1 - n_u) * magnitude);
}

// z_i = x_i + a y_i within 2u (|x_i| + |a y_i|).
void check_xpay(const std::vector<double>& z, const std::vector<double>& x, double a,
                const std::vector<double>& y) {
  for (std::size_t i = 0; i < z.size(); ++i)
    CHECK(std::abs(z[i] - (x[i] + a * y[i])) <=
          2 * unit_roundoff * (std::abs(x[i]) + std::abs(a * y[i])));
}

}  // namespace

TEST_CASE("fused dot products equal the separate host sums", "[krylov][vector_ops]") {
  const ExecSpace space;
  for (const Offset n : {Offset(0), Offset(1), Offset(7), Offset(1001), Offset(100003)}) {
    CAPTURE(n);
    const auto a = pattern(n, 1), b = pattern(n, 2), c = pattern(n, 3);
    const Vector A = to_device(a), B = to_device(b), C = to_device(c);
    const auto [ab, cc] = detail::dots(space, A, B, C, C);
    check_dot(ab, a, b);
    check_dot(cc, c, c);
    const auto [ab3, bc3, ca3] = detail::dots(space, A, B, B, C, C, A);
    check_dot(ab3, a, b);
    check_dot(bc3, b, c);
    check_dot(ca3, c, a);
  }
}

TEST_CASE("fused Krylov updates equal their unfused host steps", "[krylov][vector_ops]") {
  const ExecSpace space;
  const double alpha = -0.73, beta = 1.9;
  for (const Offset n : {Offset(0), Offset(1), Offset(7), Offset(1001), Offset(100003)}) {
    CAPTURE(n);
    const auto x = pattern(n, 1), r = pattern(n, 2), p = pattern(n, 3), q = pattern(n, 4),
               w = pattern(n, 5), q_shadow = pattern(n, 6), r_shadow = pattern(n, 7);

    {  // xpay_into_norm2_dot: z = x + a y with ‖z‖² and <w, z>
      const Vector Z("test::z", n);
      const auto [z_z, w_z] =
          detail::xpay_into_norm2_dot(space, to_device(x), alpha, to_device(q), Z, to_device(w));
      const auto z = to_host(Z);
      check_xpay(z, x, alpha, q);
      check_dot(z_z, z, z);
      check_dot(w_z, w, z);
    }
    {  // cg_update: x += alpha p, r -= alpha q, ‖r‖²
      const Vector X = to_device(x), R = to_device(r);
      const double r_r = detail::cg_update(space, alpha, to_device(p), to_device(q), X, R);
      const auto new_r = to_host(R);
      check_xpay(to_host(X), x, alpha, p);
      check_xpay(new_r, r, -alpha, q);
      check_dot(r_r, new_r, new_r);
    }
    {  // bicg_update also updates the shadow residual
      const Vector X = to_device(x), R = to_device(r), RS = to_device(r_shadow);
      const double r_r = detail::bicg_update(space, alpha, to_device(p), to_device(q),
                                             to_device(q_shadow), X, R, RS);
      const auto new_r = to_host(R);
      check_xpay(to_host(X), x, alpha, p);
      check_xpay(new_r, r, -alpha, q);
      check_xpay(to_host(RS), r_shadow, -alpha, q_shadow);
      check_dot(r_r, new_r, new_r);
    }
    {  // bicg_directions: p = z + beta p for both sequences
      const Vector P = to_device(p), PS = to_device(q_shadow);
      detail::bicg_directions(space, to_device(r), to_device(w), beta, P, PS);
      check_xpay(to_host(P), r, beta, p);
      check_xpay(to_host(PS), w, beta, q_shadow);
    }
  }
}

TEST_CASE("max_abs is the largest magnitude, 0 for an empty vector", "[krylov][vector_ops]") {
  // An empty reduction leaves Kokkos::Max's identity (the lowest double) unless max_abs guards
  // it; the solve's scaling of b reads this value.
  CHECK(detail::max_abs(ExecSpace(), Vector("test::empty", 0)) == 0.0);
  const Offset n = GENERATE(Offset(1), Offset(7), Offset(1000));
  CAPTURE(n);
  std::vector<double> x = pattern(n, 2);
  x[n / 2] = -3.5;  // the largest magnitude, negative
  CHECK(detail::max_abs(ExecSpace(), to_device(x)) == 3.5);
}

TEST_CASE("count_nonzero counts entries that are not zero, NaN among them",
          "[krylov][vector_ops]") {
  CHECK(detail::count_nonzero(ExecSpace(), Vector("test::empty", 0)) == 0);
  const Offset n = GENERATE(Offset(1), Offset(7), Offset(1000));
  CAPTURE(n);
  std::vector<double> x(n, 0.0);
  CHECK(detail::count_nonzero(ExecSpace(), to_device(x)) == 0);
  x[n - 1] = -0.0;  // still zero
  CHECK(detail::count_nonzero(ExecSpace(), to_device(x)) == 0);
  x[0] = std::nan("");
  x[n / 2] = n > 2 ? 1e-300 : x[n / 2];
  CHECK(detail::count_nonzero(ExecSpace(), to_device(x)) == (n > 2 ? 2 : 1));
}
