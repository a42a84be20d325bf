// For tests of messages that quote file text: is a message safe to print (no control bytes, no
// DEL, only well-formed UTF-8)?
#pragma once

#include <cstddef>
#include <string_view>

namespace fgdd::test {

inline bool is_printable_message(std::string_view text) {
  for (std::size_t k = 0; k < text.size();) {
    const auto c = static_cast<unsigned char>(text[k]);
    if (c < 0x20 || c == 0x7f) return false;
    if (c < 0x80) {
      ++k;
      continue;
    }
    // A UTF-8 lead byte and its continuation bytes (the reader's escape is stricter; this only
    // has to catch a raw byte that is not part of any sequence).
    const std::size_t length = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
    if (length == 0 || c > 0xf4 || k + length > text.size()) return false;
    for (std::size_t t = 1; t < length; ++t) {
      if ((static_cast<unsigned char>(text[k + t]) & 0xc0) != 0x80) return false;
    }
    k += length;
  }
  return true;
}

}  // namespace fgdd::test
