#pragma once
// `pspmv bench --distributed`: the distributed plan (pspmv::DistributedPlan) under mpirun,
// verified against the single-process reference and timed per rank and in total.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "command.hpp"
#include "harness/runner.hpp"

namespace pspmv_cli {

struct DistributedBenchOptions {
  bool enabled = false;          ///< --distributed
  std::string partition = "nnz";  ///< rows split by nnz balance ("nnz") or in equal counts ("rows")
  std::string baseline;          ///< JSON of a 1-rank run: strong-scaling speedup against it
};

/// Adds --distributed, --partition and --baseline to `pspmv bench`.
void add_distributed_options(CLI::App* sub, DistributedBenchOptions& d);

/// Runs the distributed benchmark of every input (collective over MPI_COMM_WORLD; initializes
/// and finalizes MPI). f64; one format / mapping / schedule each when given, else analyze()'s
/// choice per block. Returns 0, or 3 when a result is wrong (on every rank).
/// @throws pspmv::Unsupported in a build without MPI; pspmv::Error for bad input (every rank alike).
int run_distributed(const InputOptions& inputs, const BenchOptions& bench, const std::vector<std::string>& formats,
                    const std::vector<std::string>& mappings, const std::vector<std::string>& schedules,
                    const std::string& json, const DistributedBenchOptions& d, const RunInfo& info);

}  // namespace pspmv_cli
