#include "harness/context.hpp"

#include <Kokkos_Core.hpp>
#include <fmt/format.h>

#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <set>
#include <unistd.h>

extern char** environ;  // POSIX: the process's environment, NAME=value

#if defined(PSPMV_HAVE_HWLOC)
#include <hwloc.h>
#endif
#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#endif
#if defined(PSPMV_HAVE_KOKKOSKERNELS)
#include <KokkosKernels_config.h>
#endif
#if defined(PSPMV_HAVE_CUSPARSE)
#include <cusparse.h>
#endif
#if defined(_OPENMP)
#include <omp.h>
#endif

#include "peers/host_libraries.hpp"
#include "pspmv/backends/exec_traits.hpp"
#include "pspmv/matrix/host_parallel.hpp"
#include "pspmv/version.hpp"
#include "pspmv_build_info.hpp"  // PSPMV_BUILD_COMPILER, _CXX_FLAGS, _TYPE (perf/build_info.hpp.in)

namespace pspmv_cli {

namespace {

/// What hwloc says of the host; counts 0 and sizes -1 where it says nothing.
struct Topology {
  std::string cpu_model;
  int cores = 0, threads = 0, numa_nodes = 0;
  long long l1d = -1, l2 = -1, l3 = -1;
};

Topology topology() {
  Topology t;
#if defined(PSPMV_HAVE_HWLOC)
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0) return t;
  if (hwloc_topology_load(topo) == 0) {
    t.cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    t.threads = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    t.numa_nodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
    if (hwloc_obj_t pkg = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0))
      if (const char* m = hwloc_obj_get_info_by_name(pkg, "CPUModel")) t.cpu_model = m;
    const auto cache = [&](hwloc_obj_type_t type) -> long long {
      hwloc_obj_t c = hwloc_get_obj_by_type(topo, type, 0);
      return c && c->attr ? static_cast<long long>(c->attr->cache.size) : -1;
    };
    t.l1d = cache(HWLOC_OBJ_L1CACHE);
    t.l2 = cache(HWLOC_OBJ_L2CACHE);
    t.l3 = cache(HWLOC_OBJ_L3CACHE);
  }
  hwloc_topology_destroy(topo);
#endif
  if (t.cpu_model.empty()) {
    std::ifstream ci("/proc/cpuinfo");
    for (std::string line; std::getline(ci, line);)
      if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) {
        t.cpu_model = line.substr(line.find(':') + 2);
        break;
      }
  }
  if (t.threads <= 0) t.threads = static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN));
  // hwloc and /proc/cpuinfo pad the model name with blanks on some CPUs.
  const auto blank = [](char c) { return c == ' ' || c == '\t'; };
  while (!t.cpu_model.empty() && blank(t.cpu_model.back())) t.cpu_model.pop_back();
  while (!t.cpu_model.empty() && blank(t.cpu_model.front())) t.cpu_model.erase(0, 1);
  return t;
}

nlohmann::json number_or_null(long long v) { return v >= 0 ? nlohmann::json(v) : nlohmann::json(nullptr); }
nlohmann::json text_or_null(const std::string& s) { return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s); }

/// Every OMP_*, GOMP_* and KOKKOS_* variable set (each changes how the threads run: wait policy,
/// stack size, spin count, a Kokkos Tools library, ...), by name; the three that the tool itself
/// defaults are always present, null when unset.
nlohmann::json thread_env() {
  nlohmann::json j = {{"OMP_NUM_THREADS", nullptr}, {"OMP_PROC_BIND", nullptr}, {"OMP_PLACES", nullptr}};
  for (char** e = environ; e && *e; ++e) {
    const std::string entry = *e;
    const auto eq = entry.find('=');
    if (eq == std::string::npos) continue;
    const std::string name = entry.substr(0, eq);
    if (name.rfind("OMP_", 0) == 0 || name.rfind("GOMP_", 0) == 0 || name.rfind("KOKKOS_", 0) == 0)
      j[name] = entry.substr(eq + 1);
  }
  return j;
}

/// The pages of large host arrays: the kernel's transparent huge page mode (the bracketed word
/// of /sys/kernel/mm/transparent_hugepage/enabled: always, madvise or never; null where the file
/// is absent), which decides whether pspmv's advice (detail::advise_huge_pages: its plans'
/// arrays, the tool's x, y and floor buffer) takes effect; whether pspmv advises at all
/// (PSPMV_HUGE_PAGES, detail::huge_pages_enabled); and GLIBC_TUNABLES (with
/// glibc.malloc.hugetlb=1 every large malloc of the process, every library's, is advised).
nlohmann::json pages_json() {
  std::string mode;
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  if (std::getline(f, line)) {
    const auto a = line.find('['), b = line.find(']');
    if (a != std::string::npos && b != std::string::npos && b > a) mode = line.substr(a + 1, b - a - 1);
  }
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  return {{"transparent_huge_pages", text_or_null(mode)},
          {"pspmv_advice", pspmv::detail::huge_pages_enabled() ? "on" : "off"},  // PSPMV_HUGE_PAGES
          {"glibc_tunables", tunables ? nlohmann::json(tunables) : nlohmann::json(nullptr)}};
}

nlohmann::json gpu_json() {
#if defined(KOKKOS_ENABLE_CUDA)
  int dev = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) return nullptr;
  int sm_khz = 0, mem_khz = 0;
  const bool sm = cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, dev) == cudaSuccess;
  const bool mem = cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, dev) == cudaSuccess;
  return {{"name", prop.name},
          {"sm_clock_mhz", sm ? nlohmann::json(sm_khz / 1000) : nlohmann::json(nullptr)},
          {"memory_clock_mhz", mem ? nlohmann::json(mem_khz / 1000) : nlohmann::json(nullptr)},
          {"memory_bytes", static_cast<long long>(prop.totalGlobalMem)},
          {"compute_capability", std::to_string(prop.major) + "." + std::to_string(prop.minor)}};
