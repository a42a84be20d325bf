// Where a factorization in rows order also copies each row's strict triangles as the row
// finishes: the row-order sweeps' layout (trsv/split_triangles.hpp), handed over by whoever
// owns both, so that a refactorization need not gather them in a pass of its own afterwards.
#pragma once

#include "core/sparse_matrix.hpp"

namespace fgdd::detail {

// Row i's strictly lower blocks go to lower at lower_ptr(i), its strictly upper blocks to upper
// at upper_ptr(n − 1 − i) (the sweeps read the rows descending), as factors() holds them (U
// scaled for Ildu0), in float where the float views are allocated, else in double.
struct TriangleCopies {
  Kokkos::View<Offset*, DeviceType> lower_ptr;
  Kokkos::View<Offset*, DeviceType> upper_ptr;
  Kokkos::View<float*, DeviceType> lower_single;
  Kokkos::View<float*, DeviceType> upper_single;
  Kokkos::View<Scalar*, DeviceType> lower_double;
  Kokkos::View<Scalar*, DeviceType> upper_double;

  bool empty() const noexcept { return !lower_ptr.is_allocated(); }
};

}  // namespace fgdd::detail
