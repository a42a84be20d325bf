// fgdd-solve's output files, written after the summary is printed: the JSON report and the
// solution, each through OutputFile (whole or not at all), a converged x only unless asked.
#pragma once

#include "solve_options.hpp"
#include "solve_report.hpp"

#include <functional>
#include <ostream>
#include <string>

namespace fgdd::cli {

// Writes x to a path with a header comment (empty: none). Throws FileError.
using SolutionWriter = std::function<void(const std::string& path, const std::string& comment)>;

// The header comment of a solution that did not converge (--write-unconverged): the status, its
// reason and the relative true residual, so nobody takes it for a solution.
std::string unconverged_comment(const SolveResult& result);

// Writes --json, then --write-solution: x when the solve converged, or with --write-unconverged
// under unconverged_comment; otherwise the old file stays and a line on `notes` says so (also
// when there is no x: write_x empty, a setup that failed). A failure of one file does not keep
// the other from being written. Throws Error naming every file that could not be written.
void write_outputs(const SolveCommand& command, const SolveReport& report,
                   const SolutionWriter& write_x, std::ostream& notes);

// Writes "\nfgdd-solve: <message>\n" to stderr in one write: std::cerr writes each << on its
// own, and under mpirun, which forwards stdout and stderr separately, a progress line on stdout
// could land between the pieces.
void print_error_line(const std::string& message);

}  // namespace fgdd::cli
