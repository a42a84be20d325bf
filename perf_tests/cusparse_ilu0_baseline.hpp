// cuSPARSE's own ILU(0), the way its documentation pairs it with a Krylov method: csrilu02
// (analysis + factorization in place on a copy of the values) and the generic SpSV for the unit
// lower and the upper triangle of the same CSR arrays. The peer the issues quote for setup
// ("cuSPARSE ILU0: csrilu02 + SpSV analysis"). Only with the Cuda backend and Kokkos-Kernels'
// cuSPARSE TPL (which links cuSPARSE); benchmarks only.
#pragma once

#include "kk_ilu0_baseline.hpp"

#include <memory>

namespace fgdd::bench {

// csrilu02 + SpSV on A (scalar CSR, 32-bit indices). Throws std::runtime_error naming the
// cuSPARSE call and status that failed, or the row of a zero pivot; std::invalid_argument where
// cuSPARSE is not built in.
std::unique_ptr<VendorIlu0> make_cusparse_ilu0(const SparseMatrix& A);

}  // namespace fgdd::bench
