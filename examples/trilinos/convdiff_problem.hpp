// A 3-D convection–diffusion problem assembled the way a Trilinos application assembles its
// matrix: each rank inserts its own rows (a contiguous slab of the n³ grid) by global index.
#pragma once

#include "trilinos/tpetra_types.hpp"

#include <Teuchos_Comm.hpp>

namespace fgdd_example {

using fgdd::trilinos::CrsMatrix;
using fgdd::trilinos::GlobalOrdinal;

// −Δu + β·∇u on the unit cube, 7-point stencil, first-order upwind convection with
// β = peclet · (1, 0.5, 0.25) and grid spacing h = 1/(n + 1); Dirichlet boundaries folded in.
Teuchos::RCP<CrsMatrix> convection_diffusion(const Teuchos::RCP<const Teuchos::Comm<int>>& comm,
                                             GlobalOrdinal n, double peclet);

// Adds `shift` to every diagonal entry in place (the next time step of the same pattern).
void shift_diagonal(CrsMatrix& A, double shift);

}  // namespace fgdd_example
