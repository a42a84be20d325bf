// Stencils of structured-grid matrices (structilu-structured-grid.txt §2.1, Fig. 1) and the
// analytic wavefront levels of their lower / upper neighbours (§4.1, the affine task mapping).
#pragma once

#include "core/sparse_matrix.hpp"

#include <string>
#include <vector>

namespace fgdd {

// A neighbour offset (dx, dy, dz) of a grid point: row (x, y, z) couples to column
// (x + dx, y + dy, z + dz) when that point lies in the grid.
struct StencilOffset {
  int dx = 0;
  int dy = 0;
  int dz = 0;
  friend bool operator==(const StencilOffset& a, const StencilOffset& b) {
    return a.dx == b.dx && a.dy == b.dy && a.dz == b.dz;
  }
  friend bool operator!=(const StencilOffset& a, const StencilOffset& b) { return !(a == b); }
};

// The integer level weights w of a stencil: grid point (x, y, z) lies on level
// w.x·x + w.y·y + w.z·z. Every lower offset o has w·o < 0 and every upper offset w·o > 0, so a
// level reads only earlier levels in the lower sweep (and the factorization) and only later ones
// in the upper sweep, and the points of one level are independent.
struct LevelWeights {
  int x = 1;
  int y = 1;
  int z = 1;
  // Levels on an nx × ny × nz grid: w·(n − 1) + 1 (some may be empty when a weight exceeds 1).
  Ordinal num_levels(const GridInfo& grid) const noexcept {
    return x * (grid.nx - 1) + y * (grid.ny - 1) + z * (grid.nz - 1) + 1;
  }
};

// A set of offsets holding (0,0,0), kept sorted by (dz, dy, dx): for any grid, the in-grid
// neighbours of a point then appear in increasing column order (x + nx·(y + ny·z)), the lower
// ones (before the centre) first. Values of a StructuredMatrix are stored per offset index.
class Stencil {
 public:
  // The largest |component| an offset may have.
  static constexpr int max_radius = 8;

  // Star-7P: the centre and its 6 face neighbours.
  static Stencil star7();
  // Star-13P: Star-7P plus the points 2 away along each axis.
  static Stencil star13();
  // Diamond-13P (paper Fig. 3b): Star-7P plus ±(1,−1,0), ±(1,0,−1), ±(0,1,−1); levels
  // x + 2y + 3z.
  static Stencil diamond13();
  // Diamond-25P: the octahedron |dx| + |dy| + |dz| <= 2.
  static Stencil diamond25();
  // Box-27P: the 3×3×3 cube; levels x + 2y + 4z.
  static Stencil box27();
  // A user-defined stencil. Throws InvalidInput naming the offending offset when (0,0,0) is
  // missing, an offset repeats, or a component exceeds max_radius.
  static Stencil from_offsets(std::vector<StencilOffset> offsets, std::string name = "custom");
  // "star7", "star13", "diamond13", "diamond25", "box27" (also "star-7p" ... case-insensitive).
  // Throws InvalidInput listing the valid names.
  static Stencil named(const std::string& name);

  const std::vector<StencilOffset>& offsets() const noexcept { return offsets_; }
  int size() const noexcept { return int(offsets_.size()); }
  // Offsets before the centre (the lower triangle); the centre's index equals it.
  int num_lower() const noexcept { return num_lower_; }
  int center() const noexcept { return num_lower_; }
  int num_upper() const noexcept { return size() - num_lower_ - 1; }
  // Index of an offset, -1 when absent.
  int index_of(const StencilOffset& offset) const noexcept;
  // S = −S: needed for IC(0) and for a symmetric matrix.
  bool is_symmetric() const noexcept;
  const std::string& name() const noexcept { return name_; }
  // The largest |component| over all offsets (0 for the centre alone).
  int radius() const noexcept;

  // Weights with w·o < 0 on every lower and > 0 on every upper offset that give the fewest
  // levels on grid (ties: the smallest z, then y, then x weight). The paper's transforms are
  // found again: Star 1,1,1; Diamond-13P 1,2,3; Box-27P 1,2,4.
  LevelWeights level_weights(const GridInfo& grid) const;

  Stencil() = default;  // the centre alone

 private:
  std::vector<StencilOffset> offsets_{StencilOffset{}};
  int num_lower_ = 0;
  std::string name_ = "center";
};

// "(dx,dy,dz)", for messages.
std::string to_string(const StencilOffset& offset);

}  // namespace fgdd
