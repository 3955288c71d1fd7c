#include "harness/run_info.hpp"

#include <Kokkos_Core.hpp>

#include <fstream>
#include <sstream>
#include <unistd.h>

#include "harness/context.hpp"
#include "pspmv/backends/exec_traits.hpp"
#include "pspmv/version.hpp"
#include "pspmv_build_commit.hpp"  // PSPMV_BUILD_COMMIT, written at build time

namespace pspmv_cli {

std::string build_commit() { return PSPMV_BUILD_COMMIT; }

std::string host_build() {
  return std::string("-march=") + (PSPMV_HOST_ARCH[0] ? PSPMV_HOST_ARCH : "(compiler default)") + " (" +
         pspmv::host_isa + ", " + std::to_string(pspmv::host_simd_bytes) + "-byte SIMD, " +
         (pspmv::host_masked_rows ? std::string("CSR rows in masked 8-entry groups")
                                  : std::string("long CSR rows by ") +
                                        (pspmv::host_row_gathers ? "SIMD gathers" : "scalar partial sums")) +
         (pspmv::host_masked_rows   ? ", SELL slices of 8 doubles or 16 floats in AVX-512 registers"
          : pspmv::host_row_gathers ? ", SELL slices by SIMD gathers"
                                    : "") +
         ")";
}

std::string version_line() {
  return std::string("pspmv ") + PSPMV_VERSION_STRING + " (" + build_commit() + "; host code " + host_build() + ")";
}

std::string machine_description() {
  char host[256] = {0};
  ::gethostname(host, sizeof(host) - 1);
  std::string cpu;
  std::ifstream ci("/proc/cpuinfo");
  for (std::string line; std::getline(ci, line);)
    if (line.rfind("model name", 0) == 0) {
      cpu = line.substr(line.find(':') + 2);
      break;
    }
  return std::string(host) + " | " + cpu + " | " + std::to_string(Kokkos::DefaultHostExecutionSpace().concurrency()) +
         " host threads";
}

std::string kokkos_configuration() {
  std::ostringstream os;
  Kokkos::DefaultExecutionSpace().print_configuration(os, false);
  return os.str();
}

RunInfo run_info(int argc, char** argv) {
  RunInfo info;
  for (int i = 0; i < argc; ++i) {
    // A word the shell would split or expand is quoted, so that the line can be run again.
    const std::string w = argv[i];
    const bool plain = !w.empty() && w.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                         "0123456789_./:=,+-@%") == std::string::npos;
    std::string q = "'";
    for (char c : w) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    info.command += (i ? " " : "") + (plain ? w : q + "'");
  }
  info.commit = build_commit();
  info.machine = machine_description();
  info.host_isa = host_build();
  info.date = utc_now();
  info.load_start = load_average();
  return info;
}

nlohmann::json run_json(const RunInfo& info, bool with_kokkos_configuration) {
  nlohmann::json j{{"command", info.command},   {"commit", info.commit},
                   {"machine", info.machine},   {"host_isa", info.host_isa},
                   {"host_simd_bytes", pspmv::host_simd_bytes}};
  if (with_kokkos_configuration) j["kokkos_configuration"] = kokkos_configuration();
  return j;
}

}  // namespace pspmv_cli
