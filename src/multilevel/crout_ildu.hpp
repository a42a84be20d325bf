// One level of the inverse-based multilevel ILU (ilupack-gpu-data-parallel.txt §2.1, eq. 4):
// a Crout incomplete L D U of a scaled, reordered matrix in which a pivot is accepted only while
// the running estimates of ‖L⁻¹‖ and ‖U⁻¹‖ stay below κ (Bollhöfer's estimator: the solution of
// L x = b with b = ±1 chosen greedily). Rejected rows and columns are deferred: with the accepted
// set B and the deferred set C,
//   P A Pᵀ = [A_BB A_BC; A_CB A_CC] ≈ [L_B 0; L_C I] [D_B 0; 0 S_C] [U_B U_F; 0 I],
// and S_C = A_CC − L_C D_B U_F, the approximate Schur complement the next level factors.
// Host code: the first version of issue 36 sets up on the host.
#pragma once

#include "multilevel/host_csr.hpp"

#include <vector>

namespace fgdd::detail {

struct CroutOptions {
  double drop_tolerance = 1e-2;  // τ: entries of L and U below τ / ‖row of L⁻¹ (U⁻¹)‖ dropped
  double inverse_bound = 5;         // κ
  double schur_drop = 1e-3;         // S_C entries below this times their row's largest dropped
                                    // (the multilevel setup passes τ / 10)
  bool accept_all = false;          // no deferral (the last level); tiny pivots are shifted
  int subtree_depth = -1;           // independent subtrees swept at once: -1 as many as the host's
                                    // threads use, 0 none (the same bits either way)
  Ordinal min_subtree_rows = 4096;  // smaller ones are swept by their parent: a submatrix copy
                                    // and a sweep's setup cost about as much as sweeping them
};

struct CroutFactors {
  std::vector<Ordinal> accepted;  // B: positions in A, ascending (B numbering follows it)
  std::vector<Ordinal> deferred;  // C: the same
  HostCsr L;                      // |B|×|B|, strictly lower; L_B's unit diagonal implied
  std::vector<Scalar> d;          // D_B
  HostCsr U;                      // |B|×|B|, strictly upper; U_B's unit diagonal implied
  HostCsr LC;                     // L_C: |C|×|B|
  HostCsr UF;                     // U_F: |B|×|C|
  HostCsr S;                      // S_C: |C|×|C|, every row holding its diagonal
  Offset shifted = 0;             // accept_all: tiny pivots replaced by ±τ·‖row‖∞
};

// A: square, sorted columns. The factors satisfy the relation above up to the dropped entries.
CroutFactors crout_ildu(const HostCsr& A, const CroutOptions& options);

}  // namespace fgdd::detail
