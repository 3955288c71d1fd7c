// pspmv compare's summary and plots (perf/harness/summary.hpp, plots.hpp, records.hpp): each
// entry carries its dispersion, the interleaved pair both sides' minimums and spread, and the
// speedup figure its min-median error bars from them; the figures' scripts draw every value
// visibly (log axes, a marker on each ratio) and say where the floor bounds nothing.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/interleave.hpp"
#include "harness/plots.hpp"
#include "harness/records.hpp"
#include "harness/summary.hpp"
#include "test_util.hpp"

namespace {

using namespace pspmv_cli;

pspmv_cli::Record timed(const std::string& impl, const std::string& variant, double median, double min, double bytes) {
  pspmv_cli::Record r;
  r.matrix = "m";
  r.space = "OpenMP";
  r.precision = "f64";
  r.rows = 100;
  r.nnz = 1000;
  r.bytes = bytes;
  r.floor_s = 1e-6;
  Timing t;
  t.median_s = median;
  t.min_s = min;
  t.iqr_s = (median - min) / 2;
  t.cv = 0.05;
  t.verified = true;
  return complete(r, impl, variant, "", "", 0.0, t, "");
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(CompareSummary, EntriesAndPairsCarryTheirDispersion) {
  std::vector<pspmv_cli::Record> records{timed("pspmv", "auto", 2e-6, 1.5e-6, 1e6),
                                         timed("pspmv", "csr thread_per_row/static_chunks", 3e-6, 2.5e-6, 1e6),
                                         timed("mkl", "mkl_sparse_d_mv", 4e-6, 3e-6, 1e6)};
  Timing own, other;
  own.median_s = 4.4e-6, own.min_s = 4e-6, own.iqr_s = 0.2e-6, own.cv = 0.1;
  other.median_s = 2.2e-6, other.min_s = 1e-6, other.iqr_s = 0.1e-6, other.cv = 0.2;
  set_pair(records[2], "pspmv auto", own, other);
  const auto j = to_json(records[2]);
  EXPECT_EQ(j["interleaved"]["with"], "pspmv auto");
  EXPECT_DOUBLE_EQ(j["interleaved"]["median_s"].get<double>(), 4.4e-6);
  EXPECT_DOUBLE_EQ(j["interleaved"]["min_s"].get<double>(), 4e-6);
  EXPECT_DOUBLE_EQ(j["interleaved"]["iqr_s"].get<double>(), 0.2e-6);
  EXPECT_DOUBLE_EQ(j["interleaved"]["cv"].get<double>(), 0.1);
  EXPECT_DOUBLE_EQ(j["interleaved"]["other_median_s"].get<double>(), 2.2e-6);
  EXPECT_DOUBLE_EQ(j["interleaved"]["other_min_s"].get<double>(), 1e-6);
  EXPECT_DOUBLE_EQ(j["interleaved"]["other_iqr_s"].get<double>(), 0.1e-6);
  EXPECT_DOUBLE_EQ(j["interleaved"]["other_cv"].get<double>(), 0.2);
  // The pspmv side's median is 2.2 times its minimum: the pair, and so the record, is noisy.
  EXPECT_TRUE(records[2].noisy);
  EXPECT_NE(records[2].noise.find("interleaved pair, pspmv auto: median/min 2.20"), std::string::npos) << records[2].noise;

  const auto summaries = summarize(records);
  ASSERT_EQ(summaries.size(), 1u);
  const auto* mkl = find_entry(summaries[0].entries, "mkl");
  ASSERT_NE(mkl, nullptr);
  EXPECT_DOUBLE_EQ(time_over_pspmv(summaries[0], *mkl).first, 2.0);  // the pair's medians
  EXPECT_DOUBLE_EQ(time_over_pspmv_best_min(summaries[0], *mkl), 4.0);  // the pair's minimums
  const auto* best = find_entry(summaries[0].entries, "pspmv best");
  ASSERT_NE(best, nullptr);
  EXPECT_DOUBLE_EQ(time_over_pspmv_best_min(summaries[0], *best), 1.0);  // the sweep's minimums

  const auto js = summary_json(summaries);
  for (const auto& e : js[0]["entries"]) {
    for (const char* key : {"median_s", "min_s", "iqr_s", "cv", "noisy", "time_over_pspmv_best_min"})
      EXPECT_TRUE(e.contains(key)) << e["label"] << " lacks " << key;
    EXPECT_GT(e["min_s"].get<double>(), 0) << e["label"];
    EXPECT_GT(e["iqr_s"].get<double>(), 0) << e["label"];
    EXPECT_DOUBLE_EQ(e["cv"].get<double>(), 0.05) << e["label"];
  }
  const std::string csv = summary_csv(summaries);
  EXPECT_NE(csv.find(",min_s,iqr_s,cv,noisy\n"), std::string::npos) << csv;
  // mkl's line: noisy through its pair (pspmv's side, median/min 2.2)
  EXPECT_NE(csv.find(",3.000000e-06,5.000000e-07,0.0500,true\n"), std::string::npos) << csv;
  const std::string table = compare_table(summaries);
  EXPECT_NE(table.find("min ms"), std::string::npos) << table;
  EXPECT_NE(table.find("cv %"), std::string::npos) << table;
}

TEST(CompareSummary, SpeedupOverTheAutomaticPlanFromTheInterleavedRounds) {
  // pspmv's best (CSR static, 1.5 us in the sweep) is not its automatic plan (2 us): the peer is
  // timed in one set of rounds with both, and both speedups come from those rounds.
  std::vector<pspmv_cli::Record> records{timed("pspmv", "auto", 2e-6, 1.9e-6, 1e6),
                                         timed("pspmv", "csr thread_per_row/static_chunks", 1.5e-6, 1.4e-6, 1e6),
                                         timed("mkl", "mkl_sparse_d_mv", 4e-6, 3.9e-6, 1e6)};
  {
    const auto sweep = summarize(records);
    const auto* mkl = find_entry(sweep[0].entries, "mkl");
    ASSERT_NE(mkl, nullptr);
    EXPECT_DOUBLE_EQ(time_over_pspmv(sweep[0], *mkl).second, 2.0);  // not re-timed: the sweep's medians
    EXPECT_FALSE(summary_json(sweep)[0]["entries"][2]["time_over_pspmv_auto_interleaved"].get<bool>());
  }
  Timing peer, best, automatic;
  peer.median_s = 4.4e-6, peer.min_s = 4.3e-6;
  best.median_s = 2.2e-6, best.min_s = 2.1e-6;
  automatic.median_s = 3.3e-6, automatic.min_s = 3.2e-6;
  set_pair(records[2], "pspmv csr thread_per_row/static_chunks", peer, best);
  set_pair_auto(records[2], automatic);
  EXPECT_FALSE(records[2].noisy) << records[2].noise;
  const auto j = to_json(records[2]);
  EXPECT_DOUBLE_EQ(j["interleaved"]["auto_median_s"].get<double>(), 3.3e-6);
  EXPECT_DOUBLE_EQ(j["interleaved"]["auto_min_s"].get<double>(), 3.2e-6);
  const auto summaries = summarize(records);
  const auto* mkl = find_entry(summaries[0].entries, "mkl");
  ASSERT_NE(mkl, nullptr);
  const auto [over_best, over_auto] = time_over_pspmv(summaries[0], *mkl);
  EXPECT_DOUBLE_EQ(over_best, 2.0);
  EXPECT_DOUBLE_EQ(over_auto, 4.4 / 3.3);
  const auto js = summary_json(summaries);
  EXPECT_TRUE(js[0]["entries"][2]["time_over_pspmv_auto_interleaved"].get<bool>());
  EXPECT_DOUBLE_EQ(js[0]["entries"][2]["time_over_pspmv_auto"].get<double>(), 4.4 / 3.3);
  // A noisy automatic side marks the record.
  automatic.median_s = 6.4e-6;
  set_pair_auto(records[2], automatic);
  EXPECT_TRUE(records[2].noisy);
  EXPECT_NE(records[2].noise.find("interleaved rounds, pspmv auto: median/min 2.00"), std::string::npos)
      << records[2].noise;
}

TEST(CompareSummary, InterleavedRoundsRotateTheOrder) {
  // Three runs, three rounds after one warm-up each: round r starts with run r mod 3, and each
  // timed call follows an untimed call of the same run.
  std::vector<int> calls;
  std::vector<std::function<void()>> runs;
  for (int i = 0; i < 3; ++i) runs.push_back([&calls, i] { calls.push_back(i); });
  const auto t = time_rounds<Kokkos::DefaultHostExecutionSpace>(runs, 1, 3, 0.0);
  EXPECT_EQ(calls, (std::vector<int>{0, 1, 2, 0, 0, 1, 1, 2, 2, 1, 1, 2, 2, 0, 0, 2, 2, 0, 0, 1, 1}));
  ASSERT_EQ(t.size(), 3u);
  for (const auto& x : t) {
    EXPECT_GE(x.median_s, x.min_s);
    EXPECT_EQ(x.calls, 1);
  }
}

TEST(CompareSummary, SamplesAreBatchesOfTheLeastLength) {
  // A run of at least 200 us (a busy wait) in samples of at least 1 ms: each sample's time is
  // divided by its calls, so no sample reads below one call's 200 us, and the run ran the
  // warm-up, an untimed call before its calibration, and each round's untimed call and batch.
  // (How many calls a batch takes depends on the machine's load: the rule is checked on a fake
  // clock below.)
  int ran = 0;
  const std::vector<std::function<void()>> runs{[&ran] {
    ++ran;
    const auto t0 = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - t0 < std::chrono::microseconds(200)) {
    }
  }};
  const auto t = time_rounds<Kokkos::DefaultHostExecutionSpace>(runs, 1, 3, 1e-3);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_GE(t[0].calls, 1);
  EXPECT_GE(t[0].min_s, 2e-4);
  EXPECT_GE(t[0].median_s, t[0].min_s);
  EXPECT_GE(ran, 2 + 3 * (1 + t[0].calls));
  // The rule itself (pspmv::SampleTimer sizes a plan's samples by it too), on a clock that reads
  // 30 us a call: one call, then 1.2 x 210 / 30 = 8.4, so 9 calls, 270 us >= 210 us.
  std::vector<int> batches;
  const int batch = pspmv::detail::calibrated_batch(
      [&batches](int n) {
        batches.push_back(n);
        return 3e-5 * n;
      },
      2.1e-4);
  EXPECT_EQ(batch, 9);
  EXPECT_EQ(batches, (std::vector<int>{1, 9}));
  // 0: one call a sample, nothing run to size it.
  EXPECT_EQ(calls_per_sample<Kokkos::DefaultHostExecutionSpace>([] { throw std::logic_error("ran"); }, 0.0), 1);
}

TEST(ComparePlots, RatiosVisibleFloorBoundSaidAndSpeedupErrorBars) {
  // A small input (under floor_bound_bytes) and a peer at 1.0x of pspmv's best: its bar has no
  // height on the log axis, so the script must draw a marker for it.
  std::vector<pspmv_cli::Record> records{timed("pspmv", "auto", 2e-6, 1.5e-6, 1e6),
                                         timed("eigen", "SparseMatrix<RowMajor> * x", 2e-6, 1.8e-6, 1e6)};
  const auto summaries = summarize(records);
  const pspmv_test::TempPath dir("compare_plots");
  std::filesystem::create_directories(dir.str());
  write_plots(summaries, dir, false);
  const std::string gbs = read(dir.str() + "/gbs-f64.gp"), speedup = read(dir.str() + "/speedup-f64.gp"),
                    floor = read(dir.str() + "/floor-f64.gp"), dat = read(dir.str() + "/speedup-f64.dat");
  EXPECT_NE(gbs.find("set logscale y"), std::string::npos) << gbs;
  EXPECT_NE(gbs.find("the caches hold it, no bound"), std::string::npos) << gbs;
  EXPECT_NE(floor.find("(< 8 MiB)"), std::string::npos) << floor;
  EXPECT_NE(speedup.find("with points pt 7"), std::string::npos) << speedup;
  EXPECT_NE(speedup.find("keyentry with boxes"), std::string::npos) << speedup;
  // eigen over pspmv's best: 1 at the medians, 1.2 at the minimums (1.8 / 1.5).
  EXPECT_NE(dat.find("\"m\" 1000 1 1 1.2 0 0 1e+06"), std::string::npos) << dat;
}

}  // namespace

