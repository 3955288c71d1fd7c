// pspmv report (perf/harness/cross.hpp, run_records.hpp, cross_page.hpp): the records of two
// synthetic machines on three matrices, one of them measured at other sizes on one machine.
// Every figure of the summary and the tables is recomputed here from the records' own numbers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include "harness/cross.hpp"
#include "harness/cross_page.hpp"
#include "harness/run_records.hpp"
#include "pspmv/errors.hpp"
#include "test_util.hpp"

namespace {

using nlohmann::json;
using namespace pspmv_cli;

json record(const std::string& matrix, const std::string& space, std::int64_t rows, std::int64_t nnz,
            const std::string& impl, const std::string& variant, double median_s, double floor_s, bool verified = true) {
  const double bytes = 12.0 * static_cast<double>(nnz) + 20.0 * static_cast<double>(rows);
  return {{"matrix", matrix},   {"space", space},       {"precision", "f64"},       {"impl", impl},
          {"variant", variant}, {"plan", variant + " plan"}, {"rows", rows},          {"cols", rows},
          {"nnz", nnz},         {"median_s", median_s}, {"min_s", median_s * 0.9},    {"min_bytes", bytes},
          {"gbs", bytes / median_s * 1e-9},             {"floor_s", floor_s},         {"floor_gbs", bytes / floor_s * 1e-9},
          {"ratio_to_floor", median_s / floor_s},       {"verified", verified},       {"skipped", false}};
}

/// Machine G: a GPU run of compare with a context block.
json gpu_run() {
  json r = json::array();
  r.push_back(record("alpha", "Cuda", 100, 1000, "pspmv", "auto", 2e-6, 1e-6));
  r.push_back(record("alpha", "Cuda", 100, 1000, "pspmv", "csr thread_per_row/static_chunks", 1.5e-6, 1e-6));
  r.push_back(record("alpha", "Cuda", 100, 1000, "cusparse", "CSR_ALG1", 3e-6, 1e-6));
  r.push_back(record("alpha", "Cuda", 100, 1000, "kokkos-kernels", "spmv", 4e-6, 1e-6));
  r.push_back(record("beta", "Cuda", 200, 3000, "pspmv", "auto", 4e-6, 2e-6));
  r.push_back(record("beta", "Cuda", 200, 3000, "pspmv", "sell thread_per_row/static_chunks", 1e-6, 2e-6, false));  // wrong
  r.push_back(record("beta", "Cuda", 200, 3000, "cusparse", "CSR_ALG1", 2e-6, 2e-6));
  json skipped = record("beta", "Cuda", 200, 3000, "cusparse", "SELL_ALG1", 0.5e-6, 2e-6);
  skipped["skipped"] = true;
  r.push_back(skipped);
  r.push_back(record("gamma", "Cuda", 300, 5000, "pspmv", "auto", 5e-6, 2e-6));
  r.push_back(record("gamma", "Cuda", 300, 5000, "cusparse", "CSR_ALG1", 6e-6, 2e-6));
  json ctx = {{"schema", 1},         {"date", "2026-12-01T15:30:00Z"}, {"host", "gpu-box"},
              {"cpu_model", "Test Xeon"}, {"cores", 16}, {"threads", 16},
              {"gpu", {{"name", "Test GPU"}, {"sm_clock_mhz", 1980}, {"memory_clock_mhz", nullptr}}},
              {"compiler", "GNU 12.2.0"}, {"commit", "abc123"}, {"warnings", json::array()}};
  return {{"command", "build/cuda-hopper/perf/pspmv compare x"}, {"commit", "abc123"},
          {"machine", "gpu-box | Test Xeon | 16 host threads"}, {"context", ctx}, {"records", r}, {"summary", json::array()}};
}

/// Machine C: an older host record without a context block; gamma at other sizes.
json cpu_run() {
  json r = json::array();
  json a = record("alpha", "OpenMP", 100, 1000, "pspmv", "auto", 6e-6, 3e-6);
  a["noisy"] = true;
  r.push_back(a);
  r.push_back(record("alpha", "OpenMP", 100, 1000, "mkl", "mkl_sparse_d_mv", 9e-6, 3e-6));
  r.push_back(record("beta", "OpenMP", 200, 3000, "pspmv", "csr thread_per_row/nnz_balanced", 8e-6, 4e-6));
  r.push_back(record("beta", "OpenMP", 200, 3000, "mkl", "mkl_sparse_d_mv", 7e-6, 4e-6));
  r.push_back(record("gamma", "OpenMP", 300, 5001, "pspmv", "auto", 10e-6, 4e-6));
  return {{"command", "./build/openmp/perf/pspmv bench y"}, {"commit", "def456"},
          {"machine", "vm | Test EPYC | 4 host threads"}, {"records", r}};
}

/// The file holding `text`, removed when the returned guard goes.
pspmv_test::TempPath write_temp(const std::string& name, const std::string& text) {
  pspmv_test::TempPath path("report_" + name);
  std::ofstream(path.str()) << text;
  return path;
}

CrossReport two_machines() {
  std::vector<pspmv_cli::Run> runs{parse_run(gpu_run(), "gpu.json", ""), parse_run(cpu_run(), "cpu.json", "")};
  return cross_report(std::move(runs), "Test EPYC, 4 threads (OpenMP)");
}

const MatrixRow& row_of(const CrossReport& r, const std::string& matrix, std::int64_t nnz) {
  for (const auto& row : r.rows)
    if (row.matrix == matrix && row.nnz == nnz) return row;
  throw std::runtime_error("no row " + matrix);
}

}  // namespace

