// pspmv compare's summary and plots (perf/harness/summary.hpp, plots.hpp, records.hpp): each
// entry carries its dispersion, the interleaved pair both sides' minimums and spread, and the
// speedup figure its min-median error bars from them; the figures' scripts draw every value
// visibly (log axes, a marker on each ratio) and say where the floor bounds nothing.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

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
