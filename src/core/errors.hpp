// The typed exception hierarchy (STYLE.md). Every message names the row, column or file line.
// A Krylov failure is not an exception: it is a SolveResult status.
#pragma once

#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>

namespace fgdd {

// Base of every error fgdd throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Arguments or data that violate a documented precondition.
class InvalidInput : public Error {
 public:
  using Error::Error;
};

// A matrix that is not a valid square sparse matrix. row/column are 0-based, -1 when not
// applicable.
class InvalidMatrix : public InvalidInput {
 public:
  InvalidMatrix(const std::string& what, std::int64_t row = -1, std::int64_t column = -1);
  std::int64_t row() const noexcept { return row_; }
  std::int64_t column() const noexcept { return column_; }

 private:
  std::int64_t row_;
  std::int64_t column_;
};

// Vector or operand sizes that do not match (b, x against the matrix).
class DimensionMismatch : public InvalidInput {
 public:
  using InvalidInput::InvalidInput;
};

// A file that cannot be read or parsed. line is 1-based, 0 when the file could not be opened.
class FileError : public Error {
 public:
  FileError(const std::string& path, std::int64_t line, const std::string& what);
  const std::string& path() const noexcept { return path_; }
  std::int64_t line() const noexcept { return line_; }

 private:
  std::string path_;
  std::int64_t line_;
};

// A zero or tiny pivot met during factorization, named by its row in the caller's ordering.
// The message says "zero pivot V at row R", or that the pivot overflowed (value ±inf) or is NaN.
class ZeroPivot : public Error {
 public:
  ZeroPivot(std::int64_t row, double value);
  // The same with the caller's message (a pivot that stayed non-positive under a shift, ...).
  ZeroPivot(std::int64_t row, double value, const std::string& what);
  std::int64_t row() const noexcept { return row_; }
  double value() const noexcept { return value_; }

 private:
  std::int64_t row_;
  double value_;
};

// A pivot that overflowed to ±inf (entries near the largest double): a ZeroPivot, so every
// catch site of ZeroPivot still handles it, with a message that says what happened.
class PivotOverflow : public ZeroPivot {
 public:
  PivotOverflow(std::int64_t row, double value);
};

// Memory that could not be allocated (a Kokkos view or a host buffer): the message names what
// it was for and, where known, the option that asked for it.
class OutOfMemory : public Error {
 public:
  using Error::Error;
};

// Whether an exception reports a failed allocation: std::bad_alloc (host memory, Kokkos 3 and
// early 4.x), or the std::runtime_error Kokkos 4.4 and later throw ("... memory space failed to
// allocate ...", Kokkos::Experimental::BadAlloc in Kokkos 5).
bool is_allocation_failure(const std::exception& error) noexcept;

// A feature that this build of fgdd was configured without (METIS, MPI...).
class NotCompiled : public Error {
 public:
  using Error::Error;
};

}  // namespace fgdd
