// Triangular solves and the preconditioner apply z = U⁻¹ D⁻¹ L⁻¹ r on the subdomain factors of a
// SubdomainIlu0 (fine-grained-dd-sptrsv-gpu.txt §4: Algorithms 1 and 3, §4.2.3–4.4), CSR and
// BSR, one Kokkos team per subdomain. Vectors are in the partitioned ordering of the factors.
#pragma once

#include "core/team_scratch.hpp"
#include "factor/subdomain_ilu0.hpp"
#include "schedule/sliced_levels.hpp"
#include "schedule/subdomain_levels.hpp"
#include "trsv/split_triangles.hpp"
#include "trsv/trsv_options.hpp"

namespace fgdd {

namespace detail {
struct TrsvOperands;  // what the launches read (subdomain_trsv.cpp)
struct StepList;
}  // namespace detail

// The diagonal a triangular solve divides by: the pivot blocks D (through D⁻¹) or the identity.
enum class Diagonal { Pivots, Unit };

class SubdomainTrsv {
 public:
  // The level kernels' data (the lower and upper level sets, the factor blocks copied into
  // their edge order) is built on the device by the first solve that needs it; so is the
  // row-order kernels' (the two triangles split apart, split_triangles.hpp). After
  // factorization.numeric(...) the next solve notices (numeric_count) and gathers the new values
  // again; nothing else is redone. The factorization must outlive this. team_size: threads per
  // subdomain team; 0 chooses: on GPUs the ordered level kernels take detail::level_launch
  // of the levels' mean width, the sliced ones detail::row_team_size of their mean rows, the
  // others (and CPU backends) Kokkos::AUTO. Throws InvalidInput
  // for a negative team_size or one above what the backend allows for the one-lane fused apply
  // kernels (TeamPolicy::team_size_max: 1 on Serial), naming the allowed range; a launch of
  // another kernel (the lanes kernel) checks its own limit alike. Every solve and apply throws
  // DimensionMismatch when a vector's length differs from the factors' row count.
  // precision: what the apply kernels read the factor values in (FactorPrecision::Float: a
  // float copy, checked by check_factors_fit_float, which throws ZeroPivot for values beyond
  // float's range; triangular solve() then throws InvalidInput, it reads double only).
  SubdomainTrsv(const ExecSpace& space, const SubdomainIlu0& factorization, int team_size = 0,
                FactorPrecision precision = FactorPrecision::Double);

  // x = T⁻¹ r with T the lower (or upper) triangle of the factors: the strictly triangular blocks
  // plus D (Diagonal::Pivots) or I (Diagonal::Unit). r and x do not alias. The exception is
  // DagEcLdsUd with Diagonal::Pivots, the ILDU0 form of the paper's dag_ec_lds_ud: it treats the
  // triangle as unit and scales by D⁻¹ once, after the lower solve (T = L·D) or before the upper
  // one (T = D·U).
  void solve(const ExecSpace& space, Triangle triangle, Diagonal diagonal, TriangularKernel kernel,
             ConstVector r, Vector x) const;

  // z = M⁻¹ r: M = L D U for Ildu0 factors, M = L U for Ilu0 factors (same M, other scaling).
  // r and z do not alias.
  void apply(const ExecSpace& space, ApplyKernel kernel, ConstVector r, Vector z) const;

  // z = M⁻ᵀ r (for BiCG), fused in one launch: in row order where kernel resolves to
  // RowOrderFused, else edge-centric with the level sets read in reverse.
  void apply_transpose(const ExecSpace& space, ApplyKernel kernel, ConstVector r, Vector z) const;

  // Builds (or, after numeric(), refreshes) what kernel reads now rather than in its first
  // apply, so that setup and refactorization times include it.
  void prepare(const ExecSpace& space, ApplyKernel kernel) const;

