// A set of positions taken in ascending order while larger ones are added (the multilevel ILU's
// coupling rows: eliminating position p only fills positions past p).
#pragma once

#include "core/types.hpp"

#include <cstdint>
#include <vector>

namespace fgdd::detail {

// The positions a row still has to eliminate, taken in ascending order: a bit per position and
// a summary bit per word of them, so a row whose next position is far away scans summary words.
class PendingPositions {
 public:
  explicit PendingPositions(Ordinal n)
      : n_(n), words_((std::size_t(n) + 63) / 64, 0), summary_((words_.size() + 63) / 64, 0) {}
  void insert(Ordinal i) {
    words_[std::size_t(i) >> 6] |= bit(i & 63);
    summary_[std::size_t(i) >> 12] |= bit((i >> 6) & 63);
  }
  // The smallest position at or past `from`, removed; -1 when there is none.
  Ordinal take_from(Ordinal from) {
    if (from >= n_) return -1;
    std::size_t w = std::size_t(from) >> 6;
    std::uint64_t word = words_[w] & (~std::uint64_t(0) << (from & 63));
    if (word == 0) {
      const std::size_t next = w + 1;
      std::size_t s = next >> 6;
      if (s >= summary_.size()) return -1;
      std::uint64_t marks = summary_[s] & (~std::uint64_t(0) << (next & 63));
      while (marks == 0) {
        if (++s == summary_.size()) return -1;
        marks = summary_[s];
      }
      w = s * 64 + std::size_t(__builtin_ctzll(marks));
      word = words_[w];
    }
    const int b = __builtin_ctzll(word);
    words_[w] &= ~bit(b);
    if (words_[w] == 0) summary_[w >> 6] &= ~bit(int(w & 63));
    return Ordinal(w * 64 + std::size_t(b));
  }

 private:
  static std::uint64_t bit(int b) { return std::uint64_t(1) << b; }
  Ordinal n_;
  std::vector<std::uint64_t> words_, summary_;
};

}  // namespace fgdd::detail
