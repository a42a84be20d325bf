#include "struct/entry_table.hpp"

#include "core/errors.hpp"

#include <string>

namespace fgdd::detail {

void check_entry_capacity(const Stencil& stencil) {
  if (stencil.size() > StructEntryTable::capacity)
    throw InvalidInput("the structured ILU takes stencils of at most " +
                       std::to_string(StructEntryTable::capacity) + " entries; " + stencil.name() +
                       " has " + std::to_string(stencil.size()));
}

StructEntryTable make_entry_table(const Stencil& stencil, const GridInfo& grid) {
  check_entry_capacity(stencil);
  StructEntryTable table;
  for (int e = 0; e < stencil.size(); ++e) {
    const StencilOffset& o = stencil.offsets()[e];
    table.dx[e] = static_cast<signed char>(o.dx);
    table.dy[e] = static_cast<signed char>(o.dy);
    table.dz[e] = static_cast<signed char>(o.dz);
    table.linear[e] = o.dx + (long long)grid.nx * (o.dy + (long long)grid.ny * o.dz);
  }
  return table;
}

}  // namespace fgdd::detail
