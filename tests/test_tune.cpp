// Empirical selection: tune() (the exhaustive sweep, the interleaved confirmation, the budget
// and the expected-calls hint, the order of the candidates), time_interleaved() (per-call
// times, the launch order) and AnalyzeOptions::selection through analyze().
#include <chrono>

#include "test_util.hpp"

namespace {
// Kernel names in launch order, recorded by a Kokkos Tools begin_parallel_for callback.
std::vector<std::string>& launch_log() {
  static std::vector<std::string> log;
  return log;
}
void record_launch(const char* name, const std::uint32_t, std::uint64_t*) { launch_log().emplace_back(name); }
}  // namespace

// Empirical selection (pspmv/tune.hpp) on the host: the exhaustive search keeps the fastest
// candidate it measured, the budget and the expected-calls hint stop it, and
// AnalyzeOptions::selection reaches it through analyze().
TEST(Tune, KeepsTheFastestMeasuredPlanWithinItsBudget) {
  using Exec = Kokkos::DefaultHostExecutionSpace;
  auto A = pspmv::generate_skewed<double, std::int64_t>(4096);
  pspmv::TuneOptions all;
  all.exhaustive = true;
  all.reps = 3;
  all.confirm = 4;  // the model's plan and 3 others
  const auto ex = pspmv::tune<Exec>(A, {}, all);
  ASSERT_EQ(ex.tried.size(), ex.candidates) << ex.reason;
  EXPECT_EQ(ex.tried.front().label, "model");
  // The model's plan and the 3 fastest other candidates of the sweep were confirmed in
  // interleaved rounds, and the plan returned is the fastest of those by its confirmed time.
  // (A candidate with the model's own configuration carries the model's time and is skipped.)
  std::vector<double> sweep;
  for (std::size_t i = 1; i < ex.tried.size(); ++i)
    if (ex.tried[i].plan != ex.tried.front().plan) sweep.push_back(ex.tried[i].multiply_seconds);
  std::sort(sweep.begin(), sweep.end());
  ASSERT_GE(sweep.size(), 3u);
  EXPECT_GT(ex.tried.front().confirmed_seconds, 0.0) << "the model's plan is always confirmed";
  std::size_t confirmed = 0;
  for (std::size_t i = 1; i < ex.tried.size(); ++i) {
    const auto& c = ex.tried[i];
    if (c.confirmed_seconds > 0) {
      ++confirmed;
      EXPECT_NE(c.plan, ex.tried.front().plan) << c.label << ": the model's plan confirmed twice";
      EXPECT_LE(c.multiply_seconds, sweep[2]) << c.label << " was confirmed but is not among the 3 fastest others";
    }
  }
  for (const auto& c : ex.tried)
    if (c.confirmed_seconds > 0) EXPECT_LE(ex.tried[ex.best].confirmed_seconds, c.confirmed_seconds) << c.label;
  EXPECT_EQ(confirmed, 3u);
  // confirm = 1: no confirmation; the sweep's fastest is kept.
  pspmv::TuneOptions sweep_only = all;
  sweep_only.confirm = 1;
  const auto swept = pspmv::tune<Exec>(A, {}, sweep_only);
  for (const auto& c : swept.tried) {
    EXPECT_EQ(c.confirmed_seconds, 0.0) << c.label;
    EXPECT_LE(swept.tried[swept.best].multiply_seconds, c.multiply_seconds) << c.label;
  }
  EXPECT_EQ(swept.reason.find("interleaved"), std::string::npos) << swept.reason;
  EXPECT_GT(ex.tried[ex.best].confirmed_seconds, 0.0);
  EXPECT_EQ(ex.plan.describe(), ex.tried[ex.best].plan);
  EXPECT_NE(ex.reason.find("the model's plan and the sweep's fastest 3 others confirmed in 3 interleaved rounds: "),
            std::string::npos)
      << ex.reason;
  EXPECT_NE(ex.reason.find(ex.best == 0 ? std::string("the model's plan kept")
                                        : ex.tried[ex.best].label + " beat the model's plan"),
            std::string::npos)
      << ex.reason;
  // A hint of one call cannot repay tuning: the model's plan comes back, timed once.
  pspmv::TuneOptions once;
  once.expected_calls = 1;
  const auto skipped = pspmv::tune<Exec>(A, {}, once);
  EXPECT_EQ(skipped.tried.size(), 1u);
  EXPECT_NE(skipped.reason.find("cannot repay"), std::string::npos) << skipped.reason;
  // A tiny budget stops after few candidates.
  pspmv::TuneOptions tiny;
  tiny.budget_seconds = 1e-9;
  tiny.min_candidates = 0;
  const auto cut = pspmv::tune<Exec>(A, {}, tiny);
  EXPECT_EQ(cut.tried.size(), 1u) << cut.reason;  // the model's plan only
  EXPECT_NE(cut.reason.find("budget"), std::string::npos) << cut.reason;
  // min_candidates are tried whatever the budget (fewer entries only where analyze() rejects one).
  tiny.min_candidates = 5;
  const auto five = pspmv::tune<Exec>(A, {}, tiny);
  EXPECT_LE(five.tried.size(), 6u) << five.reason;
  EXPECT_GE(five.tried.size(), 2u) << five.reason;
  EXPECT_LT(five.tried.size(), five.candidates);
  EXPECT_NE(five.reason.find("after 5 of"), std::string::npos) << five.reason;
  EXPECT_THROW(pspmv::tune<Exec>(A, {}, pspmv::TuneOptions{-1.0}), pspmv::InvalidArgument);
  pspmv::TuneOptions no_rounds;
  no_rounds.rounds = 0;
  EXPECT_THROW(pspmv::tune<Exec>(A, {}, no_rounds), pspmv::InvalidArgument);
  pspmv::TuneOptions negative_sample;
  negative_sample.min_sample_seconds = -1e-3;
  EXPECT_THROW(pspmv::tune<Exec>(A, {}, negative_sample), pspmv::InvalidArgument);
  // A sample is a batch of multiplies calibrated to last min_sample_seconds, reported per call:
  // the calibration and 3 samples of about 20 ms take well over 40 ms (samples may run a little
  // faster than the batch that calibrated them), and a multiply of this 64-row matrix far less.
  {
    const auto small = pspmv::analyze<Exec>(pspmv::generate_even<double, std::int64_t>(64));
    const auto t0 = std::chrono::steady_clock::now();
    const double per_call = pspmv::time_interleaved<Exec, double, std::int64_t>({&small}, 3, 1, 0.02).at(0);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_GE(wall, 0.04);
    EXPECT_GT(per_call, 0.0);
    EXPECT_LT(per_call, 0.005) << "the batch's time was not divided by its size";
    const auto both = pspmv::time_interleaved<Exec, double, std::int64_t>({&small, &small}, 3, 2, 0.0);
    ASSERT_EQ(both.size(), 2u);
    EXPECT_GT(both[0], 0.0);
    // Each time is the plan's own: a matrix of 4096 times the nonzeros takes longer per call,
    // before and after it in the list (no margin: on a loaded machine a 64-row multiply can
    // take a thread's time slice).
    const auto large = pspmv::analyze<Exec>(pspmv::generate_even<double, std::int64_t>(64 * 4096));
    const auto mixed = pspmv::time_interleaved<Exec, double, std::int64_t>({&small, &large, &small}, 3, 3, 0.002);
    ASSERT_EQ(mixed.size(), 3u);
    EXPECT_LT(mixed[0], mixed[1]);
    EXPECT_LT(mixed[2], mixed[1]);
    // time_interleaved_spread: the same medians' order, each with its fastest sample at or below
    // the median and a non-negative spread.
    const auto spread = pspmv::time_interleaved_spread<Exec, double, std::int64_t>({&small, &large}, 5, 2, 0.002);
    ASSERT_EQ(spread.size(), 2u);
    EXPECT_LT(spread[0].median, spread[1].median);
    for (const auto& sp : spread) {
      EXPECT_GT(sp.min, 0.0);
      EXPECT_LE(sp.min, sp.median);
      EXPECT_GE(sp.iqr, 0.0);
      EXPECT_GE(sp.cv, 0.0);
      EXPECT_LT(sp.iqr, sp.median * 100) << "a spread in other units than seconds per multiply";
    }
    // The order of the launches, as Kokkos Tools sees them: each plan's warm-up and one
    // calibration batch (min_sample_seconds 0: one call), then one sample of each plan in turn,
    // rounds x reps times. (Rounds of one plan's samples together would give AAAAA BBBBB ...)
    pspmv::AnalyzeOptions sa;
    sa.format = pspmv::Format::csr;
    sa.mapping = pspmv::Mapping::thread_per_row;
    sa.schedule = pspmv::Schedule::static_chunks;
    pspmv::AnalyzeOptions sb = sa;
    sb.schedule = pspmv::Schedule::nnz_balanced;
    const auto even = pspmv::generate_even<double, std::int64_t>(1024);
    const auto a = pspmv::analyze<Exec>(even, sa);
    const auto b = pspmv::analyze<Exec>(even, sb);
    launch_log().clear();
    Kokkos::Tools::Experimental::set_begin_parallel_for_callback(record_launch);
    pspmv::time_interleaved<Exec, double, std::int64_t>({&a, &b}, 3, 2, 0.0);
    Kokkos::Tools::Experimental::set_begin_parallel_for_callback(nullptr);
    std::string order;
    for (const auto& name : launch_log()) {
      if (name == "pspmv::csr_thread_per_row::static_chunks") order += 'A';
      else if (name == "pspmv::csr_thread_per_row::nnz_balanced") order += 'B';
      else if (name.rfind("pspmv::", 0) == 0) order += '?';
    }
    EXPECT_EQ(order, "AABB" + std::string("ABABAB") + "ABABAB");
    EXPECT_THROW((pspmv::time_interleaved<Exec, double, std::int64_t>({&small}, 3, 2, -1.0)), pspmv::InvalidArgument);
    EXPECT_THROW((pspmv::time_interleaved<Exec, double, std::int64_t>({&small}, 3, 2,
                                                                      std::numeric_limits<double>::infinity())),
                 pspmv::InvalidArgument);
  }
  // Candidates nearest the model's choice come first: the first differs from it in at most one
  // of format, mapping and schedule.
  {
    const auto model_plan = pspmv::analyze<Exec>(A);
    const auto f = model_plan.format();
    const auto m = model_plan.mapping();
    const auto s = model_plan.schedule();
    const auto cands = pspmv::tune_candidates<Exec>({}, &f, &m, &s);
    ASSERT_FALSE(cands.empty());
    const auto& o = cands.front().second;
    EXPECT_LE((*o.format != f) + (*o.mapping != m) + (*o.schedule != s), 1) << cands.front().first;
    const auto& last = cands.back().second;
    EXPECT_GE((*last.format != f) + (*last.mapping != m) + (*last.schedule != s), 2) << cands.back().first;
  }
  // Through analyze(): tune gives a working plan, fixed gives plain CSR.
  pspmv::AnalyzeOptions t;
  t.selection = pspmv::Selection::tune;
  const auto tuned = pspmv::analyze<Exec>(A, t);
  Kokkos::View<double*, Kokkos::HostSpace> x("x", A.ncols), y("y", A.nrows);
  Kokkos::deep_copy(x, 1.0);
  tuned.multiply(1.0, x, 0.0, y);
  Kokkos::fence();
  for (std::int32_t i = 0; i < A.nrows; ++i) {
    double want = 0;
    for (auto k = A.row_ptr(i); k < A.row_ptr(i + 1); ++k) want += A.values(k);
    ASSERT_NEAR(y(i), want, 1e-12 * (1 + std::fabs(want))) << "row " << i << " of " << tuned.describe();
  }
  pspmv::AnalyzeOptions f;
  f.selection = pspmv::Selection::fixed;
  const auto fixed = pspmv::analyze<Exec>(A, f);
  EXPECT_EQ(fixed.format(), pspmv::Format::csr);
  EXPECT_EQ(fixed.mapping(), pspmv::Mapping::thread_per_row);
  EXPECT_EQ(fixed.schedule(), pspmv::Schedule::static_chunks) << "the model would pick nnz_balanced here";
}
