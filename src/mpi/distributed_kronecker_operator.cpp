// Setup: the root partitions M + L once; DistributedMatrix spreads each by that partition (the
// same row ranges, since the distribution depends on the partition alone); each rank merges the
// two ghost lists and agrees on one plan with its neighbours. Apply: the fused product of
// kron/kronecker_kernel.hpp on the diagonal blocks, then on the off-rank blocks and the ghosts.
#include "mpi/distributed_kronecker_operator.hpp"

#include "core/errors.hpp"
#include "mpi/matrix_slice.hpp"
#include "mpi/mpi_transfer.hpp"
#include "kron/kronecker_kernel.hpp"
#include "kron/merged_layout.hpp"
#include "kron/union_pattern.hpp"
#include "partition/reorder.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <numeric>
#include <string>

namespace fgdd {

namespace {

// block's ghost columns renumbered from its own ghost list into ghosts (a sorted superset);
// row map, values and boundary rows are shared.
OffRankBlock renumber_ghosts(const OffRankBlock& block, const std::vector<Ordinal>& ghosts) {
  const auto own = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), block.ghost_col);
  std::vector<Ordinal> position(block.ghost_rows.size());
  for (std::size_t g = 0; g < position.size(); ++g)
    position[g] = Ordinal(std::lower_bound(ghosts.begin(), ghosts.end(), block.ghost_rows[g]) -
                          ghosts.begin());
  std::vector<Ordinal> cols(own.extent(0));
  for (std::size_t k = 0; k < cols.size(); ++k) cols[k] = position[own(k)];
  OffRankBlock renumbered;
  renumbered.row_map = block.row_map;
  renumbered.values = block.values;
  renumbered.boundary_rows = block.boundary_rows;
  renumbered.ghost_col = to_device(cols, "fgdd::mpi::kron_ghost_cols");
  renumbered.ghost_rows = ghosts;
  return renumbered;
}

// True when two row maps and column arrays hold the same numbers (one pass on the device).
template <class RowMap, class Cols>
bool same_pattern(const ExecSpace& space, const RowMap& rows_a, const Cols& cols_a,
                  const RowMap& rows_b, const Cols& cols_b) {
  if (rows_a.extent(0) != rows_b.extent(0) || cols_a.extent(0) != cols_b.extent(0)) return false;
  const Offset rows = rows_a.extent(0), entries = cols_a.extent(0);
  Offset differences = 0;
  Kokkos::parallel_reduce(
      "fgdd::mpi::kron_compare_patterns",
      Kokkos::RangePolicy<ExecSpace>(space, 0, std::max(rows, entries)),
      KOKKOS_LAMBDA(const Offset i, Offset& count) {
        if (i < rows && rows_a(i) != rows_b(i)) ++count;
        if (i < entries && cols_a(i) != cols_b(i)) ++count;
      },
      differences);
  return differences == 0;
}

detail::BlockRows block_rows(const OffRankBlock& block) {
  return {block.row_map, block.ghost_col, block.values};
}

}  // namespace

