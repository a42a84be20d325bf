#include "mpi/distributed_solver.hpp"

#include "core/errors.hpp"
#include "mpi/mpi_transfer.hpp"
#include "partition/reorder.hpp"
#include "solver/problem_checks.hpp"
#include "solver/solver_steps.hpp"

#include <string>

namespace fgdd {
namespace {

// The ranks' partitions of their own rows as one report (the partitioner is the same on all).
PartitionReport all_ranks_partition(const Communicator& comm, PartitionReport mine) {
  double sums[3] = {double(mine.num_subdomains), double(mine.entries),
                    double(mine.entries_after_drop)};
  comm.sum(sums, 3);
  PartitionReport all = mine;
  all.num_subdomains = Ordinal(sums[0]);
  all.entries = Offset(sums[1]);
  all.entries_after_drop = Offset(sums[2]);
  all.dropped_fraction = all.entries > 0 ? 1 - sums[2] / sums[1] : 0;
  all.min_rows = Offset(-comm.max(-double(mine.min_rows)));
  all.max_rows = Offset(comm.max(double(mine.max_rows)));
  double rows = mine.average_rows * mine.num_subdomains;
  comm.sum(&rows, 1);
  all.average_rows = all.num_subdomains > 0 ? rows / all.num_subdomains : 0;
  all.partition_seconds = comm.max(mine.partition_seconds);
  all.reorder_seconds = comm.max(mine.reorder_seconds);
  return all;
}

}  // namespace

DistributedSolver::DistributedSolver(const Communicator& comm, SolverOptions options)
    : comm_(comm), options_(std::move(options)) {
  options_.validate();
  if (options_.preconditioner == PreconditionerKind::StructIlu0 ||
      options_.preconditioner == PreconditionerKind::StructIc0)
    throw InvalidInput(std::string("preconditioner ") + to_string(options_.preconditioner) +
                       " is not available over MPI: it factors the whole grid exactly, not "
                       "per rank; use ilu0/ildu0 (the exact ILU of each rank's rows) or a DD "
                       "preconditioner");
}

void DistributedSolver::setup(const ExecSpace& space, const SparseMatrix* A_on_root,
                              const GridInfo& grid) {
  Kokkos::Timer timer;
  clear_setup();
  comm_.require_same_on_all_ranks(options_.key_values(), "solver options");
  comm_.run_collectively([&] {
    if (!comm_.is_root()) return;
    if (!A_on_root) throw InvalidInput("the root rank passed no matrix to DistributedSolver");
    // Renumbering inside subdomains (the row order) keeps every rank's range of subdomains.
    whole_ = std::make_unique<PartitionedMatrix>(partition_matrix(
        space, *A_on_root, grid, Coordinates(),
        per_rank_partition(partition_options(), *A_on_root, comm_.size())));
    report_ = whole_->report;
    space.fence();
    steps_.root_partition = timer.seconds();
  });
  matrix_ = std::make_unique<DistributedMatrix>(space, comm_, whole_.get());
  finish_setup(space, timer);
}

void DistributedSolver::setup(const ExecSpace& space, const LocalRows& mine,
                              const GridInfo& local_grid) {
  Kokkos::Timer timer;
  clear_setup();
  comm_.require_same_on_all_ranks(options_.key_values(), "solver options");
  matrix_ =
      std::make_unique<DistributedMatrix>(space, comm_, mine, local_grid, partition_options());
  report_ = all_ranks_partition(comm_, matrix_->local_report());
  finish_setup(space, timer);
}

PartitionOptions DistributedSolver::partition_options() const {
  PartitionOptions partition = options_.partition;
  partition.row_order = detail::resolved_row_order(options_);
  return partition;
}

void DistributedSolver::clear_setup() {
  preconditioner_.reset();
  operator_.reset();
  matrix_.reset();
  whole_.reset();
  report_ = PartitionReport{};
  steps_ = SetupSteps{};
  rows_b_ = Vector();
  rows_x_ = Vector();
}

void DistributedSolver::finish_setup(const ExecSpace& space, const Kokkos::Timer& timer) {
  const Offset rows = Offset(matrix_->global_num_block_rows()) * matrix_->block_size();
  Kokkos::Timer step;
  comm_.run_collectively([&] {
    detail::check_options_for_problem(options_, rows);
    preconditioner_ = detail::make_preconditioner(space, options_, matrix_->diagonal(),
                                                  matrix_->dropped(), matrix_->partition());
    space.fence();
    steps_.preconditioner = step.seconds();
    // The solve allocates on each rank alone; a rank failing there would leave the others
    // waiting in a reduction, so each checks now that its share can be had.
    const KrylovOptions krylov = detail::krylov_for_problem(options_.krylov, rows);
    detail::require_allocatable(detail::krylov_bytes(options_.method, krylov, matrix_->num_rows()),
                                std::string(to_string(options_.method)) + " work vectors of " +
                                    std::to_string(matrix_->num_rows()) + " rows on rank " +
                                    std::to_string(comm_.rank()) +
                                    (method_names.has(options_.method, keeps_basis)
                                         ? " (restart " + std::to_string(krylov.restart) + ")"
                                         : std::string()));
  });
  step.reset();
  operator_ = std::make_unique<DistributedOperator>(*matrix_);
  space.fence();
  steps_.operator_setup = step.seconds();
  setup_seconds_ = comm_.max(timer.seconds());
}

void DistributedSolver::update_values(const ExecSpace& space, const SparseMatrix* A_on_root) {
  Kokkos::Timer timer;
  comm_.run_collectively([&] {
    if (!preconditioner_) throw InvalidInput("update_values before setup completed");
    if (!whole_on_root_setup())
      throw InvalidInput(
          "update_values: the solver was set up from each rank's LocalRows; "
          "pass new LocalRows");
    if (!comm_.is_root()) return;
    if (!A_on_root) throw InvalidInput("the root rank passed no matrix to update_values");
    fgdd::update_values(space, *A_on_root, whole_->system);
  });
  matrix_->update_values(space, whole_.get());
  finish_update(space, timer);
}

void DistributedSolver::update_values(const ExecSpace& space, const LocalRows& mine) {
  Kokkos::Timer timer;
  comm_.run_collectively([&] {
    if (!preconditioner_) throw InvalidInput("update_values before setup completed");
  });
  matrix_->update_values(space, mine);
  finish_update(space, timer);
}

void DistributedSolver::finish_update(const ExecSpace& space, const Kokkos::Timer& timer) {
  comm_.run_collectively(
      [&] { preconditioner_->update_values(space, matrix_->diagonal(), matrix_->dropped()); });
  space.fence();
  update_seconds_ = comm_.max(timer.seconds());
}

bool DistributedSolver::whole_on_root_setup() const {
  return !matrix_ || !matrix_->from_local_rows();
}

SolveResult DistributedSolver::solve_rows(const ExecSpace& space, ConstVector b_mine,
                                          Vector x_mine) {
  const int block_size = matrix().block_size();
  const Offset n = matrix().num_rows();
  comm_.run_collectively([&] {
    if (whole_on_root_setup())
      throw InvalidInput("solve_rows needs the LocalRows setup; after the root's, use solve");
    if (b_mine.extent(0) != n || x_mine.extent(0) != n)
      throw DimensionMismatch("b and x have " + std::to_string(b_mine.extent(0)) + " and " +
                              std::to_string(x_mine.extent(0)) + " entries, this rank's rows " +
                              std::to_string(n));
  });
  const Partition& order = matrix_->local_order();
  if (rows_b_.extent(0) != n) {  // once per setup: repeated solves reuse them
    rows_b_ = Vector("fgdd::mpi::b", n);
    rows_x_ = Vector("fgdd::mpi::x", n);
  }
  permute_vector(space, order, block_size, b_mine, rows_b_);
  permute_vector(space, order, block_size, x_mine, rows_x_);
  const SolveResult result = solve_local(space, rows_b_, rows_x_);
  unpermute_vector(space, order, block_size, rows_x_, x_mine);
  return result;
}

SolveResult DistributedSolver::solve_local(const ExecSpace& space, ConstVector b_local,
                                           Vector x_local) {
  comm_.run_collectively([&] {
    if (!preconditioner_) throw InvalidInput("solve before setup completed");
    check_vector_size(*operator_, b_local.extent(0), "b");
    check_vector_size(*operator_, x_local.extent(0), "x");
  });
  const Offset rows = Offset(matrix().global_num_block_rows()) * matrix().block_size();
  return solve_with(options_.method, space, *operator_, *preconditioner_, b_local, x_local,
                    detail::krylov_for_problem(options_.krylov, rows), &workspace_);
}

SolveResult DistributedSolver::solve(const ExecSpace& space, ConstVector b, Vector x) {
  const int block_size = matrix().block_size();
  const Offset global_rows = Offset(matrix().global_num_block_rows()) * block_size;
  std::vector<Scalar> b_p, x_p;  // the root's whole vectors in A_p's ordering
  comm_.run_collectively([&] {
    if (!whole_on_root_setup())
      throw InvalidInput(
          "solve takes the root's whole vectors after the root's setup; after "
          "the LocalRows setup, use solve_rows");
    if (!comm_.is_root()) return;
    if (b.extent(0) != global_rows || x.extent(0) != global_rows)
      throw DimensionMismatch("b and x have " + std::to_string(b.extent(0)) + " and " +
                              std::to_string(x.extent(0)) + " entries, the matrix " +
                              std::to_string(global_rows) + " rows");
    Vector permuted("fgdd::mpi::permuted", global_rows);
    permute_vector(space, whole_->partition, block_size, b, permuted);
    b_p = to_host_vector(permuted);
    permute_vector(space, whole_->partition, block_size, x, permuted);
    x_p = to_host_vector(permuted);
  });
  const auto& offsets = matrix().distribution().block_row_offsets;
  std::vector<Offset> starts, ends;
  for (int r = 0; r < comm_.size(); ++r) {
    starts.push_back(Offset(offsets[r]) * block_size);
    ends.push_back(Offset(offsets[r + 1]) * block_size);
  }
  const Offset n = matrix().num_rows();
  const bool root = comm_.is_root();
  const Vector b_local = to_device(
      scatter_ranges<Scalar>(comm_, root ? b_p.data() : nullptr, starts, ends, n), "fgdd::mpi::b");
  const Vector x_local = to_device(
      scatter_ranges<Scalar>(comm_, root ? x_p.data() : nullptr, starts, ends, n), "fgdd::mpi::x");
  const SolveResult result = solve_local(space, b_local, x_local);
  gather_ranges<Scalar>(comm_, to_host_vector(x_local), root ? x_p.data() : nullptr, starts, ends);
  if (root)
    unpermute_vector(space, whole_->partition, block_size, to_device(x_p, "fgdd::mpi::permuted"),
                     x);
  return result;
}

const DistributedMatrix& DistributedSolver::matrix() const {
  if (!matrix_) throw InvalidInput("DistributedSolver used before setup");
  return *matrix_;
}

const Preconditioner& DistributedSolver::preconditioner() const {
  if (!preconditioner_) throw InvalidInput("preconditioner before setup");
  return *preconditioner_;
}

}  // namespace fgdd
