#include "trilinos/dd_preconditioner.hpp"

#include "core/errors.hpp"

#include <cstdio>
#include <type_traits>

namespace fgdd::trilinos {

namespace {

constexpr const char* parameter_prefix = "fgdd: ";

// A parameter's value as SolverOptions::set reads it.
std::string entry_text(const std::string& name, const Teuchos::ParameterEntry& entry) {
  if (entry.isType<std::string>()) return Teuchos::getValue<std::string>(entry);
  if (entry.isType<int>()) return std::to_string(Teuchos::getValue<int>(entry));
  if (entry.isType<long long>()) return std::to_string(Teuchos::getValue<long long>(entry));
  if (entry.isType<bool>()) return Teuchos::getValue<bool>(entry) ? "true" : "false";
  if (entry.isType<double>()) {
    char text[32];  // %.17g: the same bits read back
    std::snprintf(text, sizeof(text), "%.17g", Teuchos::getValue<double>(entry));
    return text;
  }
  throw InvalidInput("parameter '" + name + "' has a type fgdd cannot read (" +
                     entry.getAny(false).typeName() + "); give a string, int, double or bool");
}

std::string preconditioner_keys() {
  std::string keys;
  for (const std::string& key : SolverOptions::keys())
    if (!SolverOptions::is_krylov_key(key))
      keys += (keys.empty() ? "'" : ", '") + std::string(parameter_prefix) + key + "'";
  return keys;
}

// y = alpha z + beta y; with beta = 0, y's old values (NaN included) are ignored.
template <class Column>
void combine(const ExecSpace& space, const Column& y, ConstVector z, Scalar alpha, Scalar beta) {
  Kokkos::parallel_for(
      "fgdd::trilinos::combine", Kokkos::RangePolicy<ExecSpace>(space, 0, z.extent(0)),
      KOKKOS_LAMBDA(const Offset i) {
        y(i) = beta == 0 ? alpha * z(i) : alpha * z(i) + beta * y(i);
      });
}

}  // namespace

DdPreconditioner::DdPreconditioner(const Teuchos::RCP<const RowMatrix>& A) : A_(A) {}

void DdPreconditioner::setParameters(const Teuchos::ParameterList& params) {
  SolverOptions updated = options_;
  for (auto it = params.begin(); it != params.end(); ++it) {
    const std::string& name = params.name(it);
    const std::string prefix = parameter_prefix;
    if (name.compare(0, prefix.size(), prefix) != 0)
      throw InvalidInput("parameter '" + name + "' is not one of fgdd's: " + preconditioner_keys());
    const std::string key = name.substr(prefix.size());
    if (SolverOptions::is_krylov_key(key))
      throw InvalidInput("parameter '" + name +
                         "' sets the Krylov method or its stopping rule, which Belos runs; set it "
                         "in Belos's parameter list");
    updated.set(key, entry_text(name, params.entry(it)));
  }
  updated.validate();
  options_ = updated;
}

void DdPreconditioner::initialize() {
  if (A_.is_null())
    throw InvalidInput("fgdd::trilinos::DdPreconditioner: initialize without a matrix");
  Kokkos::Timer timer;
  initialized_ = computed_ = factored_ = false;
  solver_.reset();
  block_ = local_diagonal_block(*A_);
  solver_ = std::make_unique<Solver>(options_);
  initialized_ = true;
  ++num_initialize_;
  initialize_seconds_ += timer.seconds();
}

void DdPreconditioner::compute() {
  if (!initialized_)
    throw InvalidInput("fgdd::trilinos::DdPreconditioner: compute before initialize");
  Kokkos::Timer timer;
  const ExecSpace space;
  computed_ = false;
  block_ = local_diagonal_block(*A_);  // the current values; no copy when shared
  if (factored_) {
    solver_->update_values(space, block_.matrix);
  } else {
    solver_->setup(space, block_.matrix);
    factored_ = true;
  }
  const Offset n = block_.matrix.num_rows();
  if (z_.extent(0) != n) {
    r_ = Vector(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::trilinos::r"), n);
    z_ = Vector(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::trilinos::z"), n);
  }
  space.fence();
  computed_ = true;
  ++num_compute_;
  compute_seconds_ += timer.seconds();
}

bool DdPreconditioner::hasTransposeApply() const {
  // The options of the solver set up, if any: setParameters takes effect at initialize().
  const SolverOptions& options = solver_ ? solver_->options() : options_;
  return preconditioner_names.has(options.preconditioner, transpose_apply);
}

void DdPreconditioner::apply(const MultiVector& X, MultiVector& Y, Teuchos::ETransp mode,
                             Scalar alpha, Scalar beta) const {
  if (!computed_) throw InvalidInput("fgdd::trilinos::DdPreconditioner: apply before compute");
  const Offset n = block_.matrix.num_rows();
  if (X.getNumVectors() != Y.getNumVectors() || X.getLocalLength() != n || Y.getLocalLength() != n)
    throw DimensionMismatch(
        "fgdd::trilinos::DdPreconditioner::apply: X has " + std::to_string(X.getLocalLength()) +
        " rows and " + std::to_string(X.getNumVectors()) + " columns, Y " +
        std::to_string(Y.getLocalLength()) + " and " + std::to_string(Y.getNumVectors()) +
        ", on a block of " + std::to_string(n) + " rows");
  Kokkos::Timer timer;
  const ExecSpace space;
  const bool transposed = mode != Teuchos::NO_TRANS;
  for (std::size_t j = 0; j < X.getNumVectors(); ++j) {
    // Column by column through Vector views: right for MultiVectors of any column stride.
    const auto x_j = X.getVector(j);
    const auto y_j = Y.getVectorNonConst(j);
    const auto x =
        Kokkos::subview(x_j->getLocalViewDevice(Tpetra::Access::ReadOnly), Kokkos::ALL(), 0);
    using TpetraSpace = typename decltype(x)::memory_space;
    // Tpetra's vectors are read in place when they live where fgdd's do (its node is the
    // default one); otherwise they are copied.
    if constexpr (std::is_same_v<TpetraSpace, MemSpace>) {
      solver_->apply_preconditioner(space, ConstVector(x), z_, transposed);
    } else {
      Kokkos::deep_copy(space, r_, x);
      solver_->apply_preconditioner(space, r_, z_, transposed);
    }
    const auto y =
        Kokkos::subview(y_j->getLocalViewDevice(Tpetra::Access::ReadWrite), Kokkos::ALL(), 0);
    if constexpr (std::is_same_v<TpetraSpace, MemSpace>) {
      combine(space, y, z_, alpha, beta);
    } else {
      Kokkos::deep_copy(space, r_, y);
      combine(space, r_, z_, alpha, beta);
      Kokkos::deep_copy(space, y, r_);
    }
  }
  space.fence();
  ++num_apply_;
  apply_seconds_ += timer.seconds();
}

void DdPreconditioner::setMatrix(const Teuchos::RCP<const RowMatrix>& A) {
  A_ = A;
  initialized_ = computed_ = factored_ = false;
  solver_.reset();
  block_ = LocalBlock{};
}

const PartitionReport& DdPreconditioner::partition_report() const {
  if (!solver_)
    throw InvalidInput("fgdd::trilinos::DdPreconditioner: partition_report before compute");
  return solver_->partition_report();
}

std::string DdPreconditioner::description() const {
  std::string text =
      std::string("fgdd::trilinos::DdPreconditioner: ") + to_string(options_.preconditioner);
  if (computed_) {
    const PartitionReport& report = solver_->partition_report();
    text += ", " + std::to_string(report.num_subdomains) + " subdomains (" +
            to_string(report.partitioner) + ") on a local block of " +
            std::to_string(block_.matrix.num_rows()) + " rows (" + to_string(block_.source) + ", " +
            std::to_string(block_.dropped_entries) + " off-rank entries dropped)";
  } else {
    text += initialized_ ? ", initialized" : ", not initialized";
  }
  return text;
}

}  // namespace fgdd::trilinos
