#pragma once
// What every result file records about its run: the command line, the build's commit and the
// machine.
#include <string>

#include <nlohmann/json.hpp>

namespace pspmv_cli {

struct RunInfo {
  std::string command;  ///< the command line, words joined by spaces (quoted for the shell where needed)
  std::string commit;   ///< the build's git commit (build_commit())
  std::string machine;  ///< host name, CPU model and host threads (machine_description())
  std::string host_isa;  ///< what the host code was built for (host_build())
  std::string date;      ///< UTC, ISO 8601, when the run started (context.hpp utc_now())
  double load_start = -1;  ///< the 1-minute load average when the run started (-1: unknown)
};

/// "-march=native (avx512, 64-byte SIMD)": the host instruction set of this build.
std::string host_build();

/// "pspmv 0.1.0 (commit; host code -march=...)": the answer to --version.
std::string version_line();

/// The commit stamped into this build (perf/build_commit.cmake), "-dirty" when the tree differed.
std::string build_commit();

/// "host | CPU model | N host threads". Needs Kokkos initialized.
std::string machine_description();

/// Kokkos' print_configuration of the default execution space.
std::string kokkos_configuration();

/// The RunInfo of this process. Needs Kokkos initialized.
RunInfo run_info(int argc, char** argv);

/// {command, commit, machine, host_isa, host_simd_bytes}, and kokkos_configuration when asked.
nlohmann::json run_json(const RunInfo& info, bool with_kokkos_configuration);

}  // namespace pspmv_cli
