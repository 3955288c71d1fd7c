#pragma once
// Records: one measured run, one line of the table, one JSON object and one CSV line
// (ARCHITECTURE.md rule 11).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
namespace pspmv_cli {

/// What verify-then-time measured of one run.
struct Timing {
  double median_s = 0, min_s = 0, max_rel_err = 0;
  bool verified = false;
};

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
  double median_s = 0, min_s = 0, gflops = 0, bytes = 0, gbs = 0, floor_s = 0, floor_gbs = 0,
         ratio_to_floor = 0, max_rel_err = 0;
  bool verified = false;
  bool skipped = false;  ///< a peer variant that cannot run here (plan holds why)
};

/// `base` (the matrix's fields, bytes and floor) completed by one run: its names, analysis
/// time and timing, and the rates derived from them.
Record complete(Record base, const std::string& impl, const std::string& variant, const std::string& plan,
                const std::string& reason, double analyze_s, const Timing& t, const std::string& unplanned);

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
