#include "krylov/gmres.hpp"

#include "krylov/solve_tracker.hpp"
#include "krylov/vector_ops.hpp"

#include <cmath>
#include <string>
#include <vector>

namespace fgdd {

namespace {

using Basis = Kokkos::View<Scalar**, Kokkos::LayoutLeft, DeviceType>;

// The length to give an array reduction of count sums. A GPU thread keeps its sums in shared
// memory, one array after another; with an even length, threads of a half-warp hit the same
// banks. On an H200 a multi-dot over 8 and 16 basis columns ran 1.5-3x slower than with 9 and 17
// sums (docs/PERFORMANCE.md). An odd length spreads them; the extra sum stays 0.
constexpr int bank_spread_length(int count) { return count | 1; }

// Sums over the first basis columns, one array reduction over the rows: per row i the body reads
// V(i, 0..count-1) once. Row does the work of row i (adding into sums[0..count)); value_count,
// the reduction's length, may exceed count (bank_spread_length).
template <class Row>
struct BasisSweep {
  using value_type = Scalar[];
  using size_type = Offset;
  Row row;
  unsigned value_count;

  KOKKOS_INLINE_FUNCTION void operator()(const Offset i, value_type sums) const { row(i, sums); }
  KOKKOS_INLINE_FUNCTION void init(value_type sums) const {
    for (unsigned k = 0; k < value_count; ++k) sums[k] = 0;
  }
  KOKKOS_INLINE_FUNCTION void join(value_type dst, const value_type src) const {
    for (unsigned k = 0; k < value_count; ++k) dst[k] += src[k];
  }
};

// Runs a BasisSweep of count sums over w's rows into result (device), summed over ranks.
// result holds at least bank_spread_length(count) entries (count <= restart, result restart + 1).
template <class Row>
void sweep_basis(const ExecSpace& space, const Operator& A, const char* label, Offset n, int count,
                 const Row& row, const Kokkos::View<Scalar*, DeviceType>& result) {
  const auto host = Kokkos::create_mirror_view(result);
  const int length = bank_spread_length(count);
  Kokkos::parallel_reduce(label, Kokkos::RangePolicy<ExecSpace>(space, 0, n),
                          BasisSweep<Row>{row, unsigned(length)},
                          Kokkos::subview(host, std::make_pair(0, length)));
  space.fence();
  A.sum_over_ranks(host.data(), count);
  Kokkos::deep_copy(space, result, host);
}

// w += scale · V(:, 0..count-1) h
void add_combination(const ExecSpace& space, const Basis& V, int count,
                     const Kokkos::View<Scalar*, DeviceType>& h, double scale, Vector w) {
  Kokkos::parallel_for(
      "fgdd::krylov::gmres_combination", Kokkos::RangePolicy<ExecSpace>(space, 0, w.extent(0)),
      KOKKOS_LAMBDA(const Offset i) {
        Scalar sum = 0;
        for (int k = 0; k < count; ++k) sum += V(i, k) * h(k);
        w(i) += scale * sum;
      });
}

// Classical Gram-Schmidt twice against columns 0..count-1 of V, in three sweeps over them instead
// of four (the basis dominates the traffic: count columns against one w): h = Vᵀ w; then
// w -= V h with c = Vᵀ w of the result in the same sweep; then w -= V c with ‖w‖² in the same
// sweep. h receives h + c; returns ‖w‖² summed over ranks.
double classical_gram_schmidt_twice(const ExecSpace& space, const Operator& A, const Basis& V,
                                    int count, Vector w, const Kokkos::View<Scalar*, DeviceType>& h,
                                    const Kokkos::View<Scalar*, DeviceType>& c) {
  const Offset n = w.extent(0);
  sweep_basis(
      space, A, "fgdd::krylov::gmres_multi_dot", n, count,
      KOKKOS_LAMBDA(const Offset i, Scalar* sums) {
        const Scalar wi = w(i);
        for (int k = 0; k < count; ++k) sums[k] += V(i, k) * wi;
      },
      h);
  sweep_basis(
      space, A, "fgdd::krylov::gmres_update_multi_dot", n, count,
      KOKKOS_LAMBDA(const Offset i, Scalar* sums) {
        Scalar sum = 0;
        for (int k = 0; k < count; ++k) sum += V(i, k) * h(k);
        const Scalar wi = w(i) - sum;
        w(i) = wi;
        for (int k = 0; k < count; ++k) sums[k] += V(i, k) * wi;
      },
      c);
  Kokkos::parallel_for(
      "fgdd::krylov::gmres_cgs2_sum", Kokkos::RangePolicy<ExecSpace>(space, 0, count),
      KOKKOS_LAMBDA(const int k) { h(k) += c(k); });
  // A blocking reduction last: the caller reads h on the host next (on CPU backends h itself).
  double norm_squared = 0;
  Kokkos::parallel_reduce(
      "fgdd::krylov::gmres_update_norm", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const Offset i, double& sum_squares) {
        Scalar sum = 0;
        for (int k = 0; k < count; ++k) sum += V(i, k) * c(k);
        const Scalar wi = w(i) - sum;
        w(i) = wi;
        sum_squares += wi * wi;
      },
      norm_squared);
  return A.global_sum(norm_squared);
}

// Orthogonalizes w against columns 0..j of V; h(0..j) receives the coefficients. Returns ‖w‖²
// of the result, summed over ranks.
double orthogonalize(const ExecSpace& space, const Operator& A, Orthogonalization method,
                     const Basis& V, int j, Vector w, const Kokkos::View<Scalar*, DeviceType>& h,
                     const Kokkos::View<Scalar*, DeviceType>& correction) {
  if (method == Orthogonalization::Cgs2)
    return classical_gram_schmidt_twice(space, A, V, j + 1, w, h, correction);
  for (int i = 0; i <= j; ++i) {
    const auto vi = Kokkos::subview(V, Kokkos::ALL, i);
    const double hij = A.global_sum(detail::dot(space, vi, w));
    detail::axpy(space, -hij, vi, w);
    Kokkos::deep_copy(space, Kokkos::subview(h, i), hij);
  }
  return A.global_sum(detail::norm2_squared(space, w));
}

// Solves the j×j upper triangular system R y = g on the host (R column-major in H).
std::vector<double> back_substitute(const std::vector<double>& H, int ld, int j,
                                    const std::vector<double>& g) {
  std::vector<double> y(j);
  for (int i = j - 1; i >= 0; --i) {
    double sum = g[i];
    for (int k = i + 1; k < j; ++k) sum -= H[k * ld + i] * y[k];
    y[i] = sum / H[i * ld + i];
  }
  return y;
}

}  // namespace

