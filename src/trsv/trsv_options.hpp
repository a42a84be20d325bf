// Which kernel runs a subdomain triangular solve or a preconditioner apply. Names follow
// fine-grained-dd-sptrsv-gpu.txt §5 (Tables 5.2 and 5.3) so results can be compared with it.
#pragma once

#include "core/enum_names.hpp"

#include <string>

namespace fgdd {

// One triangle (lower or upper) of the subdomain factors, one Kokkos team per subdomain.
enum class TriangularKernel {
  SpinLoopLds,      // synchronization-free: done flags in team scratch, rows in ascending order
  DagEcNoLds,       // level by level, threads over the level's nonzeros, vector in global memory
  DagEcLds,         // level by level, threads over the level's nonzeros, vector slice in scratch
  DagEcLdsUd,       // DagEcLds on the unit triangle, the D⁻¹ scaling deferred to one pass (ILDU0
                    // form: with Diagonal::Pivots it solves with L·D (lower) or D·U (upper))
  DagVcLds,         // level by level, one thread per row of the level (deterministic)
  DagLanesLds,      // level by level, a row per thread, its entries over vector lanes summed in a
                    // fixed order (deterministic)
  DagEcOrderedLds,  // level by level, threads over the level's nonzeros store their products
                    // in scratch, then a thread per row subtracts them in order (deterministic)
  DagVcSlicedLds,   // level by level, one thread per row of the level, the level's entries
                    // stored as padded columns so the loads coalesce (deterministic)
  RowOrder,         // no levels: one thread per subdomain sweeps its rows in order (deterministic;
                    // for CPUs, where a thread owns its subdomain)
};

// z = M⁻¹ r for the subdomain ILU0 / ILDU0 preconditioner.
enum class ApplyKernel {
  Auto,            // resolve_auto: DagEcOrderedIlduFused on GPUs, RowOrderFused on CPUs
  DagEcIldU0,      // two launches: lower solve with diagonal scaling, then the upper solve
  DagVcIlduFused,  // one launch: lower, D⁻¹, upper; one thread per row (deterministic)
  DagEcIlduFused,  // one launch: lower, D⁻¹, upper; threads over nonzeros (atomics in scratch)
  DagLanesIlduFused,      // one launch: lower, D⁻¹, upper; a row per thread, its nonzeros over
                          // vector lanes summed in a fixed order (deterministic)
  DagEcOrderedIlduFused,  // one launch: lower, D⁻¹, upper; threads over nonzeros, products
                          // summed per row in a fixed order (deterministic, no atomics)
  DagVcSlicedIlduFused,   // one launch: lower, D⁻¹, upper; one thread per row, the level's
                          // entries as padded columns (deterministic, coalesced)
  RowOrderFused,  // one launch: lower, D⁻¹, upper; one thread per subdomain, rows in order,
                  // no level sets built (deterministic; the team size does not apply)
};

// The precision of the factor values the DD apply kernels read. The factorization, the vectors
// and all arithmetic stay double; Float keeps the apply's own copy of the factors (the blocks in
// the kernels' order and D⁻¹) in float, which halves the bytes of values the apply streams.
// Auto: the DD preconditioner picks (resolve_factor_precision in dd_ilu_preconditioner.hpp);
// a SubdomainTrsv takes Double or Float only.
enum class FactorPrecision { Double, Float, Auto };

inline const auto factor_precision_names = make_enum_names<FactorPrecision>(
    "factor precision", {{FactorPrecision::Double, "double"},
                         {FactorPrecision::Float, "float"},
                         {FactorPrecision::Auto, "auto"}});

// Traits of the kernel tables, for tests and benchmarks that select kernels.
enum KernelTrait : unsigned {
  // Adds in a fixed order (no atomics): the same bits on every run, for a fixed team size.
  deterministic_kernel = 1u << 0,
};

inline const auto triangular_kernel_names = make_enum_names<TriangularKernel>(
    "triangular solve kernel",
    {{TriangularKernel::SpinLoopLds, "spin_loop_lds"},
     {TriangularKernel::DagEcNoLds, "dag_ec_no_lds"},
     {TriangularKernel::DagEcLds, "dag_ec_lds"},
     {TriangularKernel::DagEcLdsUd, "dag_ec_lds_ud"},
     {TriangularKernel::DagVcLds, "dag_vc_lds", deterministic_kernel},
     {TriangularKernel::DagLanesLds, "dag_lanes_lds", deterministic_kernel},
     {TriangularKernel::DagEcOrderedLds, "dag_ec_ordered_lds", deterministic_kernel},
     {TriangularKernel::DagVcSlicedLds, "dag_vc_sliced_lds", deterministic_kernel},
     {TriangularKernel::RowOrder, "row_order", deterministic_kernel}});

// Auto is first: loops over the table skip it where it would repeat the kernel it stands for.
inline const auto apply_kernel_names = make_enum_names<ApplyKernel>(
    "preconditioner apply kernel",
    {{ApplyKernel::Auto, "auto"},
     {ApplyKernel::DagEcIlduFused, "dag_ec_ILDU0_fused"},
     {ApplyKernel::DagVcIlduFused, "dag_vc_ILDU0_fused", deterministic_kernel},
     {ApplyKernel::DagLanesIlduFused, "dag_lanes_ILDU0_fused", deterministic_kernel},
     {ApplyKernel::DagEcOrderedIlduFused, "dag_ec_ordered_ILDU0_fused", deterministic_kernel},
     {ApplyKernel::DagVcSlicedIlduFused, "dag_vc_sliced_ILDU0_fused", deterministic_kernel},
     {ApplyKernel::DagEcIldU0, "dag_ec_ILD_U0"},
     {ApplyKernel::RowOrderFused, "row_order_ILDU0_fused", deterministic_kernel}});

// The kernel Auto stands for on the default execution space: on GPUs the edge-centric kernel
// with ordered row sums (bitwise reproducible; docs/PERFORMANCE.md, "A reproducible default
// apply"), on CPU backends row order, where a thread owns a subdomain and level sets would cost
// setup time for no parallelism. Both are deterministic. Other kernels come back as given.
ApplyKernel resolve_auto(ApplyKernel kernel);

std::string to_string(TriangularKernel kernel);
std::string to_string(ApplyKernel kernel);
std::string to_string(FactorPrecision precision);
// Accepts the paper's names ("dag_ec_lds", "dag_ec_ILDU0_fused", ...) and "auto"; throws
// InvalidInput listing the valid names.
TriangularKernel parse_triangular_kernel(const std::string& name);
ApplyKernel parse_apply_kernel(const std::string& name);

}  // namespace fgdd
