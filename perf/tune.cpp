// `pspmv tune`: the model's plan, the tuned plan (within a budget) and the exhaustive best of
// every input, measured in one process, with the analysis cost and break-even calls.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "command.hpp"
#include "harness/dispatch.hpp"
#include "harness/context.hpp"
#include "harness/files.hpp"
#include "harness/records.hpp"

namespace pspmv_cli {

namespace {

struct TuneCmdOptions {
  InputOptions inputs;
  std::vector<std::string> precisions{"f64"};
  std::string space = "default";  ///< "default" (the GPU in a CUDA build) or "host"
  double budget_calls = 400;      ///< tuning budget in multiplies of the model's plan
  int min_candidates = 12;        ///< candidates the budgeted tune tries whatever the budget
  int reps = 7;                   ///< timed samples per candidate (median)
  /// each sample a batch of multiplies calibrated to last about this long (pspmv::TuneOptions), in
  /// every stage: the exhaustive search, the budgeted tune and the final timing
  double min_sample_s = pspmv::TuneOptions{}.min_sample_seconds;
  int rounds = 5;                 ///< interleaved rounds of the final model / tuned / best / CSR timing
  std::string json;               ///< the results as JSON to this file ('-': standard output)
};

/// analyze()'s phases in seconds, by name (Plan::analysis()).
nlohmann::json phases_json(const pspmv::AnalysisPhases& p) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, s] : p.named()) j[name] = s;
  return j;
}

