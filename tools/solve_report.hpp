// The end-of-run summary of fgdd-solve, printed for people and written as JSON for scripts.
#pragma once

#include "factor/subdomain_ilu0.hpp"
#include "krylov/preconditioner.hpp"
#include "krylov/solve_result.hpp"
#include "multilevel/multilevel_ilu.hpp"
#include "partition/partition_matrix.hpp"
#include "solver/solver_options.hpp"

#include <cstddef>
#include <ostream>
#include <string>

namespace fgdd::cli {

struct SolveReport {
  std::string matrix;
  std::string backend;
  int ranks = 1;  // MPI ranks the solve ran on
  std::string solver;
  std::string precond;
  std::string stopping;  // describe_stopping: the iteration limit, stagnation and divergence
  std::size_t rows = 0;
  std::size_t entries = 0;
  int block_size = 1;
  double load_seconds = 0;   // reading or generating A
  double setup_seconds = 0;  // preconditioner setup
  PartitionReport partition;
  // The factorization's pivot report (shifts), when the preconditioner factors anything.
  bool has_factor_report = false;
  FactorReport factor;
  // The DD preconditioner's level sets, when its apply kernel walks them (GPUs by default):
  // the most a subdomain has in each triangle (the apply's chain), their mean over the
  // subdomains, and the mean entries a level lists.
  bool has_dd_levels = false;
  Ordinal lower_levels_max = 0, upper_levels_max = 0;
  double lower_levels_mean = 0, upper_levels_mean = 0, level_entries_mean = 0;
  // The multilevel ILU's levels, for --precond multilevel-ilu.
  bool has_multilevel_report = false;
  MultilevelReport multilevel;
  SolveResult result;
  // --refactor-solves: the solves after update_values (result stays the first solve's).
  int refactor_solves = 0;
  double refactor_seconds = 0;        // the fastest Solver::update_values
  double resolve_seconds = 0;         // the fastest of those solves
  int resolve_iterations_min = 0, resolve_iterations_max = 0;
  int resolves_converged = 0;
};

// A report with the backend, the method, the preconditioner and the stopping rules of options.
SolveReport start_report(const SolverOptions& options);

// The preconditioner's name and, when it factors anything, its pivot report (shifts); the DD
// preconditioner's level sets when they were built (none are built here); the multilevel ILU's
// per-level report.
void describe_preconditioner(SolveReport& report, const Preconditioner& M);

void print_summary(std::ostream& out, const SolveReport& report);

// Writes through OutputFile: the whole report or, on any failure, the old file untouched.
// Throws FileError.
void write_json(const std::string& path, const SolveReport& report);

}  // namespace fgdd::cli
