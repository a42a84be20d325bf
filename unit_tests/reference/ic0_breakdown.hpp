// Symmetric positive definite matrices on which IC(0) (and ILU(0)) meets a negative pivot: the
// inputs of the positive-definite shift tests.
#pragma once

#include "core/matrix_build.hpp"

namespace fgdd::reference {

// Kershaw's 4×4 example (J. Comput. Phys. 26, 1978): SPD, but IC(0) on its own pattern (a cycle
// 0-1-2-3-0) gives pivots 3, 5/3, 3/5, −5. A shift of α = 1/8 (times each row's 1-norm) is the
// smallest power of two that makes every pivot positive. With block_size > 1: K ⊗ B for the SPD
// b×b block B = I + 0.1·(ones − I), so the last pivot block is −5·B.
HostMatrixArrays kershaw(int block_size = 1);

// A 6×6-point grid (x fastest) with a 9-point stencil: 1 on the diagonal, −0.3 to the x
// neighbours, −0.2 to the y neighbours, −0.2 to (x ± 1, y ± 1) and +0.2 to (x ∓ 1, y ± 1). SPD
// (smallest eigenvalue 0.0214), but IC(0) gives −0.378 as the last point's pivot; with α·‖row‖₁
// added to the diagonal the smallest pivot is −0.095 at α = 2⁻¹⁰ and +0.075 at α = 2⁻⁹. Found by
// a search over the stencil's signs; larger grids of it are indefinite.
HostMatrixArrays ic0_breakdown_grid();
constexpr int ic0_breakdown_grid_side = 6;

}  // namespace fgdd::reference
