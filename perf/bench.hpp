#pragma once
// `pspmv bench`: measures every requested variant of every input, verifies each result
// against a sequential double-precision reference, and reports against a bandwidth floor
// measured in the same process (ARCHITECTURE.md rule 11).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "inputs.hpp"

namespace pspmv_cli {

struct BenchOptions {
  std::vector<pspmv::Format> formats{pspmv::all_formats.begin(), pspmv::all_formats.end()};
  std::vector<pspmv::Mapping> mappings{pspmv::all_mappings.begin(), pspmv::all_mappings.end()};
  std::vector<pspmv::Schedule> schedules{pspmv::all_schedules.begin(), pspmv::all_schedules.end()};
  bool include_auto = true;        ///< also run the plan analyze() picks by itself
  std::vector<std::string> precisions{"f64", "f32"};
  std::string space = "default";   ///< "default" (the GPU in a CUDA build) or "host"
  int warmups = 5;
  int reps = 20;
  bool peers = true;               ///< plain OpenMP loops and Kokkos Kernels, where available
  pspmv::AnalyzeOptions base;      ///< chunk size, team and vector sizes applied to every variant
  std::vector<int> unroll_sweep;   ///< also run each variant with these gather unroll factors (1, 2, 4, 8, 16)
  std::vector<std::string> long_modes;  ///< SELL variants once per long-row mode ("split", "warp"); empty: default
  std::int64_t expected_calls = 1000;   ///< the calls hint given to peers that take one (MKL's mkl_sparse_set_mv_hint)
};

/// The pspmv variant that stands for an unplanned call (plain CSR, one thread per row, static
/// chunks: no conversion, no choice); every other pspmv plan's break-even is counted against it.
inline const char* const unplanned_pspmv_variant = "csr thread_per_row/static_chunks";

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
  int warmups = 0, reps = 0;
  double median_s = 0, min_s = 0, gflops = 0, bytes = 0, gbs = 0, floor_s = 0, floor_gbs = 0,
         ratio_to_floor = 0, max_rel_err = 0;
  bool verified = false;
  bool skipped = false;  ///< a peer variant that cannot run here (plan holds why)
};

/// Runs the benchmark on one input. Progress goes to stderr.
std::vector<Record> run_bench(const Input& input, const BenchOptions& options);

nlohmann::json to_json(const Record& r);
std::string csv_header();
std::string to_csv(const Record& r);
/// The human-readable table of a set of records.
std::string table(const std::vector<Record>& records);
/// The lesson-pair summary: for even:N and skewed:N (equal nnz, checked: throws
/// pspmv::InvalidArgument otherwise), per variant the skewed/even time ratio beside the
/// lane-slot ratio of the model. Empty when the run holds no such pair.
std::string lesson_pair_summary(const std::vector<Input>& inputs, const std::vector<Record>& records);

/// Writes text to path through a temporary file renamed into place.
void write_file_atomically(const std::string& path, const std::string& text);

}  // namespace pspmv_cli
