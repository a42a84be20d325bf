// What a factorization did: shifted pivots, fill and its timings, for the preconditioner's
// report. Every factorization (subdomain, global, structured) fills one.
#pragma once

#include "core/types.hpp"

namespace fgdd {

struct FactorReport {
  Offset shifted_pivots = 0;  // pivots replaced by the nonzero shift
  // Shift positive_definite: the largest α used (0: no shift was needed), the scalar rows whose
  // diagonal was shifted (every row of a shifted subdomain, or of the matrix), the subdomains
  // shifted (DD only), and the most shifted attempts one factorization took.
  double shift = 0;
  Offset shifted_rows = 0;
  Ordinal shifted_subdomains = 0;
  int shift_attempts = 0;
  Offset fill_entries = 0;  // blocks ILU(k) added to the dropped pattern
  // Subdomain factorization in level order: the bytes of the per-row update lists it keeps
  // (detail::EliminationStreams), 0 otherwise.
  Offset update_list_bytes = 0;
  double symbolic_seconds = 0;
  double numeric_seconds = 0;
};

}  // namespace fgdd
