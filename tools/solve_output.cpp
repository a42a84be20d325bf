#include "solve_output.hpp"

#include "core/errors.hpp"

#include <cstdio>
#include <iostream>

namespace fgdd::cli {

std::string unconverged_comment(const SolveResult& result) {
  char residual[64];
  std::snprintf(residual, sizeof(residual), "%.6e", result.relative_true_residual);
  const std::string iterate =
      result.returned_iterate == ReturnedIterate::Last
          ? "the last iterate"
          : std::string("the ") + to_string(result.returned_iterate) + " iterate (iteration " +
                std::to_string(result.returned_iteration) + ")";
  return "NOT CONVERGED: fgdd-solve wrote " + iterate +
         " because --write-unconverged asked for it\nstatus " +
         std::string(to_string(result.status)) + " after " + std::to_string(result.iterations) +
         " iterations: " + result.reason + "\nrelative true residual ||b - A x|| / ||b|| = " +
         (result.true_residual_computed ? std::string(residual) : "not computed");
}

void write_outputs(const SolveCommand& command, const SolveReport& report,
                   const SolutionWriter& write_x, std::ostream& notes) {
  std::string failures;
  const auto attempt = [&](const std::function<void()>& write) {
    try {
      write();
    } catch (const Error& error) {
      failures += (failures.empty() ? "" : "\nfgdd-solve: ") + std::string(error.what());
    }
  };
  if (!command.json.empty()) attempt([&] { write_json(command.json, report); });
  const std::string& path = command.write_solution;
  if (!path.empty()) {
    const SolveResult& result = report.result;
    if (write_x && result.converged()) {
      attempt([&] { write_x(path, {}); });
    } else if (write_x && command.write_unconverged) {
      attempt([&] { write_x(path, unconverged_comment(result)); });
      notes << "fgdd-solve: not converged (" << to_string(result.status)
            << "): wrote the returned iterate to " << path
            << " (--write-unconverged; its header says so)\n";
    } else {
      notes << "fgdd-solve: not converged (" << to_string(result.status) << "): " << path
            << " left as it was"
            << (write_x ? "; --write-unconverged writes the returned iterate" : "") << "\n";
    }
  }
  if (!failures.empty()) throw Error(failures);
}

void print_error_line(const std::string& message) {
  std::cerr << ("\nfgdd-solve: " + message + "\n") << std::flush;
}

}  // namespace fgdd::cli
