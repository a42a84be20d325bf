#include "solver/problem_checks.hpp"

#include "core/errors.hpp"

namespace fgdd::detail {

void check_options_for_problem(const SolverOptions& options, Offset rows) {
  const int restart = options.krylov.restart;
  if (method_names.has(options.method, keeps_basis) && Offset(restart) > rows &&
      restart != KrylovOptions{}.restart)
    throw InvalidInput("restart " + std::to_string(restart) + " exceeds the " +
                       std::to_string(rows) +
                       " rows of the matrix (a GMRES cycle holds at most one basis vector per "
                       "row; allowed: 1 to " +
                       std::to_string(rows) + ")");
}

KrylovOptions krylov_for_problem(const KrylovOptions& options, Offset rows) {
  KrylovOptions clamped = options;
  if (Offset(clamped.restart) > rows) clamped.restart = int(rows > 0 ? rows : 1);
  return clamped;
}

std::size_t krylov_bytes(KrylovMethod method, const KrylovOptions& options, Offset local_rows) {
  // Work vectors: a dozen at most for any method; those that keep a basis add restart + 1.
  std::size_t vectors = 12;
  if (method_names.has(method, keeps_basis)) vectors += std::size_t(options.restart) + 1;
  return vectors * std::size_t(local_rows) * sizeof(Scalar);
}

void require_allocatable(std::size_t bytes, const std::string& what) {
  with_memory_named(what, [&] {
    const Kokkos::View<char*, DeviceType> probe(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::solver::memory_probe"), bytes);
  });
}

void with_memory_named(const std::string& what, const std::function<void()>& step) {
  try {
    step();
  } catch (const Error&) {
    throw;
  } catch (const std::exception& failure) {
    if (!is_allocation_failure(failure)) throw;
    throw OutOfMemory(what + ": " + failure.what());
  }
}

}  // namespace fgdd::detail
