#include "factor/pivot_shift.hpp"

#include "core/errors.hpp"

namespace fgdd {

const char* to_string(PivotShift shift) noexcept { return pivot_shift_names.name(shift); }

PivotShift parse_pivot_shift(const std::string& name) {
  // PETSc's spelling (MAT_SHIFT_POSITIVE_DEFINITE) with an underscore is accepted too.
  return pivot_shift_names.parse(name == "positive_definite" ? "positive-definite" : name);
}

namespace detail {

void compute_shift_scale(const ExecSpace& space, const SparseMatrix::RowMap& row_map,
                         const SparseMatrix::Values& values,
                         const Kokkos::View<Offset*, DeviceType>& diag, int b, bool positive,
                         const Kokkos::View<Scalar*, DeviceType>& shift_scale) {
  const Ordinal n = Ordinal(row_map.extent(0)) - 1;
  const int bb = b * b;
  Kokkos::parallel_for(
      "fgdd::factor::shift_scale", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const Ordinal i) {
        for (int r = 0; r < b; ++r) {
          Scalar norm = 0;
          for (Offset k = row_map(i); k < row_map(i + 1); ++k)
            for (int c = 0; c < b; ++c) norm += fabs(values(k * bb + r * b + c));
          const bool negative = !positive && values(diag(i) * bb + r * b + r) < 0;
          shift_scale(Offset(i) * b + r) = negative ? -norm : norm;
        }
      });
}

}  // namespace detail

}  // namespace fgdd