  // Whether the level sets exist (the level kernels' setup or a solve built them); the
  // row-order kernels never build them.
  bool levels_built() const noexcept { return has_levels(); }
  // Seconds spent building both triangles' level sets, 0 while no solve has needed them.
  double level_seconds() const noexcept {
    return has_levels() ? lower_.seconds + upper_.seconds : 0.0;
  }
  // The level sets of a triangle (built now if no solve needed them yet).
  const SubdomainLevels& levels(const ExecSpace& space, Triangle triangle) const {
    build_levels(space);
    return triangle == Triangle::Lower ? lower_ : upper_;
  }
  // Strictly triangular entries a level lists, on average over both triangles' levels of
  // every subdomain (builds the levels if no solve needed them yet).
  double mean_level_entries(const ExecSpace& space) const;
  // Padded entries the sliced kernels store per strictly triangular entry (1: no padding; 0
  // while no sliced kernel has run).
  double sliced_padding() const noexcept;
  // Bytes of team scratch the largest subdomain's vector slice needs, and the level it lives in:
  // 0 when it fits the fast per-team scratch, 1 otherwise (backed by global memory: slower,
  // never wrong). The spin loop adds an int done flag per row and may land on level 1 alone.
  std::size_t slice_bytes() const noexcept { return slice_bytes_; }
  int scratch_level() const noexcept { return detail::team_scratch_for(slice_bytes_).level; }
  FactorPrecision precision() const noexcept { return precision_; }

 private:
  const SubdomainIlu0* factorization_;
  int team_size_ = 0;
  FactorPrecision precision_ = FactorPrecision::Double;
  int lanes_ = 1;  // vector lanes of the Lanes traversal
  std::size_t slice_bytes_ = 0;
  std::size_t spin_bytes_ = 0;
  // The level kernels' data, built by the first solve that needs it; the factor blocks in edge
  // order (both triangles; see SubdomainLevels) are refreshed after each numeric().
  bool has_levels() const noexcept { return upper_.level_ptr.is_allocated(); }
  mutable SubdomainLevels lower_;
  mutable SubdomainLevels upper_;
  mutable Kokkos::View<Scalar*, DeviceType> edge_values_;
  mutable std::uint64_t gathered_count_ = 0;
  mutable int ordered_team_size_ = 0;  // the ordered kernel's chosen team size (0: not yet)
  // FactorPrecision::Float: the blocks in edge order and D⁻¹ rounded to float (edge_values_
  // stays empty), refreshed after each numeric() like the double copy.
  mutable Kokkos::View<float*, DeviceType> edge_values_single_;
  mutable Kokkos::View<float*, DeviceType> inv_diag_single_;
  mutable std::uint64_t inv_diag_count_ = 0;
  // The sliced kernels' data (both triangles' padded columns, the factor blocks in their
  // order, in the precision the apply reads), built by the first of them, refreshed after each
  // numeric().
  mutable SlicedLevels lower_sliced_;
  mutable SlicedLevels upper_sliced_;
  mutable Kokkos::View<Scalar*, DeviceType> lower_sliced_values_;
  mutable Kokkos::View<Scalar*, DeviceType> upper_sliced_values_;
  mutable Kokkos::View<float*, DeviceType> lower_sliced_values_single_;
  mutable Kokkos::View<float*, DeviceType> upper_sliced_values_single_;
  mutable std::uint64_t sliced_count_ = 0;
  mutable int sliced_team_size_ = 0;  // the sliced kernel's chosen team size (0: not yet)
  mutable int held_team_max_ = -1;    // the two-entry ordered launch's limit (-1: not asked)
  void refresh_sliced_values(const ExecSpace& space) const;
  // The row-order kernels' data, built by the first of them, refreshed after each numeric().
  mutable SplitTriangles split_;
  mutable std::uint64_t split_count_ = 0;
  const SplitTriangles& split(const ExecSpace& space) const;
  void build_levels(const ExecSpace& space) const;
  double mean_entries_built() const;  // mean_level_entries of the levels built (0: none yet)
  void refresh_edge_values(const ExecSpace& space) const;
  // The edge rows (fill_edge_rows) the kernels that add into rows by edge read, built once.
  void need_edge_rows(const ExecSpace& space) const;
  // Float: checks that the factors fit float (check_factors_fit_float), then rounds D⁻¹ into
  // inv_diag_single_, once per numeric(); round_inv_diag rounds without the check.
  void refresh_inv_diag_single(const ExecSpace& space) const;
  void round_inv_diag(const ExecSpace& space) const;
  detail::TrsvOperands operands() const;
  void launch_row_order(const ExecSpace& space, const detail::StepList& steps, ConstVector r,
                        Vector z, const char* label) const;
};

}  // namespace fgdd
