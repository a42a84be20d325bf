#include "core/matrix_market_chunks.hpp"

#include "core/huge_pages.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstring>
#include <exception>

namespace fgdd::detail {

namespace {

using HostSpace = Kokkos::DefaultHostExecutionSpace;

// Chunk starts: the first data byte, then the byte after the first line feed at or past each
// even share of the text; strictly increasing, the last entry is size.
std::vector<std::size_t> chunk_starts(const char* text, std::size_t size, std::size_t chunks) {
  std::vector<std::size_t> starts = {0};
  for (std::size_t c = 1; c < chunks; ++c) {
    const std::size_t at = std::max(size * c / chunks, starts.back());
    const void* eol = std::memchr(text + at, '\n', size - at);
    if (eol == nullptr) break;
    const std::size_t next = static_cast<const char*>(eol) - text + 1;
    if (next < size && next > starts.back()) starts.push_back(next);
  }
  starts.push_back(size);
  return starts;
}

// Each chunk but the last ends at a line feed, which becomes the NUL its parser needs; the
// destructor puts the line feeds back.
class TerminatedChunks {
 public:
  TerminatedChunks(char* text, const std::vector<std::size_t>& starts)
      : text_(text), starts_(starts) {
    for (std::size_t c = 1; c + 1 < starts_.size(); ++c) text_[starts_[c] - 1] = '\0';
  }
  ~TerminatedChunks() {
    for (std::size_t c = 1; c + 1 < starts_.size(); ++c) text_[starts_[c] - 1] = '\n';
  }
  TerminatedChunks(const TerminatedChunks&) = delete;
  TerminatedChunks& operator=(const TerminatedChunks&) = delete;

  std::size_t count() const { return starts_.size() - 1; }
  const char* begin(std::size_t c) const { return text_ + starts_[c]; }
  // Its bytes without the terminating line feed (the last chunk has none).
  std::size_t length(std::size_t c) const {
    return starts_[c + 1] - starts_[c] - (c + 2 < starts_.size() ? 1 : 0);
  }

 private:
  char* text_;
  const std::vector<std::size_t>& starts_;
};

std::size_t chosen_chunk_bytes(std::size_t chunk_bytes) {
  if (chunk_bytes > 0) return chunk_bytes;
  if (!Kokkos::is_initialized() || HostSpace().concurrency() < 2) return 0;
  return default_matrix_market_chunk_bytes;
}

}  // namespace

bool parse_entries_in_chunks(const std::string& path, const MatrixMarketLayout& layout, char* text,
                             std::size_t size, std::int64_t first_line, std::size_t chunk_bytes,
                             std::vector<Ordinal>& rows, std::vector<Ordinal>& columns,
                             std::vector<Scalar>& values) {
  rows.clear();
  columns.clear();
  values.clear();
  chunk_bytes = chosen_chunk_bytes(chunk_bytes);
  if (chunk_bytes == 0 || size <= chunk_bytes) return false;
  const std::vector<std::size_t> starts = chunk_starts(text, size, size / chunk_bytes + 1);
  if (starts.size() < 3) return false;
  const TerminatedChunks chunks(text, starts);
  const std::size_t count = chunks.count();
  using Policy = Kokkos::RangePolicy<HostSpace>;

  // Lines and entries per chunk, then where each chunk's lines and entries start.
  std::vector<MatrixMarketLineCounts> counts(count);
  Kokkos::parallel_for("fgdd::core::matrix_market_count_lines", Policy(0, count),
                       [&](const std::size_t c) {
                         counts[c] = count_matrix_market_lines(chunks.begin(c), chunks.length(c));
                       });
  std::vector<std::int64_t> line(count), entry(count + 1, 0);
  line[0] = first_line;
  for (std::size_t c = 0; c < count; ++c) {
    if (c + 1 < count) line[c + 1] = line[c] + counts[c].newlines + 1;  // + the NUL's line feed
    entry[c + 1] = entry[c] + counts[c].data_lines;
  }
  if (entry[count] != layout.entries) return false;
  const std::size_t entries = std::size_t(layout.entries);
  reserve_advised(rows, entries);
  reserve_advised(columns, entries);
  reserve_advised(values, entries);
  rows.resize(entries);
  columns.resize(entries);
  values.resize(entries);

  // Exceptions must not leave a parallel region: a chunk that fails only says so.
  std::vector<char> failed(count, 0);
  Kokkos::parallel_for(
      "fgdd::core::matrix_market_parse", Policy(0, count), [&](const std::size_t c) {
        try {
          const std::size_t at = std::size_t(entry[c]);
          failed[c] = !parse_matrix_market_entries_into(
              path, layout, chunks.begin(c), chunks.length(c), line[c], counts[c].data_lines,
              rows.data() + at, columns.data() + at, values.data() + at);
        } catch (const std::exception&) {
          failed[c] = 1;
        }
      });
  for (const char f : failed) {
    if (f) {
      rows.clear();
      columns.clear();
      values.clear();
      return false;
    }
  }
  return true;
}

}  // namespace fgdd::detail
