// One name table per option enum, owned by the stage that defines the enum: to_string, parse
// (an error listing the valid names), the names joined for usage text, and the values (all, or
// those with a trait) for test and benchmark loops all come from it, so a new variant is one
// entry in its table.
#pragma once

#include "core/errors.hpp"

#include <array>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace fgdd {

// One row of a table: the value, its name, and the traits tests and benchmarks select by (bits
// the stage defines, such as "deterministic" for kernels or "needs METIS" for partitioners).
template <class Enum>
struct EnumEntry {
  Enum value;
  const char* name;
  unsigned traits = 0;
};

template <class Enum, std::size_t Count>
class EnumNames {
 public:
  using Entry = EnumEntry<Enum>;

  // what: the option's name in messages ("partitioner"); entries in the order usage text and
  // loops list them.
  EnumNames(const char* what, const std::array<Entry, Count>& entries)
      : what_(what), entries_(entries) {}

  const char* name(Enum value) const noexcept {
    for (const Entry& entry : entries_)
      if (entry.value == value) return entry.name;
    return "unknown";
  }

  bool contains(const std::string& text) const noexcept {
    for (const Entry& entry : entries_)
      if (text == entry.name) return true;
    return false;
  }

  // Throws InvalidInput "unknown <what> '<text>' (valid: a|b|c)".
  Enum parse(const std::string& text) const {
    for (const Entry& entry : entries_)
      if (text == entry.name) return entry.value;
    throw InvalidInput("unknown " + std::string(what_) + " '" + text + "' (valid: " + joined() +
                       ")");
  }

  // The names as usage text writes them: "a|b|c" (a list option: separator ",").
  std::string joined(const char* separator = "|") const {
    std::string text;
    for (const Entry& entry : entries_)
      text += (text.empty() ? "" : separator) + std::string(entry.name);
    return text;
  }

  std::array<Enum, Count> values() const {
    std::array<Enum, Count> all{};
    for (std::size_t k = 0; k < Count; ++k) all[k] = entries_[k].value;
    return all;
  }

  // The trait bits of value's entry (0 for a value not in the table).
  unsigned traits(Enum value) const noexcept {
    for (const Entry& entry : entries_)
      if (entry.value == value) return entry.traits;
    return 0;
  }

  // Whether value's entry carries every bit of wanted.
  bool has(Enum value, unsigned wanted) const noexcept {
    return (traits(value) & wanted) == wanted;
  }

  // The values whose entries carry every bit of wanted, in table order.
  std::vector<Enum> values_with(unsigned wanted) const {
    std::vector<Enum> selected;
    for (const Entry& entry : entries_)
      if ((entry.traits & wanted) == wanted) selected.push_back(entry.value);
    return selected;
  }

 private:
  const char* what_;
  std::array<Entry, Count> entries_;
};

// Deduces the entry count from the braced list, so a table is written once:
//   inline const auto partitioner_names = make_enum_names<Partitioner>("partitioner", {...});
template <class Enum, std::size_t Count>
EnumNames<Enum, Count> make_enum_names(const char* what, const EnumEntry<Enum> (&entries)[Count]) {
  std::array<EnumEntry<Enum>, Count> table{};
  for (std::size_t k = 0; k < Count; ++k) table[k] = entries[k];
  return EnumNames<Enum, Count>(what, table);
}

}  // namespace fgdd
