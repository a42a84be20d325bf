// fgdd-solve under mpirun: the root loads A and b, DistributedSolver spreads whole subdomains
// over the ranks, the root reports. Only built with MPI.
#pragma once

#include "solve_options.hpp"

namespace fgdd::cli {

// Collective. Returns the exit code (the same on every rank): 0 converged, 1 not converged or
// a zero pivot, 2 an error every rank received (printed once, by the root).
int solve_distributed(const SolveCommand& command);

}  // namespace fgdd::cli