// A timing below CSR's floor is noisy unless the plan's own bytes (compressed columns) allow
// it; a padded plan above CSR's floor is not noisy for being below the floor of the bytes it
// stores; small inputs (the caches) are never flagged by the floor.
TEST(CompareSummary, BelowTheFloorJudgedByThePlansBytesToo) {
  const auto marked = [](double to_floor, double to_moved, double bytes) {
    Record r;
    r.matrix = "m";
    r.median_s = r.min_s = 1.0;
    r.bytes = bytes;
    r.ratio_to_floor = to_floor;
    r.ratio_to_moved_floor = to_moved;
    mark_noise(r, -1, 0);
    return r;
  };
  const auto noisy = [&](double to_floor, double to_moved, double bytes) {
    return marked(to_floor, to_moved, bytes).noisy;
  };
  const double large = 2 * floor_bound_bytes, small = floor_bound_bytes / 2;
  EXPECT_TRUE(noisy(0.8, 0, large));     // no plan bytes: CSR's floor alone
  EXPECT_FALSE(noisy(1.1, 0, large));
  EXPECT_FALSE(noisy(0.8, 1.28, large));  // compressed: below CSR's floor, above its own
  EXPECT_FALSE(noisy(1.05, 0.95, large)); // padded: above CSR's floor
  EXPECT_TRUE(noisy(0.64, 0.88, large));  // below both
  EXPECT_FALSE(noisy(0.64, 0.88, small));
  EXPECT_EQ(marked(0.64, 0.88, large).noise, "below the floor (0.640x; 0.880x of the floor of the plan's bytes)");
  // Just below 1: three decimals, so that the message does not read 1.00.
  EXPECT_EQ(marked(0.9984, 0.9971, large).noise, "below the floor (0.998x; 0.997x of the floor of the plan's bytes)");
}
