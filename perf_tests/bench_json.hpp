// The one-line JSON reports every benchmark prints, built field by field in the order added:
// strings escaped, each number in the printf format the caller names (the tables and the smoke
// tests read those digits), NaN and infinities as null.
#pragma once

#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace fgdd::bench {

// How a floating-point value is printed: printf's %.<digits>f, %.<digits>e or %.<digits>g.
struct NumberFormat {
  char conversion = 'g';
  int digits = 17;  // %.17g: every double reads back exactly
};
constexpr NumberFormat fixed(int digits) { return {'f', digits}; }
constexpr NumberFormat scientific(int digits) { return {'e', digits}; }
constexpr NumberFormat significant(int digits) { return {'g', digits}; }

// text as a JSON string literal, quotes included.
std::string json_quoted(std::string_view text);
// value as a JSON number in format, or null when it is NaN or infinite.
std::string json_number(double value, NumberFormat format = {});

// A key added twice throws std::logic_error: readers keep one of the two values silently.
class JsonObject {
 public:
  JsonObject& add(std::string_view key, std::string_view text);
  JsonObject& add(std::string_view key, const std::string& text) {
    return add(key, std::string_view(text));
  }
  JsonObject& add(std::string_view key, const char* text) {
    return add(key, std::string_view(text));
  }
  JsonObject& add(std::string_view key, bool value);
  template <
      class Integer,
      std::enable_if_t<std::is_integral_v<Integer> && !std::is_same_v<Integer, bool>, int> = 0>
  JsonObject& add(std::string_view key, Integer value) {
    return add_raw(key, std::to_string(value));
  }
  JsonObject& add(std::string_view key, double value, NumberFormat format = {});
  JsonObject& add(std::string_view key, const JsonObject& object);
  // A list of numbers; format applies to floating-point ones.
  template <class Number>
  JsonObject& add(std::string_view key, const std::vector<Number>& values,
                  NumberFormat format = {}) {
    std::string list = "[";
    for (std::size_t k = 0; k < values.size(); ++k) {
      if (k > 0) list += ',';
      if constexpr (std::is_integral_v<Number>)
        list += std::to_string(values[k]);
      else
        list += json_number(values[k], format);
    }
    return add_raw(key, list + "]");
  }
  // Every field of other, after this object's own.
  JsonObject& append(const JsonObject& other);

  bool empty() const { return fields_.empty(); }
  std::string str() const { return "{" + fields_ + "}"; }

 private:
  JsonObject& add_raw(std::string_view key, std::string_view json);
  void claim(const std::string& key);  // records key; throws if it is already there
  std::string fields_;  // "key":value,"key":value
  std::vector<std::string> keys_;
};

// object as one line on stdout, flushed: a long run's lines appear as they are measured.
void print_line(const JsonObject& object);

}  // namespace fgdd::bench
