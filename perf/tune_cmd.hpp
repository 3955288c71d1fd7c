#pragma once
// `pspmv tune`: the model's plan, the tuned plan (within a budget) and the exhaustive best of
// every input, measured in one process, with the analysis cost and break-even calls.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "inputs.hpp"

namespace pspmv_cli {

struct TuneCmdOptions {
  std::vector<std::string> precisions{"f64"};
  std::string space = "default";  ///< "default" (the GPU in a CUDA build) or "host"
  double budget_calls = 400;      ///< tuning budget in multiplies of the model's plan
  int reps = 7;                   ///< timed multiplies per candidate (median)
};

/// Runs the evaluation for every input; prints a table to stdout and progress to stderr.
/// @return one JSON object per input and precision.
nlohmann::json run_tune(const std::vector<Input>& inputs, const TuneCmdOptions& options);

}  // namespace pspmv_cli
