#pragma once
/// @file tune.hpp
/// Empirical plan selection: time candidate plans of a matrix on the execution space and keep
/// the fastest, within a budget. Intel's SpMV prototype note: the scheduling "significantly
/// affects performance and should be chosen experimentally", and the analysis pays only over
/// repeated calls; the `expected_calls` hint plays the part of MKL's mkl_sparse_set_mv_hint
/// (Intel MKL Developer Reference, "mkl_sparse_set_mv_hint"): tuning is skipped when the calls
/// expected cannot repay it.
///
/// @code
///   pspmv::TuneOptions t;
///   t.expected_calls = 1000;                          // the solver will multiply ~1000 times
///   auto result = pspmv::tune<Kokkos::DefaultExecutionSpace>(A, {}, t);
///   const auto& plan = result.plan;                   // the fastest candidate measured
/// @endcode

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "pspmv/extern_plans.hpp"  // Plan, and its instantiations in the library
#include "pspmv/timing.hpp"

namespace pspmv {

/// Budget and hints of tune(). The measurements behind each default: docs/selection.md.
struct TuneOptions {
  /// Stop trying candidates once this much wall time (seconds) went into tuning; 0: use
  /// budget_calls.
  double budget_seconds = 0;
  /// Budget as a multiple of one multiply of the model's plan (0: 400). Ignored when
  /// budget_seconds is set.
  double budget_calls = 0;
  /// Candidates tried whatever the budget (the model's nearest neighbours first; one that
  /// analyze() rejects counts too): on a microsecond matrix one analysis costs more than the
  /// budget in calls.
  int min_candidates = 12;
  /// Calls the caller expects to make with the plan (0: unknown, tune within the budget).
  /// When set, tuning runs only if a 10% gain over those calls would repay its estimated cost
  /// (candidates x (analysis + 2 multiplies + reps samples)); otherwise the model's plan is
  /// returned after one measurement (the part of MKL's mkl_sparse_set_mv_hint).
  std::int64_t expected_calls = 0;
  /// Timed samples per candidate (median taken), after one warm-up.
  int reps = 5;
  /// A sample is a batch of back-to-back multiplies, one fence at its end, calibrated to last
  /// about this long (seconds; at most 100000 multiplies); 0: one fenced call per sample.
  double min_sample_seconds = default_min_sample_seconds;
  /// Try every candidate regardless of the budget (an exhaustive search, for evaluation).
  bool exhaustive = false;
  /// After the sweep, the model's plan and the fastest `confirm` - 1 others are timed again in
  /// `rounds` interleaved rounds (time_interleaved); a candidate replaces the model's plan only
  /// by beating it there. 1: no confirmation (the sweep's fastest wins). Cost: confirm x rounds
  /// x reps samples, outside the budget; memory: up to confirm + 1 plans at once.
  int confirm = 4;
  /// Rounds of the confirmation (each a median of `reps` samples per plan).
  int rounds = 3;
};

/// One candidate plan and its measured time.
struct TunedCandidate {
  std::string label;        ///< e.g. "sell thread_per_row/static_chunks long=split"
  std::string plan;         ///< Plan::describe()
  double analyze_seconds = 0;
  double multiply_seconds = 0;  ///< median of TuneOptions::reps timed samples, per multiply (the sweep)
  /// Median over TuneOptions::rounds interleaved rounds (each a median of reps) when this
  /// candidate was among the confirmed; 0 otherwise, also for a candidate whose configuration
  /// is the model's (it carries the model's time and is not timed again).
  double confirmed_seconds = 0;
};

/// What tune() returns: the fastest plan measured, and every candidate it timed (the model's
/// plan first).
template <class ExecSpace, class Value, class Offset, class MatrixValue = Value>
struct TuneResult {
  Plan<ExecSpace, Value, Offset, MatrixValue> plan;
  std::vector<TunedCandidate> tried;
  std::size_t best = 0;          ///< index of plan in tried
  double tune_seconds = 0;       ///< wall time of tune(), analyses and measurements included
  std::size_t candidates = 0;    ///< candidates available (tried.size() when exhaustive)
  std::string reason;            ///< why tuning stopped or was skipped
};

/// The candidate options tune() tries after the model's plan: every format x mapping x
/// schedule, on a GPU SELL with both long-row methods, team-per-row at vector lengths 8 and
/// 32, on a host static and dynamic chunks at 500 and 8000 chunks besides the default (work
/// stealing at the default only). On a GPU, whose hardware hands out blocks, neither dynamic
/// schedule is a candidate: Kokkos' CUDA backend ignores Schedule<Dynamic> (work_stealing is
/// the static launch), and dynamic_chunks' persistent workers only add atomics. With `model` given, candidates that differ from
/// the model's choice in fewer of format, mapping and schedule come first (a budget that
/// stops early has then tried the model's neighbours).
template <class ExecSpace>
std::vector<std::pair<std::string, AnalyzeOptions>> tune_candidates(const AnalyzeOptions& base,
                                                                    const Format* model_format = nullptr,
                                                                    const Mapping* model_mapping = nullptr,
                                                                    const Schedule* model_schedule = nullptr) {
  using Traits = ExecTraits<ExecSpace>;
  std::vector<std::pair<std::string, AnalyzeOptions>> out;
  for (auto f : all_formats)
    for (auto m : all_mappings)
      for (auto s : all_schedules) {
        if (Traits::is_gpu && (s == Schedule::dynamic_chunks || s == Schedule::work_stealing)) continue;
        if (!schedule_runs(s, m, Traits::is_gpu)) continue;
        if (base.deterministic && m != Mapping::thread_per_row) continue;  // choose() refuses them
        AnalyzeOptions o = base;
        o.format = f;
        o.mapping = m;
        o.schedule = s;
        // A caller's block row weight belongs to the CSR nnz_balanced candidates alone, its
        // block groups to those of them with a thread per row.
        if (f != Format::csr || s != Schedule::nnz_balanced) o.block_row_weight.reset();
        if (f != Format::csr || s != Schedule::nnz_balanced || m != Mapping::thread_per_row) o.block_groups.reset();
        const std::string label = to_string(f) + " " + to_string(m) + "/" + to_string(s);
        if (Traits::is_gpu && f == Format::sell) {
          for (const bool split : {true, false}) {
            AnalyzeOptions p = o;
            p.sell_long_split = split;
            out.emplace_back(label + (split ? " long=split" : " long=warp"), p);
          }
        } else if (Traits::is_gpu && f == Format::csr && m == Mapping::team_per_row) {
          for (const int v : {8, 32}) {
            AnalyzeOptions p = o;
            p.vector_length = v;
            out.emplace_back(label + " vector_length=" + std::to_string(v), p);
          }
        } else {
          out.emplace_back(label, o);
          if (!Traits::is_gpu && (s == Schedule::static_chunks || s == Schedule::dynamic_chunks))
            for (const int chunks : {500, 8000}) {
              AnalyzeOptions p = o;
              p.target_chunks = chunks;
              out.emplace_back(label + " chunks=" + std::to_string(chunks), p);
            }
        }
      }
  if (model_format && model_mapping && model_schedule) {
    auto distance = [&](const AnalyzeOptions& o) {
      return (*o.format != *model_format) + (*o.mapping != *model_mapping) + (*o.schedule != *model_schedule);
    };
    std::stable_sort(out.begin(), out.end(),
                     [&](const auto& a, const auto& b) { return distance(a.second) < distance(b.second); });
  }
  return out;
}


/// Times the model's plan of A (analyze with `options`), then candidate plans (every format,
/// mapping and schedule, with a few launch sizes; see tune_candidates) until the
/// budget is spent; the model's plan and the fastest TuneOptions::confirm - 1 others are timed
/// again in interleaved rounds (they are held at once: that many plans' memory), and the
/// fastest of those is returned. Candidates that analyze() rejects for this matrix (e.g. a
/// launch size beyond the device) are skipped.
/// Shapes: A is a validated host CSR matrix; the returned plan multiplies x (ncols) into y (nrows).
/// The budget in calls (budget_calls x one multiply of the model's plan) is spent after the
/// first few candidates of a matrix whose multiply is shorter than min_sample_seconds; then
/// min_candidates decides how many are tried.
/// @throws as analyze() for the model's plan; InvalidArgument for a negative budget,
/// min_candidates or min_sample_seconds, an infinite min_sample_seconds, or reps, confirm or
/// rounds < 1.
/// Vector: the type of x and y (A's value type, or double under a float A: MixedPlan
/// candidates; tune_mixed()).
template <class ExecSpace, class Value, class Offset, class Vector = Value>
TuneResult<ExecSpace, Vector, Offset, Value> tune(const ExecSpace& space, const HostCsr<Value, Offset>& A,
                                                  const AnalyzeOptions& options = {},
                                                  const TuneOptions& tune_options = {}) {
  using V = Vector;
  using PlanT = Plan<ExecSpace, V, Offset, Value>;
  if (tune_options.budget_seconds < 0 || tune_options.budget_calls < 0 || tune_options.reps < 1 ||
      tune_options.confirm < 1 || tune_options.rounds < 1 || tune_options.min_candidates < 0 ||
      !(tune_options.min_sample_seconds >= 0) || !std::isfinite(tune_options.min_sample_seconds))
    throw InvalidArgument(
        "TuneOptions: budgets, min_candidates and min_sample_seconds must be >= 0 (min_sample_seconds finite), and "
        "reps, confirm and rounds >= 1");
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  PlanT model(space, A, options);
  TuneResult<ExecSpace, V, Offset, Value> r{model, {}, 0, 0, 0, ""};
  const double sample = tune_options.min_sample_seconds;
  const double t_model = time_multiply(space, model, tune_options.reps, sample);
  r.tried.push_back({"model", model.describe(), model.analyze_seconds(), t_model});
  const Format mf = model.format();
  const Mapping mm = model.mapping();
  const Schedule ms = model.schedule();
  const auto candidates = tune_candidates<ExecSpace>(options, &mf, &mm, &ms);
  r.candidates = candidates.size() + 1;
  const double budget = tune_options.budget_seconds > 0
                            ? tune_options.budget_seconds
                            : (tune_options.budget_calls > 0 ? tune_options.budget_calls : 400.0) * t_model;
  if (tune_options.expected_calls > 0 && !tune_options.exhaustive) {
    const double cost = static_cast<double>(candidates.size()) *
                        (model.analyze_seconds() + 2 * t_model + tune_options.reps * std::max(t_model, sample));
    const double gain = 0.1 * t_model * static_cast<double>(tune_options.expected_calls);
    if (gain < cost) {
      r.reason = "expected_calls " + std::to_string(tune_options.expected_calls) + ": a 10% gain (" +
                 std::to_string(gain) + " s) cannot repay tuning (~" + std::to_string(cost) + " s); model's plan kept";
      r.tune_seconds = elapsed();
      return r;
    }
  }
  // The fastest few candidates of the sweep other than the model's plan, kept for the
  // confirmation rounds (the model's plan is confirmed beside them).
  std::vector<std::pair<std::size_t, PlanT>> top;
  const std::size_t keep = static_cast<std::size_t>(std::max(1, tune_options.confirm)) - 1;
  double best = t_model;
  std::size_t tried = 0;
  for (const auto& [label, o] : candidates) {
    if (!tune_options.exhaustive && static_cast<int>(tried) >= tune_options.min_candidates && elapsed() >= budget) {
      r.reason = "budget of " + std::to_string(budget) + " s spent after " + std::to_string(tried) + " of " +
                 std::to_string(candidates.size()) + " candidates";
      break;
    }
    ++tried;
    try {
      PlanT p(space, A, o);
      if (p.describe() == model.describe()) {
        // The model's own configuration: its time is known; not timed or confirmed twice.
        r.tried.push_back({label, p.describe(), p.analyze_seconds(), t_model});
        continue;
      }
      const double t = time_multiply(space, p, tune_options.reps, sample);
      r.tried.push_back({label, p.describe(), p.analyze_seconds(), t});
      if (t < best) {
        best = t;
        r.best = r.tried.size() - 1;
        r.plan = p;
      }
      if (keep > 0) {
        top.emplace_back(r.tried.size() - 1, p);
        std::sort(top.begin(), top.end(), [&](const auto& a, const auto& b) {
          return r.tried[a.first].multiply_seconds < r.tried[b.first].multiply_seconds;
        });
        if (top.size() > keep) top.pop_back();
      }
    } catch (const InvalidArgument&) {
      // Not a valid plan for this matrix on this space: not a candidate.
    }
  }
  if (r.reason.empty()) r.reason = "all " + std::to_string(candidates.size()) + " candidates tried";
  if (!top.empty()) {
    top.insert(top.begin(), {0, model});
    std::vector<const PlanT*> plans;
    for (const auto& c : top) plans.push_back(&c.second);
    const auto t = time_interleaved(plans, tune_options.reps, tune_options.rounds, sample, space);
    std::size_t win = 0;
    for (std::size_t i = 0; i < top.size(); ++i) {
      r.tried[top[i].first].confirmed_seconds = t[i];
      if (t[i] < t[win]) win = i;
    }
    r.best = top[win].first;
    r.plan = top[win].second;
    r.reason += "; the model's plan and the sweep's fastest " + std::to_string(top.size() - 1) +
                (top.size() == 2 ? " other" : " others") + " confirmed in " + std::to_string(tune_options.rounds) +
                " interleaved rounds: " +
                (win == 0 ? std::string("the model's plan kept") : r.tried[r.best].label + " beat the model's plan");
  }
  r.tune_seconds = elapsed();
  return r;
}

/// tune() of a float A into mixed-precision plans (MixedPlan: double vectors and sums).
template <class ExecSpace, class Offset>
TuneResult<ExecSpace, double, Offset, float> tune_mixed(const ExecSpace& space, const HostCsr<float, Offset>& A,
                                                        const AnalyzeOptions& options = {},
                                                        const TuneOptions& tune_options = {}) {
  return tune<ExecSpace, float, Offset, double>(space, A, options, tune_options);
}

/// tune() on the default instance of ExecSpace.
template <class ExecSpace, class Value, class Offset>
TuneResult<ExecSpace, Value, Offset> tune(const HostCsr<Value, Offset>& A, const AnalyzeOptions& options = {},
                                          const TuneOptions& tune_options = {}) {
  return tune(ExecSpace(), A, options, tune_options);
}

}  // namespace pspmv
