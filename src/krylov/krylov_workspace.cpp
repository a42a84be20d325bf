#include "krylov/krylov_workspace.hpp"

#include "core/huge_pages.hpp"

#include <utility>

namespace fgdd {

Vector KrylovWorkspace::vector(const std::string& label, Offset n) {
  Vector& kept = vectors_[label];
  if (kept.extent(0) != n) {
    kept = Vector();  // the old one goes first (GPUs), so both never live at once
    kept = allocate(label, n);
  }
  return kept;
}

Vector KrylovWorkspace::allocate(const std::string& label, Offset n) {
  if constexpr (!host_memory)  // GPU memory: only what is used, no slack
    return Vector(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), n);
  constexpr Offset line = 64 / sizeof(Scalar);  // slices start on cache lines
  const Offset stride = (n + line - 1) / line * line;
  if (slab_rows_ != n || slab_used_ + stride > slab_.extent(0)) {
    // Untouched slots never become resident, so the spare ones cost address space only.
    slab_ = detail::uninitialized_view<Scalar>("fgdd::krylov::vectors", slab_slots * stride);
    slab_rows_ = n;
    slab_used_ = 0;
  }
  const Vector slice = Kokkos::subview(slab_, std::make_pair(slab_used_, slab_used_ + n));
  slab_used_ += stride;
  return slice;
}

KrylovWorkspace::Basis KrylovWorkspace::basis(Offset n, int columns) {
  if (basis_.extent(0) != n || basis_.extent(1) != Offset(columns)) {
    basis_ = Basis();
    basis_ = Basis(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::krylov::gmres_basis"), n,
                   columns);
    if constexpr (host_memory)
      detail::advise_huge_pages(basis_.data(), basis_.span() * sizeof(Scalar));
  }
  return basis_;
}

Offset KrylovWorkspace::bytes() const noexcept {
  Offset total = basis_.span() * sizeof(Scalar);
  if constexpr (host_memory) return total + slab_.span() * sizeof(Scalar);
  for (const auto& [label, v] : vectors_) total += v.span() * sizeof(Scalar);
  return total;
}

void KrylovWorkspace::fill(const ExecSpace& space, Scalar value) {
  for (auto& [label, v] : vectors_) Kokkos::deep_copy(space, v, value);
  if (basis_.span() > 0) Kokkos::deep_copy(space, basis_, value);
  space.fence();
}

}  // namespace fgdd
