#include "solver/solver_options.hpp"

#include "core/errors.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <iterator>

namespace fgdd {

namespace {

// parse(), its InvalidInput naming the key.
template <class Parse>
auto for_key(const std::string& key, const Parse& parse) {
  try {
    return parse();
  } catch (const InvalidInput& error) {
    throw InvalidInput("option " + key + ": " + error.what());
  }
}

// Parses value with table, naming the key in the error.
template <class Table>
auto named(const Table& table, const std::string& key, const std::string& value) {
  return for_key(key, [&] { return table.parse(value); });
}

double number(const std::string& key, const std::string& value) {
  char* end = nullptr;
  errno = 0;
  const double x = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || errno == ERANGE)
    throw InvalidInput("option " + key + " expects a number, got '" + value + "'");
  return x;
}

long long integer(const std::string& key, const std::string& value, long long largest) {
  char* end = nullptr;
  errno = 0;
  const long long x = std::strtoll(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || errno == ERANGE || x < 0 || x > largest)
    throw InvalidInput("option " + key + " expects a non-negative integer, got '" + value + "'");
  return x;
}

bool boolean(const std::string& key, const std::string& value) {
  if (value == "true" || value == "1" || value == "on") return true;
  if (value == "false" || value == "0" || value == "off") return false;
  throw InvalidInput("option " + key + " expects true|false, got '" + value + "'");
}

}  // namespace

const char* to_string(PreconditionerKind kind) noexcept { return preconditioner_names.name(kind); }

std::vector<std::string> SolverOptions::keys() {
  return {"method",
          "preconditioner",
          "partitioner",
          "subdomain_rows",
          "subdomain_order",
          "apply",
          "fill",
          "shift_pivots",
          "shift",
          "shift_amount",
          "pivot_threshold",
          "team_size",
          "factor_precision",
          "factor_order",
          "global_kernel",
          "struct_schedule",
          "struct_layout",
          "struct_factor_lanes",
          "struct_factor_threads",
          "tol",
          "abs_tol",
          "max_iters",
          "restart",
          "ortho",
          "stagnation",
          "divergence",
          "trsv",
          "jacobi_sweeps",
          "jacobi_iters",
          "overlap",
          "jacobi_block_rows",
          "multilevel_drop_tol",
          "multilevel_inverse_bound",
          "multilevel_coarsest",
          "multilevel_max_levels",
          "multilevel_ordering",
          "multilevel_couplings"};
}

bool SolverOptions::is_krylov_key(const std::string& key) {
  static const char* const krylov[] = {"method",  "tol",  "abs_tol",    "max_iters",
                                       "restart", "ortho", "stagnation", "divergence"};
  return std::find(std::begin(krylov), std::end(krylov), key) != std::end(krylov);
}

