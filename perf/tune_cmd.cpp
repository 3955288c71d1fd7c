#include "tune_cmd.hpp"

#include <fmt/format.h>

#include <iostream>

namespace pspmv_cli {

namespace {

template <class Exec, class Value>
nlohmann::json tune_one(const Input& in, const TuneCmdOptions& o, const std::string& precision) {
  using PlanT = pspmv::Plan<Exec, Value, std::int64_t>;
  const auto A = pspmv::convert<Value, std::int64_t>(in.A);  // throws InvalidArgument naming the entry
  std::cerr << fmt::format(
      "pspmv tune: {} {} on {}: exhaustive search, the budgeted tune, then {} interleaved rounds (samples of about {} ms)\n",
      in.name, precision, Exec().name(), o.rounds, o.min_sample_ms);
  pspmv::TuneOptions exhaustive;
  exhaustive.exhaustive = true;
  exhaustive.reps = o.reps;
  exhaustive.min_sample_seconds = o.min_sample_ms * 1e-3;
  pspmv::AnalyzeOptions base;
  base.profile = o.profile;
  const auto ex = pspmv::tune<Exec>(A, base, exhaustive);
  pspmv::TuneOptions budgeted;
  budgeted.budget_calls = o.budget_calls;
  budgeted.min_candidates = o.min_candidates;
  budgeted.reps = o.reps;
  budgeted.min_sample_seconds = o.min_sample_ms * 1e-3;
  const auto tu = pspmv::tune<Exec>(A, base, budgeted);
  // The final ratios come from one set of interleaved rounds over the four plans that matter:
  // the model's, the budgeted tune's, the exhaustive search's best (itself confirmed beside
  // the model's plan and the sweep's 3 fastest others), and plain CSR (the unplanned call, for
  // the break-even); "best" is the fastest of the four there.
  const PlanT model(A, base);
  // The statistics recorded with the results; analyze() computes col_spread only where a rule
  // needs it.
  const double col_spread = model.row_stats().col_spread >= 0
                                ? model.row_stats().col_spread
                                : pspmv::column_spread(A.row_ptr.data(), A.col_idx.data(), A.nrows, A.ncols);
  pspmv::AnalyzeOptions fixed;
  fixed.selection = pspmv::Selection::fixed;
  const PlanT baseline = pspmv::analyze<Exec>(A, fixed);
  // Plans of the same configuration (describe()) are one plan: timed once, so that two
  // measurements of one configuration never count as a gap between choices.
  const std::vector<const PlanT*> four = {&model, &tu.plan, &ex.plan, &baseline};
  std::vector<const PlanT*> unique;
  std::vector<std::size_t> slot(four.size());
  for (std::size_t i = 0; i < four.size(); ++i) {
    std::size_t j = 0;
    while (j < unique.size() && unique[j]->describe() != four[i]->describe()) ++j;
    if (j == unique.size()) unique.push_back(four[i]);
    slot[i] = j;
  }
  const auto timed = pspmv::time_interleaved<Exec, Value, std::int64_t>(unique, o.reps, o.rounds, o.min_sample_ms * 1e-3);
  std::vector<double> t(four.size());
  for (std::size_t i = 0; i < four.size(); ++i) t[i] = timed[slot[i]];
  std::size_t fastest = 0;
  for (std::size_t i = 1; i < four.size(); ++i)
    if (t[i] < t[fastest]) fastest = i;
  const double t_model = t[0], t_tuned = t[1], t_best = std::min({t[0], t[1], t[2], t[3]}), t_base = t[3];
  const std::string tuned_label = tu.tried[tu.best].label, best_label = ex.tried[ex.best].label;
  const bool same = baseline.describe() == model.describe();  // the model chose plain CSR itself
  const double gain = t_base - t_model;
  const double extra = std::max(0.0, model.analyze_seconds() - baseline.analyze_seconds());
  const double break_even = !same && gain > 0 ? extra / gain : -1;
  std::cout << fmt::format("{:<24} {} model {:>9.4f} ms [{}]\n", in.name.substr(0, 24), precision, t_model * 1e3,
                           model.describe());
  std::cout << fmt::format("{:<24} {} tuned {:>9.4f} ms [{}] ({} of {} candidates, {:.2f} s)\n", "", precision,
                           t_tuned * 1e3, tu.plan.describe(), tu.tried.size(), tu.candidates, tu.tune_seconds);
  std::cout << fmt::format("{:<24} {} best  {:>9.4f} ms [{}] (the fastest of the four; the exhaustive search's "
                           "best, of {} plans in {:.2f} s: {:.4f} ms [{}])\n",
                           "", precision, t_best * 1e3, four[fastest]->describe(), ex.tried.size(), ex.tune_seconds,
                           t[2] * 1e3, ex.plan.describe());
  std::cout << fmt::format("{:<24} {} model/best {:.3f}  tuned/best {:.3f}  analyze {:.2f} ms  "
                           "break-even vs plain CSR: {}\n",
                           "", precision, t_model / t_best, t_tuned / t_best, model.analyze_seconds() * 1e3,
                           same ? std::string("n/a (the model chose plain CSR)")
                                : (break_even >= 0 ? fmt::format("{:.1f} calls", break_even) : std::string("never (not faster)")));
  std::cout << fmt::format("{:<24} {} model chose it because {}\n\n", "", precision, model.reason());
  nlohmann::json tried = nlohmann::json::array();
  for (const auto& c : ex.tried)
    tried.push_back({{"label", c.label}, {"plan", c.plan}, {"analyze_s", c.analyze_seconds}, {"median_s", c.multiply_seconds},
                     {"confirmed_s", c.confirmed_seconds}});
  return {{"matrix", in.name},
          {"precision", precision},
          {"space", Exec().name()},
          {"rows", A.nrows},
          {"nnz", A.nnz()},
          {"stats", {{"mean", model.row_stats().mean}, {"cv", model.row_stats().cv},
                     {"col_spread", col_spread}, {"cols", A.ncols},
                     {"csr_bytes", model.csr_bytes()}}},
          {"model", {{"plan", model.describe()}, {"reason", model.reason()}, {"median_s", t_model},
                     {"analyze_s", model.analyze_seconds()}}},
          {"tuned", {{"label", tuned_label}, {"plan", tu.plan.describe()}, {"median_s", t_tuned}, {"tune_s", tu.tune_seconds},
                     {"tried", tu.tried.size()}, {"reason", tu.reason}}},
          {"best", {{"label", best_label}, {"plan", ex.plan.describe()}, {"median_s", t[2]}}},
          {"fastest_measured_s", t_best},
          {"fastest_plan", four[fastest]->describe()},
          {"model_over_best", t_model / t_best},
          {"tuned_over_best", t_tuned / t_best},
          {"baseline_csr_s", t_base},
          {"break_even_calls", break_even},
          {"rounds", o.rounds},
          {"profile", o.profile ? o.profile->machine + " (" + o.profile->created + ")" : std::string()},
          {"min_sample_seconds", o.min_sample_ms * 1e-3},
          {"reps", o.reps},
          {"exhaustive", tried}};
}

template <class Exec>
void tune_space(const std::vector<Input>& inputs, const TuneCmdOptions& o, nlohmann::json& out,
                const std::function<void(const nlohmann::json&)>& after_each) {
  for (const auto& in : inputs)
    for (const auto& p : o.precisions) {
      if (p == "f64") out.push_back(tune_one<Exec, double>(in, o, p));
      else if (p == "f32") out.push_back(tune_one<Exec, float>(in, o, p));
      else throw pspmv::InvalidArgument("unknown precision '" + p + "' (expected f32 or f64)");
      if (after_each) after_each(out);
    }
}

}  // namespace

nlohmann::json run_tune(const std::vector<Input>& inputs, const TuneCmdOptions& o,
                        const std::function<void(const nlohmann::json&)>& after_each) {
  nlohmann::json out = nlohmann::json::array();
  if (o.space == "host") tune_space<Kokkos::DefaultHostExecutionSpace>(inputs, o, out, after_each);
  else if (o.space == "default") tune_space<Kokkos::DefaultExecutionSpace>(inputs, o, out, after_each);
  else throw pspmv::InvalidArgument("unknown --space '" + o.space + "' (expected default or host)");
  std::size_t model_ok = 0, tuned_ok = 0;
  for (const auto& r : out) {
    model_ok += r["model_over_best"].get<double>() <= 1.10;
    tuned_ok += r["tuned_over_best"].get<double>() <= 1.05;
  }
  std::cout << fmt::format("model within 10% of the exhaustive best: {} of {}; tuned within 5%: {} of {}\n", model_ok,
                           out.size(), tuned_ok, out.size());
  return out;
}

}  // namespace pspmv_cli
