#include "factor/symmetry.hpp"

#include "core/find_in_row.hpp"
#include "core/first_row_where.hpp"
#include "core/huge_pages.hpp"

namespace fgdd::detail {

MirrorPositions mirror_positions(const ExecSpace& space, const SparseMatrix& A) {
  const auto row_map = A.row_map();
  const auto col_ind = A.col_ind();
  const MirrorPositions mirror =
      uninitialized_view<Offset>("fgdd::factor::mirror", A.num_block_entries());
  Kokkos::parallel_for(
      "fgdd::factor::mirror_positions",
      Kokkos::RangePolicy<ExecSpace>(space, 0, A.num_block_rows()),
      KOKKOS_LAMBDA(const Ordinal i) {
        for (Offset k = row_map(i); k < row_map(i + 1); ++k)
          mirror(k) = find_in_row(row_map, col_ind, col_ind(k), i);
      });
  return mirror;
}

SymmetryCheck check_symmetry(const ExecSpace& space, const SparseMatrix& A) {
  return check_symmetry(space, A, mirror_positions(space, A));
}

SymmetryCheck check_symmetry(const ExecSpace& space, const SparseMatrix& A,
                             const MirrorPositions& mirror) {
  const auto row_map = A.row_map();
  const auto col_ind = A.col_ind();
  const auto values = A.values();
  const int b = A.block_size(), bb = b * b;
  const Ordinal n = A.num_block_rows();
  SymmetryCheck check;
  check.first_row = n;
  if (n == 0) return check;
  Kokkos::View<Scalar*, DeviceType> row_max("fgdd::factor::symmetry_row_max", n);
  Kokkos::parallel_for(
      "fgdd::factor::symmetry_row_max", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const Ordinal i) {
        Scalar m = 0;
        for (Offset e = row_map(i) * bb; e < row_map(i + 1) * bb; ++e)
          if (fabs(values(e)) > m) m = fabs(values(e));
        row_max(i) = m;
      });
  // Per block row, its worst entry's asymmetry relative to the two rows' scale (inf: no mirror).
  Kokkos::View<Scalar*, DeviceType> row_asymmetry("fgdd::factor::row_asymmetry", n);
  const Scalar infinity = std::numeric_limits<Scalar>::infinity();
  Kokkos::parallel_for(
      "fgdd::factor::row_asymmetry", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const Ordinal i) {
        Scalar worst = 0;
        for (Offset k = row_map(i); k < row_map(i + 1); ++k) {
          const Ordinal j = col_ind(k);
          const Offset m = mirror(k);
          if (m == row_map(j + 1)) {
            worst = infinity;
            break;
          }
          const Scalar scale = row_max(i) > row_max(j) ? row_max(i) : row_max(j);
          if (scale == 0) continue;
          for (int r = 0; r < b; ++r)
            for (int c = 0; c < b; ++c) {
              const Scalar d =
                  fabs(values(k * bb + r * b + c) - values(m * bb + c * b + r)) / scale;
              if (!(d <= worst)) worst = d;  // a NaN entry counts as asymmetric
            }
        }
        row_asymmetry(i) = worst;
      });
  Scalar worst = 0;
  Kokkos::parallel_reduce(
      "fgdd::factor::asymmetry", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const Ordinal i, Scalar& m) {
        if (!(row_asymmetry(i) <= m)) m = row_asymmetry(i);
      },
      Kokkos::Max<Scalar>(worst));
  check.asymmetry = worst;
  const Scalar tolerance = symmetry_tolerance;
  check.first_row = first_row_where(
      space, n, "fgdd::factor::first_asymmetric_row",
      KOKKOS_LAMBDA(const Ordinal i) { return !(row_asymmetry(i) <= tolerance); });
  if (check.first_row == n) return check;
  // The offending entry of that row, for the message (one row: a single-iteration launch).
  const Ordinal i = check.first_row;
  Kokkos::View<Ordinal, DeviceType> column("fgdd::factor::asymmetric_column");
  Kokkos::View<int, DeviceType> missing("fgdd::factor::missing_mirror");
  Kokkos::parallel_for(
      "fgdd::factor::asymmetric_entry", Kokkos::RangePolicy<ExecSpace>(space, 0, 1),
      KOKKOS_LAMBDA(const int) {
        for (Offset k = row_map(i); k < row_map(i + 1); ++k) {
          const Ordinal j = col_ind(k);
          const Offset m = mirror(k);
          if (m == row_map(j + 1)) {
            column() = j;
            missing() = 1;
            return;
          }
          const Scalar scale = row_max(i) > row_max(j) ? row_max(i) : row_max(j);
          if (scale == 0) continue;
          for (int r = 0; r < b; ++r)
            for (int c = 0; c < b; ++c) {
              const Scalar d =
                  fabs(values(k * bb + r * b + c) - values(m * bb + c * b + r)) / scale;
              if (!(d <= tolerance)) {
                column() = j;
                return;
              }
            }
        }
      });
  const auto host_column = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), column);
  const auto host_missing = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), missing);
  check.column = host_column();
  check.missing_mirror = host_missing() != 0;
  return check;
}

void symmetric_part(const ExecSpace& space, const SparseMatrix& A, const MirrorPositions& mirror,
                    const SparseMatrix::Values& in, const SparseMatrix::Values& out) {
  const auto row_map = A.row_map();
  const int b = A.block_size(), bb = b * b;
  Kokkos::parallel_for(
      "fgdd::factor::symmetric_part", Kokkos::RangePolicy<ExecSpace>(space, 0, A.num_block_rows()),
      KOKKOS_LAMBDA(const Ordinal i) {
        for (Offset k = row_map(i); k < row_map(i + 1); ++k) {
          const Offset m = mirror(k);
          for (int r = 0; r < b; ++r)
            for (int c = 0; c < b; ++c)
              out(k * bb + r * b + c) =
                  Scalar(0.5) * (in(k * bb + r * b + c) + in(m * bb + c * b + r));
        }
      });
}

}  // namespace fgdd::detail
