#pragma once
// Records: one measured run, one line of the table, one JSON object and one CSV line
// (ARCHITECTURE.md rule 11).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
namespace pspmv_cli {

/// What verify-then-time measured of one run: the median and minimum of the timed samples and
/// their dispersion (interquartile range, seconds; coefficient of variation, standard deviation
/// over mean).
struct Timing {
  double median_s = 0, min_s = 0, iqr_s = 0, cv = 0, max_rel_err = 0;
  bool verified = false;
  int calls = 1;  ///< calls per sample (harness/samples.hpp); the figures above are per call
};

/// The Timing of a set of samples (seconds): median, minimum, interquartile range (linear
/// interpolation between order statistics) and coefficient of variation. Empty: all zero.
Timing timing_of(std::vector<double> samples);

/// A timing whose median exceeds its minimum by more than this factor is noisy.
inline constexpr double noisy_median_over_min = 1.2;
/// Below this many bytes per multiply an input can stay in the caches, and a time under the
/// floor (a streamed read) is no sign of noise.
inline constexpr double floor_bound_bytes = 8.0 * 1024 * 1024;

/// One measured run (one line of the table, one JSON object).
struct Record {
  std::string matrix, space, precision, impl, variant, plan, reason, floor_method;
  /// The variant of the same impl that is this one's call without its analysis stage (for the
  /// break-even number of calls); empty when there is none.
  std::string unplanned;
  std::int64_t rows = 0, cols = 0, nnz = 0, max_len = 0;
  double mean_len = 0, cv = 0;
  int offset_bits = 64;
  double analyze_s = 0;
  /// analyze()'s phases (Plan::analysis(): name, seconds), in order; empty for peers.
  std::vector<std::pair<std::string, double>> analysis_phases;
  int warmups = 0, reps = 0;
  /// How the samples were taken (harness/samples.hpp): the least length of a sample asked for
  /// (bench and compare --min-sample-ms; 0: one fenced call per sample) and the calls per sample
  /// this run's timing took.
  double min_sample_s = 0;
  int sample_calls = 1;
  /// Vectors multiplied per call (bench --vectors): Y = A X with X and Y of this many columns;
  /// GFLOP/s counts 2 nnz per vector, bytes the matrix once and X and Y once each.
  int vectors = 1;
  double median_s = 0, min_s = 0, iqr_s = 0, time_cv = 0, gflops = 0, bytes = 0, gbs = 0, floor_s = 0, floor_gbs = 0,
         ratio_to_floor = 0, max_rel_err = 0;
  /// pspmv plans: the bytes of the plan's stored matrix (Plan::matrix_bytes), CSR bytes over them
  /// (Plan::compression_ratio), and the floor of the bytes a multiply of this plan moves at
  /// least (its matrix, x and y once: moved_bytes) at the floor's rate (floor_gbs), with the
  /// median over it. 0 for peers (their storage is their own).
  double plan_bytes = 0, compression_ratio = 0, moved_bytes = 0, moved_floor_s = 0, ratio_to_moved_floor = 0;
  bool verified = false;
  bool skipped = false;  ///< a peer variant that cannot run here (plan holds why)
  /// Whether the timing cannot be trusted, and why ("median/min 1.43 > 1.2", "below the floor
  /// (0.81x)", "load average 5.2 above the 2 cores"; reasons joined by "; ").
  bool noisy = false;
  std::string noise;
  /// compare: this variant (a peer's best, or pspmv's best) timed again interleaved sample by
  /// sample with the other side of the pair (`paired_with`), both medians in seconds; 0: not paired.
  std::string paired_with;
  double paired_s = 0, paired_other_s = 0;
  /// The pair's dispersion, so that a ratio of its medians can be read with its error: each
  /// side's minimum and interquartile range (seconds) and coefficient of variation (set_pair);
  /// 0: not set.
  double paired_min_s = 0, paired_iqr_s = 0, paired_cv = 0;
  double paired_other_min_s = 0, paired_other_iqr_s = 0, paired_other_cv = 0;
  int paired_calls = 0, paired_other_calls = 0;  ///< each side's calls per sample
  /// compare, a peer's record: pspmv's automatic plan timed in the same interleaved rounds as the
  /// pair (set_pair_auto), its median and minimum in seconds; 0: not timed there. Where the
  /// automatic plan is pspmv's best variant, the pair's other side.
  double paired_auto_s = 0, paired_auto_min_s = 0;
  int paired_auto_calls = 0;  ///< its calls per sample
};

/// Records in r the interleaved pair (time_rounds) of r's variant (`own`) and `with` (`other`):
/// both medians, minimums, interquartile ranges and coefficients of variation. A side whose
/// median/min exceeds the noise limit marks r noisy, naming that side in r.noise.
void set_pair(Record& r, const std::string& with, const Timing& own, const Timing& other);

/// Records in r (paired by set_pair) the timing of pspmv's automatic plan in the same interleaved
/// rounds; a median/min above the noise limit marks r noisy, as for the pair's sides.
void set_pair_auto(Record& r, const Timing& automatic);

/// Marks r noisy, with its reason, when its median over its minimum exceeds
/// noisy_median_over_min, when an input of at least floor_bound_bytes ran below its floor
/// (ratio_to_floor < 1: the floor bounds nothing here; for a plan of known bytes, below the floor
/// of those bytes too, ratio_to_moved_floor < 1), or when `load` (the load average while it
/// ran, negative: unknown) exceeds `load_limit`. Skipped records are never noisy.
void mark_noise(Record& r, double load, double load_limit);

/// "pspmv: warning: MATRIX PREC IMPL VARIANT: noisy timing (REASONS)\n" for a record noisy by its
/// own samples or its floor, else "" (a load above the cores is warned of once per run).
std::string noise_warning(const Record& r);

/// RFC 4180 quoting of one CSV field: as it is, or in double quotes (quotes doubled) when it
/// holds a comma, a double quote, a line break or leading or trailing white space.
std::string csv_field(const std::string& s);

/// `base` (the matrix's fields, bytes and floor) completed by one run: its names, analysis
/// time and timing, and the rates derived from them.
Record complete(Record base, const std::string& impl, const std::string& variant, const std::string& plan,
                const std::string& reason, double analyze_s, const Timing& t, const std::string& unplanned);

/// Sets r's plan bytes, compression ratio and moved-bytes floor from a pspmv plan's matrix
/// bytes and CSR bytes (r's floor and timing already set; x and y bytes: `vector_bytes`).
void set_plan_bytes(Record& r, double plan_bytes, double csr_bytes, double vector_bytes);

/// `base` as the record of a variant that cannot run here, `why` in its plan.
Record skipped(Record base, const std::string& impl, const std::string& variant, const std::string& why);

/// Whether r is a run whose result did not match the reference.
inline bool wrong(const Record& r) { return !r.verified && !r.skipped; }

/// The line that says so: "pspmv COMMAND: MATRIX PREC IMPL VARIANT did not match ...".
std::string mismatch(const std::string& command, const Record& r);

nlohmann::json to_json(const Record& r);
std::string csv_header();
std::string to_csv(const Record& r);

}  // namespace pspmv_cli
