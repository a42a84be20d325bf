#include "krylov/krylov_workspace.hpp"

namespace fgdd {

Vector KrylovWorkspace::vector(const std::string& label, Offset n) {
  Vector& kept = vectors_[label];
  if (kept.extent(0) != n) {
    kept = Vector();  // the old one goes first, so both never live at once
    kept = Vector(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), n);
  }
  return kept;
}

KrylovWorkspace::Basis KrylovWorkspace::basis(Offset n, int columns) {
  if (basis_.extent(0) != n || basis_.extent(1) != Offset(columns)) {
    basis_ = Basis();
    basis_ = Basis(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::krylov::gmres_basis"), n,
                   columns);
  }
  return basis_;
}

Offset KrylovWorkspace::bytes() const noexcept {
  Offset total = basis_.span() * sizeof(Scalar);
  for (const auto& [label, v] : vectors_) total += v.span() * sizeof(Scalar);
  return total;
}

void KrylovWorkspace::fill(const ExecSpace& space, Scalar value) {
  for (auto& [label, v] : vectors_) Kokkos::deep_copy(space, v, value);
  if (basis_.span() > 0) Kokkos::deep_copy(space, basis_, value);
  space.fence();
}

}  // namespace fgdd
