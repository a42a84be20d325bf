// The per-entry constants of a stencil that the structured ILU's kernels read at every point,
// held by value in the launches' functors (struct_kernels.hpp) rather than in device memory.
#pragma once

#include "core/kokkos_compat.hpp"
#include "struct/structured_matrix.hpp"

namespace fgdd::detail {

// On CUDA a functor lives in constant memory, so these reads take the constant cache. From a View
// they went to L2 after every acquire (which drops L1), and each entry's in-grid test and
// neighbour address waited on them before the next entry's loads could issue: a sweep's level
// cost grew with its entries (docs/PERFORMANCE.md has the solves before and after).
struct StructEntryTable {
  static constexpr int capacity = 128;                    // entries: a radius-2 box has 125
  Kokkos::Array<signed char, capacity> dx{}, dy{}, dz{};  // |component| <= Stencil::max_radius
  Kokkos::Array<long long, capacity> linear{};            // dx + nx·(dy + ny·dz)
};

// Throws InvalidInput naming the stencil when it has more entries than the table holds.
void check_entry_capacity(const Stencil& stencil);

// The table of stencil on grid; check_entry_capacity first.
StructEntryTable make_entry_table(const Stencil& stencil, const GridInfo& grid);

}  // namespace fgdd::detail
