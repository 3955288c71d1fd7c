// A Kokkos Tools library that times every parallel_for / parallel_reduce / parallel_scan by
// its label, fencing the device around each one, and prints per-label totals at exit:
// which kernel of a plan (e.g. the SELL slices vs the long rows) takes the time.
//   KOKKOS_PROFILE_LIBRARY=build/<preset>/perf/libpspmv_kernel_timer.so pspmv bench ...
// The fences serialize the kernels and add their own cost: read the split, not the sum.
// Interface: Kokkos Tools' kokkosp_* callbacks (Kokkos 3.x, profiling interface version 20171029).
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <vector>
#include <algorithm>
#if defined(PSPMV_KERNEL_TIMER_CUDA)
#include <cuda_runtime_api.h>
#endif

namespace {

using clock_type = std::chrono::steady_clock;
struct Open {
  std::string name;
  clock_type::time_point start;
};
struct Total {
  std::uint64_t calls = 0;
  double seconds = 0;
  std::vector<double> each;
};
std::mutex mutex;
std::map<std::uint64_t, Open> open_kernels;
std::map<std::string, Total> totals;
std::uint64_t next_id = 0;

void fence() {
#if defined(PSPMV_KERNEL_TIMER_CUDA)
  cudaDeviceSynchronize();
#endif
}

void begin(const char* kind, const char* name, std::uint64_t* id) {
  fence();
  std::lock_guard<std::mutex> lock(mutex);
  *id = next_id++;
  open_kernels[*id] = {std::string(kind) + " " + name, clock_type::now()};
}

void end(std::uint64_t id) {
  fence();
  const auto now = clock_type::now();
  std::lock_guard<std::mutex> lock(mutex);
  auto it = open_kernels.find(id);
  if (it == open_kernels.end()) return;
  Total& t = totals[it->second.name];
  const double s = std::chrono::duration<double>(now - it->second.start).count();
  ++t.calls;
  t.seconds += s;
  t.each.push_back(s);
  open_kernels.erase(it);
}

}  // namespace

extern "C" void kokkosp_init_library(const int, const std::uint64_t, const std::uint32_t, void*) {}

extern "C" void kokkosp_finalize_library() {
  std::vector<std::pair<std::string, Total>> rows(totals.begin(), totals.end());
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.seconds > b.second.seconds; });
  std::fprintf(stderr, "\npspmv kernel timer (device fenced around each kernel):\n%12s %10s %12s  %s\n", "total ms",
               "calls", "median us", "kernel");
  for (auto& [name, t] : rows) {
    std::sort(t.each.begin(), t.each.end());
    std::fprintf(stderr, "%12.3f %10llu %12.2f  %s\n", t.seconds * 1e3, static_cast<unsigned long long>(t.calls),
                 t.each[t.each.size() / 2] * 1e6, name.c_str());
  }
}

extern "C" void kokkosp_begin_parallel_for(const char* name, const std::uint32_t, std::uint64_t* id) { begin("for", name, id); }
extern "C" void kokkosp_end_parallel_for(const std::uint64_t id) { end(id); }
extern "C" void kokkosp_begin_parallel_reduce(const char* name, const std::uint32_t, std::uint64_t* id) { begin("reduce", name, id); }
extern "C" void kokkosp_end_parallel_reduce(const std::uint64_t id) { end(id); }
extern "C" void kokkosp_begin_parallel_scan(const char* name, const std::uint32_t, std::uint64_t* id) { begin("scan", name, id); }
extern "C" void kokkosp_end_parallel_scan(const std::uint64_t id) { end(id); }
