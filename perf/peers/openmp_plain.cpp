#include "peers/openmp_plain.hpp"

#include <chrono>
#include <memory>
#include <vector>
#ifdef _OPENMP
#include <omp.h>
#endif

namespace pspmv_peers {

std::string to_string(OmpSchedule s) {
  switch (s) {
    case OmpSchedule::static_blocks: return "omp_static";
    case OmpSchedule::static_chunks: return "omp_static_chunk";
    case OmpSchedule::dynamic_chunks: return "omp_dynamic_chunk";
  }
  return "?";
}

template <class Value, class Offset>
static inline void row(std::int32_t i, const Offset* rp, const std::int32_t* ci, const Value* v, const Value* x,
                       Value* y) {
  Value s = 0;
  for (Offset k = rp[i]; k < rp[i + 1]; ++k) s += v[k] * x[ci[k]];
  y[i] = s;
}

template <class Value, class Offset>
void openmp_csr_spmv(std::int32_t nrows, const Offset* rp, const std::int32_t* ci, const Value* v,
                     const Value* x, Value* y, OmpSchedule schedule, std::int64_t chunk) {
  const int c = static_cast<int>(chunk < 1 ? 1 : chunk);
  switch (schedule) {
    case OmpSchedule::static_blocks:
#pragma omp parallel for schedule(static)
      for (std::int32_t i = 0; i < nrows; ++i) row(i, rp, ci, v, x, y);
      break;
    case OmpSchedule::static_chunks:
#pragma omp parallel for schedule(static, c)
      for (std::int32_t i = 0; i < nrows; ++i) row(i, rp, ci, v, x, y);
      break;
    case OmpSchedule::dynamic_chunks:
#pragma omp parallel for schedule(dynamic, c)
      for (std::int32_t i = 0; i < nrows; ++i) row(i, rp, ci, v, x, y);
      break;
  }
}

template void openmp_csr_spmv<float, std::int32_t>(std::int32_t, const std::int32_t*, const std::int32_t*,
                                                   const float*, const float*, float*, OmpSchedule, std::int64_t);
template void openmp_csr_spmv<float, std::int64_t>(std::int32_t, const std::int64_t*, const std::int32_t*,
                                                   const float*, const float*, float*, OmpSchedule, std::int64_t);
template void openmp_csr_spmv<double, std::int32_t>(std::int32_t, const std::int32_t*, const std::int32_t*,
                                                    const double*, const double*, double*, OmpSchedule, std::int64_t);
template void openmp_csr_spmv<double, std::int64_t>(std::int32_t, const std::int64_t*, const std::int32_t*,
                                                    const double*, const double*, double*, OmpSchedule, std::int64_t);

bool openmp_available() {
#ifdef _OPENMP
  return true;
#else
  return false;
#endif
}

int openmp_threads() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

double openmp_stream_read_seconds(std::size_t bytes, int reps) {
  const std::size_t n = bytes / sizeof(double);
  std::unique_ptr<double[]> buf(new double[n > 0 ? n : 1]);
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) buf[i] = 1.0 + static_cast<double>(i & 7);  // first touch by the reader
  double best = 1e300;
  volatile double sink = 0;
  // Blocks of 8 doubles; a dynamic schedule hands out 16384 blocks (1 MiB) at a time.
  const std::size_t nb = n / 8;
  for (int dynamic = 0; dynamic < 2; ++dynamic)
    for (int r = 0; r <= reps; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      double sum = 0;
      // Eight independent partial sums per thread: a single add chain (or one vector chain,
      // which `omp simd` may give at -O3 without -march) is bound by the add latency, a few
      // bytes per cycle per core. Both a static and a dynamic schedule: on a host whose
      // cores run at unequal speeds (the H200's 16-core VM) a static read waits for the
      // slowest thread, and SpMV with dynamic chunks beat such a "floor".
#pragma omp parallel reduction(+ : sum)
      {
        double s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        if (dynamic) {
#pragma omp for schedule(dynamic, 16384) nowait
          for (std::size_t b = 0; b < nb; ++b)
            for (int k = 0; k < 8; ++k) s[k] += buf[8 * b + k];
        } else {
#pragma omp for schedule(static) nowait
          for (std::size_t b = 0; b < nb; ++b)
            for (int k = 0; k < 8; ++k) s[k] += buf[8 * b + k];
        }
        for (int k = 0; k < 8; ++k) sum += s[k];
      }
      for (std::size_t i = 8 * nb; i < n; ++i) sum += buf[i];
      const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      sink = sink + sum;
      if (r > 0 && t < best) best = t;  // r == 0 is the warm-up
    }
  (void)sink;
  return best;
}

}  // namespace pspmv_peers