TEST(Report, ReadsRecordsAndPicksTheFastestVerified) {
  const pspmv_cli::Run g = parse_run(gpu_run(), "gpu.json", "");
  EXPECT_EQ(g.label, "Test GPU (Cuda)");
  EXPECT_EQ(g.kind, "compare");
  ASSERT_EQ(g.measures.size(), 3u);
  EXPECT_EQ(g.measures[0].pspmv.variant, "csr thread_per_row/static_chunks");
  EXPECT_DOUBLE_EQ(g.measures[0].pspmv.median_s, 1.5e-6);
  EXPECT_EQ(g.measures[0].peer.impl, "cusparse");
  EXPECT_DOUBLE_EQ(g.measures[0].peer.median_s, 3e-6);
  // beta: the wrong pspmv variant and the skipped peer never count.
  EXPECT_EQ(g.measures[1].pspmv.variant, "auto: auto plan");
  EXPECT_DOUBLE_EQ(g.measures[1].pspmv.median_s, 4e-6);
  EXPECT_EQ(g.measures[1].peer.variant, "CSR_ALG1");
  EXPECT_DOUBLE_EQ(g.measures[1].peer.median_s, 2e-6);
  const pspmv_cli::Run c = parse_run(cpu_run(), "cpu.json", "");
  EXPECT_EQ(c.label, "Test EPYC, 4 threads (OpenMP)");
  EXPECT_EQ(c.kind, "bench");
  EXPECT_TRUE(c.context.is_null());
  EXPECT_TRUE(c.measures[0].pspmv.noisy);
}

TEST(Report, MatchesByNameAndSizeAndReportsTheMismatch) {
  const CrossReport r = two_machines();
  ASSERT_EQ(r.machines.size(), 2u);
  EXPECT_EQ(r.reference, 1u);
  ASSERT_EQ(r.rows.size(), 4u);  // alpha, beta, gamma at 5000 nnz, gamma at 5001 nnz
  EXPECT_TRUE(row_of(r, "alpha", 1000).shared);
  EXPECT_TRUE(row_of(r, "beta", 3000).shared);
  EXPECT_FALSE(row_of(r, "gamma", 5000).shared);
  EXPECT_FALSE(row_of(r, "gamma", 5001).shared);
  ASSERT_EQ(r.mismatches.size(), 1u);
  EXPECT_EQ(r.mismatches[0].matrix, "gamma");
  ASSERT_EQ(r.mismatches[0].sizes.size(), 2u);
  EXPECT_EQ(r.mismatches[0].sizes[0], "Test GPU (Cuda): 300 rows, 5000 nnz");
  EXPECT_EQ(r.mismatches[0].sizes[1], "Test EPYC, 4 threads (OpenMP): 300 rows, 5001 nnz");
}