#else
  return nullptr;
#endif
}

std::string kokkos_version() {
  return fmt::format("{}.{}.{}", KOKKOS_VERSION / 10000, KOKKOS_VERSION / 100 % 100, KOKKOS_VERSION % 100);
}

nlohmann::json peer_versions() {
  nlohmann::json v;
#if defined(_OPENMP)
  v["openmp"] = std::to_string(_OPENMP);
#else
  v["openmp"] = nullptr;
#endif
#if defined(PSPMV_HAVE_KOKKOSKERNELS) && defined(KOKKOSKERNELS_VERSION)
  v["kokkos_kernels"] = fmt::format("{}.{}.{}", KOKKOSKERNELS_VERSION / 10000, KOKKOSKERNELS_VERSION / 100 % 100,
                                    KOKKOSKERNELS_VERSION % 100);
#elif defined(PSPMV_HAVE_KOKKOSKERNELS)
  // Releases before 4.0 define no version macro; they ship with the Kokkos of the same number.
  v["kokkos_kernels"] = kokkos_version() + " (assumed: the release of its Kokkos)";
#else
  v["kokkos_kernels"] = nullptr;
#endif
#if defined(PSPMV_HAVE_CUSPARSE)
  v["cusparse"] = fmt::format("{}.{}.{}", CUSPARSE_VER_MAJOR, CUSPARSE_VER_MINOR, CUSPARSE_VER_PATCH);
#else
  v["cusparse"] = nullptr;
#endif
  v["mkl"] = text_or_null(pspmv_peers::mkl_version());
  v["eigen"] = text_or_null(pspmv_peers::eigen_version());
  v["librsb"] = text_or_null(pspmv_peers::librsb_version());
  return v;
}

}  // namespace

double load_average() {
  double l[1] = {0};
  return ::getloadavg(l, 1) == 1 ? l[0] : -1;
}

int host_cores() {
  static const int cores = [] {
    const Topology t = topology();
    return t.cores > 0 ? t.cores : t.threads;
  }();
  return cores;
}

double load_limit(bool while_running) { return host_cores() + (while_running ? 1.0 : 0.0); }

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

nlohmann::json context_json(const RunInfo& info, const std::vector<std::string>& warnings) {
  static const Topology t = topology();
  char host[256] = {0};
  ::gethostname(host, sizeof(host) - 1);
  const double load_end = load_average();
  return {
      {"schema", 1},
      {"date", info.date},
      {"host", host},
      {"cpu_model", text_or_null(t.cpu_model)},
      {"cores", t.cores > 0 ? nlohmann::json(t.cores) : nlohmann::json(nullptr)},
      {"threads", t.threads > 0 ? nlohmann::json(t.threads) : nlohmann::json(nullptr)},
      {"numa_nodes", t.numa_nodes > 0 ? nlohmann::json(t.numa_nodes) : nlohmann::json(nullptr)},
      {"caches", {{"L1d_bytes", number_or_null(t.l1d)}, {"L2_bytes", number_or_null(t.l2)}, {"L3_bytes", number_or_null(t.l3)}}},
      {"gpu", gpu_json()},
      {"compiler", PSPMV_BUILD_COMPILER},
      {"cxx_flags", PSPMV_BUILD_CXX_FLAGS},
      {"build_type", text_or_null(PSPMV_BUILD_TYPE)},
      {"host_isa", info.host_isa},
      {"host_simd_bytes", pspmv::host_simd_bytes},
      {"pspmv_version", PSPMV_VERSION_STRING},
      {"commit", info.commit},
      {"kokkos_version", kokkos_version()},
      {"peer_versions", peer_versions()},
      {"omp_env", thread_env()},
      {"pages", pages_json()},
      {"kokkos_settings",
       {{"execution_space", Kokkos::DefaultExecutionSpace::name()},
        {"concurrency", Kokkos::DefaultExecutionSpace().concurrency()},
        {"host_execution_space", Kokkos::DefaultHostExecutionSpace::name()},
        {"host_concurrency", Kokkos::DefaultHostExecutionSpace().concurrency()}}},
      {"load_average_start", info.load_start >= 0 ? nlohmann::json(info.load_start) : nlohmann::json(nullptr)},
      {"load_average_end", load_end >= 0 ? nlohmann::json(load_end) : nlohmann::json(nullptr)},
      {"warnings", warnings},
  };
}

std::vector<std::string> run_warnings(const RunInfo& info, const std::vector<Record>& records, bool started) {
  std::vector<std::string> w;
  if (info.load_start > load_limit(false))
    w.push_back(fmt::format("load average {:.2f} at the start exceeds the {} cores: timings are unreliable",
                            info.load_start, host_cores()));
  if (!started) return w;
  const double now = load_average();
  if (now > load_limit(true))
    w.push_back(fmt::format("load average {:.2f} now exceeds the {} cores and this run's own threads: timings are "
                            "unreliable",
                            now, host_cores()));
  std::size_t noisy = 0, timed = 0;
  for (const auto& r : records)
    if (!r.skipped) {
      ++timed;
      noisy += r.noisy;
    }
  if (noisy > 0)
    w.push_back(fmt::format("{} of {} timings are noisy (median/min > {}, below the floor, or under load): see "
                            "their \"noise\"",
                            noisy, timed, noisy_median_over_min));
  return w;
}

void print_warnings(const std::vector<std::string>& warnings) {
  static std::set<std::string> printed;
  for (const auto& w : warnings)
    if (printed.insert(w).second) std::cerr << "pspmv: warning: " << w << "\n";
}

}  // namespace pspmv_cli
