// The data lines of a coordinate Matrix Market file parsed in chunks at once on the host
// execution space: a file is parsed at the speed of the host's cores instead of one.
#pragma once

#include "core/matrix_market.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace fgdd::detail {

// Data bytes per chunk when the caller leaves the choice (chunk_bytes 0): enough for a chunk to
// cost far more than its share of the bookkeeping.
inline constexpr std::size_t default_matrix_market_chunk_bytes = std::size_t(1) << 20;

// Parses the layout.entries entries of the data lines [text, text + size) (text[size] == '\0';
// the text is written to while parsing and left as it was), the first of which is line
// first_line of the file, into rows, columns and values (replaced) in file order. Chunks of about
// chunk_bytes, each ending at a line feed, are parsed at once on the host execution space;
// chunk_bytes 0 takes default_matrix_market_chunk_bytes where that space has more than one
// thread and Kokkos is initialized, else declines. Returns false when it declines (one chunk), or
// when the data lines do not hold exactly the announced entries or any entry is bad: the caller
// then parses the file in one pass, which names the first bad line; the arrays are then empty.
// Throws only bad_alloc.
bool parse_entries_in_chunks(const std::string& path, const MatrixMarketLayout& layout, char* text,
                             std::size_t size, std::int64_t first_line, std::size_t chunk_bytes,
                             std::vector<Ordinal>& rows, std::vector<Ordinal>& columns,
                             std::vector<Scalar>& values);

}  // namespace fgdd::detail