TEST(Report, SummaryMatchesARecomputationFromTheRecords) {
  const CrossReport r = two_machines();
  ASSERT_EQ(r.summaries.size(), 1u);
  const auto& p = r.summaries[0];
  EXPECT_EQ(p.precision, "f64");
  EXPECT_EQ(p.shared, 2);
  const auto& g = p.machines[0];
  const auto& c = p.machines[1];
  // pspmv's best over the best peer: alpha 3/1.5, beta 2/4 on the GPU; 9/6, 7/8 on the CPU.
  EXPECT_NEAR(g.over_peer, std::sqrt((3e-6 / 1.5e-6) * (2e-6 / 4e-6)), 1e-12);
  EXPECT_EQ(g.peer_wins, 1);
  EXPECT_EQ(g.peer_matrices, 2);
  EXPECT_NEAR(c.over_peer, std::sqrt((9e-6 / 6e-6) * (7e-6 / 8e-6)), 1e-12);
  EXPECT_EQ(c.peer_wins, 1);
  // Each machine over the reference (the CPU): 6/1.5 and 8/4.
  EXPECT_NEAR(g.over_reference, std::sqrt((6e-6 / 1.5e-6) * (8e-6 / 4e-6)), 1e-12);
  EXPECT_NEAR(c.over_reference, 1.0, 1e-12);
  EXPECT_NEAR(p.pairwise[0][1], g.over_reference, 1e-12);
  EXPECT_NEAR(p.pairwise[1][0], 1.0 / g.over_reference, 1e-12);
  // Floor reached, each machine's own floor: 1/1.5 and 2/4; 3/6 and 4/8.
  EXPECT_NEAR(g.floor_reached, std::sqrt((1e-6 / 1.5e-6) * (2e-6 / 4e-6)), 1e-12);
  EXPECT_NEAR(c.floor_reached, 0.5, 1e-12);
  EXPECT_EQ(g.noisy, 0);
  EXPECT_EQ(c.noisy, 1);  // alpha's record says noisy: counted and kept
  // Per matrix: the ratio between machines.
  const auto& alpha = row_of(r, "alpha", 1000);
  EXPECT_NEAR(speedup_over_reference(r, alpha, 0), 4.0, 1e-12);
  EXPECT_NEAR(pspmv_over_peer(alpha.cells[1]), 1.5, 1e-12);
  EXPECT_TRUE(alpha.cells[1].noisy);
}

TEST(Report, MergedJsonAndCsvCarryTheSameNumbers) {
  const CrossReport r = two_machines();
  const json j = cross_json(r, "pspmv report gpu.json cpu.json");
  EXPECT_EQ(j["reference"], "Test EPYC, 4 threads (OpenMP)");
  EXPECT_TRUE(j["runs"][1]["no_context"].get<bool>());
  EXPECT_EQ(j["runs"][0]["context"]["gpu"]["name"], "Test GPU");
  const auto& s = j["summary"][0]["machines"][0];
  EXPECT_NEAR(s["speedup_over_reference"].get<double>(), std::sqrt(8.0), 1e-12);
  EXPECT_NEAR(s["pspmv_over_best_peer"].get<double>(), 1.0, 1e-12);
  EXPECT_NEAR(s["speedup_over"]["Test EPYC, 4 threads (OpenMP)"].get<double>(), std::sqrt(8.0), 1e-12);
  ASSERT_EQ(j["mismatches"].size(), 1u);
  const auto& beta = j["matrices"][1];
  EXPECT_EQ(beta["matrix"], "beta");
  EXPECT_NEAR(beta["machines"][0]["speedup_over_reference"].get<double>(), 2.0, 1e-12);
  EXPECT_TRUE(beta["machines"][0]["peer"].is_object());
  // CSV: labels with commas are quoted; the header and six cells (three matrices per machine).
  const std::string csv = cross_csv(r);
  EXPECT_NE(csv.find(",\"Test EPYC, 4 threads (OpenMP)\",OpenMP,cpu.json,bench,"), std::string::npos);
  EXPECT_NE(csv.find("beta,f64,200,3000,true,Test GPU (Cuda),Cuda,gpu.json,compare,auto: auto plan,4e-06,"), std::string::npos);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 7);
}

TEST(Report, CsvFieldsAndBase64) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"x\""), "\"say \"\"x\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(base64(""), "");
  EXPECT_EQ(base64("f"), "Zg==");
  EXPECT_EQ(base64("fo"), "Zm8=");
  EXPECT_EQ(base64("foo"), "Zm9v");
  EXPECT_EQ(base64(std::string("\xff\x00\x80", 3)), "/wCA");
}

TEST(Report, PagesShowEverySectionAndMarkNoise) {
  const CrossReport r = two_machines();
  const std::string html = cross_html(r, {}, "pspmv report gpu.json cpu.json");
  for (const char* id : {"id=\"summary\"", "id=\"plots\"", "id=\"matrices\"", "id=\"unmatched\"", "id=\"mismatches\"",
                         "id=\"runs\"", "class=\"noisy\"", "no context (an older record)", "context.gpu.name",
                         "Test GPU", "context.gpu.memory_clock_mhz", "(not found)"})
    EXPECT_NE(html.find(id), std::string::npos) << id;
  const std::string md = cross_markdown(r, {{"f64", "gbs-f64", "GB/s", "/x/gbs-f64.png"}}, "pspmv report", "cross/");
  EXPECT_NE(md.find("![GB/s](cross/gbs-f64.png)"), std::string::npos);
  EXPECT_NE(md.find("**noisy**"), std::string::npos);
  EXPECT_NE(md.find("| Test EPYC, 4 threads (OpenMP) | 2 | 1.15x | 1 of 2 | 1.00x (reference) | 0.50 | 1 of 2 |"),
            std::string::npos)
      << md;
}

