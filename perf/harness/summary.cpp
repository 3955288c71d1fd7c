#include "harness/summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace pspmv_cli {

double break_even_calls(double analyze_s, double unplanned_analyze_s, double planned_s, double unplanned_s) {
  const double extra = std::max(0.0, analyze_s - unplanned_analyze_s);
  const double saved = unplanned_s - planned_s;
  if (!(saved > 0)) return std::numeric_limits<double>::infinity();
  return extra / saved;
}

const CompareEntry* find_entry(const std::vector<CompareEntry>& entries, const std::string& label) {
  for (const auto& e : entries)
    if (e.label == label) return &e;
  return nullptr;
}

namespace {

std::string key(const Record& r) { return r.matrix + "\x1f" + r.precision + "\x1f" + r.space; }

bool usable(const Record& r) { return !r.skipped && r.verified && r.median_s > 0; }

/// The records grouped by matrix, precision and space.
std::map<std::string, std::vector<Record>> groups_of(const std::vector<Record>& records) {
  std::map<std::string, std::vector<Record>> groups;
  for (const auto& r : records) groups[key(r)].push_back(r);
  return groups;
}

/// Break-even of record r within its group (same matrix, precision, space), or -1 when r has
/// no unplanned counterpart measured.
double record_break_even(const Record& r, const std::vector<Record>& group) {
  if (r.unplanned.empty() || !usable(r)) return -1;
  for (const auto& u : group)
    if (u.impl == r.impl && u.variant == r.unplanned && usable(u))
      // The same plan as the unplanned call (pspmv's model chose plain CSR): nothing to repay,
      // and two timings of one plan are no saving.
      return u.plan == r.plan ? -1 : break_even_calls(r.analyze_s, u.analyze_s, r.median_s, u.median_s);
  return -1;
}

std::string fmt_break_even(double b) {
  if (b < 0) return "-";
  if (std::isinf(b)) return "never";
  if (b == 0) return "at once";  // its analysis costs no more than the unplanned call's
  if (b < 10) return fmt::format("{:.2f}", b);
  return fmt::format("{:.0f}", b);
}

nlohmann::json break_even_json(double b) {
  return b < 0 ? nlohmann::json(nullptr) : std::isinf(b) ? nlohmann::json("never") : nlohmann::json(b);
}

CompareEntry entry_of(const std::string& label, const Record& r, const std::vector<Record>& group) {
  CompareEntry e;
  e.label = label;
  e.impl = r.impl;
  e.variant = r.variant;
  e.median_s = r.median_s;
  e.gbs = r.gbs;
  e.ratio_to_floor = r.ratio_to_floor;
  e.analyze_s = r.analyze_s;
  e.break_even = record_break_even(r, group);
  e.min_s = r.min_s;
  e.iqr_s = r.iqr_s;
  e.cv = r.time_cv;
  e.noisy = r.noisy;
  e.paired_s = r.paired_s;
  e.paired_pspmv_s = r.paired_other_s;
  e.paired_min_s = r.paired_min_s;
  e.paired_pspmv_min_s = r.paired_other_min_s;
  e.paired_auto_s = r.paired_auto_s;
  return e;
}

double geomean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double s = 0;
  for (double x : v) s += std::log(x);
  return std::exp(s / static_cast<double>(v.size()));
}

}  // namespace

std::pair<double, double> time_over_pspmv(const CompareSummary& m, const CompareEntry& e) {
  const auto* best = find_entry(m.entries, "pspmv best");
  const auto* automatic = find_entry(m.entries, "pspmv auto");
  const double over_best = e.paired_s > 0 && e.paired_pspmv_s > 0 ? e.paired_s / e.paired_pspmv_s
                           : best                                 ? e.median_s / best->median_s
                                                                  : 0;
  const double over_auto = e.paired_s > 0 && e.paired_auto_s > 0 ? e.paired_s / e.paired_auto_s
                           : automatic                            ? e.median_s / automatic->median_s
                                                                  : 0;
  return {over_best, over_auto};
}

double time_over_pspmv_best_min(const CompareSummary& m, const CompareEntry& e) {
  // From the same timings as time_over_pspmv's ratio: a pair whose minimums are not recorded
  // has no error bar rather than one from the sweep.
  if (e.paired_s > 0 && e.paired_pspmv_s > 0)
    return e.paired_min_s > 0 && e.paired_pspmv_min_s > 0 ? e.paired_min_s / e.paired_pspmv_min_s : 0;
  const auto* best = find_entry(m.entries, "pspmv best");
  return best && e.min_s > 0 && best->min_s > 0 ? e.min_s / best->min_s : 0;
}

namespace {

}  // namespace

