#include "mpi/distributed_operator.hpp"

#include "core/spmv.hpp"

namespace fgdd {
namespace {

// y += A_off g, one thread per scalar row of the rows with ghost columns.
void add_off_rank_product(const ExecSpace& space, const OffRankBlock& off_rank, int block_size,
                          ConstVector ghosts, Vector y) {
  const auto row_map = off_rank.row_map;
  const auto cols = off_rank.ghost_col;
  const auto values = off_rank.values;
  const auto boundary = off_rank.boundary_rows;
  const Offset b = block_size, b2 = b * b;
  Kokkos::parallel_for(
      "fgdd::mpi::off_rank_spmv", Kokkos::RangePolicy<ExecSpace>(space, 0, boundary.extent(0) * b),
      KOKKOS_LAMBDA(const Offset t) {
        const Offset block_row = boundary(t / b), i = t % b;
        Scalar sum = 0;
        for (Offset k = row_map(block_row); k < row_map(block_row + 1); ++k)
          for (Offset j = 0; j < b; ++j)
            sum += values(k * b2 + i * b + j) * ghosts(Offset(cols(k)) * b + j);
        y(block_row * b + i) += sum;
      });
}

// ghost_sums = A_offᵀ x: contributions this rank owes the ghosts' owners.
void off_rank_transpose_product(const ExecSpace& space, const OffRankBlock& off_rank,
                                int block_size, ConstVector x, Vector ghost_sums) {
  const auto row_map = off_rank.row_map;
  const auto cols = off_rank.ghost_col;
  const auto values = off_rank.values;
  const auto boundary = off_rank.boundary_rows;
  const Offset b = block_size, b2 = b * b;
  Kokkos::deep_copy(space, ghost_sums, 0.0);
  Kokkos::parallel_for(
      "fgdd::mpi::off_rank_spmv_transpose",
      Kokkos::RangePolicy<ExecSpace>(space, 0, boundary.extent(0) * b),
      KOKKOS_LAMBDA(const Offset t) {
        const Offset block_row = boundary(t / b), i = t % b;
        const Scalar xr = x(block_row * b + i);
        for (Offset k = row_map(block_row); k < row_map(block_row + 1); ++k)
          for (Offset j = 0; j < b; ++j)
            Kokkos::atomic_add(&ghost_sums(Offset(cols(k)) * b + j),
                               values(k * b2 + i * b + j) * xr);
      });
}

}  // namespace

DistributedOperator::DistributedOperator(const DistributedMatrix& A)
    : A_(A),
      halo_(A.comm(), A.halo(), A.block_size()),
      ghosts_("fgdd::mpi::ghosts", A.halo().num_ghosts() * A.block_size()) {}

void DistributedOperator::apply(const ExecSpace& space, ConstVector x, Vector y) const {
  check_vector_size(*this, x.extent(0), "x");
  check_vector_size(*this, y.extent(0), "y");
  halo_.start_forward(space, x);
  spmv(space, A_.diagonal(), x, y);  // overlaps packing, staging and the messages
  halo_.finish_forward(ghosts_);
  add_off_rank_product(space, A_.off_rank(), A_.block_size(), ghosts_, y);
}

void DistributedOperator::apply_transpose(const ExecSpace& space, ConstVector x, Vector y) const {
  check_vector_size(*this, x.extent(0), "x");
  check_vector_size(*this, y.extent(0), "y");
  off_rank_transpose_product(space, A_.off_rank(), A_.block_size(), x, ghosts_);
  halo_.start_reverse(space, ghosts_);
  spmv_transpose(space, A_.diagonal(), x, y);  // overlaps the messages
  halo_.finish_reverse_add(space, y);
}

void DistributedOperator::sum_over_ranks(double* values, int count) const {
  A_.comm().sum(values, count);
}

double DistributedOperator::max_over_ranks(double value) const { return A_.comm().max(value); }

}  // namespace fgdd
