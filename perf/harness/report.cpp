#include "harness/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "harness/summary.hpp"

namespace pspmv_cli {

namespace {

/// Width of the precision column: 4, or the longest precision named (f32-f64).
std::size_t precision_width(const std::vector<Record>& records) {
  std::size_t w = 4;
  for (const auto& r : records) w = std::max(w, r.precision.size());
  return w;
}

/// Per pspmv plan: its analysis in ms and in multiplies of the plan, its phases, and the
/// calls after which it repays its analysis against plain CSR (the unplanned call).
std::string analysis_lines(const std::vector<Record>& records) {
  std::string s;
  for (const auto& r : records) {
    if (r.analysis_phases.empty() || r.skipped || !(r.median_s > 0)) continue;
    if (s.empty())
      s = "\nanalysis: ms, in multiplies of its plan (analyze / median), phases in ms; break-even against plain "
          "CSR in calls\n";
    std::string phases;
    for (const auto& [name, sec] : r.analysis_phases)
      if (name != "total" && sec > 0) phases += fmt::format(" {} {:.2f}", name, sec * 1e3);
    std::string be = "-";
    for (const auto& u : records)
      if (!r.unplanned.empty() && u.matrix == r.matrix && u.precision == r.precision && u.space == r.space &&
          u.impl == r.impl && u.variant == r.unplanned && u.median_s > 0 && !u.skipped) {
        const double b = u.plan == r.plan ? -1 : break_even_calls(r.analyze_s, u.analyze_s, r.median_s, u.median_s);
        be = b < 0 ? "-" : std::isinf(b) ? "never" : b == 0 ? "at once" : fmt::format("{:.0f} calls", b);
      }
    s += fmt::format("{:<22} {:<{}} {:<52} {:>9.2f} ms {:>8.1f} x  |{} | break-even {}\n", r.matrix.substr(0, 22),
                     r.precision, precision_width(records), r.variant.substr(0, 52), r.analyze_s * 1e3, r.analyze_s / r.median_s, phases, be);
  }
  return s;
}

}  // namespace

std::string table(const std::vector<Record>& records) {
  const std::size_t pw = precision_width(records);
  std::string s = fmt::format("{:<22} {:<{}} {:<15} {:<52} {:>10} {:>10} {:>6} {:>8} {:>8} {:>7} {:>7} {:>6} {:>10} {:>9} {}\n",
                              "matrix", "prec", pw, "impl", "variant", "median ms", "min ms", "cv %", "GFLOP/s", "GB/s",
                              "x floor", "x moved", "csr/pl", "analyze ms", "max err", "check");
  std::size_t noisy = 0;
  std::string last;
  for (const auto& r : records) {
    if (r.matrix + r.precision != last && !last.empty()) s += "\n";
    last = r.matrix + r.precision;
    if (r.skipped) {
      s += fmt::format("{:<22} {:<{}} {:<15} {:<52} skipped: {}\n", r.matrix.substr(0, 22), r.precision, pw, r.impl,
                       r.variant.substr(0, 52), r.plan);
      continue;
    }
    noisy += r.noisy;
    s += fmt::format("{:<22} {:<{}} {:<15} {:<52} {:>10.4f} {:>10.4f} {:>6.1f} {:>8.2f} {:>8.2f} {:>7.2f} {:>7} {:>6} {:>10.3f} {:>9.1e} {}{}\n",
                     r.matrix.substr(0, 22), r.precision, pw, r.impl, r.variant.substr(0, 52), r.median_s * 1e3,
                     r.min_s * 1e3, 100 * r.time_cv, r.gflops, r.gbs, r.ratio_to_floor,
                     r.ratio_to_moved_floor > 0 ? fmt::format("{:.2f}", r.ratio_to_moved_floor) : std::string("-"),
                     r.compression_ratio > 0 ? fmt::format("{:.3f}", r.compression_ratio) : std::string("-"),
                     r.analyze_s * 1e3,
                     r.max_rel_err, r.verified ? "ok" : "WRONG", r.noisy ? " noisy" : "");
  }
  s += analysis_lines(records);
  for (const auto& r : records)
    if (r.variant.rfind("auto", 0) == 0 && !r.reason.empty())
      s += fmt::format("\n{} {}: analyze() chose [{}] because {}", r.matrix, r.precision, r.plan, r.reason);
  if (!records.empty())
    s += fmt::format("\nfloor: {} of the minimum bytes (row_ptr, col_idx, values, x once; y written once); "
                     "x floor = median / floor time\n", records.front().floor_method);
  if (noisy > 0)
    s += fmt::format("noisy: {} of the timings (median/min > {}, below the floor, or under load; the JSON's \"noise\" "
                     "says which); do not read them as results\n", noisy, noisy_median_over_min);
  return s;
}

std::string lesson_pair_summary(const std::vector<Input>& inputs, const std::vector<Record>& records) {
  std::string s;
  for (const auto& e : inputs) {
    if (e.name.rfind("even:", 0) != 0) continue;
    const std::string n = e.name.substr(5);
    const Input* k = nullptr;
    for (const auto& c : inputs)
      if (c.name == "skewed:" + n) k = &c;
    if (!k) continue;
    if (k->A.nnz() != e.A.nnz())
      throw pspmv::InvalidArgument("lesson pair " + e.name + " / " + k->name + ": nnz differ (" +
                                   std::to_string(e.A.nnz()) + " vs " + std::to_string(k->A.nnz()) +
                                   "); refusing to compare");
    const auto le = pspmv::compute_lane_slots(e.A.row_ptr.data(), e.A.nrows, 32);
    const auto lk = pspmv::compute_lane_slots(k->A.row_ptr.data(), k->A.nrows, 32);
    s += fmt::format("\nLesson pair at {} rows, nnz {} each: lane-slots at width 32 (useful share)\n", n, e.A.nnz());
    s += fmt::format("  {:<8} thread_per_row {:>12} ({:>5.1f}%)   team_per_row {:>12} ({:>5.1f}%)   thread/team slots {:.3f}\n",
                     "even", le.thread_per_row, 100 * le.useful_thread_per_row, le.team_per_row,
                     100 * le.useful_team_per_row, double(le.thread_per_row) / double(le.team_per_row));
    s += fmt::format("  {:<8} thread_per_row {:>12} ({:>5.1f}%)   team_per_row {:>12} ({:>5.1f}%)   thread/team slots {:.3f}\n",
                     "skewed", lk.thread_per_row, 100 * lk.useful_thread_per_row, lk.team_per_row,
                     100 * lk.useful_team_per_row, double(lk.thread_per_row) / double(lk.team_per_row));
    std::map<std::string, double> t;
    for (const auto& r : records)
      if (r.impl == "pspmv") t[r.matrix + "|" + r.precision + "|" + r.space + "|" + r.variant] = r.median_s;
    for (const std::string prec : {"f64", "f32"})
      for (const auto& r : records) {
        if (r.matrix != e.name || r.precision != prec || r.impl != "pspmv") continue;
        for (const std::string sched : {"static_chunks", "dynamic_chunks", "nnz_balanced", "work_stealing", "serial"}) {
          if (r.variant != "csr thread_per_row/" + sched) continue;
          auto get = [&](const std::string& m, const std::string& v) {
            auto it = t.find(m + "|" + prec + "|" + r.space + "|" + v);
            return it == t.end() ? 0.0 : it->second;
          };
          const double et = get(e.name, "csr thread_per_row/" + sched), ew = get(e.name, "csr team_per_row/" + sched);
          const double kt = get(k->name, "csr thread_per_row/" + sched), kw = get(k->name, "csr team_per_row/" + sched);
          if (et > 0 && ew > 0 && kt > 0 && kw > 0)
            s += fmt::format("  {} {} csr {:<15} measured thread/team time: even {:.3f}, skewed {:.3f};  skewed/even: thread {:.3f}, team {:.3f}\n",
                             r.space, prec, sched, et / ew, kt / kw, kt / et, kw / ew);
        }
      }
  }
  return s;
}

}  // namespace pspmv_cli