DistributedKroneckerMatrices::DistributedKroneckerMatrices(
    const ExecSpace& space, const Communicator& comm, const SparseMatrix* M_on_root,
    const SparseMatrix* L_on_root, const GridInfo& grid, const PartitionOptions& options) {
  std::unique_ptr<PartitionedMatrix> whole_M, whole_L;
  comm.run_collectively([&] {
    if (!comm.is_root()) return;
    if (!M_on_root || !L_on_root)
      throw InvalidInput("the root rank passed no M or L to DistributedKroneckerMatrices");
    const SharedPatternPair pair = on_union_pattern(space, *M_on_root, *L_on_root);
    // Subdomains of the union pattern serve both matrices (and the stage matrices a M + τ b L).
    const SparseMatrix combined = combine_shared(space, 1.0, pair.M, 1.0, pair.L);
    PartitionedMatrix both = partition_matrix(
        space, combined, grid, per_rank_partition(options, combined, comm.size()));
    root_partition_ = both.partition;
    report_ = both.report;
    whole_M = std::make_unique<PartitionedMatrix>(PartitionedMatrix{
        both.partition, reorder_and_drop(space, *M_on_root, both.partition), both.report});
    whole_L = std::make_unique<PartitionedMatrix>(PartitionedMatrix{
        both.partition, reorder_and_drop(space, *L_on_root, both.partition), both.report});
  });
  M_ = std::make_unique<DistributedMatrix>(space, comm, whole_M.get());
  whole_M.reset();
  L_ = std::make_unique<DistributedMatrix>(space, comm, whole_L.get());
  whole_L.reset();

  const auto& m_ghosts = M_->off_rank().ghost_rows;
  const auto& l_ghosts = L_->off_rank().ghost_rows;
  std::vector<Ordinal> ghosts;
  std::set_union(m_ghosts.begin(), m_ghosts.end(), l_ghosts.begin(), l_ghosts.end(),
                 std::back_inserter(ghosts));
  comm.run_collectively([&] {
    M_off_rank_ = renumber_ghosts(M_->off_rank(), ghosts);
    L_off_rank_ = renumber_ghosts(L_->off_rank(), ghosts);
    const SparseMatrix& m = M_->diagonal();
    const SparseMatrix& l = L_->diagonal();
    L_diagonal_ = same_pattern(space, m.row_map(), m.col_ind(), l.row_map(), l.col_ind())
                      ? SparseMatrix(SparseMatrix::ValidatedTag{}, l.num_block_rows(),
                                     l.block_size(), m.row_map(), m.col_ind(), l.values())
                      : l;
    if (same_pattern(space, M_off_rank_.row_map, M_off_rank_.ghost_col, L_off_rank_.row_map,
                     L_off_rank_.ghost_col)) {
      L_off_rank_.row_map = M_off_rank_.row_map;
      L_off_rank_.ghost_col = M_off_rank_.ghost_col;
    } else {  // the off-rank product visits the rows either matrix couples to a ghost
      M_off_rank_.boundary_rows =
          detail::rows_with_entries(space, M_off_rank_.row_map, L_off_rank_.row_map);
    }
    L_off_rank_.boundary_rows = M_off_rank_.boundary_rows;
  });
  halo_ = plan_halo(comm, M_->distribution(), ghosts);
}

namespace {

// Where each rank's merged rows start and end in the whole merged vector.
void merged_ranges(const DistributedKroneckerMatrices& matrices, int stages,
                   std::vector<Offset>& starts, std::vector<Offset>& ends) {
  const auto& offsets = matrices.M().distribution().block_row_offsets;
  const Offset width = Offset(matrices.block_size()) * Offset(stages);
  starts.clear();
  ends.clear();
  for (int r = 0; r + 1 < int(offsets.size()); ++r) {
    starts.push_back(Offset(offsets[r]) * width);
    ends.push_back(Offset(offsets[r + 1]) * width);
  }
}

}  // namespace

Vector DistributedKroneckerMatrices::scatter_stacked(const ExecSpace& space, int stages,
                                                     ConstVector stacked_on_root) const {
  const Offset width = Offset(block_size()) * Offset(stages);
  const Offset whole = Offset(global_num_block_rows()) * width;
  std::vector<Scalar> merged_p;  // the root's whole merged vector in A_p's ordering
  comm().run_collectively([&] {
    if (stages < 1) throw InvalidInput("scatter_stacked: stages must be at least 1");
    if (!comm().is_root()) return;
    if (stacked_on_root.extent(0) != whole)
      throw DimensionMismatch("scatter_stacked: the root's vector has " +
                              std::to_string(stacked_on_root.extent(0)) + " entries, expected " +
                              std::to_string(whole));
    Vector merged("fgdd::mpi::kron_merged", whole), permuted("fgdd::mpi::kron_permuted", whole);
    stacked_to_merged(space, stages, stacked_on_root, merged);
    // A block row's s·b merged values are contiguous: permute with block size b·s.
    permute_vector(space, root_partition_, int(width), merged, permuted);
    merged_p = to_host_vector(permuted);
  });
  std::vector<Offset> starts, ends;
  merged_ranges(*this, stages, starts, ends);
  const Offset mine = num_rows() * Offset(stages);
  const std::vector<Scalar> local = scatter_ranges<Scalar>(
      comm(), comm().is_root() ? merged_p.data() : nullptr, starts, ends, mine);
  return to_device(local, "fgdd::mpi::kron_local");
}