TEST(Report, ReadsTuneRecords) {
  json res = {{"matrix", "alpha"}, {"precision", "f64"}, {"space", "OpenMP"}, {"rows", 100}, {"nnz", 1000},
              {"stats", {{"cols", 100}, {"csr_bytes", 12404}}},
              {"fastest_measured_s", 2e-6}, {"fastest_plan", "csr thread_per_row static_chunks"},
              {"model", {{"median_s", 2e-6}, {"noisy", true}}}};
  const pspmv_cli::Run t = parse_run({{"command", "pspmv tune x"}, {"results", json::array({res})}}, "tune.json", "host");
  ASSERT_EQ(t.measures.size(), 1u);
  EXPECT_EQ(t.kind, "tune");
  EXPECT_FALSE(t.measures[0].has_peer);
  EXPECT_EQ(t.measures[0].floor_s, 0.0);
  EXPECT_NEAR(t.measures[0].pspmv.gbs, (12404 + 200 * 8) / 2e-6 * 1e-9, 1e-9);
  EXPECT_TRUE(t.measures[0].pspmv.noisy);
}

TEST(Report, RejectsBadInputNamingTheFile) {
  const auto throws_with = [](const auto& f, const std::string& part) {
    try {
      f();
    } catch (const pspmv::Error& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
      return;
    }
    ADD_FAILURE() << "no pspmv::Error for " << part;
  };
  const pspmv_test::TempPath not_json = write_temp("not.json", "{\n\"command\": \"pspmv bench\",\n oops\n}\n");
  throws_with([&] { load_run(not_json, ""); }, not_json.str() + ":3: not a pspmv record: not valid JSON");
  throws_with([&] { load_run(::testing::TempDir() + "absent.json", ""); }, "absent.json: cannot open");
  throws_with([] { parse_run(json{{"hello", 1}}, "other.json", ""); }, "other.json: not a pspmv record");
  throws_with([] { parse_run(json::array(), "list.json", ""); }, "list.json: not a pspmv record");
  throws_with([] { parse_run(json{{"pspmv_report", 1}, {"records", json::array()}}, "merged.json", ""); },
              "merged.json: this is the merged data of pspmv report");
  json future = gpu_run();
  future["context"]["schema"] = 2;
  throws_with([&] { parse_run(future, "future.json", ""); }, "future.json: context schema 2 is not compatible");
  json no_schema = gpu_run();
  no_schema["context"].erase("schema");
  throws_with([&] { parse_run(no_schema, "noschema.json", ""); }, "noschema.json: the context block has no integer \"schema\"");
  json missing = cpu_run();
  missing["records"][2].erase("nnz");
  throws_with([&] { parse_run(missing, "cpu.json", ""); }, "cpu.json: records[2]: no \"nnz\" count");
  json none = cpu_run();
  for (auto& x : none["records"]) x["verified"] = false;
  throws_with([&] { parse_run(none, "wrong.json", ""); }, "wrong.json: holds no verified pspmv measurement");
  // No common matrix: every file is named.
  json other = cpu_run();
  for (auto& x : other["records"]) x["matrix"] = x["matrix"].get<std::string>() + "-other";
  throws_with(
      [&] {
        cross_report({parse_run(gpu_run(), "gpu.json", ""), parse_run(other, "other.json", "")}, "");
      },
      "no matrix (name, precision, rows and nnz alike) is in every run:\n  gpu.json (Test GPU (Cuda)): alpha f64 (100 "
      "rows, 1000 nnz), beta f64 (200 rows, 3000 nnz), gamma f64 (300 rows, 5000 nnz)\n  other.json (Test EPYC, 4 threads "
      "(OpenMP)): alpha-other f64");
  // Two sizes of one matrix within one file.
  json twice = cpu_run();
  twice["records"][1]["nnz"] = 999;
  throws_with([&] { parse_run(twice, "twice.json", ""); },
              "twice.json: records[1]: alpha has 100 rows and 999 nonzeros here and 100 rows and 1000 nonzeros");
  throws_with([&] { cross_report({parse_run(gpu_run(), "gpu.json", "")}, "nowhere"); },
              "--reference \"nowhere\" names no machine");
}
