#pragma once
// The context block of every record file (bench, compare, tune): when, where and how a run was
// measured (machine, caches and NUMA from hwloc, the GPU, the build, Kokkos and the peers'
// versions, OMP_* settings, the load average at its start and end) and the run-level noise
// warnings. docs/benchmarking.md, "Records", lists the keys; a value that cannot be found is null.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/records.hpp"
#include "harness/run_info.hpp"

namespace pspmv_cli {

/// The 1-minute load average, or -1 where the system does not report one.
double load_average();

/// The host's cores (hwloc; the logical CPUs online where hwloc is not built in).
int host_cores();

/// The load average above which a timing counts as noisy: the cores, plus one when the run's
/// own threads are part of the load (`while_running`: they keep about the cores busy in a host
/// run, one in a GPU run).
double load_limit(bool while_running);

/// "2026-12-01T15:30:00Z": the current UTC time, ISO 8601.
std::string utc_now();

/// The context block (schema 1). `info` holds the date and load average at the start; the
/// load average at the end is read now. `warnings` are the run-level noise warnings.
nlohmann::json context_json(const RunInfo& info, const std::vector<std::string>& warnings);

/// The run-level noise warnings of a run: the load average at its start against the cores, and
/// once it ran (`started`), the load average now against the cores plus one and how many of
/// `records` are noisy (mark_noise). Each is also meant for stderr (print_warnings).
std::vector<std::string> run_warnings(const RunInfo& info, const std::vector<Record>& records, bool started = true);

/// Prints each warning to stderr as "pspmv: warning: ..." (once per distinct text: a warning
/// already printed by an earlier call is not repeated).
void print_warnings(const std::vector<std::string>& warnings);

}  // namespace pspmv_cli
