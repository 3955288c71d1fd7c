// `pspmv info`: row statistics, the histogram of row lengths and the lane-slot table of each
// input, computed on the host; with --format sell, the SELL-C-sigma lane-slots and padding.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <iostream>
#include <memory>

#include "command.hpp"

namespace pspmv_cli {

namespace {

struct InfoOptions {
  InputOptions inputs;
  int lane_width = 32;
  bool json = false;
  std::vector<std::string> formats{"csr"};
  int slice = 32;
  std::int64_t sigma = 1;
};

/// The row statistics of A; the diagonal share over blocks of `diagonal_block` rows (--slice).
nlohmann::json info_json(const Input& in, int lane_width, int diagonal_block) {
  const auto& A = in.A;
  const auto s = pspmv::compute_row_stats(A.row_ptr.data(), A.nrows, A.ncols, A.col_idx.data(), diagonal_block);
  const double spread = pspmv::column_spread(A.row_ptr.data(), A.col_idx.data(), A.nrows, A.ncols);
  const auto ls = pspmv::compute_lane_slots(A.row_ptr.data(), A.nrows, lane_width);
  nlohmann::json hist = nlohmann::json::array();
  for (std::size_t b = 0; b < s.histogram.size(); ++b)
    hist.push_back({{"lengths", pspmv::RowStats::bucket_label(b)}, {"rows", s.histogram[b]}});
  return {{"matrix", in.name},
          {"source", in.source},
          {"rows", s.nrows},
          {"cols", s.ncols},
          {"nnz", s.nnz},
          {"row_length", {{"min", s.min_len}, {"max", s.max_len}, {"mean", s.mean}, {"stddev", s.stddev}, {"cv", s.cv}}},
          {"empty_rows", s.empty_rows},
          {"column_spread", spread},
          {"narrow_share", s.narrow_share},
          {"diagonal_share", s.diagonal_share},
          {"diagonal_block", s.diagonal_block},
          {"histogram", hist},
          {"lane_slots",
           {{"lane_width", ls.lane_width},
            {"thread_per_row", ls.thread_per_row},
            {"thread_per_row_useful", ls.useful_thread_per_row},
            {"team_per_row", ls.team_per_row},
            {"team_per_row_useful", ls.useful_team_per_row}}}};
}

void print_info(const nlohmann::json& j) {
  const auto& rl = j["row_length"];
  std::cout << fmt::format("{} ({})\n  rows {}  cols {}  nnz {}\n", j["matrix"].get<std::string>(),
                           j["source"].get<std::string>(), j["rows"].get<long long>(), j["cols"].get<long long>(),
                           j["nnz"].get<long long>());
  std::cout << fmt::format("  row length: min {}  max {}  mean {:.3f}  stddev {:.3f}  cv {:.3f}  empty rows {}\n",
                           rl["min"].get<long long>(), rl["max"].get<long long>(), rl["mean"].get<double>(),
                           rl["stddev"].get<double>(), rl["cv"].get<double>(), j["empty_rows"].get<long long>());
  std::cout << fmt::format("  column spread (mean |col/ncols - row/nrows| over the nonzeros): {:.4f}\n",
                           j["column_spread"].get<double>());
  std::cout << fmt::format("  nonzeros in {}-row blocks spanning < 65,536 columns (narrow share): {:.4f}\n",
                           pspmv::RowStats::span_block, j["narrow_share"].get<double>());
  std::cout << fmt::format("  nonzeros in {}-row blocks of rows each the previous one shifted by one (diagonal share): {:.4f}\n",
                           j["diagonal_block"].get<long long>(), j["diagonal_share"].get<double>());
  std::cout << "  histogram of row lengths:\n";
  long long most = 1;
  for (const auto& h : j["histogram"]) most = std::max(most, h["rows"].get<long long>());
  for (const auto& h : j["histogram"]) {
    const long long n = h["rows"].get<long long>();
    std::cout << fmt::format("    {:>13} {:>12} {}\n", h["lengths"].get<std::string>(), n,
                             std::string(static_cast<std::size_t>(40.0 * n / most + 0.5), '#'));
  }
  const auto& ls = j["lane_slots"];
  std::cout << fmt::format("  lane-slots at lane width {} (one lane of one {}-wide group on one iteration):\n",
                           ls["lane_width"].get<int>(), ls["lane_width"].get<int>());
  std::cout << fmt::format("    {:<16} {:>14} {:>8}\n", "mapping", "lane-slots", "useful");
  std::cout << fmt::format("    {:<16} {:>14} {:>7.1f}%\n", "thread_per_row", ls["thread_per_row"].get<long long>(),
                           100 * ls["thread_per_row_useful"].get<double>());
  std::cout << fmt::format("    {:<16} {:>14} {:>7.1f}%\n", "team_per_row", ls["team_per_row"].get<long long>(),
                           100 * ls["team_per_row_useful"].get<double>());
}

/// The SELL-C-sigma shape of A: lane-slots, padding and bytes against CSR.
nlohmann::json sell_json(const pspmv::HostCsr<double, std::int64_t>& A, int slice, std::int64_t sigma) {
  const auto sh = pspmv::sell_shape(A.row_ptr.data(), A.nrows, slice, sigma);
  const double csr64 = static_cast<double>(A.nrows + 1) * 8 + static_cast<double>(A.nnz()) * 12;
  const double csr32 = static_cast<double>(A.nrows + 1) * 4 + static_cast<double>(A.nnz()) * 8;
  // The compressed plan, built: its bytes in f64, and in f32 (4 bytes less per value).
  auto S = pspmv::csr_to_sell(A, slice, sigma);
  pspmv::compress_columns(Kokkos::DefaultHostExecutionSpace(), S);
  const double c64 = static_cast<double>(S.bytes());
  const double c32 = c64 - 4.0 * static_cast<double>(S.values.extent(0) + S.long_values.extent(0));
  return {{"compressed",
           {{"slices_compressed", S.nslices() - S.wide_slices - S.diagonal_slices},
            {"slices_wide", S.wide_slices},
            {"slices_diagonal", S.diagonal_slices},
            {"entries_compressed", S.compressed_entries()},
            {"bytes_f64", c64},
            {"bytes_f32", c32},
            {"compression_ratio_f64", c64 > 0 ? csr64 / c64 : 1.0},
            {"compression_ratio_f32", c32 > 0 ? csr32 / c32 : 1.0}}},
          {"slice_height", slice},
          {"sigma", sigma},
          {"slices", sh.nslices},
          {"lane_slots", sh.stored},
          {"useful", sh.stored > 0 ? static_cast<double>(A.nnz()) / static_cast<double>(sh.stored) : 1.0},
          {"padding", sh.padding},
          {"bytes_f64", sh.bytes(8, A.nrows)},
          {"bytes_f32", sh.bytes(4, A.nrows)},
          {"bytes_vs_csr_f64", static_cast<double>(sh.bytes(8, A.nrows)) / csr64},
          {"bytes_vs_csr_f32", static_cast<double>(sh.bytes(4, A.nrows)) / csr32}};
}

void print_sell(const nlohmann::json& sl) {
  std::cout << fmt::format(
      "  SELL-{}-{}: {} slices, lane-slots {} ({:.1f}% useful), padding {:.2f}\n"
      "    bytes vs CSR (64-bit row_ptr f64 / 32-bit row_ptr f32): {:.3f} / {:.3f}{}\n",
      sl["slice_height"].get<int>(), sl["sigma"].get<long long>(), sl["slices"].get<long long>(),
      sl["lane_slots"].get<long long>(), 100 * sl["useful"].get<double>(), sl["padding"].get<double>(),
      sl["bytes_vs_csr_f64"].get<double>(), sl["bytes_vs_csr_f32"].get<double>(),
      sl["bytes_vs_csr_f64"].get<double>() > 1.1 ? "  (over the 1.1x limit: an automatic GPU plan keeps CSR)" : "");
  const auto& c = sl["compressed"];
  std::cout << fmt::format(
      "    compressed columns: {} diagonal slices (no column per entry), {} with 16-bit offsets, {} wide; "
      "CSR bytes / plan bytes (f64 / f32): {:.3f} / {:.3f}\n",
      c["slices_diagonal"].get<long long>(), c["slices_compressed"].get<long long>(), c["slices_wide"].get<long long>(),
      c["compression_ratio_f64"].get<double>(), c["compression_ratio_f32"].get<double>());
}

int run(const InfoOptions& o) {
  nlohmann::json all = nlohmann::json::array();
  const auto inputs = gather_inputs(o.inputs, "info: give a FILE or --gen SPEC");
  if (!o.json) std::cout << "host code: " << host_build() << "\n";
  for (const auto& in : inputs) {
    auto j = info_json(in, o.lane_width, o.slice);
    j["host_isa"] = host_build();
    if (std::find(o.formats.begin(), o.formats.end(), "sell") != o.formats.end()) j["sell"] = sell_json(in.A, o.slice, o.sigma);
    if (o.json) {
      all.push_back(j);
    } else {
      print_info(j);
      if (j.contains("sell")) print_sell(j["sell"]);
    }
  }
  if (o.json) std::cout << all.dump(2) << "\n";
  return 0;
}

}  // namespace

Command add_info(CLI::App& app) {
  auto o = std::make_shared<InfoOptions>();
  auto* sub = app.add_subcommand("info", "Row statistics, histogram and the lane-slot table, computed on the host");
  add_inputs(sub, o->inputs);
  sub->add_option("--lane-width", o->lane_width, "lanes per group for the lane-slot model")->check(CLI::Range(1, 1024));
  sub->add_flag("--json", o->json, "print JSON instead of text");
  add_rows(sub, o->inputs, "skewed");
  add_list(sub, "--format", o->formats, "csr | sell: sell adds the SELL-C-sigma lane-slots and padding report",
           CLI::IsMember({"csr", "sell"}));
  sub->add_option("--slice", o->slice, "SELL slice height C (4, 8, 16, 32, 64; also the diagonal share's block)")
      ->check(CLI::IsMember({4, 8, 16, 32, 64}));
  sub->add_option("--sigma", o->sigma, "SELL sorting window in rows (1: no sorting)");
  return {sub, [o](const RunInfo&) { return run(*o); }};
}

}  // namespace pspmv_cli
