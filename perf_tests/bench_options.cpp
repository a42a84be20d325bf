#include "bench_options.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace fgdd::bench {

namespace {

[[noreturn]] void bad_value(const std::string& flag, const char* kind, const std::string& text) {
  throw UsageError(flag + " takes " + kind + ", got '" + text + "'");
}

// The whole of text as a signed or unsigned integer in [lowest, highest].
template <class Integer>
Integer parse_integer(const std::string& flag, const std::string& text) {
  constexpr bool is_signed = std::numeric_limits<Integer>::is_signed;
  const char* kind = is_signed ? "an integer" : "a non-negative integer";
  // strtoull accepts "-1" as a huge value; a count never is negative.
  if (text.empty() || (!is_signed && text.find('-') != std::string::npos))
    bad_value(flag, kind, text);
  char* end = nullptr;
  errno = 0;
  if constexpr (is_signed) {
    const long long value = std::strtoll(text.c_str(), &end, 10);
    if (*end != '\0' || errno == ERANGE || value < std::numeric_limits<Integer>::min() ||
        value > std::numeric_limits<Integer>::max())
      bad_value(flag, kind, text);
    return Integer(value);
  } else {
    const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
    if (*end != '\0' || errno == ERANGE || value > std::numeric_limits<Integer>::max())
      bad_value(flag, kind, text);
    return Integer(value);
  }
}

}  // namespace

void parse_value(const std::string& flag, const std::string& text, int& value) {
  value = parse_integer<int>(flag, text);
}
void parse_value(const std::string& flag, const std::string& text, long& value) {
  value = parse_integer<long>(flag, text);
}
void parse_value(const std::string& flag, const std::string& text, long long& value) {
  value = parse_integer<long long>(flag, text);
}
void parse_value(const std::string& flag, const std::string& text, unsigned long& value) {
  value = parse_integer<unsigned long>(flag, text);
}
void parse_value(const std::string& flag, const std::string& text, unsigned long long& value) {
  value = parse_integer<unsigned long long>(flag, text);
}

void parse_value(const std::string& flag, const std::string& text, double& value) {
  char* end = nullptr;
  value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0') bad_value(flag, "a number", text);
}

void parse_value(const std::string&, const std::string& text, std::string& value) { value = text; }

std::string default_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

std::string default_text(const std::string& value) { return value; }

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');)
    if (!part.empty()) parts.push_back(part);
  return parts;
}

CommandLine::CommandLine(std::string synopsis, std::string summary)
    : synopsis_(std::move(synopsis)), summary_(std::move(summary)) {}

CommandLine& CommandLine::declare(Flag flag) {
  if (find(flag.name) != nullptr) throw std::logic_error(flag.name + " is declared twice");
  flags_.push_back(std::move(flag));
  return *this;
}

CommandLine& CommandLine::custom(const std::string& name, std::string value_name,
                                 std::string shown_default, std::string help, Parse parse) {
  return declare(
      {name, std::move(value_name), std::move(shown_default), std::move(help), std::move(parse)});
}

CommandLine& CommandLine::repeated(const std::string& name, std::vector<std::string>* target,
                                   std::string value_name, std::string help) {
  // Shared by the copies std::function makes; one CommandLine parses once.
  const auto replaced = std::make_shared<bool>(false);
  return custom(name, std::move(value_name), default_text(*target),
                std::move(help) + " (repeatable)", [target, replaced](const std::string& text) {
                  if (!*replaced) target->clear(), *replaced = true;
                  target->push_back(text);
                });
}

CommandLine& CommandLine::choice(const std::string& name, std::string* target,
                                 std::vector<std::string> choices, std::string help) {
  std::string names;
  for (const std::string& choice : choices) names += (names.empty() ? "" : "|") + choice;
  return custom(name, names, *target, std::move(help),
                [name, target, choices, names](const std::string& text) {
                  if (std::find(choices.begin(), choices.end(), text) == choices.end())
                    throw UsageError(name + " takes " + names + ", got '" + text + "'");
                  *target = text;
                });
}

CommandLine& CommandLine::toggle(const std::string& name, bool* target, bool value,
                                 std::string help) {
  Flag flag{name, "", "", std::move(help),
            [target, value](const std::string&) { *target = value; }};
  flag.takes_value = false;
  return declare(std::move(flag));
}

const CommandLine::Flag* CommandLine::find(const std::string& name) const {
  for (const Flag& flag : flags_)
    if (flag.name == name) return &flag;
  return nullptr;
}

void CommandLine::parse(int argc, char* argv[]) const {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") throw HelpRequested{usage()};
    if (arg.rfind("--kokkos", 0) == 0) continue;  // Kokkos's own, left in argv by some versions
    const Flag* flag = find(arg);
    if (flag == nullptr) throw UsageError("unknown option '" + arg + "'");
    if (!flag->takes_value) {
      flag->parse("");
      continue;
    }
    if (i + 1 >= argc) throw UsageError(arg + " needs a value (" + flag->value_name + ")");
    const std::string value = argv[++i];
    try {
      flag->parse(value);
    } catch (const UsageError&) {
      throw;
    } catch (const std::exception& error) {  // a parser of the library (enum names...)
      throw UsageError(arg + ": " + error.what());
    }
  }
}

std::string CommandLine::usage() const {
  std::string text = "usage: " + synopsis_ + " [options]\n" + summary_ + "\n\noptions:\n";
  // Flags and values up to this wide get their help beside them, longer ones below.
  constexpr std::size_t column = 24;
  const auto line = [&](const std::string& left, const std::string& right) {
    text += "  " + left;
    text += left.size() <= column ? std::string(column + 2 - left.size(), ' ')
                                  : "\n" + std::string(column + 4, ' ');
    text += right + "\n";
  };
  for (const Flag& flag : flags_) {
    const std::string left =
        flag.value_name.empty() ? flag.name : flag.name + " " + flag.value_name;
    line(left, flag.help + (flag.shown_default.empty() ? "" : " [" + flag.shown_default + "]"));
  }
  line("--help", "this text");
  return text;
}

}  // namespace fgdd::bench
