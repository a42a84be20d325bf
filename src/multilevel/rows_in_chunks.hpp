// A host CSR whose rows are independent, built in chunks of rows on the host execution space's
// threads and joined in order: the same arrays as one loop over the rows, whatever the threads.
#pragma once

#include "multilevel/host_csr.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <exception>
#include <vector>

namespace fgdd::detail {

// Rows [0, count) with `cols` columns: make_row(r, scratch, out) appends row r to out (push
// and end_row), with scratch one per chunk from make_scratch().
template <class MakeScratch, class MakeRow>
HostCsr rows_in_chunks(Ordinal count, Ordinal cols, MakeScratch make_scratch, MakeRow make_row) {
  const int threads = Kokkos::DefaultHostExecutionSpace().concurrency();
  const Ordinal chunks = std::min<Ordinal>(count, threads > 1 ? 4 * threads : 1);
  std::vector<HostCsr> parts(std::max<Ordinal>(chunks, 1));
  std::vector<std::exception_ptr> failed(parts.size());
  const auto run_chunk = [&](Ordinal c) {
    try {
      auto scratch = make_scratch();
      parts[c].cols = cols;
      const Ordinal first = Ordinal(Offset(count) * c / chunks);
      const Ordinal last = Ordinal(Offset(count) * (c + 1) / chunks);
      for (Ordinal r = first; r < last; ++r) make_row(r, scratch, parts[c]);
    } catch (...) {
      failed[c] = std::current_exception();
    }
  };
  if (chunks <= 1) {
    parts[0].cols = cols;
    if (chunks == 1) run_chunk(0);
  } else {
    Kokkos::parallel_for(
        "fgdd::multilevel::rows_in_chunks",
        Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>>(
            0, chunks)
            .set_chunk_size(1),
        [&](Ordinal c) { run_chunk(c); });
  }
  for (const std::exception_ptr& e : failed)
    if (e) std::rethrow_exception(e);
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
