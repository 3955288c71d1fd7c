#pragma once
/// @file errors.hpp
/// Exceptions thrown by pspmv. Every error derives from pspmv::Error, so an
/// application can catch one type; each subclass carries what the user needs to act.

#include <cstdint>
#include <stdexcept>
#include <string>

namespace pspmv {

/// Base class of every exception pspmv throws.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

/// Malformed input file. what() reads "FILE:LINE: message"; line 0 means the
/// error concerns the whole file (for example a missing size line).
class ParseError : public Error {
 public:
  ParseError(std::string file, std::int64_t line, const std::string& message);
  const std::string& file() const noexcept { return file_; }
  std::int64_t line() const noexcept { return line_; }

 private:
  std::string file_;
  std::int64_t line_;
};

/// Two sizes that must agree do not; what() names both.
class DimensionError : public Error {
 public:
  DimensionError(const std::string& what_is_checked, std::int64_t expected, std::int64_t got);
  std::int64_t expected() const noexcept { return expected_; }
  std::int64_t got() const noexcept { return got_; }

 private:
  std::int64_t expected_;
  std::int64_t got_;
};

/// A matrix whose structure is invalid (row_ptr not monotone, a column out of range, ...).
class InvalidMatrix : public Error {
 public:
  using Error::Error;
};

/// An argument or option outside its documented range.
class InvalidArgument : public Error {
 public:
  using Error::Error;
};

/// A valid request this build or format cannot serve (for example complex Matrix Market files).
class Unsupported : public Error {
 public:
  using Error::Error;
};

}  // namespace pspmv
