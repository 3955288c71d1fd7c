// What the probes that link pspmv share: the library's host row sum called outside a plan, and
// the median of a sample.
#pragma once

#include <pspmv/analyze.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace probes {

using Exec = Kokkos::OpenMP;
using Csr = pspmv::HostCsr<double, std::int64_t>;
constexpr int min_simd = pspmv::ExecTraits<Exec>::simd_row_min<double>();

/// Rows [r0, r1) of y = A x as the plan sums them (detail::simd_dot), outside the plan.
inline void library_rows(std::int32_t r0, std::int32_t r1, const std::int64_t* rp, const std::int32_t* ci,
                         const double* v, const double* x, double* y) {
  for (std::int32_t i = r0; i < r1; ++i)
    y[i] = pspmv::detail::simd_dot<min_simd, pspmv::ExecTraits<Exec>::row_gathers, double>(v, ci, x, rp[i], rp[i + 1]);
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace probes
