// The options checked against the problem and the backend once the matrix is known (what
// SolverOptions::validate cannot see), and allocation failures turned into typed errors:
// shared by Solver and DistributedSolver, so that no option makes the process abort.
#pragma once

#include "core/types.hpp"
#include "solver/solver_options.hpp"

#include <cstddef>
#include <functional>
#include <string>

namespace fgdd::detail {

// Throws InvalidInput naming the option and its allowed range. rows: the scalar rows of the
// whole problem (over all ranks). GMRES: restart at most rows (a cycle never holds more basis
// vectors); the default restart is clamped instead (krylov_for_problem), so small problems need
// no option.
void check_options_for_problem(const SolverOptions& options, Offset rows);

// The Krylov options a solve of `rows` rows runs with: GMRES restart at most rows.
KrylovOptions krylov_for_problem(const KrylovOptions& options, Offset rows);

// Bytes the Krylov method allocates for local_rows rows, GMRES' basis included (the one
// allocation an option can make arbitrarily large).
std::size_t krylov_bytes(KrylovMethod method, const KrylovOptions& options, Offset local_rows);

// Throws OutOfMemory (naming what) when `bytes` of device memory cannot be allocated now: it
// allocates them and frees them at once. For collective callers that must learn of a failure
// before the ranks part.
void require_allocatable(std::size_t bytes, const std::string& what);

// Runs step; an allocation failure in it (is_allocation_failure: std::bad_alloc, Kokkos'
// failures) is rethrown as OutOfMemory naming what.
void with_memory_named(const std::string& what, const std::function<void()>& step);

}  // namespace fgdd::detail
