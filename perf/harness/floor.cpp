#include "harness/floor.hpp"

#include <memory>
#ifdef _OPENMP
#include <omp.h>
#endif

namespace pspmv_cli {

Floor host_stream_read(std::size_t bytes, int reps) {
#ifdef _OPENMP
  const int threads = omp_get_max_threads();
#else
  const int threads = 1;
#endif
  const std::size_t n = bytes / sizeof(double);
  std::unique_ptr<double[]> buf(new double[n > 0 ? n : 1]);
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) buf[i] = 1.0 + static_cast<double>(i & 7);  // first touch by the reader
  Floor f{1e300, "host streaming read (OpenMP static or dynamic, the faster; " + std::to_string(threads) + " threads)"};
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
      if (r > 0 && t < f.seconds) f.seconds = t;  // r == 0 is the warm-up
    }
  (void)sink;
  return f;
}

}  // namespace pspmv_cli