/// `timings` gets one Record per distinct plan timed in the final rounds (its median, minimum,
/// spread and noise mark), for the run's "N of M timings are noisy" warning.
template <class Exec, class Value>
nlohmann::json tune_one(const Input& in, const TuneCmdOptions& o, const std::string& precision,
                        std::vector<Record>& timings) {
  using PlanT = pspmv::Plan<Exec, Value, std::int64_t>;
  const auto A = pspmv::convert<Value, std::int64_t>(in.A);  // throws InvalidArgument naming the entry
  std::cerr << fmt::format(
      "pspmv tune: {} {} on {}: exhaustive search, the budgeted tune, then {} interleaved rounds (samples of about {} ms)\n",
      in.name, precision, Exec().name(), o.rounds, o.min_sample_s * 1e3);
  pspmv::TuneOptions exhaustive;
  exhaustive.exhaustive = true;
  exhaustive.reps = o.reps;
  exhaustive.min_sample_seconds = o.min_sample_s;
  const pspmv::AnalyzeOptions base{};
  const auto ex = pspmv::tune<Exec>(A, base, exhaustive);
  pspmv::TuneOptions budgeted;
  budgeted.budget_calls = o.budget_calls;
  budgeted.min_candidates = o.min_candidates;
  budgeted.reps = o.reps;
  budgeted.min_sample_seconds = o.min_sample_s;
  const auto tu = pspmv::tune<Exec>(A, base, budgeted);
  // The final ratios come from one set of interleaved rounds over the four plans that matter:
  // the model's, the budgeted tune's, the exhaustive search's best (itself confirmed beside
  // the model's plan and the sweep's 3 fastest others), and plain CSR (the unplanned call, for
  // the break-even); "best" is the fastest of the four there.
  const PlanT model = pspmv::analyze<Exec>(A, base);
  // The statistics recorded with the results (no rule of analyze() reads the column spread).
  const double col_spread = pspmv::column_spread(A.row_ptr.data(), A.col_idx.data(), A.nrows, A.ncols);
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
  const auto timed =
      pspmv::time_interleaved_spread<Exec, Value, std::int64_t>(unique, o.reps, o.rounds, o.min_sample_s);
  std::vector<double> t(four.size());
  for (std::size_t i = 0; i < four.size(); ++i) t[i] = timed[slot[i]].median;
  // Each distinct timing judged as bench judges its records (mark_noise: median/min above
  // noisy_median_over_min, or the load while it ran above the cores plus one; no floor here), so
  // that the run's warnings count tune's noisy timings as they count bench's.
  const char* const names[] = {"model", "tuned", "best", "baseline CSR"};
  const double load = load_average();
  std::vector<Record> judged(unique.size());
  for (std::size_t u = 0; u < unique.size(); ++u) {
    Record& r = judged[u];
    r.matrix = in.name;
    r.precision = precision;
    r.space = Exec().name();
    r.impl = "pspmv";
    r.plan = unique[u]->describe();
    for (std::size_t i = 0; i < four.size(); ++i)
      if (slot[i] == u) r.variant += (r.variant.empty() ? "" : "/") + std::string(names[i]);
    r.median_s = timed[u].median;
    r.min_s = timed[u].min;
    r.iqr_s = timed[u].iqr;
    r.time_cv = timed[u].cv;
    r.verified = true;
    mark_noise(r, load, load_limit(true));
    std::cerr << noise_warning(r);
    timings.push_back(r);
  }
  const auto spread = [&](std::size_t i) {
    const Record& r = judged[slot[i]];
    nlohmann::json j = {{"min_s", r.min_s}, {"iqr_s", r.iqr_s}, {"cv", r.time_cv}, {"noisy", r.noisy}};
    if (r.noisy) j["noise"] = r.noise;
    return j;
  };
  // The table's dispersion of a timing: its coefficient of variation, '*' when noisy.
  const auto cv = [&](std::size_t i) {
    const Record& r = judged[slot[i]];
    return fmt::format("cv {:>5.1f}%{}", r.time_cv * 100, r.noisy ? "*" : " ");
  };
  std::size_t fastest = 0;
  for (std::size_t i = 1; i < four.size(); ++i)
    if (t[i] < t[fastest]) fastest = i;
  const double t_model = t[0], t_tuned = t[1], t_best = std::min({t[0], t[1], t[2], t[3]}), t_base = t[3];
  const std::string tuned_label = tu.tried[tu.best].label, best_label = ex.tried[ex.best].label;
  const bool same = baseline.describe() == model.describe();  // the model chose plain CSR itself
  const double gain = t_base - t_model;
  const double extra = std::max(0.0, model.analyze_seconds() - baseline.analyze_seconds());
  const double break_even = !same && gain > 0 ? extra / gain : -1;
  std::cout << fmt::format("{:<24} {} model {:>9.4f} ms {} [{}]\n", in.name.substr(0, 24), precision, t_model * 1e3,
                           cv(0), model.describe());
  std::cout << fmt::format("{:<24} {} tuned {:>9.4f} ms {} [{}] ({} of {} candidates, {:.2f} s)\n", "", precision,
                           t_tuned * 1e3, cv(1), tu.plan.describe(), tu.tried.size(), tu.candidates, tu.tune_seconds);
  std::cout << fmt::format("{:<24} {} best  {:>9.4f} ms {} [{}] (the fastest of the four; the exhaustive search's "
                           "best, of {} plans in {:.2f} s: {:.4f} ms [{}])\n",
                           "", precision, t_best * 1e3, cv(fastest), four[fastest]->describe(), ex.tried.size(),
                           ex.tune_seconds, t[2] * 1e3, ex.plan.describe());
  std::cout << fmt::format("{:<24} {} model/best {:.3f}  tuned/best {:.3f}  analyze {:.2f} ms ({:.1f} multiplies)  "
                           "break-even vs plain CSR: {}\n",
                           "", precision, t_model / t_best, t_tuned / t_best, model.analyze_seconds() * 1e3,
                           t_model > 0 ? model.analyze_seconds() / t_model : 0.0,
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
          {"spread", {{"model", spread(0)}, {"tuned", spread(1)}, {"best", spread(2)}, {"baseline_csr", spread(3)},
                     {"fastest", spread(fastest)}}},
          {"model", {{"plan", model.describe()}, {"reason", model.reason()}, {"median_s", t_model},
                     {"analyze_s", model.analyze_seconds()}, {"analysis_phases_s", phases_json(model.analysis())},
                     {"analyze_over_multiply", t_model > 0 ? model.analyze_seconds() / t_model : 0.0}}},
          {"baseline_csr_analyze_s", baseline.analyze_seconds()},
          {"baseline_csr_analysis_phases_s", phases_json(baseline.analysis())},
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
          {"min_sample_seconds", o.min_sample_s},
          {"reps", o.reps},
          {"exhaustive", tried}};
}

