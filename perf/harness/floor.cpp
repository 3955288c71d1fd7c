#include "harness/floor.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdint>

#include <fmt/format.h>

#include "harness/samples.hpp"
#include "pspmv/matrix/host_parallel.hpp"
#ifdef _OPENMP
#include <omp.h>
#endif

namespace pspmv_cli {

namespace {

/// Partial sums per thread: four 64-byte vectors of doubles, so that the adds of one thread
/// never wait on each other (one vector add chain is bound by the add latency: 64 bytes per
/// 4 cycles, below a core's share of the memory bandwidth on some hosts).
constexpr int lanes = 32;

/// One read of buf[0, n) by all threads under the schedule (static: the first-touch partition;
/// dynamic: blocks of 1 MiB handed out in turn), its sum added to `sink`.
void read_once(const double* buf, std::size_t n, bool dynamic, double& sink) {
  const std::size_t nb = n / lanes;
  double sum = 0;
#pragma omp parallel reduction(+ : sum)
  {
    double s[lanes] = {};
    if (dynamic) {
#pragma omp for schedule(dynamic, 4096) nowait
      for (std::size_t b = 0; b < nb; ++b)
#pragma omp simd
        for (int k = 0; k < lanes; ++k) s[k] += buf[lanes * b + k];
    } else {
#pragma omp for schedule(static) nowait
      for (std::size_t b = 0; b < nb; ++b)
#pragma omp simd
        for (int k = 0; k < lanes; ++k) s[k] += buf[lanes * b + k];
    }
    for (int k = 0; k < lanes; ++k) sum += s[k];
  }
  for (std::size_t i = lanes * nb; i < n; ++i) sum += buf[i];
  sink += sum;
}

/// GB/s of a STREAM-like triad a = b + 3 c over `bytes` in all (three arrays), best of `reps`.
double triad_gbs(std::size_t bytes, int reps) {
  const std::size_t n = std::max<std::size_t>(1, bytes / 3 / sizeof(double));
  // On the pages a plan's own arrays get (detail::host_array).
  const auto va = pspmv::detail::host_array<double>("pspmv::triad_a", static_cast<std::int64_t>(n));
  const auto vb = pspmv::detail::host_array<double>("pspmv::triad_b", static_cast<std::int64_t>(n));
  const auto vc = pspmv::detail::host_array<double>("pspmv::triad_c", static_cast<std::int64_t>(n));
  double *a = va.data(), *b = vb.data(), *c = vc.data();
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) a[i] = 0, b[i] = 1, c[i] = 2;
  double best = 1e300;
  for (int r = 0; r <= reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for simd schedule(static)
    for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + 3.0 * c[i];
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (r > 0) best = std::min(best, t);
  }
  volatile double keep = a[n / 2];
  (void)keep;
  return 3.0 * static_cast<double>(n) * sizeof(double) / best * 1e-9;
}

}  // namespace

Floor host_stream_read(std::size_t bytes, int reps, double min_sample_s) {
#ifdef _OPENMP
  const int threads = omp_get_max_threads();
#else
  const int threads = 1;
#endif
  const std::size_t n = bytes / sizeof(double);
  // On the pages a plan's own arrays get (detail::host_array: whole transparent huge pages
  // where the kernel offers them), so that no plan reads its bytes faster than this floor can.
  const auto view = pspmv::detail::host_array<double>("pspmv::floor", static_cast<std::int64_t>(n > 0 ? n : 1));
  double* buf = view.data();
  // First touch by the threads that read it, under the static read's own partition.
#pragma omp parallel for schedule(static)
  for (std::size_t b = 0; b < n / lanes; ++b)
    for (int k = 0; k < lanes; ++k) buf[lanes * b + k] = 1.0 + k;
  for (std::size_t i = lanes * (n / lanes); i < n; ++i) buf[i] = 1.0;
  double sink = 0, best = 1e300;
  // Both a static and a dynamic schedule, the faster kept: on a host whose cores run at unequal
  // speeds (a VM's) a static read waits for the slowest thread. Samples as the runs' (one
  // warm-up read, then batches of reads lasting min_sample_s: harness/samples.hpp).
  for (int dynamic = 0; dynamic < 2; ++dynamic) {
    const auto read = [&] { read_once(buf, n, dynamic == 1, sink); };
    read();
    const int calls = calls_per_sample<Kokkos::DefaultHostExecutionSpace>(read, min_sample_s);
    for (int r = 0; r < reps; ++r)
      best = std::min(best, batch_seconds<Kokkos::DefaultHostExecutionSpace>(read, calls) / calls);
  }
  volatile double keep = sink;
  (void)keep;
  char triad[64];
  std::snprintf(triad, sizeof triad, "%.1f", triad_gbs(bytes, reps));
  return {best, "host streaming read, " + std::to_string(lanes) + " partial sums per thread, huge pages advised as a plan's arrays, OpenMP static or " +
                    "dynamic (the faster), " + std::to_string(threads) + " threads, samples of reads lasting at least " +
                    fmt::format("{}", min_sample_s * 1e3) + " ms (each input's floor GB/s: "
                    "floor_gbs in the JSON; for reference, a STREAM triad of the same bytes ran at " + triad + " GB/s)"};
}

}  // namespace pspmv_cli
