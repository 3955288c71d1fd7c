#pragma once
// Two runs timed in turn, sample by sample, so that a slow or fast spell of the machine falls on
// both alike: `pspmv compare` re-times pspmv's best variant beside each peer's best this way
// before it prints a speedup (the sweep's best of many variants is otherwise favoured by noise).
#include <Kokkos_Core.hpp>

#include <chrono>
#include <functional>
#include <utility>
#include <vector>

#include "harness/records.hpp"

namespace pspmv_cli {

/// Times `a` and `b` (each one fenced call per sample) in `reps` rounds of a b / b a, in turn
/// (ABBA, so that neither always runs first), after `warmups` calls of each; their timings
/// (timing_of: median, minimum and spread, for set_pair). max_rel_err and verified are left as
/// they are (the runs were verified before).
template <class Exec>
std::pair<Timing, Timing> time_pair(const std::function<void()>& a, const std::function<void()>& b, int warmups,
                                    int reps) {
  for (int w = 0; w < warmups; ++w) {
    a();
    b();
  }
  Exec().fence();
  std::vector<double> ta, tb;
  const auto sample = [](const std::function<void()>& run, std::vector<double>& into) {
    const auto t0 = std::chrono::steady_clock::now();
    run();
    Exec().fence();
    into.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  };
  for (int r = 0; r < reps; ++r) {
    if (r % 2 == 0) {
      sample(a, ta);
      sample(b, tb);
    } else {
      sample(b, tb);
      sample(a, ta);
    }
  }
  return {timing_of(ta), timing_of(tb)};
}

}  // namespace pspmv_cli
