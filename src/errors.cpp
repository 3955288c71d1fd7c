#include "pspmv/errors.hpp"

namespace pspmv {

namespace {
std::string where(const std::string& file, std::int64_t line) {
  return line > 0 ? file + ":" + std::to_string(line) : file;
}
}  // namespace

ParseError::ParseError(std::string file, std::int64_t line, const std::string& message)
    : Error(where(file, line) + ": " + message), file_(std::move(file)), line_(line) {}

DimensionError::DimensionError(const std::string& what_is_checked, std::int64_t expected,
                               std::int64_t got)
    : Error(what_is_checked + ": expected " + std::to_string(expected) + ", got " +
            std::to_string(got)),
      expected_(expected),
      got_(got) {}

}  // namespace pspmv
