// The inverse-based multilevel ILU on the device (ilupack-gpu-data-parallel.txt §2.1, eq. 5):
// set up on the host (multilevel_setup.hpp), uploaded once, applied with no host work but the
// launches. Per level: gather and scale r, the exact lower solve with L_B (trsv/global_trsv:
// level sets on GPUs, rows in order on CPUs), y_C −= L_C y_B, D_B⁻¹, the next level on y_C,
// x_B −= U_F x_C, the upper solve with U_B, scatter and scale (MultilevelCouplings::Original:
// x_B = (L_B D_B U_B)⁻¹ r_B, y_C = r_C − A_CB x_B, the next level, x_B = (L_B D_B U_B)⁻¹ (r_B −
// A_BC x_C)); the last Schur complement, when any is left, is a dense inverse applied as a
// matrix-vector product. Every step is a fixed-order sum, so the apply is bitwise reproducible
// run to run.
#pragma once

#include "multilevel/multilevel_options.hpp"
#include "multilevel/multilevel_setup.hpp"
#include "trsv/global_trsv.hpp"

#include <memory>
#include <string>
#include <vector>

namespace fgdd {

// What the setup did, per level and in all.
struct MultilevelLevelReport {
  Ordinal rows = 0;        // the level's size
  Ordinal accepted = 0;    // pivots in its leading block B
  Ordinal deferred = 0;    // rejected pivots: the next level's size
  Offset factor_entries = 0;    // nnz of L_B + D_B + U_B
  Offset coupling_entries = 0;  // nnz of L_C + U_F (Original couplings: of A_CB + A_BC)
  Offset shifted = 0;      // tiny pivots shifted (the last level, which accepts every pivot)
  Ordinal lower_levels = 0;  // level sets of L_B and U_B (launches per solve on GPUs); 0 where
  Ordinal upper_levels = 0;  // the sweeps run in row order (CPU backends) and build none
  double seconds = 0;      // host setup time of the level
};

struct MultilevelReport {
  std::vector<MultilevelLevelReport> levels;
  Ordinal dense_rows = 0;       // the last Schur complement, inverted densely (0: none)
  Offset dense_shifted = 0;
  double dense_seconds = 0;
  Offset matrix_entries = 0;    // nnz(A) in scalar entries
  double fill_ratio = 0;        // (all factor, coupling and dense entries) / nnz(A)
  double host_seconds = 0;      // the whole host setup
  double upload_seconds = 0;    // building the device levels (level sets included)
  // A setup from a previous one (new values, same pattern): it reused the previous levels'
  // orders, and pivots_held says whether every level deferred the same pivots as before.
  bool from_previous = false;
  bool pivots_held = false;
  std::string summary() const;  // one line: levels, sizes, fill
};

namespace detail {
struct MultilevelDeviceLevel;
}

class MultilevelIlu {
 public:
  // A: any SparseMatrix (BSR is factored by its scalar entries). with_transpose: also upload the
  // transposed factors, for apply_transpose (BiCG); twice the device memory. Throws InvalidInput
  // for invalid options.
  MultilevelIlu(const ExecSpace& space, const SparseMatrix& A, const MultilevelIluOptions& options,
                bool with_transpose = false);
  // New values of previous's pattern: the same setup, reusing previous's fill-reducing orders
  // (no nested dissection again); report() says whether the pivot sets held.
  MultilevelIlu(const ExecSpace& space, const SparseMatrix& A, const MultilevelIlu& previous);
  ~MultilevelIlu();
  MultilevelIlu(MultilevelIlu&&) noexcept;
  MultilevelIlu& operator=(MultilevelIlu&&) noexcept;

  // z = M⁻¹ r. r and z have A's row count and do not alias. Throws DimensionMismatch.
  void apply(const ExecSpace& space, ConstVector r, Vector z) const;
  // z = M⁻ᵀ r: eq. (5) transposed, the same steps on the transposed factors (U_Bᵀ, then L_Bᵀ),
  // coupling blocks (U_Fᵀ, L_Cᵀ), scalings swapped and the dense inverse transposed. Throws
  // InvalidInput unless constructed with_transpose, DimensionMismatch as apply.
  void apply_transpose(const ExecSpace& space, ConstVector r, Vector z) const;
  bool has_transpose() const noexcept { return with_transpose_; }

  Offset num_rows() const noexcept { return n_; }
  const MultilevelReport& report() const noexcept { return report_; }

 private:
  using DenseInverse = Kokkos::View<Scalar**, Kokkos::LayoutRight, DeviceType>;
  void check_lengths(ConstVector r, Vector z) const;
  // Level index of M⁻¹ (levels_) or M⁻ᵀ (transposed_) on r into z.
  void apply_level(const ExecSpace& space,
                   const std::vector<std::unique_ptr<detail::MultilevelDeviceLevel>>& levels,
                   const DenseInverse& dense, std::size_t index, ConstVector r, Vector z) const;

  MultilevelIlu(const ExecSpace& space, const SparseMatrix& A, const MultilevelIluOptions& options,
                bool with_transpose, const detail::MultilevelHostSetup* previous);

  Offset n_ = 0;
  MultilevelIluOptions options_;
  bool with_transpose_ = false;
  // Each level's order, accepted count and factored order (nothing else): what a setup with new
  // values reuses and compares against.
  std::unique_ptr<detail::MultilevelHostSetup> pivot_sets_;
  std::vector<std::unique_ptr<detail::MultilevelDeviceLevel>> levels_;
  std::vector<std::unique_ptr<detail::MultilevelDeviceLevel>> transposed_;
  Ordinal dense_n_ = 0;
  DenseInverse dense_inverse_;
  DenseInverse dense_inverse_transposed_;
  MultilevelReport report_;
};

}  // namespace fgdd
