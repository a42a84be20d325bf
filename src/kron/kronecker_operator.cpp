#include "kron/kronecker_operator.hpp"

#include "core/errors.hpp"
#include "kron/kronecker_kernel.hpp"

#include <cmath>
#include <string>

namespace fgdd {

const char* to_string(KroneckerOrder order) noexcept {
  switch (order) {
    case KroneckerOrder::CombineAfter:
      return "combine-after";
    case KroneckerOrder::CombineBefore:
      return "combine-before";
  }
  return "unknown";
}

KroneckerOperator::KroneckerOperator(const SparseMatrix& M, const SparseMatrix& L,
                                     const StageCoefficients& coefficients, double tau,
                                     KroneckerOrder order)
    : M_(M), L_(L), coefficients_(coefficients), tau_(tau), order_(order) {
  if (M.num_block_rows() != L.num_block_rows() || M.block_size() != L.block_size())
    throw DimensionMismatch("Kronecker operator: M has " + std::to_string(M.num_block_rows()) +
                            " block rows of size " + std::to_string(M.block_size()) + ", L " +
                            std::to_string(L.num_block_rows()) + " of size " +
                            std::to_string(L.block_size()));
  if (!std::isfinite(tau)) throw InvalidInput("Kronecker operator: tau must be finite");
  device_coefficients_ = detail::stage_coefficients_on_device(coefficients_, tau_);
}

void KroneckerOperator::ensure_work_vectors() const {
  if (x_a_.extent(0) == num_rows()) return;
  x_a_ = Vector(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::kron::x_a"), num_rows());
  x_b_ = Vector(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::kron::x_b"), num_rows());
}

void KroneckerOperator::apply(const ExecSpace& space, ConstVector x, Vector y) const {
  check_vector_size(*this, x.extent(0), "x");
  check_vector_size(*this, y.extent(0), "y");
  const auto m = detail::block_rows(M_);
  const auto l = detail::block_rows(L_);
  if (order_ == KroneckerOrder::CombineAfter) {
    detail::kronecker_rows(space, M_.num_block_rows(), block_size(), stages(), m, x, l, x,
                           device_coefficients_, false, y);
    return;
  }
  ensure_work_vectors();
  detail::combine_stages(space, spatial_rows(), stages(), x, device_coefficients_, false, x_a_,
                         x_b_);
  detail::kronecker_rows(space, M_.num_block_rows(), block_size(), stages(), m, x_a_, l, x_b_, {},
                         false, y);
}

void KroneckerOperator::apply_transpose(const ExecSpace& space, ConstVector x, Vector y) const {
  check_vector_size(*this, x.extent(0), "x");
  check_vector_size(*this, y.extent(0), "y");
  ensure_work_vectors();
  // vec(Mᵀ X A + τ Lᵀ X B): combine with A and τB untransposed, then scatter through Mᵀ, Lᵀ.
  detail::combine_stages(space, spatial_rows(), stages(), x, device_coefficients_, true, x_a_,
                         x_b_);
  Kokkos::deep_copy(space, y, 0.0);
  detail::kronecker_rows_transpose(space, M_.num_block_rows(), block_size(), stages(),
                                   detail::block_rows(M_), x_a_, detail::block_rows(L_), x_b_, y);
}

std::string KroneckerOperator::name() const {
  return "kronecker (s=" + std::to_string(stages()) + ", " + to_string(order_) + ")";
}

}  // namespace fgdd