SolveResult gmres(const ExecSpace& space, const Operator& A, const Preconditioner& M, ConstVector b,
                  Vector x, const KrylovOptions& options, KrylovWorkspace* workspace) {
  const Offset n = b.extent(0);
  const int m = options.restart;
  KrylovWorkspace own;
  KrylovWorkspace& work = workspace != nullptr ? *workspace : own;
  Vector r = work.vector("fgdd::krylov::r", n), w = work.vector("fgdd::krylov::w", n),
         z = work.vector("fgdd::krylov::z", n);
  detail::SolveTracker tracker(space, A, b, x, options, r, work);
  SolveStatus status = SolveStatus::MaxIterations;
  std::string reason;
  const auto finish = [&](SolveStatus st, std::string why) {
    return tracker.finish(st, std::move(why), x, w);
  };
  if (tracker.finished_at_start(status, reason)) return finish(status, reason);

  const Basis V = work.basis(n, m + 1);
  Kokkos::View<Scalar*, DeviceType> h("fgdd::krylov::gmres_h", m + 1),
      correction("fgdd::krylov::gmres_correction", m + 1), y_device("fgdd::krylov::gmres_y", m);
  const int ld = m + 1;
  std::vector<double> H(std::size_t(ld) * m), cs(m), sn(m), g(m + 1);
  int iteration = 0;
  double beta = tracker.residual();
  while (iteration < options.max_iterations) {
    // A cycle: V(:, 0) = r / ‖r‖, then up to m Arnoldi steps.
    detail::scale_into(space, 1.0 / beta, r, Kokkos::subview(V, Kokkos::ALL, 0));
    std::fill(g.begin(), g.end(), 0.0);
    g[0] = beta;
    int j = 0;
    bool stop = false;
    for (; j < m && iteration < options.max_iterations; ++j) {
      ++iteration;
      M.apply(space, Kokkos::subview(V, Kokkos::ALL, j), z);
      A.apply(space, z, w);
      const double h_next =
          std::sqrt(orthogonalize(space, A, options.orthogonalization, V, j, w, h, correction));
      const auto host_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), h);
      double* column = &H[std::size_t(j) * ld];
      for (int i = 0; i <= j; ++i) column[i] = host_h(i);
      column[j + 1] = h_next;
      for (int i = 0; i <= j + 1; ++i)
        if (!std::isfinite(column[i]))
          return finish(SolveStatus::NanOrInf, "Arnoldi vector holds NaN or Inf");
      // Earlier rotations, then a new one that zeroes H(j+1, j).
      for (int i = 0; i < j; ++i) {
        const double t = cs[i] * column[i] + sn[i] * column[i + 1];
        column[i + 1] = -sn[i] * column[i] + cs[i] * column[i + 1];
        column[i] = t;
      }
      const double denom = std::hypot(column[j], column[j + 1]);
      if (denom == 0) return finish(SolveStatus::Breakdown, "Hessenberg column vanished");
      cs[j] = column[j] / denom;
      sn[j] = column[j + 1] / denom;
      column[j] = denom;
      column[j + 1] = 0;
      g[j + 1] = -sn[j] * g[j];
      g[j] = cs[j] * g[j];
      stop = tracker.record_estimate(iteration, std::abs(g[j + 1]), status, reason);
      // A lucky breakdown: the Krylov space holds the solution, the cycle ends here.
      const bool exhausted = detail::negligible(h_next, 1e6 * beta);
      if (!exhausted)
        detail::scale_into(space, 1.0 / h_next, w, Kokkos::subview(V, Kokkos::ALL, j + 1));
      if (stop || exhausted) {
        ++j;
        break;
      }
    }
    // x += M⁻¹ V(:, 0..j-1) y with R y = g.
    const std::vector<double> y = back_substitute(H, ld, j, g);
    const auto host_y = Kokkos::create_mirror_view(y_device);
    for (int i = 0; i < j; ++i) host_y(i) = y[i];
    Kokkos::deep_copy(space, y_device, host_y);
    Kokkos::deep_copy(space, w, 0.0);
    add_combination(space, V, j, y_device, 1.0, w);
    M.apply(space, w, z);
    detail::axpy(space, 1.0, z, x);
    // The true residual starts the next cycle and confirms a converged estimate.
    A.apply(space, x, r);
    beta = tracker.norm(r, A.global_sum(detail::axpby_norm2(space, 1.0, tracker.b(), -1.0, r)));
    const bool claimed = stop && status == SolveStatus::Converged;
    if (tracker.record_true(iteration, beta, x, claimed, status, reason) ==
        detail::SolveTracker::Step::Stop)
      return finish(status, reason);
    if (stop && !claimed) return finish(status, reason);
  }
  return finish(SolveStatus::MaxIterations,
                "no convergence in " + std::to_string(options.max_iterations) + " iterations");
}

SolveResult gmres(const ExecSpace& space, const SparseMatrix& A, const Preconditioner& M,
                  ConstVector b, Vector x, const KrylovOptions& options) {
  return gmres(space, MatrixOperator(A), M, b, x, options);
}

}  // namespace fgdd
