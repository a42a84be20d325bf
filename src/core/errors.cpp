#include "core/errors.hpp"

#include <cmath>
#include <cstring>
#include <new>
#include <sstream>

namespace fgdd {

namespace {
std::string with_position(const std::string& what, std::int64_t row, std::int64_t column) {
  std::ostringstream out;
  out << what;
  if (row >= 0) out << " (row " << row;
  if (row >= 0 && column >= 0) out << ", column " << column;
  if (row < 0 && column >= 0) out << " (column " << column;
  if (row >= 0 || column >= 0) out << ", 0-based)";
  return out.str();
}
}  // namespace

InvalidMatrix::InvalidMatrix(const std::string& what, std::int64_t row, std::int64_t column)
    : InvalidInput(with_position(what, row, column)), row_(row), column_(column) {}

FileError::FileError(const std::string& path, std::int64_t line, const std::string& what)
    : Error(path + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + what),
      path_(path),
      line_(line) {}

namespace {
// "zero pivot" only for a pivot that is (nearly) zero: an overflow or a NaN says so.
std::string pivot_message(std::int64_t row, double value) {
  const std::string at = "row " + std::to_string(row) + " (0-based)";
  if (std::isnan(value)) return "pivot of " + at + " is NaN";
  if (std::isinf(value))
    return "pivot of " + at + " overflowed (" + (value < 0 ? "-inf" : "inf") + ")";
  std::ostringstream out;
  out << "zero pivot " << value << " at " << at;
  return out.str();
}
}  // namespace

ZeroPivot::ZeroPivot(std::int64_t row, double value)
    : ZeroPivot(row, value, pivot_message(row, value)) {}

ZeroPivot::ZeroPivot(std::int64_t row, double value, const std::string& what)
    : Error(what), row_(row), value_(value) {}

PivotOverflow::PivotOverflow(std::int64_t row, double value) : ZeroPivot(row, value) {}

bool is_allocation_failure(const std::exception& error) noexcept {
  if (dynamic_cast<const std::bad_alloc*>(&error) != nullptr) return true;
  return std::strstr(error.what(), "failed to allocate") != nullptr;
}

}  // namespace fgdd
