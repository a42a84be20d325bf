// Serial reference ILU(k) on the host with dense bookkeeping (Saad, Iterative Methods, Alg. 10.5
// for the levels; IKJ on the kept pattern for the values): obviously correct, for small matrices.
#pragma once

#include "reference/reference_ilu0.hpp"

namespace fgdd::reference {

// The ILU(k) factors of A in the level-of-fill pattern: strict lower = L (unit diagonal
// implicit), diagonal and upper = U, unscaled; columns sorted in every row.
HostBlockCsr iluk(const HostBlockCsr& A, int level_of_fill);

}  // namespace fgdd::reference
