#include "multilevel/multilevel_ilu.hpp"

#include "core/errors.hpp"
#include "core/host_copy.hpp"
#include "core/sparse_dot.hpp"
#include "schedule/global_levels.hpp"

#include <Kokkos_Timer.hpp>

#include <sstream>
#include <utility>

namespace fgdd {

namespace detail {

// A rectangular CSR block on the device (L_C, U_F): rows × the columns of the vector it reads.
struct DeviceRectCsr {
  Ordinal rows = 0;
  Kokkos::View<Offset*, DeviceType> ptr;
  Kokkos::View<Ordinal*, DeviceType> col;
  Kokkos::View<Scalar*, DeviceType> val;
};

struct MultilevelDeviceLevel {
  Ordinal n = 0;
  Ordinal nb = 0;
  Kokkos::View<Ordinal*, DeviceType> perm;
  Kokkos::View<Scalar*, DeviceType> row_scale, col_scale, inv_d;
  GlobalFactors factors;
  std::unique_ptr<GlobalTrsv> trsv;
  MultilevelCouplings couplings = MultilevelCouplings::Factored;
  DeviceRectCsr lc, uf;  // L_C and U_F, or A_CB and A_BC (HostLevel)
  Vector x;  // n: the level's vector in factored order, B first
  Vector w;  // n − nb: the next level's result
  Vector t;  // nb, Original couplings only: (L_B D_B U_B)⁻¹ A_BC w
};

namespace {

DeviceRectCsr upload(const HostCsr& M, const std::string& name) {
  return {M.rows, to_device(M.ptr, "fgdd::multilevel::" + name + "_ptr"),
          to_device(M.col, "fgdd::multilevel::" + name + "_col"),
          to_device(M.val, "fgdd::multilevel::" + name + "_val")};
}

// x(q) = s(q) r(perm(q))
void gather_scaled(const ExecSpace& space, ConstVector r, const MultilevelDeviceLevel& level) {
  const auto perm = level.perm;
  const auto scale = level.row_scale;
  const Vector x = level.x;
  Kokkos::parallel_for(
      "fgdd::multilevel::gather", Kokkos::RangePolicy<ExecSpace>(space, 0, level.n),
      KOKKOS_LAMBDA(const Ordinal q) { x(q) = scale(q) * r(perm(q)); });
}

// z(perm(q)) = s(q) · (x(q) for q in B, w(q − nb) for q in C)
void scatter_scaled(const ExecSpace& space, const MultilevelDeviceLevel& level, Vector z) {
  const auto perm = level.perm;
  const auto scale = level.col_scale;
  const Vector x = level.x, w = level.w;
  const Ordinal nb = level.nb;
  Kokkos::parallel_for(
      "fgdd::multilevel::scatter", Kokkos::RangePolicy<ExecSpace>(space, 0, level.n),
      KOKKOS_LAMBDA(const Ordinal q) { z(perm(q)) = scale(q) * (q < nb ? x(q) : w(q - nb)); });
}

// y −= M x, a row per thread.
void subtract_product(const ExecSpace& space, const DeviceRectCsr& M, ConstVector x, Vector y) {
  const auto ptr = M.ptr;
  const auto col = M.col;
  const auto val = M.val;
  Kokkos::parallel_for(
      "fgdd::multilevel::subtract_product", Kokkos::RangePolicy<ExecSpace>(space, 0, M.rows),
      KOKKOS_LAMBDA(const Ordinal i) {
        y(i) -= sparse_dot(val.data(), col.data(), x.data(), ptr(i), ptr(i + 1));
      });
}

// x ← D⁻¹ x
void scale_in_place(const ExecSpace& space, const Kokkos::View<Scalar*, DeviceType>& inv_d,
                    Vector x) {
  Kokkos::parallel_for(
      "fgdd::multilevel::scale", Kokkos::RangePolicy<ExecSpace>(space, 0, x.extent(0)),
      KOKKOS_LAMBDA(const Offset i) { x(i) *= inv_d(i); });
}

// z = S⁻¹ r with the dense inverse, a row per thread.
void dense_apply(const ExecSpace& space,
                 const Kokkos::View<Scalar**, Kokkos::LayoutRight, DeviceType>& inverse,
                 ConstVector r, Vector z) {
  const Ordinal n = Ordinal(inverse.extent(0));
  Kokkos::parallel_for(
      "fgdd::multilevel::dense_apply", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const Ordinal i) {
        Scalar sum = 0;
        for (Ordinal j = 0; j < n; ++j) sum += inverse(i, j) * r(j);
        z(i) = sum;
      });
}

// The level of M⁻ᵀ: eq. (5) transposed is eq. (5) again with Fᵀ as the factors (its lower
// triangle U_Bᵀ, its upper L_Bᵀ, the same pivots), U_Fᵀ in the place of L_C, L_Cᵀ in that of U_F,
// and the row and column scalings swapped.
HostLevel transposed_level(const HostLevel& h) {
  HostLevel t;
  t.n = h.n;
  t.nb = h.nb;
  t.perm = h.perm;
  t.row_scale = h.col_scale;
  t.col_scale = h.row_scale;
  t.factors = transpose(h.factors);
  t.inv_d = h.inv_d;
  t.couplings = h.couplings;
  t.LC = transpose(h.UF);
  t.UF = transpose(h.LC);
  return t;
}

std::unique_ptr<MultilevelDeviceLevel> upload_level(const ExecSpace& space, const HostLevel& h) {
  auto level = std::make_unique<MultilevelDeviceLevel>();
  level->n = h.n;
  level->nb = h.nb;
  level->perm = to_device(h.perm, "fgdd::multilevel::perm");
  level->row_scale = to_device(h.row_scale, "fgdd::multilevel::row_scale");
  level->col_scale = to_device(h.col_scale, "fgdd::multilevel::col_scale");
  level->inv_d = to_device(h.inv_d, "fgdd::multilevel::inv_d");
  const SparseMatrix factors = to_device_matrix(h.factors);
  level->factors = GlobalFactors(factors, level->inv_d, diagonal_positions(space, factors),
                                 IluForm::Ildu0);
  level->trsv = std::make_unique<GlobalTrsv>(space, level->factors);
  level->couplings = h.couplings;
  level->lc = upload(h.LC, "lc");
  level->uf = upload(h.UF, "uf");
  if (h.couplings == MultilevelCouplings::Original && h.nb < h.n)
    level->t = Vector(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::multilevel::t"), h.nb);
  level->x = Vector(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::multilevel::x"), h.n);
  level->w = Vector(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::multilevel::w"),
                    h.n - h.nb);
  return level;
}

// What a later setup with new values reuses and compares: each level's sizes and orders.
MultilevelHostSetup pivot_sets_of(const MultilevelHostSetup& setup) {
  MultilevelHostSetup kept;
  kept.dense_n = setup.dense_n;
  for (const HostLevel& h : setup.levels) {
    HostLevel& level = kept.levels.emplace_back();
    level.n = h.n;
    level.nb = h.nb;
    level.order = h.order;
    level.perm = h.perm;
  }
  return kept;
}

MultilevelLevelReport level_report(const HostLevel& h, const GlobalTrsv& trsv) {
  MultilevelLevelReport level;
  level.rows = h.n;
  level.accepted = h.nb;
  level.deferred = h.n - h.nb;
  level.factor_entries = h.factors.nnz();
  level.coupling_entries = h.LC.nnz() + h.UF.nnz();
  level.shifted = h.shifted;
  // Only where the sweeps launch by level (GPUs): row-order sweeps (CPU backends) need no level
  // sets, and building both triangles' just to count them, a scan with its barriers per level,
  // took about 0.18 s of elasticity's 8.4 s setup on two threads, seconds when other work
  // shared the cores.
  if (trsv.row_kernel(Triangle::Lower) != GlobalRowKernel::RowOrder) {
    level.lower_levels = trsv.levels(Triangle::Lower).num_levels;
    level.upper_levels = trsv.levels(Triangle::Upper).num_levels;
  }
  level.seconds = h.seconds;
  return level;
}

// The dense inverse (row-major on the host), or its transpose, on the device.
Kokkos::View<Scalar**, Kokkos::LayoutRight, DeviceType> upload_dense(
    const std::vector<Scalar>& host, Ordinal n, bool transposed) {
  Kokkos::View<Scalar**, Kokkos::LayoutRight, DeviceType> device(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::multilevel::dense_inverse"), n, n);
  std::vector<Scalar> transposed_values;  // a copy only when the transpose is asked for
  const Scalar* values = host.data();
  if (transposed) {
    transposed_values.resize(host.size());
    for (Ordinal i = 0; i < n; ++i)
      for (Ordinal j = 0; j < n; ++j) transposed_values[Offset(i) * n + j] = host[Offset(j) * n + i];
    values = transposed_values.data();
  }
  Kokkos::deep_copy(device, Kokkos::View<const Scalar**, Kokkos::LayoutRight, Kokkos::HostSpace,
                                         Kokkos::MemoryTraits<Kokkos::Unmanaged>>(values, n, n));
  return device;
}

}  // namespace

}  // namespace detail

std::string MultilevelReport::summary() const {
  std::ostringstream out;
  out << levels.size() << " level" << (levels.size() == 1 ? "" : "s") << ", rows";
  for (const MultilevelLevelReport& level : levels) out << ' ' << level.rows;
  if (dense_rows > 0) out << ", dense " << dense_rows;
  out << ", fill " << fill_ratio;
  return out.str();
}

MultilevelIlu::MultilevelIlu(const ExecSpace& space, const SparseMatrix& A,
                             const MultilevelIluOptions& options, bool with_transpose)
    : MultilevelIlu(space, A, options, with_transpose, nullptr) {}

MultilevelIlu::MultilevelIlu(const ExecSpace& space, const SparseMatrix& A,
                             const MultilevelIlu& previous)
    : MultilevelIlu(space, A, previous.options_, previous.with_transpose_,
                    previous.n_ == A.num_rows() ? previous.pivot_sets_.get() : nullptr) {}

MultilevelIlu::MultilevelIlu(const ExecSpace& space, const SparseMatrix& A,
                             const MultilevelIluOptions& options, bool with_transpose,
                             const detail::MultilevelHostSetup* previous)
    : n_(A.num_rows()), options_(options), with_transpose_(with_transpose) {
  options.validate();
  Kokkos::Timer timer;
  const detail::HostCsr host = detail::scalar_host_csr(A);
  const detail::MultilevelHostSetup setup =
      detail::multilevel_setup(space, host, options, previous);
  report_.host_seconds = timer.seconds();
  report_.from_previous = previous != nullptr;
  report_.pivots_held = previous != nullptr && detail::same_pivot_sets(setup, *previous);
  pivot_sets_ = std::make_unique<detail::MultilevelHostSetup>(detail::pivot_sets_of(setup));
  timer.reset();
  report_.matrix_entries = host.nnz();
  Offset stored = 0;
  for (const detail::HostLevel& h : setup.levels) {
    levels_.push_back(detail::upload_level(space, h));
    report_.levels.push_back(detail::level_report(h, *levels_.back()->trsv));
    stored += report_.levels.back().factor_entries + report_.levels.back().coupling_entries;
    if (with_transpose)
      transposed_.push_back(detail::upload_level(space, detail::transposed_level(h)));
  }
  dense_n_ = setup.dense_n;
  report_.dense_rows = setup.dense_n;
  report_.dense_shifted = setup.dense_shifted;
  report_.dense_seconds = setup.dense_seconds;
  if (dense_n_ > 0) {
    dense_inverse_ = detail::upload_dense(setup.dense_inverse, dense_n_, false);
    if (with_transpose)
      dense_inverse_transposed_ = detail::upload_dense(setup.dense_inverse, dense_n_, true);
    stored += Offset(dense_n_) * Offset(dense_n_);
  }
  report_.fill_ratio = report_.matrix_entries > 0 ? double(stored) / report_.matrix_entries : 0;
  space.fence();
  report_.upload_seconds = timer.seconds();
}

MultilevelIlu::~MultilevelIlu() = default;
MultilevelIlu::MultilevelIlu(MultilevelIlu&&) noexcept = default;
MultilevelIlu& MultilevelIlu::operator=(MultilevelIlu&&) noexcept = default;

void MultilevelIlu::check_lengths(ConstVector r, Vector z) const {
  if (r.extent(0) != n_ || z.extent(0) != n_)
    throw DimensionMismatch("multilevel ILU apply: r has " + std::to_string(r.extent(0)) +
                            " and z " + std::to_string(z.extent(0)) + " entries, the matrix " +
                            std::to_string(n_) + " rows");
}

void MultilevelIlu::apply(const ExecSpace& space, ConstVector r, Vector z) const {
  check_lengths(r, z);
  if (n_ > 0) apply_level(space, levels_, dense_inverse_, 0, r, z);
}

void MultilevelIlu::apply_transpose(const ExecSpace& space, ConstVector r, Vector z) const {
  if (!with_transpose_)
    throw InvalidInput("multilevel ILU: apply_transpose needs the transposed factors (construct "
                       "it with_transpose)");
  check_lengths(r, z);
  if (n_ > 0) apply_level(space, transposed_, dense_inverse_transposed_, 0, r, z);
}

void MultilevelIlu::apply_level(
    const ExecSpace& space,
    const std::vector<std::unique_ptr<detail::MultilevelDeviceLevel>>& levels,
    const DenseInverse& dense, std::size_t index, ConstVector r, Vector z) const {
  if (index == levels.size()) return detail::dense_apply(space, dense, r, z);
  const detail::MultilevelDeviceLevel& level = *levels[index];
  const auto b_part = std::make_pair(Offset(0), Offset(level.nb));
  const auto c_part = std::make_pair(Offset(level.nb), Offset(level.n));
  const Vector x_b = Kokkos::subview(level.x, b_part), x_c = Kokkos::subview(level.x, c_part);
  detail::gather_scaled(space, r, level);
  const bool coupled = level.nb < level.n;
  if (level.couplings == MultilevelCouplings::Original) {
    // x_B = (L_B D_B U_B)⁻¹ r_B, x_C −= A_CB x_B, the next level, then from r_B kept in t:
    // x_B = (L_B D_B U_B)⁻¹ (r_B − A_BC x_C).
    const auto solve_ldu = [&](ConstVector from) {
      level.trsv->solve(space, Triangle::Lower, Diagonal::Unit, from, x_b);
      detail::scale_in_place(space, level.inv_d, x_b);
      level.trsv->solve(space, Triangle::Upper, Diagonal::Unit, x_b, x_b);
    };
    if (coupled) Kokkos::deep_copy(space, level.t, x_b);
    solve_ldu(x_b);
    if (coupled) {
      detail::subtract_product(space, level.lc, x_b, x_c);
      apply_level(space, levels, dense, index + 1, x_c, level.w);
      detail::subtract_product(space, level.uf, level.w, level.t);
      solve_ldu(level.t);
    }
    return detail::scatter_scaled(space, level, z);
  }
  level.trsv->solve(space, Triangle::Lower, Diagonal::Unit, x_b, x_b);
  if (coupled) detail::subtract_product(space, level.lc, x_b, x_c);
  detail::scale_in_place(space, level.inv_d, x_b);
  if (coupled) {
    apply_level(space, levels, dense, index + 1, x_c, level.w);
    detail::subtract_product(space, level.uf, level.w, x_b);
  }
  level.trsv->solve(space, Triangle::Upper, Diagonal::Unit, x_b, x_b);
  detail::scatter_scaled(space, level, z);
}

}  // namespace fgdd
