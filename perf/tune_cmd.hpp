#pragma once
// `pspmv tune`: the model's plan, the tuned plan (within a budget) and the exhaustive best of
// every input, measured in one process, with the analysis cost and break-even calls.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "inputs.hpp"
#include "pspmv/tune.hpp"

namespace pspmv_cli {

struct TuneCmdOptions {
  std::vector<std::string> precisions{"f64"};
  std::string space = "default";  ///< "default" (the GPU in a CUDA build) or "host"
  double budget_calls = 400;      ///< tuning budget in multiplies of the model's plan
  int min_candidates = 12;        ///< candidates the budgeted tune tries whatever the budget
  int reps = 7;                   ///< timed samples per candidate (median)
  /// each sample a batch of multiplies calibrated to last about this long (pspmv::TuneOptions), in
  /// every stage: the exhaustive search, the budgeted tune and the final timing
  double min_sample_ms = pspmv::TuneOptions{}.min_sample_seconds * 1e3;
  int rounds = 5;                 ///< interleaved rounds of the final model / tuned / best / CSR timing
  /// machine profile (pspmv calibrate) given to the model, the budgeted tune and the exhaustive
  /// search; empty: the compile-time model
  std::shared_ptr<const pspmv::MachineProfile> profile;
};

/// Runs the evaluation for every input; prints a table to stdout and progress to stderr.
/// @return one JSON object per input and precision.
/// `after_each`, when given, receives the results so far after every input and precision
/// (pspmv tune rewrites its JSON file with them, so that a run cut short keeps what it measured).
nlohmann::json run_tune(const std::vector<Input>& inputs, const TuneCmdOptions& options,
                        const std::function<void(const nlohmann::json&)>& after_each = {});

}  // namespace pspmv_cli
