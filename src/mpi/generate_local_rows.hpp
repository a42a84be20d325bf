// Each rank builds only its own rows of a generated problem (gen:SPEC), for DistributedSolver's
// LocalRows setup: no rank generates or holds the whole matrix.
#pragma once

#include "core/generators.hpp"
#include "mpi/communicator.hpp"
#include "mpi/local_rows.hpp"

#include <string>

namespace fgdd {

struct GeneratedLocalRows {
  LocalRows rows;         // this rank's block rows, global block columns
  GridInfo local_grid;    // its planes' grid: nx, ny and its number of z planes
  GridInfo grid;          // the whole grid
};

// Rank r of P builds the z planes [nz r / P, nz (r + 1) / P) of generate_problem(spec), bitwise
// its rows (generate_planes). Collective. Throws InvalidInput on every rank alike for a bad spec
// or fewer z planes than ranks (a rank would get no rows), and any rank's failure to build its
// planes on every rank.
GeneratedLocalRows generate_local_rows(const Communicator& comm, const std::string& spec);

}  // namespace fgdd
