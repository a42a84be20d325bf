#include "mpi/generate_local_rows.hpp"

#include "core/errors.hpp"

#include <utility>

namespace fgdd {

GeneratedLocalRows generate_local_rows(const Communicator& comm, const std::string& spec) {
  // Every rank parses the same spec, so a bad one or too few planes throws on all of them.
  const GridInfo grid = generated_grid(spec);
  const int ranks = comm.size();
  if (grid.nz < ranks)
    throw InvalidInput(spec + ": its " + std::to_string(grid.nz) +
                       "-plane grid cannot give each of the " + std::to_string(ranks) +
                       " ranks a z plane to generate");
  const Ordinal first = Ordinal(Offset(grid.nz) * comm.rank() / ranks);
  const Ordinal last = Ordinal(Offset(grid.nz) * (comm.rank() + 1) / ranks);
  // Collective, so that a rank that cannot build its planes (device memory) fails every rank.
  GeneratedPlanes planes;
  comm.run_collectively([&] { planes = generate_planes(spec, first, last); });
  GeneratedLocalRows mine;
  mine.rows.first_block_row = first * grid.nx * grid.ny;
  mine.rows.block_size = planes.rows.block_size;
  mine.rows.row_map = std::move(planes.rows.row_map);
  mine.rows.col_ind = std::move(planes.rows.col_ind);
  mine.rows.values = std::move(planes.rows.values);
  mine.local_grid = GridInfo{grid.nx, grid.ny, last - first};
  mine.grid = grid;
  return mine;
}

}  // namespace fgdd
