// fgdd-solve under mpirun: the root loads A and b, DistributedSolver spreads whole subdomains
// over the ranks, the root reports. Only built with MPI.
#pragma once

#include "solve_options.hpp"

#include <string>
#include <vector>

namespace fgdd::cli {

// Collective: parses args on every rank, checks that the ranks agree on them (else exit code 2
// on every rank, naming the first differing option), then solves. Returns the exit code (the
// same on every rank): 0 converged, 1 not converged or a zero pivot, 2 an error every rank
// received (printed once, by the root). An error on one rank outside any collective step (out
// of memory in the middle of a solve) ends every rank through MPI_Abort with code 2.
int solve_distributed(const std::vector<std::string>& args);

}  // namespace fgdd::cli
