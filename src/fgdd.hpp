// fgdd: fine-grained domain decomposition ILU-preconditioned Krylov solvers on Kokkos.
// The umbrella header, installed as <fgdd/fgdd.hpp>.
#pragma once

#include "core/errors.hpp"
#include "core/generators.hpp"
#include "core/matrix_build.hpp"
#include "core/matrix_market.hpp"
#include "core/sparse_matrix.hpp"
#include "core/spmv.hpp"
#include "core/types.hpp"
#include "factor/factor_options.hpp"
#include "factor/subdomain_ilu0.hpp"
#include "krylov/bicgstab.hpp"
#include "krylov/block_jacobi.hpp"
#include "krylov/dd_ilu_preconditioner.hpp"
#include "krylov/krylov_options.hpp"
#include "krylov/preconditioner.hpp"
#include "krylov/solve_result.hpp"
#include "partition/partition.hpp"
#include "partition/partition_matrix.hpp"
#include "partition/partition_options.hpp"
#include "partition/reorder.hpp"
#include "trsv/subdomain_levels.hpp"
#include "trsv/subdomain_trsv.hpp"
#include "trsv/trsv_options.hpp"

#define FGDD_VERSION "0.1.0"
