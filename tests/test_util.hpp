#pragma once
// Shared helpers of the test suite: the sequential double-precision reference, the
// row-length-scaled comparison, and the list of execution spaces this build enables.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "pspmv/pspmv.hpp"

namespace pspmv_test {

/// Folder of the shared SuiteSparse matrices ("" if absent). PSPMV_MATRICES overrides.
inline std::string shared_matrices_dir() {
  if (const char* env = std::getenv("PSPMV_MATRICES")) return env;
#ifdef PSPMV_SHARED_MATRICES
  std::ifstream probe(std::string(PSPMV_SHARED_MATRICES) + "/MANIFEST.tsv");
  if (probe) return PSPMV_SHARED_MATRICES;
#endif
  return "";
}

struct ManifestRow {
  std::string file;
  std::int64_t rows, cols, stored, expanded_nnz, min_row, max_row, empty_rows;
};

/// Parses MANIFEST.tsv of the shared matrices (header line first).
inline std::vector<ManifestRow> read_manifest(const std::string& dir) {
  std::vector<ManifestRow> out;
  std::ifstream in(dir + "/MANIFEST.tsv");
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, '\t')) f.push_back(cell);
    if (f.size() < 12) continue;
    out.push_back({f[0], std::stoll(f[4]), std::stoll(f[5]), std::stoll(f[6]), std::stoll(f[7]),
                   std::stoll(f[8]), std::stoll(f[9]), std::stoll(f[11])});
  }
  return out;
}

/// Sequential reference in long double: y = alpha A x + beta y0, and per row the scale
/// |alpha| sum |a_ij x_j| + |beta y0_i| that bounds the rounding error.
template <class Value, class Offset>
void reference_spmv(const pspmv::HostCsr<Value, Offset>& A, double alpha, const std::vector<double>& x,
                    double beta, const std::vector<double>& y0, std::vector<double>& y,
                    std::vector<double>& scale) {
  y.assign(A.nrows, 0.0);
  scale.assign(A.nrows, 0.0);
  for (std::int32_t i = 0; i < A.nrows; ++i) {
    long double s = 0, a = 0;
    for (Offset k = A.row_ptr(i); k < A.row_ptr(i + 1); ++k) {
      const long double t = static_cast<long double>(A.values(k)) * x[A.col_idx(k)];
      s += t;
      a += std::fabs(t);
    }
    const long double yb = beta == 0.0 ? 0.0L : static_cast<long double>(beta) * y0[i];
    y[i] = static_cast<double>(alpha * s + yb);
    scale[i] = static_cast<double>(std::fabs(alpha) * a + std::fabs(yb));
  }
}

/// Checks y against the reference with a tolerance scaled by row length:
/// |y_i - ref_i| <= 4 eps(Value) (len_i + 2) scale_i. On failure reports the first bad
/// row, the value got, the value wanted and the row's length.
template <class Value, class Offset>
::testing::AssertionResult matches_reference(const pspmv::HostCsr<Value, Offset>& A,
                                             const std::vector<double>& got,
                                             const std::vector<double>& want,
                                             const std::vector<double>& scale) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << "length " << got.size() << " != " << want.size();
  const double eps = std::numeric_limits<Value>::epsilon();
  std::int64_t bad = 0, first = -1;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double len = static_cast<double>(A.row_ptr(i + 1) - A.row_ptr(i));
    const double tol = 4.0 * eps * (len + 2.0) * scale[i] + std::numeric_limits<Value>::min();
    const bool ok = std::isfinite(want[i]) ? std::fabs(got[i] - want[i]) <= tol
                                           : (std::isnan(want[i]) ? std::isnan(got[i]) : got[i] == want[i]);
    if (!ok) {
      if (first < 0) first = static_cast<std::int64_t>(i);
      ++bad;
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  const std::size_t i = static_cast<std::size_t>(first);
  return ::testing::AssertionFailure()
         << bad << " of " << got.size() << " rows wrong; first bad row " << i << ": got " << got[i]
         << ", wanted " << want[i] << ", row length " << (A.row_ptr(i + 1) - A.row_ptr(i));
}

/// A test configuration: execution space, value type, offset type.
template <class ExecSpace, class Value, class Offset>
struct Config {
  using exec = ExecSpace;
  using value = Value;
  using offset = Offset;
};

}  // namespace pspmv_test
