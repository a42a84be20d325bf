#include "solve_options.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

namespace fgdd::cli {

namespace {

const std::vector<std::string> available_solvers = {"bicgstab", "gmres", "cg", "bicg"};
const std::vector<std::string> available_preconds = {"ildu0-dd", "ilu0-dd", "ic0-dd", "ilu0", "ildu0", "jacobi", "none"};

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : "|") + name;
  return out;
}

double parse_double(const std::string& option, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno == ERANGE)
    throw UsageError(option + " expects a number, got '" + text + "'");
  return value;
}

long long parse_count(const std::string& option, const std::string& text, long long largest) {
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || value < 0 || value > largest)
    throw UsageError(option + " expects a non-negative integer, got '" + text + "'");
  return value;
}

int parse_int(const std::string& option, const std::string& text) {
  return static_cast<int>(parse_count(option, text, 2147483647LL));
}

std::string one_of(const std::string& option, const std::string& value,
                   const std::vector<std::string>& allowed) {
  if (std::find(allowed.begin(), allowed.end(), value) == allowed.end())
    throw UsageError(option + " must be one of " + joined(allowed) + ", got '" + value + "'");
  return value;
}

Partitioner parse_partitioner_option(const std::string& name) {
  try {
    return parse_partitioner(name);
  } catch (const std::exception& error) {
    throw UsageError(std::string("--partitioner: ") + error.what());
  }
}

ApplyKernel parse_apply_option(const std::string& name) {
  try {
    return parse_apply_kernel(name);
  } catch (const std::exception& error) {
    throw UsageError(std::string("--apply: ") + error.what());
  }
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
    if (option == "--help" || option == "-h") command.help = true;
    else if (option == "--version") command.version = true;
    else if (option == "--monitor") command.monitor = true;
    else if (option == "--matrix") command.matrix = value();
    else if (option == "--rhs") command.rhs = value();
    else if (option == "--solver") command.solver = one_of(option, value(), available_solvers);
    else if (option == "--precond") command.precond = one_of(option, value(), available_preconds);
    else if (option == "--apply") command.dd.apply = parse_apply_option(value());
    else if (option == "--shift-pivots") command.dd.factor.shift_tiny_pivots = true;
    else if (option == "--restart") command.krylov.restart = parse_int(option, value());
    else if (option == "--ortho") {
      const std::string method = one_of(option, value(), {"cgs2", "mgs"});
      command.krylov.orthogonalization =
          method == "mgs" ? Orthogonalization::Mgs : Orthogonalization::Cgs2;
    }
    else if (option == "--team-size") command.dd.team_size = parse_int(option, value());
    else if (option == "--fill") command.dd.factor.level_of_fill = parse_int(option, value());
    else if (option == "--tol") command.krylov.relative_tolerance = parse_double(option, value());
    else if (option == "--abs-tol") command.krylov.absolute_tolerance = parse_double(option, value());
    else if (option == "--max-iters") command.krylov.max_iterations = parse_int(option, value());
    else if (option == "--partitioner") command.partition.partitioner = parse_partitioner_option(value());
    else if (option == "--subdomain-rows") {
      command.partition.subdomain_rows = Offset(parse_count(option, value(), 1LL << 40));
      if (command.partition.subdomain_rows == 0)
        throw UsageError("--subdomain-rows must be at least 1 (omit it for the default)");
    }
    else if (option == "--write-solution") command.write_solution = value();
    else if (option == "--json") command.json = value();
    else throw UsageError("unknown argument '" + option + "' (see --help)");
  }
  if (command.help || command.version) return command;
  if (command.matrix.empty()) throw UsageError("--matrix FILE.mtx|gen:SPEC is required");
  try {
    command.dd.factor.validate();
  } catch (const std::exception& error) {
    throw UsageError(error.what());
  }
  command.dd.factor.form = command.precond == "ilu0-dd"  ? IluForm::Ilu0
                           : command.precond == "ic0-dd" ? IluForm::Ildlt
                                                         : IluForm::Ildu0;
  try {
    command.krylov.validate();
  } catch (const std::exception& error) {
    throw UsageError(error.what());
  }
  return command;
}

const char* solve_usage() {
  return R"(usage: fgdd-solve --matrix FILE.mtx|gen:SPEC [options]

Solves A x = b with a preconditioned Krylov method on the Kokkos default execution space.

  --matrix FILE.mtx|gen:SPEC  Matrix Market file, or a generated problem:
                              gen:lap7:N[:NY:NZ]  gen:lap27:N[:NY:NZ]  gen:convdiff:N
                              gen:reservoir[:NX:NY:NZ]  gen:bsr3:N
  --partitioner auto|geometric|metis|rcm|natural
                              subdomains (auto: geometric for generated grids, else METIS
                              when built with it, else RCM chunks); default auto
  --subdomain-rows N          rows per subdomain at most; default: the most that fit team
                              scratch on this backend
  --rhs FILE.mtx              right-hand side (Matrix Market array); default all ones
  --solver bicgstab|gmres|cg|bicg
                              Krylov method; default bicgstab (cg: SPD A with ic0-dd or
                              jacobi; bicg: needs a transpose apply, not the global ILU)
  --restart M                 GMRES restart length; default 30
  --ortho cgs2|mgs            GMRES orthogonalization on the device; default cgs2
  --precond ildu0-dd|ilu0-dd|ic0-dd|ilu0|ildu0|jacobi|none
                              preconditioner; default ildu0-dd: ILDU0 of the subdomains'
                              diagonal blocks, one GPU team per subdomain (ilu0-dd: the same
                              M scaled as ILU0; ic0-dd: L D Lᵀ for symmetric matrices, half
                              the factorization work; ilu0/ildu0: exact global ILU0, nothing
                              dropped, applied level by level: fewer iterations, slower
                              applies; jacobi: block Jacobi for BSR)
  --apply auto|dag_ec_ILDU0_fused|dag_vc_ILDU0_fused|dag_ec_ILD_U0
                              kernel applying ildu0-dd / ilu0-dd; default auto
                              (dag_vc_ILDU0_fused is deterministic run to run)
  --team-size N               threads per subdomain team in the DD apply; default: Kokkos
                              chooses (tuning knob for benchmarks)
  --fill K                    ILU(K) inside each subdomain (0..8): more fill, fewer
                              iterations; default 0
  --shift-pivots              shift tiny pivots instead of failing (the count is reported)
  --tol T                     relative tolerance on ||b - A x|| / ||b||; default 1e-8
  --abs-tol T                 absolute tolerance; default 0
  --max-iters N               iteration limit; default 1000
  --write-solution FILE.mtx   write x as a Matrix Market array
  --json FILE                 write the summary as JSON
  --monitor                   print the residual of every iteration
  --version, --help

Exit codes: 0 converged; 1 not converged (the reason is printed); 2 invalid usage or input.
)";
}

}  // namespace fgdd::cli
