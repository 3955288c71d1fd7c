// What the probes that link pspmv share: the library's host row sums called outside a plan, the
// median of a sample, and the shared matrices' folder.
#pragma once

#include <pspmv/analyze.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace probes {

using Exec = Kokkos::OpenMP;
using Csr = pspmv::HostCsr<double, std::int64_t>;
constexpr int min_simd = pspmv::ExecTraits<Exec>::simd_row_min<double>();

/// Rows [r0, r1) of y = A x in the plain form (detail::simd_dot), outside a plan.
inline void plain_rows(std::int32_t r0, std::int32_t r1, const std::int64_t* rp, const std::int32_t* ci,
                       const double* v, const double* x, double* y) {
  for (std::int32_t i = r0; i < r1; ++i)
    y[i] = pspmv::detail::simd_dot<min_simd, pspmv::ExecTraits<Exec>::row_gathers, double>(v, ci, x, rp[i], rp[i + 1]);
}

/// Rows [r0, r1) of y = A x in the masked form (detail::masked_dot), outside a plan.
inline void masked_rows(std::int32_t r0, std::int32_t r1, const std::int64_t* rp, const std::int32_t* ci,
                        const double* v, const double* x, double* y) {
  for (std::int32_t i = r0; i < r1; ++i) y[i] = pspmv::detail::masked_dot<min_simd, double>(v, ci, x, rp[i], rp[i + 1]);
}

/// Rows [r0, r1) of y = A x as a CSR thread_per_row plan of this build sums them
/// (ExecTraits::masked_rows), outside the plan.
inline void library_rows(std::int32_t r0, std::int32_t r1, const std::int64_t* rp, const std::int32_t* ci,
                         const double* v, const double* x, double* y) {
  if constexpr (pspmv::ExecTraits<Exec>::masked_rows)
    masked_rows(r0, r1, rp, ci, v, x, y);
  else
    plain_rows(r0, r1, rp, ci, v, x, y);
}

/// The shared matrices' folder: argv[1], else $PSPMV_MATRICES, else ../shared/matrices.
inline std::string matrices_dir(int argc, char** argv) {
  const char* env = std::getenv("PSPMV_MATRICES");
  return argc > 1 ? argv[1] : env ? env : "../shared/matrices";
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace probes
