// rocSPARSE's own ILU(0), the AMD counterpart of cusparse_ilu0_baseline.hpp: csrilu0 (analysis +
// factorization in place on a copy of the values) and csrsv for the unit lower and the upper
// triangle of the same CSR arrays, all sharing one analysis (mat_info) as rocSPARSE's own
// preconditioned-solver example does. Only with the HIP backend and rocSPARSE found by CMake
// (FGDD_HAVE_ROCSPARSE); benchmarks only. Compiled by scripts/check_hip.sh; not yet run on an
// AMD GPU.
#pragma once

#include "kk_ilu0_baseline.hpp"

#include <memory>

namespace fgdd::bench {

#if defined(FGDD_HAVE_ROCSPARSE) && defined(KOKKOS_ENABLE_HIP)
constexpr bool rocsparse_available = true;
#else
constexpr bool rocsparse_available = false;
#endif

// csrilu0 + csrsv on A (scalar CSR, 32-bit indices). Throws std::runtime_error naming the
// rocSPARSE call and status that failed, or the row of a zero pivot; std::invalid_argument where
// rocSPARSE is not built in.
std::unique_ptr<VendorIlu0> make_rocsparse_ilu0(const SparseMatrix& A);

}  // namespace fgdd::bench
