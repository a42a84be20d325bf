#include "solve_options.hpp"

#include "core/errors.hpp"
#include "core/generators.hpp"

#include <algorithm>
#include <charconv>

namespace fgdd::cli {

namespace {

// Command-line options that are solver options, and the SolverOptions key each one sets.
const std::vector<std::pair<std::string, std::string>> solver_flags = {
    {"--solver", "method"},
    {"--precond", "preconditioner"},
    {"--partitioner", "partitioner"},
    {"--subdomain-rows", "subdomain_rows"},
    {"--subdomain-order", "subdomain_order"},
    {"--apply", "apply"},
    {"--fill", "fill"},
    {"--shift", "shift"},
    {"--shift-amount", "shift_amount"},
    {"--team-size", "team_size"},
    {"--factor-precision", "factor_precision"},
    {"--tol", "tol"},
    {"--abs-tol", "abs_tol"},
    {"--max-iters", "max_iters"},
    {"--restart", "restart"},
    {"--ortho", "ortho"},
    {"--stagnation", "stagnation"},
    {"--divergence", "divergence"},
    {"--global-kernel", "global_kernel"},
    {"--struct-schedule", "struct_schedule"},
    {"--struct-layout", "struct_layout"},
    {"--struct-factor-lanes", "struct_factor_lanes"},
    {"--struct-factor-threads", "struct_factor_threads"},
    {"--trsv", "trsv"},
    {"--jacobi-sweeps", "jacobi_sweeps"},
    {"--jacobi-iters", "jacobi_iters"},
    {"--overlap", "overlap"},
    {"--jacobi-block-rows", "jacobi_block_rows"},
    {"--ml-drop-tol", "multilevel_drop_tol"},
    {"--ml-inverse-bound", "multilevel_inverse_bound"},
    {"--ml-coarsest", "multilevel_coarsest"},
    {"--ml-max-levels", "multilevel_max_levels"},
    {"--ml-ordering", "multilevel_ordering"},
    {"--ml-couplings", "multilevel_couplings"}};

// An option's whole-number value of at least least; what names it in the error.
int parse_whole_number(const std::string& option, const std::string& text, int least,
                       const std::string& what) {
  int value = least - 1;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < least)
    throw UsageError(option + ": '" + text + "' is not " + what + " (a whole number from " +
                     std::to_string(least) + ")");
  return value;
}

// A generated problem has its block size built in: --block-size may only restate it.
void check_generator_block_size(const SolveCommand& command) {
  if (!command.block_size || !is_generator_spec(command.matrix)) return;
  int own = 0;
  try {
    own = generated_block_size(command.matrix);
  } catch (const fgdd::Error& error) {
    throw UsageError(error.what());
  }
  if (*command.block_size != own)
    throw UsageError("--block-size " + std::to_string(*command.block_size) + " does not apply to " +
                     command.matrix + ": a generated problem has its own block size (" +
                     std::to_string(own) + "); --block-size is for Matrix Market files");
}

}  // namespace

SolveCommand parse_solve_command(const std::vector<std::string>& args) {
  SolveCommand command;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& option = args[i];
    const auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw UsageError(option + " needs a value");
      return args[++i];
    };
    const auto flag = std::find_if(solver_flags.begin(), solver_flags.end(),
                                   [&](const auto& f) { return f.first == option; });
    if (flag != solver_flags.end()) {
      try {
        command.options.set(flag->second, value());
      } catch (const fgdd::Error& error) {
        throw UsageError(option + ": " + error.what());
      }
      if (option == "--subdomain-rows" && command.options.partition.subdomain_rows == 0)
        throw UsageError("--subdomain-rows must be at least 1 (omit it for the default)");
    } else if (option == "--help" || option == "-h")
      command.help = true;
    else if (option == "--version")
      command.version = true;
    else if (option == "--monitor")
      command.monitor = true;
    else if (option == "--refactor-solves")
      command.refactor_solves = parse_whole_number("--refactor-solves", value(), 0, "a count");
    else if (option == "--read-per-rank")
      command.read_per_rank = true;
    else if (option == "--shift-pivots")
      command.options.dd.factor.shift_tiny_pivots = true;
    else if (option == "--matrix")
      command.matrix = value();
    else if (option == "--rhs")
      command.rhs = value();
    else if (option == "--block-size")
      command.block_size = parse_whole_number("--block-size", value(), 1, "a block size");
    else if (option == "--coordinates")
      command.coordinates = value();
    else if (option == "--write-solution")
      command.write_solution = value();
    else if (option == "--write-unconverged")
      command.write_unconverged = true;
    else if (option == "--json")
      command.json = value();
    else
      throw UsageError("unknown argument '" + option + "' (see --help)");
  }
  if (command.help || command.version) return command;
  if (command.matrix.empty()) throw UsageError("--matrix FILE.mtx|gen:SPEC is required");
  if (command.write_unconverged && command.write_solution.empty())
    throw UsageError("--write-unconverged needs --write-solution FILE.mtx");
  check_generator_block_size(command);
  try {
    command.options.validate();
  } catch (const std::exception& error) {
    throw UsageError(error.what());
  }
  return command;
}

