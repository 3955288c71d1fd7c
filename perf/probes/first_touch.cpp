// The first touch of a fresh host array, two ways, in one process, interleaved: `inside`, a
// Kokkos View allocated as it comes (aligned to a few bytes) with the huge-page advice on the
// whole 2 MiB pages inside it (detail::advise_huge_pages); `whole`, detail::host_array: the
// array starts on a 2 MiB boundary of an allocation 4 MiB longer, and every page it touches is
// advised, its two ends too. Each round allocates each array afresh and writes every entry once
// in a Kokkos parallel_for on the host threads (static schedule: as a conversion's pass writes
// a plan's new array), the way first alternating. The probe fixes glibc's mmap threshold at
// huge_page_min_bytes, as the tool does (perf/main.cpp), so both arrays are fresh mappings.
// Printed per size: the median and min of each way in ms and the median of the per-round
// ratios inside / whole (> 1: the whole pages are faster).
// Built on request: cmake --build --preset openmp --target pspmv_probe_first_touch
//   OMP_NUM_THREADS=2 OMP_PROC_BIND=spread OMP_PLACES=threads \
//     build/openmp/perf/pspmv_probe_first_touch [ROUNDS] [MiB ...]
// ROUNDS (default 15) timed rounds after one untimed; sizes default 27 and 216 MiB (the
// 16-bit columns and the values of stencil27:100's compressed SELL plan, about).
#include <pspmv/matrix/host_parallel.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace {

using View = Kokkos::View<double*, Kokkos::HostSpace>;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// Seconds to write every entry of a fresh array made by `make`.
template <class Make>
double first_touch(const Make& make, std::int64_t n) {
  const auto t = std::chrono::steady_clock::now();
  const View v = make(n);
  double* p = v.data();
  Kokkos::parallel_for("probe::first_touch", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, n),
                       [=](const std::int64_t i) { p[i] = static_cast<double>(i); });
  Kokkos::DefaultHostExecutionSpace().fence();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  for (const std::int64_t i : {std::int64_t{0}, n / 2, n - 1})  // written, both ends too
    if (p[i] != static_cast<double>(i)) std::abort();
  return s;
}

}  // namespace

int main(int argc, char** argv) {
#if defined(__GLIBC__)
  (void)mallopt(M_MMAP_THRESHOLD, static_cast<int>(pspmv::detail::huge_page_min_bytes));
#endif
  Kokkos::ScopeGuard guard(argc, argv);
  const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 15;
  std::vector<std::int64_t> mib;
  for (int a = 2; a < argc; ++a) {
    const long long m = std::atoll(argv[a]);
    if (m <= 0 || m > (1 << 20)) {
      std::fprintf(stderr, "pspmv_probe_first_touch: size '%s' (argument %d): expected MiB from 1 to 1048576\n", argv[a], a);
      return 2;
    }
    mib.push_back(m);
  }
  if (mib.empty()) mib = {27, 216};
  const auto inside = [](std::int64_t n) {
    View v(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("probe::inside")), static_cast<std::size_t>(n));
    pspmv::detail::advise_huge_pages(v.data(), static_cast<std::size_t>(n) * sizeof(double));
    return v;
  };
  const auto whole = [](std::int64_t n) { return pspmv::detail::host_array<double>("probe::whole", n); };
  std::string thp = "(none)";
  if (std::FILE* f = std::fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r")) {
    char line[128] = {0};
    if (std::fgets(line, sizeof line, f)) thp = std::string(line, std::strcspn(line, "\n"));
    std::fclose(f);
  }
  std::printf("host threads %d, %d rounds, huge-page advice %s, transparent_hugepage/enabled: %s\n"
              "(medians; ratio: inside / whole per round)\n",
              Kokkos::DefaultHostExecutionSpace().concurrency(), rounds,
              pspmv::detail::huge_pages_enabled() ? "on" : "off", thp.c_str());
  std::printf("%8s %10s %10s %10s %10s %8s\n", "MiB", "inside ms", "min", "whole ms", "min", "ratio");
  for (const std::int64_t m : mib) {
    const std::int64_t n = (m << 20) / static_cast<std::int64_t>(sizeof(double));
    std::vector<double> a, b, ratio;
    for (int r = -1; r < rounds; ++r) {
      double ti, tw;
      if ((r & 1) == 0) {
        ti = first_touch(inside, n);
        tw = first_touch(whole, n);
      } else {
        tw = first_touch(whole, n);
        ti = first_touch(inside, n);
      }
      if (r < 0) continue;
      a.push_back(ti);
      b.push_back(tw);
      ratio.push_back(ti / tw);
    }
    std::printf("%8lld %10.2f %10.2f %10.2f %10.2f %8.3f\n", static_cast<long long>(m), 1e3 * median(a),
                1e3 * *std::min_element(a.begin(), a.end()), 1e3 * median(b), 1e3 * *std::min_element(b.begin(), b.end()),
                median(ratio));
  }
  return 0;
}
