#include "solver/solver.hpp"

#include "core/errors.hpp"
#include "core/matrix_build.hpp"
#include "solver/problem_checks.hpp"
#include "solver/solver_steps.hpp"

namespace fgdd {

namespace {

// What a solve allocates, for the message when it cannot.
std::string solve_memory_text(KrylovMethod method, const KrylovOptions& krylov, Offset rows) {
  const double gib = double(detail::krylov_bytes(method, krylov, rows)) / (1 << 30);
  return std::string(to_string(method)) + " solve of " + std::to_string(rows) + " rows (about " +
         std::to_string(gib) + " GiB of vectors" +
         (method_names.has(method, keeps_basis)
              ? ", restart " + std::to_string(krylov.restart) + " basis vectors included"
              : std::string()) +
         ")";
}

}  // namespace

Solver::Solver(SolverOptions options) : options_(std::move(options)) { options_.validate(); }

void Solver::setup(const ExecSpace& space, const SparseMatrix& A, const GridInfo& grid) {
  setup(space, A, grid, Coordinates());
}

void Solver::setup(const ExecSpace& space, const SparseMatrix& A, const Coordinates& coordinates) {
  setup(space, A, GridInfo{}, coordinates);
}

void Solver::setup(const ExecSpace& space, const SparseMatrix& A, const GridInfo& grid,
                   const Coordinates& coordinates) {
  Kokkos::Timer timer;
  preconditioner_.reset();
  partitioned_.reset();
  detail::check_options_for_problem(options_, A.num_rows());
  detail::with_memory_named("setup of " + std::to_string(A.num_rows()) + " rows", [&] {
    const PartitionOptions partition = detail::partition_options_for(options_);
    partitioned_ = std::make_unique<PartitionedMatrix>(partition_matrix(
        space, A, grid, coordinates, partition, detail::dropped_values_for(options_)));
    if (partition.partitioner != options_.partition.partitioner)
      partitioned_->report.reason = "auto: the global factorization keeps the caller's order";
    // The partition stays (and its report readable) if the factorization throws; solve and
    // update_values then refuse until a setup completes.
    const ReorderedSystem& system = partitioned_->system;
    preconditioner_ =
        detail::make_preconditioner(space, options_, system.permuted, system.dropped,
                                    partitioned_->partition, grid, system.dropped_runs());
    b_p_ = workspace_.vector("fgdd::solver::b_p", A.num_rows());
    x_p_ = workspace_.vector("fgdd::solver::x_p", A.num_rows());
  });
  space.fence();
  setup_seconds_ = timer.seconds();
}

void Solver::update_values(const ExecSpace& space, const SparseMatrix& A) {
  if (!preconditioner_) throw InvalidInput("update_values before setup completed");
  Kokkos::Timer timer;
  ReorderedSystem& system = partitioned_->system;
  fgdd::update_values(space, A, system);
  preconditioner_->update_values(space, system.permuted, system.dropped);
  space.fence();
  update_seconds_ = timer.seconds();
}

SolveResult Solver::solve(const ExecSpace& space, ConstVector b, Vector x) {
  if (!preconditioner_) throw InvalidInput("solve before setup completed");
  const SparseMatrix& A_p = partitioned_->system.permuted;
  check_vector_size(A_p, b.extent(0), "b");
  check_vector_size(A_p, x.extent(0), "x");
  const Partition& partition = partitioned_->partition;
  const int block_size = A_p.block_size();
  // In the caller's order the method works on b and x themselves, unless they are one array:
  // the same arithmetic without the copies in and out.
  const bool in_place = partitioned_->system.keeps_callers_order() && b.data() != x.data();
  if (!in_place) {
    permute_vector(space, partition, block_size, b, b_p_);
    permute_vector(space, partition, block_size, x, x_p_);
  }
  const ConstVector b_used = in_place ? b : ConstVector(b_p_);
  const Vector x_used = in_place ? x : x_p_;
  const MatrixOperator A_op(A_p);
  const Preconditioner& M = *preconditioner_;
  const Offset n = A_p.num_rows();
  const KrylovOptions krylov = detail::krylov_for_problem(options_.krylov, n);
  SolveResult result;
  detail::with_memory_named(solve_memory_text(options_.method, krylov, n), [&] {
    result = solve_with(options_.method, space, A_op, M, b_used, x_used, krylov, &workspace_);
  });
  if (!in_place) unpermute_vector(space, partition, block_size, x_p_, x);
  return result;
}

void Solver::apply_preconditioner(const ExecSpace& space, ConstVector r, Vector z,
                                  bool transposed) {
  const Preconditioner& M = preconditioner();
  const SparseMatrix& A_p = partitioned_->system.permuted;
  check_vector_size(A_p, r.extent(0), "r");
  check_vector_size(A_p, z.extent(0), "z");
  if (transposed && !M.has_transpose())
    throw InvalidInput("the preconditioner " + M.name() + " has no transpose apply");
  // Pᵀ M_p⁻¹ P (or Pᵀ M_p⁻ᵀ P): the caller's vectors through the permuted preconditioner.
  const Partition& partition = partitioned_->partition;
  const int block_size = A_p.block_size();
  permute_vector(space, partition, block_size, r, b_p_);
  if (transposed)
    M.apply_transpose(space, b_p_, x_p_);
  else
    M.apply(space, b_p_, x_p_);
  unpermute_vector(space, partition, block_size, x_p_, z);
}

const PartitionReport& Solver::partition_report() const {
  if (!partitioned_) throw InvalidInput("partition_report before setup");
  return partitioned_->report;
}

const Preconditioner& Solver::preconditioner() const {
  if (!preconditioner_) throw InvalidInput("preconditioner before setup");
  return *preconditioner_;
}

}  // namespace fgdd
