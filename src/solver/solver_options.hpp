// Everything a Solver needs to know, in one struct that code fills directly or from "key=value"
// strings (a config file, a command line: fgdd-solve fills it the same way).
#pragma once

#include "precond/dd_ilu_preconditioner.hpp"
#include "krylov/krylov_method.hpp"
#include "multilevel/multilevel_options.hpp"
#include "partition/partition_options.hpp"
#include "struct/struct_ilu0.hpp"
#include "trsv/global_trsv.hpp"
#include "trsv/jacobi_trsv.hpp"

#include <string>
#include <vector>

namespace fgdd {

// How ILU preconditioners solve their triangles: exactly (level sets or the DD kernels) or
// approximately by block-asynchronous Jacobi (no level analysis).
enum class TrsvMethod { Exact, Jacobi };
inline const auto trsv_method_names = make_enum_names<TrsvMethod>(
    "triangular solve method", {{TrsvMethod::Exact, "exact"}, {TrsvMethod::Jacobi, "jacobi"}});

enum class PreconditionerKind {
  Ildu0Dd,     // ILDU0 of the subdomain blocks (the fgdd method; default)
  Ilu0Dd,      // the same M stored as ILU0
  Ic0Dd,       // L D Lᵀ of the subdomain blocks, symmetric A
  Ilu0,        // exact global ILU0, applied level by level
  Ildu0,       // the same, ILDU0 scaling
  StructIlu0,  // exact ILU(0) on a structured grid (needs grid metadata), wavefront sweeps
  StructIc0,   // the same as IC(0), L D Lᵀ, symmetric A
  MultilevelIlu,  // inverse-based multilevel ILU (ILUPACK's): robust on hard systems
  Jacobi,      // point / block Jacobi
  None,
};

// Traits of the preconditioner table, for the option checks.
enum PreconditionerTrait : unsigned {
  ilu_factors = 1u << 0,        // triangular factors (what trsv jacobi sweeps)
  exact_sweeps_only = 1u << 1,  // no trsv jacobi: its own sweeps are the exact solve
  transpose_apply = 1u << 2,    // applies M⁻ᵀ (what bicg needs)
  subdomain_factors = 1u << 3,  // factors the subdomains' diagonal blocks (the DD ones)
};

inline const auto preconditioner_names = make_enum_names<PreconditionerKind>(
    "preconditioner",
    {{PreconditionerKind::Ildu0Dd, "ildu0-dd", ilu_factors | transpose_apply | subdomain_factors},
     {PreconditionerKind::Ilu0Dd, "ilu0-dd", ilu_factors | transpose_apply | subdomain_factors},
     {PreconditionerKind::Ic0Dd, "ic0-dd", ilu_factors | transpose_apply | subdomain_factors},
     {PreconditionerKind::Ilu0, "ilu0", ilu_factors},
     {PreconditionerKind::Ildu0, "ildu0", ilu_factors},
     {PreconditionerKind::StructIlu0, "struct-ilu0", ilu_factors | exact_sweeps_only},
     {PreconditionerKind::StructIc0, "struct-ic0", ilu_factors | exact_sweeps_only},
     {PreconditionerKind::MultilevelIlu, "multilevel-ilu", transpose_apply},
     {PreconditionerKind::Jacobi, "jacobi", transpose_apply},
     {PreconditionerKind::None, "none", transpose_apply}});

const char* to_string(PreconditionerKind kind) noexcept;

struct SolverOptions {
  KrylovMethod method = KrylovMethod::Bicgstab;
  PreconditionerKind preconditioner = PreconditionerKind::Ildu0Dd;
  // Partitioner auto means natural (the caller's order) for ilu0/ildu0 (partition_options_for).
  PartitionOptions partition;
  // Factor options (pivots and their shift, fill level), apply kernel and team size of the DD
  // preconditioners; the pivot options also serve ilu0/ildu0 and struct-ilu0/struct-ic0.
  // dd.factor.form is set from preconditioner.
  DdIluOptions dd;
  // How ilu0 / ildu0 (global) sweep their triangles: level by level or synchronization-free.
  GlobalRowKernel global_kernel = GlobalRowKernel::Auto;
  // How struct-ilu0 / struct-ic0 walk their wavefront levels.
  StructSchedule struct_schedule = StructSchedule::Auto;
  StructLayout struct_layout = StructLayout::Auto;  // for struct_schedule tiles
  StructFactorLaunch struct_factor_launch;          // lanes and team threads; 0s: chosen
  // Exact triangular solves, or Jacobi ones with the jacobi options (ILU preconditioners only).
  TrsvMethod trsv = TrsvMethod::Exact;
  JacobiTrsvOptions jacobi;
  // The multilevel ILU's drop tolerance, inverse bound, coarsest size, levels and ordering.
  MultilevelIluOptions multilevel;
  KrylovOptions krylov;

  // Sets one option from text. Keys: method (bicgstab|gmres|cg|bicg), preconditioner
  // (ildu0-dd|ilu0-dd|ic0-dd|ilu0|ildu0|struct-ilu0|struct-ic0|multilevel-ilu|jacobi|none),
  // partitioner, subdomain_rows, subdomain_order (auto|partitioner|levels|colours|rcm: the rows'
  // order inside each subdomain of the DD preconditioners, PartitionOptions::row_order), apply,
  // fill, shift_pivots (true|false: shift nonzero), shift
  // (none|nonzero|positive_definite, FactorOptions::shift), shift_amount (the first α of
  // positive_definite), pivot_threshold, team_size, factor_precision (double|float|auto: what the
  // DD apply reads the factors in; resolve_factor_precision), factor_order (auto|levels|rows:
  // the subdomain factorization's order, FactorOptions::order),
  // global_kernel (auto|thread|lanes|sync_free|row_order), struct_schedule (auto|levels|
  // level_counters|sync_free|tiles), struct_layout (auto|grid|level), struct_factor_lanes,
  // struct_factor_threads (StructFactorLaunch; 0: chosen), trsv (exact|jacobi, or an
  // apply kernel name, which also means exact), jacobi_sweeps, jacobi_iters, overlap,
  // jacobi_block_rows, multilevel_drop_tol, multilevel_inverse_bound, multilevel_coarsest,
  // multilevel_max_levels, multilevel_ordering (auto|nd|rcm|natural), multilevel_couplings
  // (factored|original), tol, abs_tol, max_iters,
  // restart, ortho (cgs2|mgs), stagnation. Throws InvalidInput naming the key and the value.
  void set(const std::string& key, const std::string& value);
  // Applies "key=value" items in order.
  void set_all(const std::vector<std::string>& key_values);
  // The keys set() accepts, for help texts.
  static std::vector<std::string> keys();
  // Whether a key of keys() sets the Krylov method or its stopping rules rather than the
  // preconditioner (for adapters whose Krylov method is someone else's, trilinos/).
  static bool is_krylov_key(const std::string& key);
  // Every key of keys() as "key=value", in that order: set_all(key_values()) on default options
  // gives these options back (the monitor aside). For logs, and for ranks comparing options.
  std::vector<std::string> key_values() const;
  // Throws InvalidInput naming the first inconsistent field.
  void validate() const;
};

}  // namespace fgdd