void SolverOptions::set(const std::string& key, const std::string& value) {
  constexpr long long int_max = 2147483647LL;
  if (key == "method")
    method = named(method_names, key, value);
  else if (key == "preconditioner")
    preconditioner = named(preconditioner_names, key, value);
  else if (key == "partitioner")
    partition.partitioner = named(partitioner_names, key, value);
  else if (key == "subdomain_rows")
    partition.subdomain_rows = Offset(integer(key, value, 1LL << 40));
  else if (key == "subdomain_order")
    partition.row_order = named(subdomain_row_order_names, key, value);
  else if (key == "apply")
    dd.apply = named(apply_kernel_names, key, value);
  else if (key == "fill")
    dd.factor.level_of_fill = int(integer(key, value, int_max));
  else if (key == "shift_pivots")
    dd.factor.shift_tiny_pivots = boolean(key, value);
  else if (key == "shift")
    dd.factor.shift = for_key(key, [&] { return parse_pivot_shift(value); });
  else if (key == "shift_amount")
    dd.factor.shift_amount = number(key, value);
  else if (key == "pivot_threshold")
    dd.factor.pivot_threshold = number(key, value);
  else if (key == "team_size")
    dd.team_size = int(integer(key, value, int_max));
  else if (key == "factor_precision")
    dd.factor_precision = named(factor_precision_names, key, value);
  else if (key == "factor_order")
    dd.factor.order = named(factor_order_names, key, value);
  else if (key == "global_kernel")
    global_kernel = named(global_kernel_names, key, value);
  else if (key == "struct_schedule")
    struct_schedule = named(struct_schedule_names, key, value);
  else if (key == "struct_layout") {
    struct_layout = named(struct_layout_names, key, value);
  } else if (key == "struct_factor_lanes") {
    struct_factor_launch.lanes = int(integer(key, value, int_max));
  } else if (key == "struct_factor_threads") {
    struct_factor_launch.team_threads = int(integer(key, value, int_max));
  } else if (key == "tol")
    krylov.relative_tolerance = number(key, value);
  else if (key == "abs_tol")
    krylov.absolute_tolerance = number(key, value);
  else if (key == "max_iters")
    krylov.max_iterations = int(integer(key, value, int_max));
  else if (key == "restart")
    krylov.restart = int(integer(key, value, int_max));
  else if (key == "ortho") {
    krylov.orthogonalization = named(orthogonalization_names, key, value);
  } else if (key == "stagnation") {
    krylov.stagnation_iterations = value == "auto" ? -1 : int(integer(key, value, int_max));
  } else if (key == "divergence") {
    krylov.divergence_factor = number(key, value);
  } else if (key == "trsv") {  // a method, or the exact solve's kernel by name
    if (trsv_method_names.contains(value)) {
      trsv = trsv_method_names.parse(value);
    } else if (apply_kernel_names.contains(value)) {
      trsv = TrsvMethod::Exact;
      dd.apply = apply_kernel_names.parse(value);
    } else {
      throw InvalidInput("option trsv: unknown '" + value + "' (valid: " +
                         trsv_method_names.joined() + "|" + apply_kernel_names.joined() + ")");
    }
  } else if (key == "jacobi_sweeps") {
    jacobi.sweeps = int(integer(key, value, int_max));
  } else if (key == "jacobi_iters") {
    jacobi.iterations = int(integer(key, value, int_max));
  } else if (key == "overlap") {
    jacobi.overlap = number(key, value);
  } else if (key == "jacobi_block_rows") {
    jacobi.block_rows = Ordinal(integer(key, value, int_max));
  } else if (key == "multilevel_drop_tol") {
    multilevel.drop_tolerance = number(key, value);
  } else if (key == "multilevel_inverse_bound") {
    multilevel.inverse_bound = number(key, value);
  } else if (key == "multilevel_coarsest") {
    multilevel.coarsest_size = Ordinal(integer(key, value, int_max));
  } else if (key == "multilevel_max_levels") {
    multilevel.max_levels = int(integer(key, value, int_max));
  } else if (key == "multilevel_ordering") {
    multilevel.ordering = named(multilevel_ordering_names, key, value);
  } else if (key == "multilevel_couplings") {
    multilevel.couplings = named(multilevel_couplings_names, key, value);
  } else {
    std::string valid;
    for (const auto& k : keys()) valid += (valid.empty() ? "" : ", ") + k;
    throw InvalidInput("unknown option '" + key + "' (valid: " + valid + ")");
  }
}

void SolverOptions::set_all(const std::vector<std::string>& key_values) {
  for (const std::string& item : key_values) {
    const auto equals = item.find('=');
    if (equals == std::string::npos || equals == 0)
      throw InvalidInput("option '" + item + "' is not key=value");
    set(item.substr(0, equals), item.substr(equals + 1));
  }
}