std::vector<std::string> canonical_items(const SolveCommand& command) {
  std::vector<std::string> items = command.options.key_values();
  const auto flag = [](bool on) { return on ? "true" : "false"; };
  for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
           {"matrix", command.matrix},
           {"rhs", command.rhs},
           {"block_size", command.block_size ? std::to_string(*command.block_size) : ""},
           {"coordinates", command.coordinates},
           {"write_solution", command.write_solution},
           {"write_unconverged", flag(command.write_unconverged)},
           {"json", command.json},
           {"monitor", flag(command.monitor)},
           {"refactor_solves", std::to_string(command.refactor_solves)},
           {"read_per_rank", flag(command.read_per_rank)},
           {"help", flag(command.help)},
           {"version", flag(command.version)}})
    items.push_back(key + "=" + value);
  return items;
}

namespace {

// The usage text with {table} placeholders; solve_usage fills them from the stages' name tables.
const char* usage_template() {
  return R"(usage: fgdd-solve --matrix FILE.mtx|gen:SPEC [options]

Solves A x = b with a preconditioned Krylov method on the Kokkos default execution space.

  --matrix FILE.mtx|gen:SPEC  Matrix Market file, or a generated problem:
                              gen:lap7:N[:NY:NZ]  gen:lap27:N[:NY:NZ]  gen:convdiff:N[:peP]
                              gen:reservoir[:NX:NY:NZ]  gen:bsr3:N
  --block-size B              read FILE.mtx as BSR with BxB blocks (3 for 3-D elasticity or
                              three-phase reservoir unknowns numbered point by point); the
                              pattern must be B-blocked: rows a multiple of B, every block
                              holding an entry stored in full (explicit zeros count), else
                              the first block row that is not is named; --rhs stays a vector
                              of all rows; gen:SPEC takes only its own block size; default 1
  --partitioner {partitioner}
                              subdomains (auto: geometric for generated grids, else rcb with
                              --coordinates, else multilevel on GPUs; on CPUs RCM slabs for
                              2-4 subdomains, else METIS (multilevel without METIS); for
                              ilu0/ildu0 natural: they factor
                              in the file's order); default auto
  --coordinates FILE.mtx      a point per block row of the matrix (Matrix Market array, rows
                              x 1..3 columns, real): recursive coordinate bisection on the
                              device (--partitioner rcb, and auto's choice without a grid);
                              not under mpirun
  --subdomain-rows N          rows per subdomain at most; default: 1,500 on GPUs (a matrix
                              too small for 4 subdomains per SM at that size: its rows split
                              into that many, at least 256 each), the rows split evenly over
                              the threads on CPU backends (one subdomain per thread; Serial:
                              the exact ILU(0) of the whole matrix)
  --subdomain-order {subdomain_order}
                              order of the rows inside each subdomain of the DD
                              preconditioners: the partitioner's, by level in the
                              subdomain's lower triangle (a level's rows consecutive in
                              memory), by colour (few levels, weaker factors: more
                              iterations), or reverse Cuthill-McKee of the subdomain
                              (consecutive rows independent: faster CPU sweeps on grid
                              orders); default auto: by level where the
                              factorization runs by levels (GPUs), else rcm inside
                              geometric and rcb parts (2 or more), else the
                              partitioner's
  --rhs FILE.mtx              right-hand side (Matrix Market array); default all ones
  --solver {method}
                              Krylov method; default bicgstab (cg: SPD A with ic0-dd or
                              jacobi; bicg: needs a transpose apply, not the global ILU)
  --restart M                 GMRES restart length; default 30
  --ortho {ortho}             GMRES orthogonalization on the device; default cgs2
  --precond {preconditioner}
                              preconditioner; default ildu0-dd: ILDU0 of the subdomains'
                              diagonal blocks, one GPU team per subdomain (ilu0-dd: the same
                              M scaled as ILU0; ic0-dd: L D Lᵀ for symmetric matrices, half
                              the factorization work; ilu0/ildu0: exact global ILU0, nothing
                              dropped, applied level by level on GPUs (fewer iterations,
                              slower applies), rows in order on CPUs; struct-ilu0/struct-ic0:
                              the same exact ILU(0) / IC(0) for generated grids, levels known
                              from the stencil; multilevel-ilu: ILUPACK's inverse-based
                              multilevel ILU (set up on the host, applied on the device), for
                              systems where ILU(0) stagnates; jacobi: block Jacobi for BSR)
  --apply {apply}
                              kernel applying ildu0-dd / ilu0-dd; default auto
                              (auto: dag_ec_ordered_ILDU0_fused on GPUs, row_order_ILDU0_fused
                              on CPUs, both bitwise reproducible run to run;
                              dag_ec_ILDU0_fused and dag_ec_ILD_U0 add with atomics and are not)
  --global-kernel {global_kernel}
                              how ilu0/ildu0 sweep their triangles: level by level (a row per
                              thread or per vector of lanes; merged: runs of small levels in one
                              team's launch, the same bits as thread), synchronization-free, or
                              row_order (one thread, rows in order: the serial substitution);
                              default auto: row_order on CPUs, merged or lanes on GPUs
  --struct-schedule {struct_schedule}
                              how struct-ilu0/struct-ic0 walk their wavefronts: a launch per
                              level, or one launch whose teams wait on a counter of finished
                              levels, on flags of the points they read, or (tiles) a team per
                              tile of grid columns waiting on its neighbour tiles; default
                              auto: tiles on GPUs, levels on CPUs (and for stencils that
                              have no tile mapping)
  --struct-layout {struct_layout}
                              where the tiles schedule keeps factors and vectors: level-based
                              layout (coalesced loads; auto, measured faster on the H100) or
                              grid order
  --struct-factor-lanes N     vector lanes per point in the struct-ilu0/struct-ic0
                              factorization: 0 (default: chosen from the stencil and DoF) or a
                              power of two up to 32; any gives the same factors
  --struct-factor-threads N   points per team when that factorization runs a launch per
                              level; 0 (default) chooses
  --trsv exact|jacobi|KERNEL   triangular solves of the ILU preconditioners: exact (default;
                              a kernel name as for --apply), or jacobi: block-asynchronous
                              Jacobi with directed overlap, no level analysis (RCM ordering,
                              --partitioner rcm, helps it)
  --jacobi-sweeps N           local Jacobi sweeps per global iteration; default 2
  --jacobi-iters N            global Jacobi iterations per triangular solve; default 4
  --overlap F                 directed block overlap, a fraction of the block (0, 0.03, 0.13,
                              0.25, 0.5); default 0
  --jacobi-block-rows N       block rows per team (owned + overlap); default 256
  --ml-drop-tol T             multilevel-ilu: drop tolerance tau; default 0.01
  --ml-inverse-bound K        multilevel-ilu: pivots are deferred to the next level while the
                              estimates of ||L^-1|| or ||U^-1|| would exceed K; default 5
  --ml-coarsest N             multilevel-ilu: a Schur complement of at most N rows is
                              inverted densely; default 500 (at most 4096)
  --ml-max-levels N           multilevel-ilu: levels at most (the last accepts every pivot);
                              default 10
  --ml-ordering {multilevel_ordering}
                              multilevel-ilu: fill-reducing order of each level (nd: METIS
                              nested dissection); default auto (nd with METIS, else rcm)
  --ml-couplings {multilevel_couplings}
                              multilevel-ilu: between levels, multiply with the factored
                              couplings L_C, U_F (default: one L_B and one U_B solve a level)
                              or with A's own blocks A_CB, A_BC (original: no fill outside
                              the factors, but two L_B D_B U_B solves a level)
  --team-size N               threads per subdomain team in the DD apply; default: chosen
                              from the level widths on GPUs, by Kokkos on CPUs (tuning knob)
  --factor-precision {factor_precision}
                              what ildu0-dd / ilu0-dd / ic0-dd apply from: double, a float
                              copy of the factors (half the bytes per apply; the
                              factorization, SpMV and Krylov vectors stay double), or auto
                              (default): float on CPU backends; on GPUs float for 3x3 and
                              larger blocks, double for scalar and 2x2; double where the
                              factors leave float's range (the JSON's precond says which
                              and why)
  --fill K                    ILU(K) inside each subdomain (0..8): more fill, fewer
                              iterations; default 0
  --shift-pivots              shift tiny pivots instead of failing (the count is reported);
                              the same as --shift nonzero
  --shift {shift}
                              what a failing pivot does (PETSc's shift types): none fails
                              with the row; nonzero replaces a tiny pivot; positive-definite
                              (Manteuffel) refactors with every diagonal shifted by
                              alpha*||row||_1, alpha doubling until every pivot is positive
                              (ILU: of its diagonal's sign), per subdomain for the DD
                              preconditioners; default none
  --shift-amount A            the first alpha of --shift positive-definite; default 1/1024
  --tol T                     relative tolerance on ||b - A x|| / ||b||; default 1e-8
  --abs-tol T                 absolute tolerance; default 0
  --max-iters N               iteration limit; default 1000
  --stagnation auto|W         stop as stagnated when the last W iterations made no progress
                              (neither a falling trend of log ||r|| nor a new smallest
                              residual against the W before them); 0 never; default auto:
                              the last two thirds of the iterations so far (at least 100)
                              against the first third, and never for cg (its residual may
                              plateau for hundreds of iterations on a converging solve)
  --divergence F              stop as diverged when the residual exceeds F times the
                              initial one; default 1e4 (PETSc's dtol)
  --read-per-rank             under mpirun, every rank reads its share of the rows of the
                              Matrix Market file (of gen:SPEC: generates its share of the z
                              planes) and partitions them itself (no rank holds the whole
                              matrix); default: the root reads (generates) and partitions it
  --write-solution FILE.mtx   write x as a Matrix Market array when the solve converged; a
                              solve that did not converge leaves FILE as it was (and says so)
  --write-unconverged         with --write-solution: write the returned iterate even when the
                              solve did not converge, its header comment giving the status and
                              the relative true residual
  --json FILE                 write the summary as JSON (also when the solve did not converge)
  --monitor                   print the residual of every iteration
  --refactor-solves N         after the solve, solve N more times from x = 0, each after
                              refreshing the preconditioner with A's values (update_values:
                              the gather and refactorization a new matrix of the same pattern
                              costs); reports the fastest refactorization and solve; the
                              written solution and the exit code are the first solve's and
                              every solve's converging; one process only
  --version, --help

Files are replaced whole or not at all: written to a new temporary FILE.XXXXXX beside FILE,
synced, then renamed onto FILE; a failure removes the temporary file and keeps the old FILE.

Exit codes: 0 converged; 1 not converged (the reason is printed); 2 invalid usage, input or
options, an output file that could not be written, out of memory, or any other error (under
mpirun on every rank, also when the ranks were given different options).
)";
}

void replace_all(std::string& text, const std::string& placeholder, const std::string& names) {
  for (std::size_t at = text.find(placeholder); at != std::string::npos;
       at = text.find(placeholder, at + names.size()))
    text.replace(at, placeholder.size(), names);
}

}  // namespace

const char* solve_usage() {
  static const std::string usage = [] {
    std::string text = usage_template();
    replace_all(text, "{partitioner}", partitioner_names.joined());
    replace_all(text, "{subdomain_order}", subdomain_row_order_names.joined());
    replace_all(text, "{method}", method_names.joined());
    replace_all(text, "{ortho}", orthogonalization_names.joined());
    replace_all(text, "{preconditioner}", preconditioner_names.joined());
    replace_all(text, "{apply}", apply_kernel_names.joined());
    replace_all(text, "{factor_precision}", factor_precision_names.joined());
    replace_all(text, "{global_kernel}", global_kernel_names.joined());
    replace_all(text, "{multilevel_ordering}", multilevel_ordering_names.joined());
    replace_all(text, "{multilevel_couplings}", multilevel_couplings_names.joined());
    replace_all(text, "{struct_schedule}", struct_schedule_names.joined());
    replace_all(text, "{struct_layout}", struct_layout_names.joined());
    replace_all(text, "{shift}", pivot_shift_names.joined());
    return text;
  }();
  return usage.c_str();
}

}  // namespace fgdd::cli
