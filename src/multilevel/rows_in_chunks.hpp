// A host CSR whose rows are independent, built in chunks of rows on the host execution space's
// threads and joined in order: the same arrays as one loop over the rows, whatever the threads.
#pragma once

#include "core/host_tasks.hpp"
#include "multilevel/host_csr.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <vector>

namespace fgdd::detail {

// Rows [0, count) with `cols` columns: make_row(r, scratch, out) appends row r to out (push
// and end_row), with scratch one per chunk from make_scratch().
template <class MakeScratch, class MakeRow>
HostCsr rows_in_chunks(Ordinal count, Ordinal cols, MakeScratch make_scratch, MakeRow make_row) {
  const int threads = Kokkos::DefaultHostExecutionSpace().concurrency();
  const Ordinal chunks = std::min<Ordinal>(count, threads > 1 ? 4 * threads : 1);
  std::vector<HostCsr> parts(std::max<Ordinal>(chunks, 1));
  for (HostCsr& part : parts) part.cols = cols;
  run_host_tasks("fgdd::multilevel::rows_in_chunks", std::size_t(chunks), [&](std::size_t c) {
    auto scratch = make_scratch();
    const Ordinal first = Ordinal(Offset(count) * c / chunks);
    const Ordinal last = Ordinal(Offset(count) * (c + 1) / chunks);
    for (Ordinal r = first; r < last; ++r) make_row(r, scratch, parts[c]);
  });
  if (parts.size() == 1) return std::move(parts[0]);
  HostCsr joined;
  joined.cols = cols;
  Offset entries = 0;
  for (const HostCsr& part : parts) entries += part.nnz();
  joined.ptr.reserve(std::size_t(count) + 1);
  joined.col.reserve(entries);
  joined.val.reserve(entries);
  for (const HostCsr& part : parts) {
    const Offset base = joined.nnz();
    for (Ordinal r = 0; r < part.rows; ++r) joined.ptr.push_back(base + part.ptr[r + 1]);
    joined.col.insert(joined.col.end(), part.col.begin(), part.col.end());
    joined.val.insert(joined.val.end(), part.val.begin(), part.val.end());
    joined.rows += part.rows;
  }
  return joined;
}

}  // namespace fgdd::detail