std::vector<std::string> SolverOptions::key_values() const {
  // %.17g: every double reads back to the same bits.
  const auto real = [](double value) {
    char text[32];
    std::snprintf(text, sizeof(text), "%.17g", value);
    return std::string(text);
  };
  const auto item = [](const char* key, const std::string& value) {
    return std::string(key) + "=" + value;
  };
  return {item("method", to_string(method)),
          item("preconditioner", to_string(preconditioner)),
          item("partitioner", to_string(partition.partitioner)),
          item("subdomain_rows", std::to_string(partition.subdomain_rows)),
          item("subdomain_order", subdomain_row_order_names.name(partition.row_order)),
          item("apply", to_string(dd.apply)),
          item("fill", std::to_string(dd.factor.level_of_fill)),
          item("shift_pivots", dd.factor.shift_tiny_pivots ? "true" : "false"),
          item("shift", to_string(dd.factor.shift)),
          item("shift_amount", real(dd.factor.shift_amount)),
          item("pivot_threshold", real(dd.factor.pivot_threshold)),
          item("team_size", std::to_string(dd.team_size)),
          item("factor_precision", to_string(dd.factor_precision)),
          item("factor_order", factor_order_names.name(dd.factor.order)),
          item("global_kernel", global_kernel_names.name(global_kernel)),
          item("struct_schedule", struct_schedule_names.name(struct_schedule)),
          item("struct_layout", struct_layout_names.name(struct_layout)),
          item("struct_factor_lanes", std::to_string(struct_factor_launch.lanes)),
          item("struct_factor_threads", std::to_string(struct_factor_launch.team_threads)),
          item("tol", real(krylov.relative_tolerance)),
          item("abs_tol", real(krylov.absolute_tolerance)),
          item("max_iters", std::to_string(krylov.max_iterations)),
          item("restart", std::to_string(krylov.restart)),
          item("ortho", orthogonalization_names.name(krylov.orthogonalization)),
          item("stagnation", krylov.stagnation_iterations < 0
                                 ? std::string("auto")
                                 : std::to_string(krylov.stagnation_iterations)),
          item("divergence", real(krylov.divergence_factor)),
          item("trsv", trsv_method_names.name(trsv)),
          item("jacobi_sweeps", std::to_string(jacobi.sweeps)),
          item("jacobi_iters", std::to_string(jacobi.iterations)),
          item("overlap", real(jacobi.overlap)),
          item("jacobi_block_rows", std::to_string(jacobi.block_rows)),
          item("multilevel_drop_tol", real(multilevel.drop_tolerance)),
          item("multilevel_inverse_bound", real(multilevel.inverse_bound)),
          item("multilevel_coarsest", std::to_string(multilevel.coarsest_size)),
          item("multilevel_max_levels", std::to_string(multilevel.max_levels)),
          item("multilevel_ordering", multilevel_ordering_names.name(multilevel.ordering)),
          item("multilevel_couplings", multilevel_couplings_names.name(multilevel.couplings))};
}

void SolverOptions::validate() const {
  krylov.validate();
  dd.factor.validate();
  if (dd.team_size < 0) throw InvalidInput("team_size must be >= 0");
  jacobi.validate();
  multilevel.validate();
  const auto offers = [&](unsigned trait) {
    return preconditioner_names.has(preconditioner, trait);
  };
  const bool transpose = method_names.has(method, needs_transpose);
  const std::string method_name = to_string(method);
  if (trsv == TrsvMethod::Jacobi && !offers(ilu_factors))
    throw InvalidInput("trsv jacobi needs an ILU preconditioner, not " +
                       std::string(to_string(preconditioner)));
  if (trsv == TrsvMethod::Jacobi && transpose)
    throw InvalidInput("method " + method_name +
                       " needs a transpose apply, which trsv jacobi does not have");
  if (trsv == TrsvMethod::Jacobi && offers(exact_sweeps_only))
    throw InvalidInput("trsv jacobi is not offered by preconditioner " +
                       std::string(to_string(preconditioner)) + " (its sweeps are exact)");
  // Only the DD apply keeps a float copy of the factors; elsewhere float would be ignored.
  const bool dd_apply = offers(subdomain_factors) && trsv == TrsvMethod::Exact;
  if (dd.factor_precision == FactorPrecision::Float && !dd_apply)
    throw InvalidInput("factor_precision float is offered by ildu0-dd, ilu0-dd and ic0-dd with "
                       "exact triangular solves; " +
                       std::string(to_string(preconditioner)) +
                       (trsv == TrsvMethod::Jacobi ? " with trsv jacobi" : "") +
                       " reads its factors in double (auto picks double there)");
  if (transpose && !offers(transpose_apply))
    throw InvalidInput("method " + method_name + " needs a transpose apply, which preconditioner " +
                       std::string(to_string(preconditioner)) + " does not have");
}

}  // namespace fgdd
