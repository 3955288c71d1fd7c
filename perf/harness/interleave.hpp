#pragma once
// Runs timed in turn, sample by sample, so that a slow or fast spell of the machine falls on all
// alike: `pspmv compare` re-times each peer's best beside pspmv's best variant and its automatic
// plan this way before it prints a speedup (the sweep's best of many variants is otherwise
// favoured by noise, and a sweep's medians come from different spells of the machine).
#include <Kokkos_Core.hpp>

#include <functional>
#include <utility>
#include <vector>

#include "harness/records.hpp"
#include "harness/samples.hpp"

namespace pspmv_cli {

/// Times each of `runs` in `reps` rounds, after `warmups` calls of each; round r starts with run
/// r mod n and goes on in order (for two runs: a b, b a, ...), so that no run always comes first
/// or always follows the same one. A sample is a batch of calls_per_sample() calls (at least
/// min_sample_seconds long; 1 call for 0; sized once per run after the warm-ups and an untimed
/// call of that run) with one fence at its end, after one untimed fenced call of the same run:
/// the switch from another run (an OpenMP team of another size, another library's thread pool,
/// caches holding another layout) is charged to neither, so that each run is timed as it runs
/// call after call, as in the sweep. Their timings (timing_of, per call, with the calls per sample: for set_pair), in
/// the order of `runs`. max_rel_err and verified are left as they are (the runs were verified
/// before).
template <class Exec>
std::vector<Timing> time_rounds(const std::vector<std::function<void()>>& runs, int warmups, int reps,
                                double min_sample_seconds) {
  const std::size_t n = runs.size();
  for (int w = 0; w < warmups; ++w)
    for (const auto& run : runs) run();
  Exec().fence();
  // Each run's batch sized after one untimed call of its own, as its samples are timed (one
  // call a sample, nothing sized, for 0).
  std::vector<int> calls(n, 1);
  if (min_sample_seconds > 0)
    for (std::size_t i = 0; i < n; ++i) {
      runs[i]();
      Exec().fence();
      calls[i] = calls_per_sample<Exec>(runs[i], min_sample_seconds);
    }
  std::vector<std::vector<double>> samples(n);
  for (int r = 0; r < reps; ++r)
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t i = (static_cast<std::size_t>(r) + k) % n;
      runs[i]();
      Exec().fence();
      samples[i].push_back(batch_seconds<Exec>(runs[i], calls[i]) / calls[i]);
    }
  std::vector<Timing> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    out.push_back(timing_of(samples[i]));
    out.back().calls = calls[i];
  }
  return out;
}
}  // namespace pspmv_cli
