// The benchmark drivers' command line: a driver declares its flags (name, value, default, help)
// on a CommandLine, which parses argv with errors that name the flag and generates the usage
// that --help prints.
#pragma once

#include "core/errors.hpp"

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

namespace fgdd::bench {

// A flag that is unknown, lacks its value, or has a value it cannot take; the message names it.
class UsageError : public InvalidInput {
 public:
  using InvalidInput::InvalidInput;
};

// What CommandLine::parse throws for --help or -h: the usage to print.
struct HelpRequested {
  std::string usage;
};

// text as a value of flag: an integer (whole text, in range) or a number, or text itself.
// Throw UsageError naming flag.
void parse_value(const std::string& flag, const std::string& text, int& value);
void parse_value(const std::string& flag, const std::string& text, long& value);
void parse_value(const std::string& flag, const std::string& text, long long& value);
void parse_value(const std::string& flag, const std::string& text, unsigned long& value);
void parse_value(const std::string& flag, const std::string& text, unsigned long long& value);
void parse_value(const std::string& flag, const std::string& text, double& value);
void parse_value(const std::string& flag, const std::string& text, std::string& value);

// A default as the usage shows it.
std::string default_text(double value);
std::string default_text(const std::string& value);
template <class Integer>
std::string default_text(Integer value) {
  return std::to_string(value);
}
template <class T>
std::string default_text(const std::vector<T>& values) {
  std::string text;
  for (const T& value : values) text += (text.empty() ? "" : ",") + default_text(value);
  return text;
}

// "a,b,c" split at the commas, empty parts dropped.
std::vector<std::string> split_list(const std::string& text);

class CommandLine {
 public:
  using Parse = std::function<void(const std::string& value)>;

  // synopsis: how the program is started ("fgdd_apply_bench", "mpirun -np P fgdd_dist_bench");
  // summary: what it measures, one line.
  CommandLine(std::string synopsis, std::string summary);

  // --name VALUE into *target (an integer, double or std::string); *target's value now is the
  // default the usage shows.
  template <class T>
  CommandLine& option(const std::string& name, T* target, std::string value_name,
                      std::string help) {
    return custom(name, std::move(value_name), default_text(*target), std::move(help),
                  [name, target](const std::string& text) { parse_value(name, text, *target); });
  }

  // The same, with values below minimum raised to it (the drivers' rule for counts).
  template <class T>
  CommandLine& at_least(const std::string& name, T* target, T minimum, std::string value_name,
                        std::string help) {
    return custom(name, std::move(value_name), default_text(*target), std::move(help),
                  [name, target, minimum](const std::string& text) {
                    parse_value(name, text, *target);
                    *target = std::max(*target, minimum);
                  });
  }

  // --name A,B,C into *target, replacing what it held.
  template <class T>
  CommandLine& list(const std::string& name, std::vector<T>* target, std::string value_name,
                    std::string help) {
    return custom(name, std::move(value_name), default_text(*target), std::move(help),
                  [name, target](const std::string& text) {
                    target->clear();
                    for (const std::string& part : split_list(text))
                      parse_value(name, part, target->emplace_back());
                  });
  }

  // --name VALUE, repeatable: the first use replaces the defaults, later ones add to it.
  CommandLine& repeated(const std::string& name, std::vector<std::string>* target,
                        std::string value_name, std::string help);

  // --name VALUE into *target, VALUE one of choices.
  CommandLine& choice(const std::string& name, std::string* target,
                      std::vector<std::string> choices, std::string help);

  // --name alone sets *target to value.
  CommandLine& toggle(const std::string& name, bool* target, bool value, std::string help);

  // --name VALUE handed to parse, which throws for a value it cannot take (UsageError,
  // fgdd::Error or std::exception; other than UsageError, the message is prefixed with name).
  CommandLine& custom(const std::string& name, std::string value_name, std::string shown_default,
                      std::string help, Parse parse);

  // The flags in argv[1..argc), in order; arguments that start with --kokkos are Kokkos's.
  // Throws UsageError, or HelpRequested for --help / -h.
  void parse(int argc, char* argv[]) const;

  std::string usage() const;

 private:
  struct Flag {
    std::string name, value_name, shown_default, help;
    Parse parse;
    bool takes_value = true;
  };
  const Flag* find(const std::string& name) const;
  CommandLine& declare(Flag flag);

  std::string synopsis_, summary_;
  std::vector<Flag> flags_;
};

}  // namespace fgdd::bench