std::vector<CompareSummary> summarize(const std::vector<Record>& records) {
  std::vector<std::string> order;
  for (const auto& r : records)
    if (std::find(order.begin(), order.end(), key(r)) == order.end()) order.push_back(key(r));
  const auto groups = groups_of(records);
  std::vector<CompareSummary> out;
  for (const auto& k : order) {
    const auto& g = groups.at(k);
    CompareSummary s;
    s.matrix = g.front().matrix;
    s.precision = g.front().precision;
    s.space = g.front().space;
    s.rows = g.front().rows;
    s.nnz = g.front().nnz;
    s.floor_gbs = g.front().floor_gbs;
    s.bytes = g.front().bytes;
    const Record* automatic = nullptr;
    const Record* best = nullptr;
    std::vector<std::string> impls;
    std::map<std::string, const Record*> peer_best;
    for (const auto& r : g) {
      if (!usable(r)) continue;
      if (r.impl == "pspmv") {
        if (r.variant.rfind("auto", 0) == 0 && !automatic) automatic = &r;
        if (!best || r.median_s < best->median_s) best = &r;
        continue;
      }
      if (!peer_best.count(r.impl)) impls.push_back(r.impl);
      auto& b = peer_best[r.impl];
      if (!b || r.median_s < b->median_s) b = &r;
    }
    if (automatic) {
      s.entries.push_back(entry_of("pspmv auto", *automatic, g));
      s.entries.back().variant = "auto: " + automatic->plan;
    }
    if (best) s.entries.push_back(entry_of("pspmv best", *best, g));
    for (const auto& i : impls) s.entries.push_back(entry_of(i, *peer_best[i], g));
    for (const auto& r : g)
      if (usable(r) && !r.unplanned.empty() && (r.impl != "pspmv" || &r == automatic))
        s.planned.push_back(entry_of(r.impl == "pspmv" ? std::string("pspmv auto") : r.impl + " " + r.variant, r, g));
    out.push_back(s);
  }
  return out;
}

std::string compare_table(const std::vector<CompareSummary>& summaries) {
  std::string s;
  std::map<std::string, std::vector<double>> over_best, over_auto;  // peer -> speedups
  for (const auto& m : summaries) {
    s += fmt::format("{} {} on {}: {} rows, {} nnz, floor {:.1f} GB/s\n", m.matrix, m.precision, m.space, m.rows, m.nnz,
                     m.floor_gbs);
    s += fmt::format("  {:<16} {:<44} {:>10} {:>9} {:>6} {:>8} {:>7} {:>11} {:>10} {:>10} {:>10}\n", "implementation",
                     "variant (its fastest)", "median ms", "min ms", "cv %", "GB/s", "x floor", "analyze ms",
                     "break-even", "this/best", "this/auto");
    const bool best = find_entry(m.entries, "pspmv best"), automatic = find_entry(m.entries, "pspmv auto");
    for (const auto& e : m.entries) {
      const bool peer = e.impl != "pspmv";
      const auto [sb, sa] = time_over_pspmv(m, e);
      if (peer && best) over_best[e.impl].push_back(sb);
      if (peer && automatic) over_auto[e.impl].push_back(sa);
      s += fmt::format("  {:<16} {:<44} {:>9.4f}{} {:>9.4f} {:>6.1f} {:>8.2f} {:>7.2f} {:>11.3f} {:>10} {:>10} {:>10}\n",
                       e.label, e.variant.substr(0, 44), e.median_s * 1e3, e.noisy ? "*" : " ", e.min_s * 1e3,
                       e.cv * 100, e.gbs, e.ratio_to_floor, e.analyze_s * 1e3,
                       fmt_break_even(e.break_even), peer && best ? fmt::format("{:.2f}x", sb) : std::string(""),
                       peer && automatic ? fmt::format("{:.2f}x", sa) : std::string(""));
    }
    if (!m.planned.empty()) {
      s += "  plans with an analysis stage (analysis ms, break-even calls):";
      for (const auto& e : m.planned)
        s += fmt::format(" {} {:.3f} ms, {};", e.label, e.analyze_s * 1e3, fmt_break_even(e.break_even));
      s.back() = '\n';
    }
    s += "\n";
  }
  if (!over_best.empty()) {
    s += "Speedup of pspmv over each peer (peer time / pspmv time; > 1: pspmv faster), geometric mean over matrices:\n";
    s += fmt::format("  {:<16} {:>9} {:>14} {:>9} {:>14}\n", "peer", "best", "best wins", "auto", "auto wins");
    for (const auto& [peer, v] : over_best) {
      const auto& a = over_auto[peer];
      const auto wins = [](const std::vector<double>& x) { return std::count_if(x.begin(), x.end(), [](double q) { return q > 1; }); };
      s += fmt::format("  {:<16} {:>8.2f}x {:>7} of {:<4} {:>8.2f}x {:>7} of {:<4}\n", peer, geomean(v), wins(v), v.size(),
                       geomean(a), wins(a), a.size());
    }
  }
  s += "\nmedian ms, min ms, cv %: per call, the median and the fastest of the timed samples (each a batch of calls\n"
       "  lasting at least --min-sample-ms, divided by its calls) and the samples' standard deviation over their mean.\n"
       "this/best, this/auto: this implementation's time over pspmv's best variant and over its automatic plan;\n"
       "  a peer's this/best and this/auto come from its best, pspmv's best and pspmv's automatic plan timed\n"
       "  again in interleaved rounds, sample by sample.\n"
       "  '*' after a median: a noisy timing (median/min > 1.2, below the floor, or under load; see the JSON).\n"
       "break-even: extra analysis time / (unplanned call time - planned call time); the unplanned call is\n"
       "  pspmv: CSR thread_per_row/static_chunks; MKL: mkl_sparse_?_mv without optimize; librsb: untuned;\n"
       "  cuSPARSE: CSR_ALG1. '-': no analysis stage; never: the plan is not faster than the unplanned call.\n";
  return s;
}

