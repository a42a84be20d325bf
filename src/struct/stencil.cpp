#include "struct/stencil.hpp"

#include "core/errors.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <limits>
#include <tuple>

namespace fgdd {

namespace {

bool column_order(const StencilOffset& a, const StencilOffset& b) {
  return std::tie(a.dz, a.dy, a.dx) < std::tie(b.dz, b.dy, b.dx);
}

std::vector<StencilOffset> star(int reach) {
  std::vector<StencilOffset> offsets{{0, 0, 0}};
  for (int r = 1; r <= reach; ++r)
    for (int sign : {-1, 1}) {
      offsets.push_back({sign * r, 0, 0});
      offsets.push_back({0, sign * r, 0});
      offsets.push_back({0, 0, sign * r});
    }
  return offsets;
}

}  // namespace

std::string to_string(const StencilOffset& o) {
  return "(" + std::to_string(o.dx) + "," + std::to_string(o.dy) + "," + std::to_string(o.dz) + ")";
}

Stencil Stencil::from_offsets(std::vector<StencilOffset> offsets, std::string name) {
  for (const StencilOffset& o : offsets)
    if (std::abs(o.dx) > max_radius || std::abs(o.dy) > max_radius || std::abs(o.dz) > max_radius)
      throw InvalidInput("stencil " + name + ": offset " + to_string(o) +
                         " has a component beyond the supported radius " +
                         std::to_string(max_radius));
  std::sort(offsets.begin(), offsets.end(), column_order);
  for (std::size_t k = 1; k < offsets.size(); ++k)
    if (offsets[k] == offsets[k - 1])
      throw InvalidInput("stencil " + name + ": offset " + to_string(offsets[k]) + " repeats");
  const auto center = std::find(offsets.begin(), offsets.end(), StencilOffset{});
  if (center == offsets.end())
    throw InvalidInput("stencil " + name + ": the centre (0,0,0) is missing");
  Stencil s;
  s.num_lower_ = int(center - offsets.begin());
  s.offsets_ = std::move(offsets);
  s.name_ = std::move(name);
  return s;
}

Stencil Stencil::star7() { return from_offsets(star(1), "star7"); }
Stencil Stencil::star13() { return from_offsets(star(2), "star13"); }

Stencil Stencil::diamond13() {
  auto offsets = star(1);
  for (int sign : {-1, 1}) {
    offsets.push_back({sign, -sign, 0});
    offsets.push_back({sign, 0, -sign});
    offsets.push_back({0, sign, -sign});
  }
  return from_offsets(offsets, "diamond13");
}

Stencil Stencil::diamond25() {
  std::vector<StencilOffset> offsets;
  for (int dz = -2; dz <= 2; ++dz)
    for (int dy = -2; dy <= 2; ++dy)
      for (int dx = -2; dx <= 2; ++dx)
        if (std::abs(dx) + std::abs(dy) + std::abs(dz) <= 2) offsets.push_back({dx, dy, dz});
  return from_offsets(offsets, "diamond25");
}

Stencil Stencil::box27() {
  std::vector<StencilOffset> offsets;
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) offsets.push_back({dx, dy, dz});
  return from_offsets(offsets, "box27");
}

Stencil Stencil::named(const std::string& name) {
  std::string key;
  for (const char c : name)
    if (c != '-' && c != '_') key += char(std::tolower(static_cast<unsigned char>(c)));
  if (key == "star7" || key == "star7p") return star7();
  if (key == "star13" || key == "star13p") return star13();
  if (key == "diamond13" || key == "diamond13p") return diamond13();
  if (key == "diamond25" || key == "diamond25p") return diamond25();
  if (key == "box27" || key == "box27p") return box27();
  throw InvalidInput("unknown stencil '" + name +
                     "' (valid: star7, star13, diamond13, diamond25, box27)");
}

int Stencil::index_of(const StencilOffset& offset) const noexcept {
  const auto it = std::lower_bound(offsets_.begin(), offsets_.end(), offset, column_order);
  return it != offsets_.end() && *it == offset ? int(it - offsets_.begin()) : -1;
}

bool Stencil::is_symmetric() const noexcept {
  for (const StencilOffset& o : offsets_)
    if (index_of({-o.dx, -o.dy, -o.dz}) < 0) return false;
  return true;
}

int Stencil::radius() const noexcept {
  int r = 0;
  for (const StencilOffset& o : offsets_)
    r = std::max({r, std::abs(o.dx), std::abs(o.dy), std::abs(o.dz)});
  return r;
}

LevelWeights Stencil::level_weights(const GridInfo& grid) const {
  const auto valid = [&](int wx, int wy, int wz) {
    for (int e = 0; e < size(); ++e) {
      const StencilOffset& o = offsets_[e];
      const long long dot = (long long)wx * o.dx + (long long)wy * o.dy + (long long)wz * o.dz;
      if (e < num_lower_ && dot >= 0) return false;
      if (e > num_lower_ && dot <= 0) return false;
    }
    return true;
  };
  // (1, M, M²) with M = 2·radius + 1 is always valid: it is the column order itself.
  const int m = 2 * radius() + 1;
  LevelWeights best{1, m, m * m};
  const auto cost = [&](int wx, int wy, int wz) {
    return (long long)wx * std::max<Ordinal>(grid.nx - 1, 0) +
           (long long)wy * std::max<Ordinal>(grid.ny - 1, 0) +
           (long long)wz * std::max<Ordinal>(grid.nz - 1, 0);
  };
  long long best_cost = cost(best.x, best.y, best.z);
  const int limit = std::min(m * m, 40);
  for (int wz = 0; wz <= limit; ++wz)
    for (int wy = 0; wy <= limit; ++wy)
      for (int wx = 0; wx <= limit; ++wx) {
        const long long c = cost(wx, wy, wz);
        if (c >= best_cost &&
            !(c == best_cost && std::tie(wz, wy, wx) < std::tie(best.z, best.y, best.x)))
          continue;
        if (!valid(wx, wy, wz)) continue;
        best = {wx, wy, wz};
        best_cost = c;
      }
  return best;
}

}  // namespace fgdd
