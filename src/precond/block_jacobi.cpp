#include "precond/block_jacobi.hpp"

#include "core/dense_block.hpp"
#include "core/errors.hpp"

namespace fgdd {

namespace {

// Inverts every diagonal block into inverse (Gauss-Jordan with partial pivoting); returns the
// first singular block row, or the number of block rows if none. A free function because CUDA
// extended lambdas cannot live in constructors.
Ordinal invert_diagonal_blocks(const SparseMatrix& A,
                               const Kokkos::View<Scalar*, DeviceType>& inverse) {
  const int b = A.block_size();
  const Ordinal n = A.num_block_rows();
  const Offset block_entries = Offset(b) * Offset(b);
  const auto row_map = A.row_map();
  const auto col_ind = A.col_ind();
  const auto values = A.values();
  Ordinal first_singular = n;
  Kokkos::parallel_reduce(
      "fgdd::precond::jacobi_invert", Kokkos::RangePolicy<ExecSpace>(0, n),
      KOKKOS_LAMBDA(const Ordinal i, Ordinal& singular) {
        Scalar a[detail::max_block_size * detail::max_block_size];
        Scalar inv[detail::max_block_size * detail::max_block_size];
        Offset diag = row_map(i);
        while (col_ind(diag) != i) ++diag;  // present: matrix_build guarantees a diagonal
        Scalar scale = 0;
        for (int e = 0; e < b * b; ++e) {
          a[e] = values(diag * block_entries + e);
          scale = detail::fabs(a[e]) > scale ? detail::fabs(a[e]) : scale;
        }
        detail::PivotRule rule;
        rule.tiny = 1e-14 * scale;
        Scalar smallest = 0;
        const bool ok = detail::invert_block(a, inv, b, rule, smallest) >= 0;
        if (!ok && i < singular) singular = i;
        for (int e = 0; e < b * b; ++e) inverse(Offset(i) * block_entries + e) = inv[e];
      },
      Kokkos::Min<Ordinal>(first_singular));
  return first_singular < n ? first_singular : n;
}

}  // namespace

BlockJacobi::BlockJacobi(const SparseMatrix& A) : block_size_(A.block_size()) {
  const int b = block_size_;
  if (b > detail::max_block_size) {
    throw InvalidInput("block Jacobi supports block sizes up to " +
                       std::to_string(detail::max_block_size) + ", got " + std::to_string(b));
  }
  const Ordinal n = A.num_block_rows();
  inverse_blocks_ = Kokkos::View<Scalar*, DeviceType>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::precond::jacobi_inverse"),
      Offset(n) * Offset(b) * Offset(b));
  const Ordinal first_singular = invert_diagonal_blocks(A, inverse_blocks_);
  if (first_singular < n) {
    // Name the pivot: for b = 1 it is the diagonal entry itself; a singular block reports 0.
    const auto host_row_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.row_map());
    const auto host_cols = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.col_ind());
    Offset diag = host_row_map(first_singular);
    while (host_cols(diag) != first_singular) ++diag;
    Scalar pivot = 0;
    if (b == 1) Kokkos::deep_copy(pivot, Kokkos::subview(A.values(), diag));
    throw ZeroPivot(std::int64_t(first_singular) * b, pivot);
  }
}

namespace {

// z = D⁻¹ r, or D⁻ᵀ r when transposed (column instead of row of each inverse block).
void apply_inverse_blocks(const ExecSpace& space, const Kokkos::View<Scalar*, DeviceType>& inverse,
                          int b, bool transposed, ConstVector r, Vector z) {
  const Offset block_entries = Offset(b) * Offset(b);
  Kokkos::parallel_for(
      "fgdd::precond::jacobi_apply", Kokkos::RangePolicy<ExecSpace>(space, 0, r.extent(0)),
      KOKKOS_LAMBDA(const Offset row) {
        const Offset block_row = row / b;
        const Offset within = row % b;
        const Scalar* block = &inverse(block_row * block_entries);
        Scalar sum = 0;
        for (int j = 0; j < b; ++j)
          sum +=
              (transposed ? block[j * b + within] : block[within * b + j]) * r(block_row * b + j);
        z(row) = sum;
      });
}

}  // namespace

void BlockJacobi::apply(const ExecSpace& space, ConstVector r, Vector z) const {
  apply_inverse_blocks(space, inverse_blocks_, block_size_, false, r, z);
}

void BlockJacobi::apply_transpose(const ExecSpace& space, ConstVector r, Vector z) const {
  apply_inverse_blocks(space, inverse_blocks_, block_size_, true, r, z);
}

void BlockJacobi::update_values(const ExecSpace&, const SparseMatrix& permuted,
                                const SparseMatrix&) {
  *this = BlockJacobi(permuted);
}

}  // namespace fgdd
