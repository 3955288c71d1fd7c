#pragma once
// The benchmark of one input: every requested pspmv variant and every peer, each verified
// against the long-double reference and timed (verify_then_time.hpp), against a bandwidth floor
// measured in the same process (floor.hpp). `pspmv bench` and `pspmv compare` run it.
#include <functional>
#include <string>
#include <vector>

#include "harness/inputs.hpp"
#include "harness/records.hpp"
#include "pspmv/timing.hpp"

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
  /// Least length of a timed sample, seconds: a sample is a batch of back-to-back calls with one
  /// fence (harness/samples.hpp); 0: one fenced call per sample.
  double min_sample_s = pspmv::default_min_sample_seconds;
  bool peers = true;               ///< every peer of peers/registry.hpp
  pspmv::AnalyzeOptions base;      ///< chunk size, team and vector sizes applied to every variant
  std::vector<int> vectors{1};     ///< vectors per multiply: 1 is y = A x, k > 1 is Y = A X with k columns (LayoutRight)
  std::vector<int> unroll_sweep;   ///< also run each variant with these gather unroll factors (1, 2, 4, 8, 16)
  std::vector<std::string> long_modes;  ///< SELL variants once per long-row mode ("split", "warp"); empty: default
  std::vector<int> thread_counts;       ///< host: every variant (and auto) once per thread count; empty: chosen
  std::vector<std::string> compress_modes;  ///< SELL variants once per column mode ("on", "off"); empty: default
  std::vector<std::int64_t> row_weights;    ///< CSR nnz_balanced variants once per block row weight; empty: default
  std::vector<std::string> block_costs;     ///< CSR thread_per_row nnz_balanced variants once per block cost
                                            ///< ("groups", "entries"); empty: the plan's choice
  std::int64_t expected_calls = 1000;   ///< the calls hint given to peers that take one (MKL's mkl_sparse_set_mv_hint)
  /// compare: after the sweep of an input, time pspmv's best variant again beside each peer's
  /// best, interleaved (harness/interleave.hpp), into the peer records' paired_* fields
  bool interleave_best = false;
};

/// The pspmv variant that stands for an unplanned call (plain CSR, one thread per row, static
/// chunks: no conversion, no choice); every other pspmv plan's break-even is counted against it.
inline const char* const unplanned_pspmv_variant = "csr thread_per_row/static_chunks";

/// Runs the benchmark on every input; one record per run, each marked noisy or not (mark_noise;
/// a warning on stderr when it is). Progress goes to stderr; with `progress` given, each input is
/// announced first as "<progress>: [i/n] NAME (ROWS x COLS, nnz NNZ)". `after_input`, when
/// given, is called with the records so far after each input (to write them out).
std::vector<Record> run_bench(const std::vector<Input>& inputs, const BenchOptions& options,
                              const char* progress = nullptr,
                              const std::function<void(const std::vector<Record>&)>& after_input = {});

}  // namespace pspmv_cli
