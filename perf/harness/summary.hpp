#pragma once
// The summary of `pspmv compare`: per matrix and precision, pspmv's automatic plan and best
// variant beside each peer's best, the analysis time and break-even number of calls of every
// plan (Intel's SpMV prototype note: an analysis stage pays only over repeated calls), and the
// geometric-mean speedups; as text, JSON and CSV.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/records.hpp"

namespace pspmv_cli {

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
  double min_s = 0;        ///< the minimum of its timed samples (the plots' error bars)
  double iqr_s = 0, cv = 0;  ///< its samples' interquartile range (seconds) and coefficient of variation
  bool noisy = false;      ///< its record's mark_noise
  /// A peer's best timed again interleaved with pspmv's best variant (Record::paired_*): its
  /// median and pspmv's; 0 when not re-timed. The speedups use these pairs where present.
  double paired_s = 0, paired_pspmv_s = 0;
  /// The pair's minimums, its and pspmv's (0: not recorded): the speedup's error bar.
  double paired_min_s = 0, paired_pspmv_min_s = 0;
  /// pspmv's automatic plan timed in the same interleaved rounds (Record::paired_auto_s); 0: not
  /// timed there. The speedups over the automatic plan use it where present.
  double paired_auto_s = 0;
};

/// The summary of one matrix at one precision.
struct CompareSummary {
  std::string matrix, precision, space;
  std::int64_t rows = 0, nnz = 0;
  double floor_gbs = 0;
  double bytes = 0;  ///< the minimum bytes of one multiply (below floor_bound_bytes the floor bounds nothing)
  std::vector<CompareEntry> entries;
  /// Every plan with an analysis stage, fastest or not: pspmv's automatic plan, MKL after
  /// mkl_sparse_optimize, librsb tuned, cuSPARSE ALG2 and SELL; label "impl variant".
  std::vector<CompareEntry> planned;
};

/// The entry labelled `label`, or nullptr.
const CompareEntry* find_entry(const std::vector<CompareEntry>& entries, const std::string& label);

/// Groups bench records into per-matrix summaries (order of first appearance). Skipped and
/// unverified records never count as a best.
std::vector<CompareSummary> summarize(const std::vector<Record>& records);

/// The text report: one block per matrix (GB/s, x floor, analysis, break-even, speedups of
/// pspmv's best and automatic plan over each peer), then geometric-mean speedups.
std::string compare_table(const std::vector<CompareSummary>& summaries);

/// The records as JSON objects and as CSV (to_json, to_csv), each with its break-even number of
/// calls (and, in the CSV, its unplanned variant).
nlohmann::json records_json(const std::vector<Record>& records);
std::string records_csv(const std::vector<Record>& records);

/// e's time over pspmv's best variant and over its automatic plan in m (0 where m lacks one).
/// Each from the interleaved rounds where e was re-timed in them (paired_s with paired_pspmv_s,
/// paired_auto_s), else the ratio of the sweep's medians.
std::pair<double, double> time_over_pspmv(const CompareSummary& m, const CompareEntry& e);

/// The same ratio over pspmv's best from the minimums instead of the medians (of the
/// interleaved pair where e was re-timed and both minimums are known, else of the sweep): the
/// other end of the speedup's min-median error bar; 0 where unknown.
double time_over_pspmv_best_min(const CompareSummary& m, const CompareEntry& e);

/// The summaries as JSON and as CSV.
nlohmann::json summary_json(const std::vector<CompareSummary>& summaries);
std::string summary_csv(const std::vector<CompareSummary>& summaries);

}  // namespace pspmv_cli
