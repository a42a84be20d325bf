#include "bench_json.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace fgdd::bench {

std::string json_quoted(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
          out += escaped;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string json_number(double value, NumberFormat format) {
  if (!std::isfinite(value)) return "null";  // JSON has no NaN or infinity
  const char conversion[] = {'%', '.', '*', format.conversion, '\0'};
  char text[64];
  std::snprintf(text, sizeof text, conversion, format.digits, value);
  return text;
}

void JsonObject::claim(const std::string& key) {
  if (std::find(keys_.begin(), keys_.end(), key) != keys_.end())
    throw std::logic_error("JSON key \"" + key + "\" added twice");
  keys_.push_back(key);
}

JsonObject& JsonObject::add_raw(std::string_view key, std::string_view json) {
  claim(std::string(key));
  if (!fields_.empty()) fields_ += ',';
  fields_ += json_quoted(key);
  fields_ += ':';
  fields_ += json;
  return *this;
}

JsonObject& JsonObject::add(std::string_view key, std::string_view text) {
  return add_raw(key, json_quoted(text));
}

JsonObject& JsonObject::add(std::string_view key, bool value) {
  return add_raw(key, value ? "true" : "false");
}

JsonObject& JsonObject::add(std::string_view key, double value, NumberFormat format) {
  return add_raw(key, json_number(value, format));
}

JsonObject& JsonObject::add(std::string_view key, const JsonObject& object) {
  return add_raw(key, object.str());
}

JsonObject& JsonObject::append(const JsonObject& other) {
  for (const std::string& key : other.keys_) claim(key);
  if (!fields_.empty() && !other.fields_.empty()) fields_ += ',';
  fields_ += other.fields_;
  return *this;
}

void print_line(const JsonObject& object) {
  std::printf("%s\n", object.str().c_str());
  std::fflush(stdout);
}

}  // namespace fgdd::bench
