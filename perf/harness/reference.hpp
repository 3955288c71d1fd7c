#pragma once
/// @file reference.hpp
/// The one long-double reference of y = alpha A x + beta y0, shared by the test suite and the
/// tool's verify-then-time harness, and the row-length-scaled check of a result against it.

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "pspmv/matrix/csr.hpp"

namespace pspmv::reference {

/// The reference result and, per row, the scale |alpha| sum |a_ij x_j| + |beta y0_i| that
/// bounds the rounding error of any summation order.
struct Result {
  std::vector<double> y;
  std::vector<double> scale;
};

/// y = alpha A x + beta y0 in long double, rows in parallel on the host. x has ncols entries;
/// y0 has nrows entries, or is empty (then beta is taken as 0 and y0 is never read).
template <class Value, class Offset>
Result spmv(const HostCsr<Value, Offset>& A, double alpha, const std::vector<double>& x, double beta = 0.0,
            const std::vector<double>& y0 = {}) {
  Result r;
  r.y.assign(static_cast<std::size_t>(A.nrows), 0.0);
  r.scale.assign(static_cast<std::size_t>(A.nrows), 0.0);
  const bool read_y0 = beta != 0.0 && !y0.empty();
  Kokkos::parallel_for(
      "pspmv::reference", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, A.nrows),
      [&](const std::int32_t i) {
        long double s = 0, a = 0;
        for (Offset k = A.row_ptr(i); k < A.row_ptr(i + 1); ++k) {
          const long double t = static_cast<long double>(A.values(k)) * x[A.col_idx(k)];
          s += t;
          a += std::fabs(t);
        }
        const long double yb = read_y0 ? static_cast<long double>(beta) * y0[i] : 0.0L;
        r.y[i] = static_cast<double>(alpha * s + yb);
        r.scale[i] = static_cast<double>(std::fabs(alpha) * a + std::fabs(yb));
      });
  Kokkos::fence();
  return r;
}

/// Whether `got` matches the reference value `want` of a row of `len` entries computed in
/// Value: |got - want| <= 4 eps(Value) (len + 2) scale for a finite reference; a NaN
/// reference wants NaN, an infinite one the same infinity.
template <class Value>
bool row_matches(double got, double want, double scale, double len) {
  if (!std::isfinite(want)) return std::isnan(want) ? std::isnan(got) : got == want;
  const double tol = 4.0 * std::numeric_limits<Value>::epsilon() * (len + 2.0) * scale +
                     static_cast<double>(std::numeric_limits<Value>::min());
  return std::fabs(got - want) <= tol;
}

/// Rows of `got` that do not match the reference (row_matches), and the first of them (-1: none).
struct Mismatch {
  std::int64_t count = 0;
  std::int64_t first = -1;
};

/// The tolerance is that of Vector, the type y was computed in (A's value type unless given:
/// a mixed-precision plan sums a float matrix in double).
template <class Vector = void, class Value, class Offset>
Mismatch compare(const HostCsr<Value, Offset>& A, const std::vector<double>& got, const Result& want) {
  using Tol = std::conditional_t<std::is_void<Vector>::value, Value, Vector>;
  Mismatch m;
  for (std::size_t i = 0; i < got.size() && i < want.y.size(); ++i) {
    const double len = static_cast<double>(A.row_ptr(i + 1) - A.row_ptr(i));
    if (!row_matches<Tol>(got[i], want.y[i], want.scale[i], len)) {
      if (m.first < 0) m.first = static_cast<std::int64_t>(i);
      ++m.count;
    }
  }
  if (got.size() != want.y.size()) m.count += 1;
  return m;
}

}  // namespace pspmv::reference
