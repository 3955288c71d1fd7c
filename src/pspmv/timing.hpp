#pragma once
/// @file timing.hpp
/// How pspmv times a plan: SampleTimer (batches of back-to-back multiplies, one fence a
/// batch), time_multiply (the median of samples) and time_interleaved (several plans timed
/// sample by sample in turn, so that slow and fast spells of a host fall on all of them).

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "pspmv/errors.hpp"
#include "pspmv/extern_plans.hpp"  // Plan, and its instantiations in the library

namespace pspmv {

/// Default length of one timed sample, seconds (TuneOptions::min_sample_seconds).
inline constexpr double default_min_sample_seconds = 5e-4;

inline double median_of(std::vector<double> t) {
  if (t.empty()) return 0;
  std::sort(t.begin(), t.end());
  const std::size_t n = t.size();
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

namespace detail {
/// Seconds of `calls` runs of `run` back to back, then fence(): one timed sample before its
/// division by `calls` (SampleTimer; the tool's bench and compare).
template <class Run, class Fence>
double batch_seconds(const Run& run, int calls, const Fence& fence) {
  const auto t0 = std::chrono::steady_clock::now();
  for (int c = 0; c < calls; ++c) run();
  fence();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Calls per timed sample: from 1, doubled, or scaled by the time missing (2 to 10 times),
/// until one batch of `timed(calls)` seconds (the calls back to back, one fence at the end)
/// lasts min_sample_seconds, at most max_batch (min_sample_seconds 0: 1, after one timed
/// call). SampleTimer and the tool's bench and compare size their samples with it.
template <class Timed>
int calibrated_batch(const Timed& timed, double min_sample_seconds, int max_batch = 100000) {
  int batch = 1;
  for (double took = timed(batch); took < min_sample_seconds && batch < max_batch; took = timed(batch)) {
    const double scale = took > 0 ? 1.2 * min_sample_seconds / took : 10.0;
    batch = static_cast<int>(std::min<double>(max_batch, std::ceil(batch * std::clamp(scale, 2.0, 10.0))));
  }
  return batch;
}
}  // namespace detail

/// One plan's timer on the instance `space`: x (ncols, all ones) and y (nrows), a workspace, a
/// warm-up multiply, and the batch size of its samples. It points to the plan, which must
/// outlive it. The batch size (1 to 100000) is calibrated first: doubled, or scaled by the time
/// missing, until one batch lasts min_sample_seconds (0: one multiply per sample).
template <class ExecSpace, class Value, class Offset, class MValue = Value>
struct SampleTimer {
  using PlanT = Plan<ExecSpace, Value, Offset, MValue>;
  ExecSpace space;
  const PlanT* plan = nullptr;
  typename PlanT::vector_type x, y;
  typename PlanT::workspace_type workspace;
  int batch = 1;

  SampleTimer(const ExecSpace& s, const PlanT& p, double min_sample_seconds)
      : space(s),
        plan(&p),
        x(Kokkos::view_alloc(Kokkos::WithoutInitializing, "pspmv::tune_x"), p.x_length()),
        y(Kokkos::view_alloc(Kokkos::WithoutInitializing, "pspmv::tune_y"), p.y_length()),
        workspace(p.make_workspace()) {
    Kokkos::deep_copy(space, x, Value(1));
    p.multiply(space, Value(1), x, Value(0), y, workspace);  // warm-up
    space.fence();
    batch = detail::calibrated_batch([this](int calls) { return batch_seconds(calls); }, min_sample_seconds);
  }
  /// Seconds of `calls` back-to-back multiplies with one fence at their end.
  double batch_seconds(int calls) const {
    return detail::batch_seconds([this] { plan->multiply(space, Value(1), x, Value(0), y, workspace); }, calls,
                                 [this] { space.fence(); });
  }
  /// Seconds of one batch.
  double timed_batch() const { return batch_seconds(batch); }
  /// One sample: seconds per multiply.
  double sample() const { return timed_batch() / batch; }
};

/// Seconds per multiply y = A x (x = 1) of `plan`: the median of `reps` samples after a
/// warm-up, each sample a batch of back-to-back multiplies with one fence at its end, divided by
/// the batch size (see SampleTimer).
template <class ExecSpace, class Value, class Offset, class MValue = Value>
double time_multiply(const ExecSpace& space, const Plan<ExecSpace, Value, Offset, MValue>& plan, int reps,
                     double min_sample_seconds = 0) {
  const SampleTimer<ExecSpace, Value, Offset, MValue> timer(space, plan, min_sample_seconds);
  std::vector<double> t;
  for (int r = 0; r < std::max(1, reps); ++r) t.push_back(timer.sample());
  return median_of(t);
}

/// time_multiply() on the default instance.
template <class ExecSpace, class Value, class Offset, class MValue = Value>
double time_multiply(const Plan<ExecSpace, Value, Offset, MValue>& plan, int reps, double min_sample_seconds = 0) {
  return time_multiply(ExecSpace(), plan, reps, min_sample_seconds);
}

/// One plan's timing by time_interleaved_spread(), seconds per multiply: the median of its round
/// medians (what time_interleaved() returns) and the spread of all its samples.
struct TimingSpread {
  double median = 0;  ///< median of the round medians
  double min = 0;     ///< fastest sample
  double iqr = 0;     ///< interquartile range of every sample (third quartile - first)
  double cv = 0;      ///< standard deviation / mean of every sample
};

namespace detail {
/// Quantile q of sorted t, interpolated linearly between neighbours.
inline double quantile_sorted(const std::vector<double>& t, double q) {
  if (t.empty()) return 0;
  const double at = q * static_cast<double>(t.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(at);
  const std::size_t hi = std::min(lo + 1, t.size() - 1);
  return t[lo] + (at - static_cast<double>(lo)) * (t[hi] - t[lo]);
}
}  // namespace detail

/// time_interleaved() with each plan's spread (TimingSpread): the same samples, the same
/// medians. @throws InvalidArgument as time_interleaved().
template <class ExecSpace, class Value, class Offset, class MValue = Value>
std::vector<TimingSpread> time_interleaved_spread(const std::vector<const Plan<ExecSpace, Value, Offset, MValue>*>& plans,
                                                  int reps, int rounds,
                                                  double min_sample_seconds = default_min_sample_seconds,
                                                  const ExecSpace& space = ExecSpace()) {
  if (reps < 1 || rounds < 1 || !(min_sample_seconds >= 0) || !std::isfinite(min_sample_seconds))
    throw InvalidArgument("time_interleaved: reps and rounds must be >= 1 and min_sample_seconds >= 0, got " +
                          std::to_string(reps) + ", " + std::to_string(rounds) + " and " +
                          std::to_string(min_sample_seconds));
  std::vector<SampleTimer<ExecSpace, Value, Offset, MValue>> timers;
  timers.reserve(plans.size());
  for (const auto* p : plans) timers.emplace_back(space, *p, min_sample_seconds);
  std::vector<std::vector<double>> round_medians(plans.size()), all(plans.size());
  std::vector<std::vector<double>> samples(plans.size());
  for (int r = 0; r < rounds; ++r) {
    for (auto& v : samples) v.clear();
    for (int k = 0; k < reps; ++k)
      for (std::size_t i = 0; i < timers.size(); ++i) samples[i].push_back(timers[i].sample());
    for (std::size_t i = 0; i < timers.size(); ++i) {
      round_medians[i].push_back(median_of(samples[i]));
      all[i].insert(all[i].end(), samples[i].begin(), samples[i].end());
    }
  }
  std::vector<TimingSpread> out;
  for (std::size_t i = 0; i < plans.size(); ++i) {
    std::vector<double>& t = all[i];
    std::sort(t.begin(), t.end());
    double mean = 0, var = 0;
    for (const double v : t) mean += v;
    mean /= static_cast<double>(t.size());
    for (const double v : t) var += (v - mean) * (v - mean);
    var /= static_cast<double>(t.size());
    out.push_back({median_of(round_medians[i]), t.front(),
                   detail::quantile_sorted(t, 0.75) - detail::quantile_sorted(t, 0.25),
                   mean > 0 ? std::sqrt(var) / mean : 0.0});
  }
  return out;
}

/// Times several plans (usually of one matrix) on the instance `space` in `rounds` rounds of
/// `reps` samples each, interleaved sample by sample (plan 0's sample, plan 1's, ..., then
/// again), and returns each plan's median of its round medians in seconds per multiply y = A x
/// (x = 1). Each plan gets its x, y and workspace, a warm-up and its batch size once, before the
/// first round (a sample is a batch calibrated to last about min_sample_seconds). Memory: every
/// plan's x and y at once, plans.size() x (nrows + ncols) values in ExecSpace's memory.
/// Interleaving by sample makes a host's slow or fast spell fall on every plan alike, not on
/// the plans timed after it began (perf/results/cpu-2core.md: a plan of bcsstk13 ran 1.65x slower
/// for its first rounds on the 2-core EPYC). Each sample follows another plan's batch, so its
/// first multiply finds that plan's data in the caches.
/// @throws InvalidArgument when reps or rounds < 1 or min_sample_seconds is negative or infinite.
template <class ExecSpace, class Value, class Offset, class MValue = Value>
std::vector<double> time_interleaved(const std::vector<const Plan<ExecSpace, Value, Offset, MValue>*>& plans, int reps,
                                     int rounds, double min_sample_seconds = default_min_sample_seconds,
                                     const ExecSpace& space = ExecSpace()) {
  std::vector<double> out;
  for (const auto& t : time_interleaved_spread(plans, reps, rounds, min_sample_seconds, space))
    out.push_back(t.median);
  return out;
}

}  // namespace pspmv