/// Runs the evaluation for every input; prints a table to stdout and progress to stderr, and
/// writes the JSON file (when one is asked for) after every input and precision, so that a run
/// cut short keeps what it measured.
int run(const TuneCmdOptions& o, const RunInfo& info) {
  const auto inputs = gather_inputs(o.inputs, "tune: give FILEs or --gen SPEC");
  print_warnings(run_warnings(info, {}, false));
  nlohmann::json doc = run_json(info, true);
  doc["context"] = context_json(info, run_warnings(info, {}, false));
  doc["results"] = nlohmann::json::array();
  auto& out = doc["results"];
  std::vector<Record> timings;  // every distinct timing of the final rounds, for the noise warning
  with_space(o.space, [&](auto space) {
    using Exec = typename decltype(space)::type;
    for (const auto& in : inputs)
      for (const auto& p : o.precisions) {
        with_precision(p, [&](auto value) {
          unsupported_mixed(value, "tune");
          out.push_back(tune_one<Exec, typename decltype(value)::type>(in, o, p, timings));
        });
        doc["context"] = context_json(info, run_warnings(info, timings));
        if (!o.json.empty() && o.json != "-") write_file_atomically(o.json, doc.dump(2) + "\n");
      }
  });
  std::size_t model_ok = 0, tuned_ok = 0;
  for (const auto& r : out) {
    model_ok += r["model_over_best"].get<double>() <= 1.10;
    tuned_ok += r["tuned_over_best"].get<double>() <= 1.05;
  }
  std::cout << fmt::format("model within 10% of the exhaustive best: {} of {}; tuned within 5%: {} of {}\n", model_ok,
                           out.size(), tuned_ok, out.size());
  std::cout << fmt::format("cv: standard deviation over mean of a plan's samples in the final rounds; '*' after it: a "
                           "noisy timing (median/min > {}, or under load; see \"spread\" in the JSON)\n",
                           noisy_median_over_min);
  doc["context"] = context_json(info, run_warnings(info, timings));
  if (!o.json.empty() && o.json != "-") write_file_atomically(o.json, doc.dump(2) + "\n");
  if (o.json == "-") std::cout << doc.dump(2) << "\n";
  print_warnings(run_warnings(info, timings));
  return 0;
}

}  // namespace

Command add_tune(CLI::App& app) {
  auto o = std::make_shared<TuneCmdOptions>();
  auto* sub = app.add_subcommand("tune", "The model's plan, the tuned plan and the exhaustive best of each input, "
                                         "with analysis cost and break-even calls");
  add_inputs(sub, o->inputs);
  add_rows(sub, o->inputs, "skewed");
  add_list(sub, "--precision", o->precisions, "f64 | f32 (default: f64)", CLI::IsMember({"f64", "f32"}));
  add_space(sub, o->space);
  sub->add_option("--budget-calls", o->budget_calls, "tuning budget in multiplies of the model's plan")
      ->check(CLI::PositiveNumber);
  sub->add_option("--min-candidates", o->min_candidates, "candidates the budgeted tune tries whatever the budget")
      ->check(CLI::Range(0, 1000));
  sub->add_option("--reps", o->reps, "timed samples per candidate (median)")->check(CLI::Range(1, 10000));
  add_min_sample(sub, o->min_sample_s);
  sub->add_option("--rounds", o->rounds,
                  "interleaved rounds of the final timing of the model's, the tuned, the best and the plain CSR plan "
                  "(median of round medians)")
      ->check(CLI::Range(1, 1000));
  sub->add_option("--json", o->json, "write the results as JSON to this file ('-' for standard output)");
  return {sub, [o](const RunInfo& info) { return run(*o, info); }};
}

}  // namespace pspmv_cli
