#pragma once
// How the tool times a run: a sample is a batch of back-to-back calls with one fence of the
// execution space at its end, divided by the batch's size; the size is calibrated once per
// timing (pspmv::detail::calibrated_batch, as tune() sizes its samples) so that a sample lasts
// at least bench's and compare's --min-sample-ms (0: one fenced call per sample).
// docs/benchmarking.md, "Samples", says why.
#include <Kokkos_Core.hpp>

#include <vector>

#include "pspmv/timing.hpp"
#include "harness/records.hpp"

namespace pspmv_cli {

/// Seconds of `calls` runs of `run` back to back, with one fence of Exec at the end.
template <class Exec, class Run>
double batch_seconds(const Run& run, int calls) {
  return pspmv::detail::batch_seconds(run, calls, [] { Exec().fence(); });
}

/// Calls per sample of `run` for samples of at least min_sample_seconds (1, nothing run, for 0).
template <class Exec, class Run>
int calls_per_sample(const Run& run, double min_sample_seconds) {
  if (!(min_sample_seconds > 0)) return 1;
  return pspmv::detail::calibrated_batch([&](int calls) { return batch_seconds<Exec>(run, calls); },
                                         min_sample_seconds);
}

/// Times `run` after `warmups` calls: `reps` samples of calls_per_sample() calls each. Sets t's
/// median, minimum, interquartile range and coefficient of variation (per call) and its calls
/// per sample; leaves its verification as it is.
template <class Exec, class Run>
void time_samples(const Run& run, int warmups, int reps, double min_sample_seconds, Timing& t) {
  for (int w = 0; w < warmups; ++w) run();
  Exec().fence();
  const int calls = calls_per_sample<Exec>(run, min_sample_seconds);
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) times.push_back(batch_seconds<Exec>(run, calls) / calls);
  const Timing spread = timing_of(times);
  t.median_s = spread.median_s;
  t.min_s = spread.min_s;
  t.iqr_s = spread.iqr_s;
  t.cv = spread.cv;
  t.calls = calls;
}

}  // namespace pspmv_cli
