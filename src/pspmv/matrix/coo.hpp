#pragma once
/// @file coo.hpp
/// CooMatrix: coordinate (triplet) form. Kokkos-free, so that the Matrix Market reader
/// builds alone (the libFuzzer target in tests/fuzz).

#include <cstdint>
#include <vector>

namespace pspmv {

/// Coordinate (triplet) form, 0-based, as read from a file before conversion.
template <class Value>
struct CooMatrix {
  std::int64_t nrows = 0;
  std::int64_t ncols = 0;
  std::vector<std::int64_t> row;
  std::vector<std::int64_t> col;
  std::vector<Value> values;
};

}  // namespace pspmv
