// The cost of OpenMP regions of alternating team sizes (why pspmv's host launches always open a
// region of the instance's whole team: docs/selection.md, "Host: every thread of the instance").
// Built on request (target pspmv_probe_openmp_team_sizes, not in `all`), or alone:
//   g++ -O2 -fopenmp perf/probes/openmp_team_sizes.cpp -o /tmp/openmp_team_sizes
//   OMP_NUM_THREADS=16 OMP_PROC_BIND=spread OMP_PLACES=threads /tmp/openmp_team_sizes
// For each team size T (the whole team, 3/4, 1/2, 1/4 of it, one thread) it alternates 3,000
// empty regions of the whole team with 3,000 of T threads and prints each one's median time.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

namespace {
volatile int sink;

double region_us(int threads) {
  const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(threads)
  sink = omp_get_thread_num();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() * 1e6;
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
}
}  // namespace

int main() {
  const int n = omp_get_max_threads();
  for (const int t : {n, n * 3 / 4, n / 2, n / 4, 1}) {
    if (t < 1) continue;
    std::vector<double> full, other;
    for (int i = 0; i < 3000; ++i) {
      full.push_back(region_us(n));
      other.push_back(region_us(t));
    }
    std::printf("alternating %d and %d threads: the %d-thread region median %.2f us (p90 %.2f), the %d-thread region median %.2f us\n",
                n, t, n, quantile(full, 0.5), quantile(full, 0.9), t, quantile(other, 0.5));
  }
}