void DistributedKroneckerMatrices::gather_stacked(const ExecSpace& space, int stages,
                                                  ConstVector local, Vector stacked_on_root) const {
  const Offset width = Offset(block_size()) * Offset(stages);
  const Offset whole = Offset(global_num_block_rows()) * width;
  comm().run_collectively([&] {
    if (stages < 1) throw InvalidInput("gather_stacked: stages must be at least 1");
    if (local.extent(0) != num_rows() * Offset(stages))
      throw DimensionMismatch("gather_stacked: the local vector has " +
                              std::to_string(local.extent(0)) + " entries, expected " +
                              std::to_string(num_rows() * Offset(stages)));
    if (comm().is_root() && stacked_on_root.extent(0) != whole)
      throw DimensionMismatch("gather_stacked: the root's vector has " +
                              std::to_string(stacked_on_root.extent(0)) + " entries, expected " +
                              std::to_string(whole));
  });
  std::vector<Offset> starts, ends;
  merged_ranges(*this, stages, starts, ends);
  std::vector<Scalar> merged_p(comm().is_root() ? whole : 0);
  gather_ranges<Scalar>(comm(), to_host_vector(local), comm().is_root() ? merged_p.data() : nullptr,
                        starts, ends);
  if (!comm().is_root()) return;
  Vector merged("fgdd::mpi::kron_merged", whole);
  unpermute_vector(space, root_partition_, int(width),
                   to_device(merged_p, "fgdd::mpi::kron_permuted"), merged);
  merged_to_stacked(space, stages, merged, stacked_on_root);
}

DistributedKroneckerOperator::DistributedKroneckerOperator(
    const DistributedKroneckerMatrices& matrices, const StageCoefficients& coefficients, double tau)
    : matrices_(matrices),
      coefficients_(coefficients),
      device_coefficients_(detail::stage_coefficients_on_device(coefficients, tau)),
      halo_(matrices.comm(), matrices.halo(), matrices.block_size() * coefficients.stages),
      ghosts_("fgdd::mpi::kron_ghosts", matrices.halo().num_ghosts() *
                                             Offset(matrices.block_size()) *
                                             Offset(coefficients.stages)) {
  if (!std::isfinite(tau)) throw InvalidInput("distributed Kronecker operator: tau must be finite");
}

void DistributedKroneckerOperator::apply(const ExecSpace& space, ConstVector x, Vector y) const {
  check_vector_size(*this, x.extent(0), "x");
  check_vector_size(*this, y.extent(0), "y");
  const int b = matrices_.block_size(), s = stages();
  const Ordinal rows = matrices_.M().diagonal().num_block_rows();
  halo_.start_forward(space, x);
  // Overlaps the messages: the rank's own columns.
  detail::kronecker_rows(space, rows, b, s, detail::block_rows(matrices_.M_diagonal()), x,
                         detail::block_rows(matrices_.L_diagonal()), x, device_coefficients_, false,
                         y);
  halo_.finish_forward(ghosts_);
  if (matrices_.halo().num_ghosts() == 0) return;
  // Only the boundary rows have ghost columns.
  detail::kronecker_rows(space, rows, b, s, block_rows(matrices_.M_off_rank()), ghosts_,
                         block_rows(matrices_.L_off_rank()), ghosts_, device_coefficients_, true,
                         y, matrices_.M_off_rank().boundary_rows);
}

std::string DistributedKroneckerOperator::name() const {
  return "distributed kronecker (s=" + std::to_string(stages()) + ")";
}

void DistributedKroneckerOperator::sum_over_ranks(double* values, int count) const {
  matrices_.comm().sum(values, count);
}

double DistributedKroneckerOperator::max_over_ranks(double value) const {
  return matrices_.comm().max(value);
}

int DistributedKroneckerOperator::messages_per_apply() const noexcept {
  const HaloPlan& plan = matrices_.halo();
  int messages = 0;
  for (std::size_t k = 0; k < plan.neighbors.size(); ++k)
    if (plan.send_offsets[k + 1] > plan.send_offsets[k]) ++messages;
  return messages;
}

}  // namespace fgdd
