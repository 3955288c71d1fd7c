#pragma once
// `pspmv compare`: pspmv's variants and every available peer library on the same inputs, the
// same threads or device, each result verified; a table, JSON, CSV and gnuplot PNG plots of
// GB/s, the ratio to the floor, the speedup of pspmv over each peer, and the analysis time
// and break-even number of calls of every plan (Intel's SpMV prototype note: an analysis
// stage pays only over repeated calls).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench.hpp"
#include "inputs.hpp"

namespace pspmv_cli {

struct CompareOptions {
  BenchOptions bench;                ///< variants, precisions, reps; peers always on
  std::string out_dir = "compare-out";  ///< created if missing; files are replaced atomically
  bool plots = true;                 ///< run gnuplot on the written scripts
  std::string command;               ///< the command line, recorded in the JSON
  std::string commit;                ///< the build's commit, recorded in the JSON
  std::string machine;               ///< host, CPU and threads, recorded in the JSON
};

/// Break-even number of calls of a plan: its extra analysis time (its own minus that of the
/// unplanned call's setup) over the time it saves per call, (t_unplanned - t_planned).
/// Returns +infinity when the plan is not faster ("never"), and 0 when it costs nothing extra.
double break_even_calls(double analyze_s, double unplanned_analyze_s, double planned_s, double unplanned_s);

/// One implementation's line in the summary of a matrix: pspmv's automatic plan, pspmv's best
/// variant, and each peer's best variant.
struct CompareEntry {
  std::string label;    ///< "pspmv auto", "pspmv best", or the peer's impl name
  std::string impl, variant;
  double median_s = 0, gbs = 0, ratio_to_floor = 0, analyze_s = 0;
  double break_even = -1;  ///< -1: no analysis stage to repay; +inf: never repaid
};

/// The summary of one matrix at one precision.
struct CompareSummary {
  std::string matrix, precision, space;
  std::int64_t rows = 0, nnz = 0;
  double floor_gbs = 0;
  std::vector<CompareEntry> entries;
  /// Every plan with an analysis stage, fastest or not: pspmv's automatic plan, MKL after
  /// mkl_sparse_optimize, librsb tuned, cuSPARSE ALG2 and SELL; label "impl variant".
  std::vector<CompareEntry> planned;
};

/// Groups bench records into per-matrix summaries (order of first appearance). Skipped and
/// unverified records never count as a best.
std::vector<CompareSummary> summarize(const std::vector<Record>& records);

/// The text report: one block per matrix (GB/s, x floor, analysis, break-even, speedups of
/// pspmv's best and automatic plan over each peer), then geometric-mean speedups.
std::string compare_table(const std::vector<CompareSummary>& summaries);

/// Runs the comparison on every input (progress on stderr), writes
/// out_dir/{compare.json, records.csv, summary.csv, summary.txt} and, per precision,
/// {gbs, floor, speedup, breakeven}-PREC.{dat,gp,png}. Prints the table to stdout.
/// @return 0 when every measured result matched the reference, 3 otherwise (files written).
/// @throws pspmv::Error when out_dir cannot be created or a file cannot be written.
int run_compare(const std::vector<Input>& inputs, const CompareOptions& options);

}  // namespace pspmv_cli