nlohmann::json records_json(const std::vector<Record>& records) {
  const auto groups = groups_of(records);
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : records) {
    auto j = to_json(r);
    j["break_even_calls"] = break_even_json(record_break_even(r, groups.at(key(r))));
    out.push_back(j);
  }
  return out;
}

std::string records_csv(const std::vector<Record>& records) {
  const auto groups = groups_of(records);
  std::string csv = csv_header();
  csv.pop_back();
  csv += ",unplanned,break_even_calls\n";
  for (const auto& r : records) {
    const double b = record_break_even(r, groups.at(key(r)));
    std::string line = to_csv(r);
    line.pop_back();
    csv += line + "," + csv_field(r.unplanned) + "," +
           (b < 0 ? std::string("") : std::isinf(b) ? std::string("never") : fmt::format("{:.6g}", b)) + "\n";
  }
  return csv;
}

nlohmann::json summary_json(const std::vector<CompareSummary>& summaries) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& m : summaries) {
    nlohmann::json je = nlohmann::json::array();
    for (const auto& e : m.entries) {
      const auto [sb, sa] = time_over_pspmv(m, e);
      je.push_back({{"label", e.label}, {"impl", e.impl}, {"variant", e.variant}, {"median_s", e.median_s},
                    {"gbs", e.gbs}, {"ratio_to_floor", e.ratio_to_floor}, {"analyze_s", e.analyze_s},
                    {"break_even_calls", break_even_json(e.break_even)}, {"time_over_pspmv_best", sb},
                    {"time_over_pspmv_best_interleaved", e.paired_s > 0}, {"time_over_pspmv_auto", sa},
                    {"time_over_pspmv_auto_interleaved", e.paired_s > 0 && e.paired_auto_s > 0},
                    {"min_s", e.min_s}, {"iqr_s", e.iqr_s}, {"cv", e.cv}, {"noisy", e.noisy},
                    {"time_over_pspmv_best_min", time_over_pspmv_best_min(m, e)}});
    }
    nlohmann::json jp = nlohmann::json::array();
    for (const auto& e : m.planned)
      jp.push_back({{"label", e.label}, {"analyze_s", e.analyze_s}, {"median_s", e.median_s},
                    {"break_even_calls", break_even_json(e.break_even)}});
    out.push_back({{"matrix", m.matrix}, {"precision", m.precision}, {"space", m.space}, {"rows", m.rows},
                   {"nnz", m.nnz}, {"floor_gbs", m.floor_gbs}, {"entries", je}, {"planned", jp}});
  }
  return out;
}

std::string summary_csv(const std::vector<CompareSummary>& summaries) {
  std::string csv = "matrix,precision,space,rows,nnz,floor_gbs,label,impl,variant,median_s,gbs,ratio_to_floor,analyze_s,"
                    "break_even_calls,time_over_pspmv_best,time_over_pspmv_auto,min_s,iqr_s,cv,noisy\n";
  for (const auto& m : summaries)
    for (const auto& e : m.entries) {
      const auto [sb, sa] = time_over_pspmv(m, e);
      csv += fmt::format("{},{},{},{},{},{:.4f},{},{},{},{:.6e},{:.4f},{:.4f},{:.6e},{},{:.4f},{:.4f},{:.6e},{:.6e},{:.4f},{}\n",
                         csv_field(m.matrix), m.precision, csv_field(m.space), m.rows, m.nnz, m.floor_gbs, csv_field(e.label),
                         csv_field(e.impl), csv_field(e.variant), e.median_s, e.gbs,
                         e.ratio_to_floor, e.analyze_s, e.break_even < 0 ? std::string("") : e.break_even == 0 ? std::string("0") : fmt_break_even(e.break_even),
                         sb, sa, e.min_s, e.iqr_s, e.cv, e.noisy ? "true" : "false");
    }
  return csv;
}

}  // namespace pspmv_cli
