#include "solve_report.hpp"

#include "core/output_file.hpp"
#include "krylov/preconditioner.hpp"
#include "precond/dd_ilu_preconditioner.hpp"
#include "precond/multilevel_ilu_preconditioner.hpp"

#include <cmath>
#include <iomanip>
#include <sstream>
#include <string>

namespace fgdd::cli {

namespace {

std::string json_string(const std::string& text) {
  std::ostringstream out;
  out << '"';
  for (const char c : text) {
    if (c == '"' || c == '\\')
      out << '\\' << c;
    else if (static_cast<unsigned char>(c) < 0x20)
      out << "\\u" << std::hex << std::setw(4) << std::setfill('0') << int(c) << std::dec;
    else
      out << c;
  }
  out << '"';
  return out.str();
}

// JSON has no NaN or Inf; the solver never reports them, but a report must stay parseable.
std::string json_number(double value) {
  if (!std::isfinite(value)) return "null";
  std::ostringstream out;
  out << std::setprecision(17) << value;
  return out.str();
}

// "not computed" when no solve ran; a non-finite value is named, never printed as -nan.
std::string true_residual_text(const SolveResult& r) {
  if (!r.true_residual_computed) return "not computed (no solve ran)";
  const auto text = [](double value) {
    if (std::isnan(value)) return std::string("NaN");
    std::ostringstream out;
    out << value;
    return out.str();
  };
  return text(r.true_residual) + " (relative " + text(r.relative_true_residual) + ")";
}

}  // namespace

void describe_preconditioner(SolveReport& report, const Preconditioner& M) {
  report.precond = M.name();
  if (const FactorReport* factor = M.factor_report()) {
    report.has_factor_report = true;
    report.factor = *factor;
  }
  if (const auto* dd = dynamic_cast<const DdIluPreconditioner*>(&M);
      dd != nullptr && dd->trsv().levels_built()) {
    const ExecSpace space;  // levels() only reads here: they are built
    const SubdomainLevels& lower = dd->trsv().levels(space, Triangle::Lower);
    const SubdomainLevels& upper = dd->trsv().levels(space, Triangle::Upper);
    const double subdomains = double(std::max<std::size_t>(1, lower.num_levels.extent(0)));
    report.has_dd_levels = true;
    report.lower_levels_max = lower.max_levels;
    report.upper_levels_max = upper.max_levels;
    report.lower_levels_mean = double(lower.total_levels) / subdomains;
    report.upper_levels_mean = double(upper.total_levels) / subdomains;
    report.level_entries_mean = dd->trsv().mean_level_entries(space);
  }
  if (const auto* multilevel = dynamic_cast<const MultilevelIluPreconditioner*>(&M)) {
    report.has_multilevel_report = true;
    report.multilevel = multilevel->multilevel().report();
  }
}

namespace {

// "levels:" lines of the summary: one per level, then the dense one.
void print_multilevel(std::ostream& out, const MultilevelReport& m) {
  for (std::size_t l = 0; l < m.levels.size(); ++l) {
    const MultilevelLevelReport& level = m.levels[l];
    out << "level " << l << ":       " << level.rows << " rows, " << level.accepted
        << " pivots accepted, " << level.deferred << " deferred; " << level.factor_entries
        << " factor and " << level.coupling_entries << " coupling entries"
        << (level.shifted > 0 ? ", " + std::to_string(level.shifted) + " pivots shifted" : "")
        << "; "
        << (level.lower_levels + level.upper_levels > 0
                ? std::to_string(level.lower_levels) + "/" + std::to_string(level.upper_levels) +
                      " level sets"
                : std::string("row-order sweeps"))
        << "; " << level.seconds << " s on the host\n";
  }
  if (m.dense_rows > 0)
    out << "dense level:   " << m.dense_rows << " rows inverted densely"
        << (m.dense_shifted > 0 ? " (" + std::to_string(m.dense_shifted) + " pivots shifted)" : "")
        << "\n";
  out << "multilevel:    fill " << m.fill_ratio << " x nnz(A); host setup " << m.host_seconds
      << " s, upload " << m.upload_seconds << " s\n";
}

std::string multilevel_json(const MultilevelReport& m) {
  std::ostringstream json;
  json << "{\"levels\":[";
  for (std::size_t l = 0; l < m.levels.size(); ++l) {
    const MultilevelLevelReport& level = m.levels[l];
    json << (l ? "," : "") << "{\"rows\":" << level.rows << ",\"accepted\":" << level.accepted
         << ",\"deferred\":" << level.deferred << ",\"factor_entries\":" << level.factor_entries
         << ",\"coupling_entries\":" << level.coupling_entries
         << ",\"shifted\":" << level.shifted << ",\"lower_levels\":" << level.lower_levels
         << ",\"upper_levels\":" << level.upper_levels
         << ",\"seconds\":" << json_number(level.seconds)
         << "}";
  }
  json << "],\"dense_rows\":" << m.dense_rows << ",\"dense_shifted\":" << m.dense_shifted
       << ",\"fill_ratio\":" << json_number(m.fill_ratio)
       << ",\"host_seconds\":" << json_number(m.host_seconds)
       << ",\"upload_seconds\":" << json_number(m.upload_seconds)
       << ",\"pivots_held\":" << (m.pivots_held ? "true" : "false") << "}";
  return json.str();
}

}  // namespace

SolveReport start_report(const SolverOptions& options) {
  SolveReport report;
  report.backend = ExecSpace::name();
  report.solver = to_string(options.method);
  report.precond = to_string(options.preconditioner);
  report.stopping = describe_stopping(options.krylov, options.method == KrylovMethod::Cg);
  return report;
}

void print_summary(std::ostream& out, const SolveReport& report) {
  const SolveResult& r = report.result;
  out << "matrix:        " << report.matrix << "\n"
      << "rows:          " << report.rows << " (block size " << report.block_size << ", "
      << report.entries << " stored entries)\n"
      << "backend:       " << report.backend
      << (report.ranks > 1 ? ", " + std::to_string(report.ranks) + " MPI ranks" : "") << "\n";
  print_report(out, report.partition);
  out << "solver:        " << report.solver << ", preconditioner " << report.precond << "\n"
      << "stopping:      " << report.stopping << "\n"
      << "load time:     " << report.load_seconds << " s\n"
      << "setup time:    " << report.setup_seconds << " s\n"
      << "solve time:    " << r.solve_seconds << " s\n"
      << "iterations:    " << r.iterations << "\n"
      << "true residual: " << true_residual_text(r) << "\n"
      << "status:        " << to_string(r.status) << " (" << r.reason << ")\n";
  if (report.has_factor_report && (report.factor.shift > 0 || report.factor.shifted_pivots > 0))
    out << "pivot shifts:  " << report.factor.shifted_pivots << " tiny pivots replaced; "
        << "positive-definite shift " << report.factor.shift << " on " << report.factor.shifted_rows
        << " rows (" << report.factor.shifted_subdomains << " subdomains, "
        << report.factor.shift_attempts << " attempts at most)\n";
  if (report.has_dd_levels)
    out << "dd levels:     lower / upper at most " << report.lower_levels_max << " / "
        << report.upper_levels_max << " a subdomain (mean " << report.lower_levels_mean << " / "
        << report.upper_levels_mean << "), " << report.level_entries_mean
        << " entries a level on average\n";
  if (report.has_multilevel_report) print_multilevel(out, report.multilevel);
  if (report.refactor_solves > 0)
    out << "refactor:      " << report.refactor_solves << " times, fastest "
        << report.refactor_seconds << " s; solve after it fastest " << report.resolve_seconds
        << " s, " << report.resolve_iterations_min << "-" << report.resolve_iterations_max
        << " iterations, " << report.resolves_converged << " of " << report.refactor_solves
        << " converged\n";
  if (r.residual_replacements > 0)
    out << "replacements:  " << r.residual_replacements
        << " (the recurrence residual was replaced by b - A x)\n";
  if (r.true_residual_computed && r.returned_iterate != ReturnedIterate::Last)
    out << "returned x:    the " << to_string(r.returned_iterate) << " iterate (iteration "
        << r.returned_iteration << "), not the last one\n";
}

void write_json(const std::string& path, const SolveReport& report) {
  const SolveResult& r = report.result;
  std::ostringstream json;
  json << "{\"matrix\":" << json_string(report.matrix)
       << ",\"backend\":" << json_string(report.backend) << ",\"ranks\":" << report.ranks
       << ",\"solver\":" << json_string(report.solver)
       << ",\"precond\":" << json_string(report.precond)
       << ",\"stopping\":" << json_string(report.stopping) << ",\"rows\":" << report.rows
       << ",\"entries\":" << report.entries << ",\"block_size\":" << report.block_size
       << ",\"partitioner\":" << json_string(to_string(report.partition.partitioner))
       << ",\"partitioner_reason\":" << json_string(report.partition.reason)
       << ",\"subdomains\":" << report.partition.num_subdomains
       << ",\"subdomain_rows_min\":" << report.partition.min_rows
       << ",\"subdomain_rows_avg\":" << json_number(report.partition.average_rows)
       << ",\"subdomain_rows_max\":" << report.partition.max_rows
       << ",\"entries_after_drop\":" << report.partition.entries_after_drop
       << ",\"dropped_fraction\":" << json_number(report.partition.dropped_fraction)
       << ",\"partition_seconds\":" << json_number(report.partition.partition_seconds)
       << ",\"reorder_seconds\":" << json_number(report.partition.reorder_seconds)
       << ",\"load_seconds\":" << json_number(report.load_seconds)
       << ",\"setup_seconds\":" << json_number(report.setup_seconds)
       << ",\"solve_seconds\":" << json_number(r.solve_seconds)
       << ",\"iterations\":" << r.iterations << ",\"status\":" << json_string(to_string(r.status))
       << ",\"reason\":" << json_string(r.reason)
       << ",\"initial_residual\":" << json_number(r.initial_residual)
       << ",\"final_residual\":" << json_number(r.final_residual)
       << ",\"true_residual\":" << json_number(r.true_residual)
       << ",\"relative_true_residual\":" << json_number(r.relative_true_residual)
       << ",\"residual_replacements\":" << r.residual_replacements
       << ",\"shifted_pivots\":" << (report.has_factor_report ? report.factor.shifted_pivots : 0)
       << ",\"pivot_shift\":" << json_number(report.has_factor_report ? report.factor.shift : 0)
       << ",\"shifted_rows\":" << (report.has_factor_report ? report.factor.shifted_rows : 0)
       << ",\"returned_iterate\":"
       << (r.true_residual_computed ? json_string(to_string(r.returned_iterate)) : "null")
       << ",\"returned_iteration\":" << r.returned_iteration;
  if (report.has_dd_levels)
    json << ",\"dd_levels\":{\"lower_max\":" << report.lower_levels_max
         << ",\"upper_max\":" << report.upper_levels_max
         << ",\"lower_mean\":" << json_number(report.lower_levels_mean)
         << ",\"upper_mean\":" << json_number(report.upper_levels_mean)
         << ",\"entries_a_level\":" << json_number(report.level_entries_mean) << "}";
  if (report.has_multilevel_report) json << ",\"multilevel\":" << multilevel_json(report.multilevel);
  if (report.refactor_solves > 0)
    json << ",\"refactor_solves\":" << report.refactor_solves
         << ",\"refactor_seconds\":" << json_number(report.refactor_seconds)
         << ",\"resolve_seconds\":" << json_number(report.resolve_seconds)
         << ",\"resolve_iterations_min\":" << report.resolve_iterations_min
         << ",\"resolve_iterations_max\":" << report.resolve_iterations_max
         << ",\"resolves_converged\":" << report.resolves_converged;
  json << ",\"residual_history\":[";
  for (std::size_t i = 0; i < r.residual_history.size(); ++i)
    json << (i ? "," : "") << json_number(r.residual_history[i]);
  json << "]}\n";
  OutputFile file(path);
  file.write(json.str());
  file.commit();
}

}  // namespace fgdd::cli
