// One name table per option enum, owned by the stage that defines the enum: to_string, parse
// (an error listing the valid names), the names joined for usage text, and every value for test
// and benchmark loops all come from it, so a new variant is one entry in its table.
#pragma once

#include "core/errors.hpp"

#include <array>
#include <cstddef>
#include <string>
#include <utility>

namespace fgdd {

template <class Enum, std::size_t Count>
class EnumNames {
 public:
  using Entry = std::pair<Enum, const char*>;

  // what: the option's name in messages ("partitioner"); entries in the order usage text and
  // loops list them.
  EnumNames(const char* what, const std::array<Entry, Count>& entries)
      : what_(what), entries_(entries) {}

  const char* name(Enum value) const noexcept {
    for (const auto& [e, text] : entries_)
      if (e == value) return text;
    return "unknown";
  }

  // Throws InvalidInput "unknown <what> '<text>' (valid: a|b|c)".
  Enum parse(const std::string& text) const {
    for (const auto& [e, name] : entries_)
      if (text == name) return e;
    throw InvalidInput("unknown " + std::string(what_) + " '" + text + "' (valid: " + joined() +
                       ")");
  }

  // The names as usage text writes them: "a|b|c".
  std::string joined() const {
    std::string text;
    for (const auto& [e, name] : entries_) text += (text.empty() ? "" : "|") + std::string(name);
    return text;
  }

  std::array<Enum, Count> values() const {
    std::array<Enum, Count> all{};
    for (std::size_t k = 0; k < Count; ++k) all[k] = entries_[k].first;
    return all;
  }

 private:
  const char* what_;
  std::array<Entry, Count> entries_;
};

// Deduces the entry count from the braced list, so a table is written once:
//   inline const auto partitioner_names = make_enum_names<Partitioner>("partitioner", {...});
template <class Enum, std::size_t Count>
EnumNames<Enum, Count> make_enum_names(const char* what,
                                       const std::pair<Enum, const char*> (&entries)[Count]) {
  std::array<std::pair<Enum, const char*>, Count> table{};
  for (std::size_t k = 0; k < Count; ++k) table[k] = entries[k];
  return EnumNames<Enum, Count>(what, table);
}

}  // namespace fgdd
