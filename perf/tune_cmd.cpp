#include "tune_cmd.hpp"

#include <fmt/format.h>

#include <iostream>

namespace pspmv_cli {

namespace {

template <class Exec, class Value>
nlohmann::json tune_one(const Input& in, const TuneCmdOptions& o, const std::string& precision) {
  const auto A = pspmv::convert<Value, std::int64_t>(in.A);  // throws InvalidArgument naming the entry
  std::cerr << fmt::format("pspmv tune: {} {} on {}: exhaustive search, then the budgeted tune\n", in.name, precision,
                           Exec().name());
  pspmv::TuneOptions exhaustive;
  exhaustive.exhaustive = true;
  exhaustive.reps = o.reps;
  const auto ex = pspmv::tune<Exec>(A, {}, exhaustive);
  pspmv::TuneOptions budgeted;
  budgeted.budget_calls = o.budget_calls;
  budgeted.reps = o.reps;
  const auto tu = pspmv::tune<Exec>(A, {}, budgeted);
  // Every ratio below comes from the exhaustive run's own measurements (one process, one
  // sequence): the tuned choice is looked up there by label.
  const auto& model = ex.tried.front();
  const auto& best = ex.tried[ex.best];
  const std::string tuned_label = tu.tried[tu.best].label;
  double tuned_s = model.multiply_seconds;
  for (const auto& c : ex.tried)
    if (c.label == tuned_label) tuned_s = c.multiply_seconds;
  double baseline_s = 0;  // an unplanned call: plain CSR, thread per row, static chunks
  std::string baseline_plan;
  for (const auto& c : ex.tried)
    if (c.label == "csr thread_per_row/static_chunks") {
      baseline_s = c.multiply_seconds;
      baseline_plan = c.plan;
    }
  const bool same = baseline_plan == model.plan;  // the model chose plain CSR itself
  const double gain = baseline_s - model.multiply_seconds;
  const double break_even = !same && gain > 0 ? model.analyze_seconds / gain : -1;
  std::cout << fmt::format("{:<24} {} model {:>9.4f} ms [{}]\n", in.name.substr(0, 24), precision,
                           model.multiply_seconds * 1e3, model.plan);
  std::cout << fmt::format("{:<24} {} tuned {:>9.4f} ms [{}] ({} of {} candidates, {:.2f} s)\n", "", precision,
                           tuned_s * 1e3, tu.tried[tu.best].plan, tu.tried.size(), tu.candidates, tu.tune_seconds);
  std::cout << fmt::format("{:<24} {} best  {:>9.4f} ms [{}] (exhaustive: {} plans, {:.2f} s)\n", "", precision,
                           best.multiply_seconds * 1e3, best.plan, ex.tried.size(), ex.tune_seconds);
  std::cout << fmt::format("{:<24} {} model/best {:.3f}  tuned/best {:.3f}  analyze {:.2f} ms  "
                           "break-even vs plain CSR: {}\n\n",
                           "", precision, model.multiply_seconds / best.multiply_seconds, tuned_s / best.multiply_seconds,
                           model.analyze_seconds * 1e3,
                           same ? std::string("n/a (the model chose plain CSR)")
                                : (break_even >= 0 ? fmt::format("{:.1f} calls", break_even) : std::string("never (not faster)")));
  nlohmann::json tried = nlohmann::json::array();
  for (const auto& c : ex.tried)
    tried.push_back({{"label", c.label}, {"plan", c.plan}, {"analyze_s", c.analyze_seconds}, {"median_s", c.multiply_seconds}});
  return {{"matrix", in.name},
          {"precision", precision},
          {"space", Exec().name()},
          {"model", {{"plan", model.plan}, {"median_s", model.multiply_seconds}, {"analyze_s", model.analyze_seconds}}},
          {"tuned", {{"label", tuned_label}, {"median_s", tuned_s}, {"tune_s", tu.tune_seconds}, {"tried", tu.tried.size()},
                     {"reason", tu.reason}}},
          {"best", {{"label", best.label}, {"plan", best.plan}, {"median_s", best.multiply_seconds}}},
          {"model_over_best", model.multiply_seconds / best.multiply_seconds},
          {"tuned_over_best", tuned_s / best.multiply_seconds},
          {"baseline_csr_s", baseline_s},
          {"break_even_calls", break_even},
          {"exhaustive", tried}};
}

template <class Exec>
void tune_space(const std::vector<Input>& inputs, const TuneCmdOptions& o, nlohmann::json& out) {
  for (const auto& in : inputs)
    for (const auto& p : o.precisions) {
      if (p == "f64") out.push_back(tune_one<Exec, double>(in, o, p));
      else if (p == "f32") out.push_back(tune_one<Exec, float>(in, o, p));
      else throw pspmv::InvalidArgument("unknown precision '" + p + "' (expected f32 or f64)");
    }
}

}  // namespace

nlohmann::json run_tune(const std::vector<Input>& inputs, const TuneCmdOptions& o) {
  nlohmann::json out = nlohmann::json::array();
  if (o.space == "host") tune_space<Kokkos::DefaultHostExecutionSpace>(inputs, o, out);
  else if (o.space == "default") tune_space<Kokkos::DefaultExecutionSpace>(inputs, o, out);
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
