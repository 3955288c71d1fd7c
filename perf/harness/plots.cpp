#include "harness/plots.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <set>

#include "harness/files.hpp"

namespace pspmv_cli {

namespace {

/// One bar: its value, the ends of its error bar (0: none) and what a missing value means.
struct Bar {
  enum Kind { none, value, never, at_once };
  Kind kind = none;
  double v = 0, lo = 0, hi = 0;
};

Bar bar(double v, double lo = 0, double hi = 0) {
  if (!(std::isfinite(v) && v > 0)) return {};
  return {Bar::value, v, lo, hi};
}

using Value = std::function<Bar(const CompareSummary&, const std::string&)>;

struct Plot {
  std::string name, title, ylabel;
  std::vector<std::string> cols;
  Value value;
  bool log;
  double ref;            ///< a dashed line at this value (0: none)
  bool floor_line = false;  ///< the matrix's floor (floor_gbs) as a line across its group
};

/// A string as a gnuplot double-quoted literal.
std::string gp_quote(const std::string& s) {
  std::string q = "\"";
  for (char c : s) q += c == '\n' ? std::string("\\n") : (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  return q + "\"";
}

/// The data file: one line per matrix: index, name, floor GB/s, then per label value, error
/// low, error high, never (1/0), at once (1/0), then the minimum bytes of one multiply; "?"
/// where missing (set datafile missing "?").
std::string data_file(const std::vector<const CompareSummary*>& rows, const Plot& p) {
  std::string s = "# index matrix floor_gbs";
  for (const auto& l : p.cols) s += " [" + l + ": value err_low err_high never at_once]";
  s += " min_bytes\n";
  const auto num = [](double v) { return std::isfinite(v) && v > 0 ? fmt::format(" {:.6g}", v) : std::string(" ?"); };
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto* m = rows[i];
    std::string name = m->matrix;
    std::replace(name.begin(), name.end(), '"', '\'');
    s += fmt::format("{} \"{}\"", i, name) + num(m->floor_gbs);
    for (const auto& l : p.cols) {
      const Bar b = p.value(*m, l);
      s += b.kind == Bar::value ? num(b.v) + num(b.lo) + num(b.hi) : std::string(" ? ? ?");
      s += b.kind == Bar::never ? " 1" : " 0";
      s += b.kind == Bar::at_once ? " 1" : " 0";
    }
    s += num(m->bytes) + "\n";
  }
  return s;
}

std::string gnuplot_script(const std::string& dat, const std::string& png, const Plot& p,
                           const std::vector<const CompareSummary*>& rows, const std::string& subtitle) {
  // The value range, for a log axis and for the never / at once marks at its ends.
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  bool never = false, once = false;
  bool cache_resident = false;  // an input below floor_bound_bytes: its floor bounds nothing
  for (const auto* m : rows) {
    cache_resident |= m->bytes > 0 && m->bytes < floor_bound_bytes;
    if (p.floor_line && m->floor_gbs > 0) lo = std::min(lo, m->floor_gbs), hi = std::max(hi, m->floor_gbs);
    for (const auto& l : p.cols) {
      const Bar b = p.value(*m, l);
      never |= b.kind == Bar::never;
      once |= b.kind == Bar::at_once;
      if (b.kind != Bar::value) continue;
      lo = std::min({lo, b.v, b.lo > 0 ? b.lo : b.v});
      hi = std::max({hi, b.v, b.hi});
    }
  }
  if (p.ref > 0) lo = std::min(lo, p.ref), hi = std::max(hi, p.ref);
  if (!std::isfinite(lo)) lo = 1;
  if (hi <= 0) hi = 1;
  const double ymin = p.log ? lo / 2 : 0, ymax = p.log ? hi * (never || once ? 6 : 2) : hi * 1.15;
  const double n = static_cast<double>(p.cols.size());
  const double width = 0.8 / n;  // the group of a matrix spans 0.8
  const int bytes_col = 4 + 5 * static_cast<int>(p.cols.size());
  // A matrix below floor_bound_bytes is marked on its tic, where the floor is drawn or compared to.
  const bool mark_cache = (p.floor_line || p.name == "floor") && cache_resident;
  const std::string tic = mark_cache ? fmt::format("xtic(strcol(2).(${} < {:.0f} ? \" (< 8 MiB)\" : \"\"))", bytes_col,
                                                   floor_bound_bytes)
                                     : "xtic(2)";

  std::string s;
  s += "# Written by pspmv compare; render with: gnuplot " + png.substr(0, png.size() - 4) + ".gp\n";
  s += "set terminal pngcairo size 1400,760 noenhanced font \",11\"\n";
  s += "if (!exists(\"out\")) out = '" + png + "'\nset output out\n";
  s += "set title " + gp_quote(p.title + (subtitle.empty() ? "" : "\n" + subtitle)) + "\n";
  s += "set datafile missing \"?\"\n";
  s += "set style fill solid 0.85 border -1\n";
  s += "set xtics rotate by -30 scale 0 nomirror\nset key above horizontal maxrows 2\nset grid ytics\n";
  s += fmt::format("set xrange [-0.6:{}]\n", static_cast<double>(rows.size()) - 0.4);
  s += "set ylabel " + gp_quote(p.ylabel) + "\n";
  s += fmt::format("set yrange [{:.6g}:{:.6g}]\n", ymin, ymax);
  if (p.log) s += "set logscale y\n";
  if (p.ref > 0)
    s += fmt::format("set arrow from graph 0, first {0} to graph 1, first {0} nohead dt 2 lw 2 lc rgb \"#000000\" front\n"
                     "set label \"{0:g}\" at graph 1, first {0} offset 0.5,0 left\n",
                     p.ref);
  s += "set rmargin 6\n";
  std::vector<std::string> parts;
  // x positions: the matrix index, each label shifted within the group.
  parts.push_back(fmt::format("'{}' using 1:(NaN):{} notitle", dat, tic));
  std::map<std::string, int> seen_impl;
  for (std::size_t j = 0; j < p.cols.size(); ++j) {
    const auto& l = p.cols[j];
    const int c = 4 + 5 * static_cast<int>(j);  // value column
    const double off = (static_cast<double>(j) - (n - 1) / 2) * width;
    const std::string x = fmt::format("($1{:+.4f})", off);
    const std::string colour = plot_colour(l);
    // A second plan of one library (cuSPARSE ALG2 and SELL) gets its colour with a pattern.
    const std::string lib = l.substr(0, l.find(' '));
    const int k = seen_impl[lib == "pspmv" ? l : lib]++;
    const std::string fill = k == 0 ? "fs solid 0.85 border -1" : fmt::format("fs pattern {} border -1", 4 + k);
    // The key's entry apart from the data: a label whose every value is a mark (never, at
    // once) has no bar to lend the key its sample.
    parts.push_back(fmt::format("keyentry with boxes {} lc rgb \"{}\" title {}", fill, colour, gp_quote(l)));
    if (p.log)  // a bar grows from the reference line, up or down (a ratio), or from the axis' bottom
      parts.push_back(fmt::format("'{0}' using {1}:{2}:({1}-{3:.4f}):({1}+{3:.4f}):({4:.6g}):{2} with boxxyerror {5} lc rgb "
                                  "\"{6}\" notitle",
                                  dat, x, c, width * 0.475, p.ref > 0 ? p.ref : ymin, fill, colour));
    else
      parts.push_back(fmt::format("'{}' using {}:{}:({:.4f}) with boxes {} lc rgb \"{}\" notitle", dat, x, c,
                                  width * 0.95, fill, colour));
    // A ratio near the reference draws a bar too short to see, which reads as no data: a
    // marker at every value, over the bar's end, keeps it visible.
    if (p.log && p.ref > 0)
      parts.push_back(fmt::format("'{0}' using {1}:{2} with points pt 7 ps 1.3 lc rgb \"{3}\" notitle, "
                                  "'{0}' using {1}:{2} with points pt 6 ps 1.3 lc rgb \"#000000\" notitle",
                                  dat, x, c, colour));
    const bool error_bars = std::any_of(rows.begin(), rows.end(), [&](const CompareSummary* m) {
      const Bar b = p.value(*m, l);
      return b.kind == Bar::value && b.lo > 0;
    });
    if (error_bars)
      parts.push_back(fmt::format("'{}' using {}:{}:(0):(${}-${}) with vectors heads size screen 0.004,90 lc rgb "
                                  "\"#000000\" lw 1 notitle",
                                  dat, x, c + 1, c + 2, c + 1));
    if (never)
      parts.push_back(fmt::format("'{}' using {}:(${} > 0 ? {:.6g} : NaN) with points pt 9 ps 2.2 lc rgb \"{}\" notitle",
                                  dat, x, c + 3, ymax / 1.6, colour));
    if (once)
      parts.push_back(fmt::format("'{}' using {}:(${} > 0 ? {:.6g} : NaN) with points pt 7 ps 1.6 lc rgb \"{}\" notitle",
                                  dat, x, c + 4, ymin * 1.25, colour));
  }
  if (p.floor_line) {
    // The floor is a streamed read of the input's bytes: a bound only where they come from
    // memory. An input the caches can hold gets a dashed grey line and says so in the key.
    parts.push_back(fmt::format("'{}' using ($1-0.45):(${} >= {:.0f} ? $3 : NaN):(0.9):(0) with vectors nohead lw 3 "
                                "lc rgb \"#000000\" title \"floor (bandwidth)\"",
                                dat, bytes_col, floor_bound_bytes));
    if (cache_resident)
      parts.push_back(fmt::format("'{}' using ($1-0.45):(${} < {:.0f} ? $3 : NaN):(0.9):(0) with vectors nohead lw 3 dt 2 "
                                  "lc rgb \"#777777\" title \"floor of an input < 8 MiB: the caches hold it, no bound\"",
                                  dat, bytes_col, floor_bound_bytes));
  } else if (mark_cache) {
    parts.push_back("keyentry with lines lc rgb \"#ffffff\" title \"(< 8 MiB): the caches hold the input; below 1 is "
                    "no noise there\"");
  }
  if (never)
    parts.push_back(fmt::format("NaN with points pt 9 ps 2.2 lc rgb \"#555555\" title \"never repaid (triangle at the top)\""));
  if (once)
    parts.push_back(fmt::format("NaN with points pt 7 ps 1.6 lc rgb \"#555555\" title \"repaid at once (dot at the bottom)\""));
  s += "plot ";
  for (std::size_t i = 0; i < parts.size(); ++i) s += (i ? ", \\\n     " : "") + parts[i];
  s += "\n";
  return s;
}

/// Adds the labels of `entries` that `labels` lacks, in order; with peers_only, only peers'.
void add_labels(std::vector<std::string>& labels, const std::vector<CompareEntry>& entries, bool peers_only) {
  for (const auto& e : entries)
    if ((!peers_only || e.impl != "pspmv") && std::find(labels.begin(), labels.end(), e.label) == labels.end())
      labels.push_back(e.label);
}

/// The four plots of the summaries `rows` of precision p.
std::vector<Plot> plots_of(const std::vector<const CompareSummary*>& rows, const std::string& p) {
  std::vector<std::string> labels, peers, planned;  // planned: every plan with an analysis stage to repay
  for (const auto* m : rows) {
    add_labels(labels, m->entries, false);
    add_labels(peers, m->entries, true);
    add_labels(planned, m->planned, false);
  }
  const std::string space = rows.front()->space;
  return {
      {"gbs", fmt::format("SpMV bandwidth, {} on {} (minimum bytes / median time; higher is better; bars: min to median)", p, space),
       "GB/s (log scale)", labels,
       [](const CompareSummary& m, const std::string& l) {
         const auto* e = find_entry(m.entries, l);
         if (!e || !(e->median_s > 0)) return Bar{};
         // From the median's rate up to the minimum's.
         return bar(e->gbs, e->gbs, e->min_s > 0 ? e->gbs * e->median_s / e->min_s : e->gbs);
       },
       // Log: rates of a few GB/s beside tens of GB/s (and the floor) stay readable.
       true, 0, true},
      {"floor", fmt::format("Time over the bandwidth floor, {} on {} (1 = at the floor; lower is better; bars: min to median)", p, space),
       "time / floor time (log scale)", labels,
       [](const CompareSummary& m, const std::string& l) {
         const auto* e = find_entry(m.entries, l);
         if (!e || !(e->median_s > 0)) return Bar{};
         return bar(e->ratio_to_floor, e->ratio_to_floor * e->min_s / e->median_s, e->ratio_to_floor);
       },
       true, 1.0},
      {"speedup", fmt::format("Speedup of pspmv's best variant over each peer's best, {} on {} (> 1: pspmv faster; timed interleaved; bars: median to min ratio)", p, space),
       "peer time / pspmv best time (log scale)", peers,
       [](const CompareSummary& m, const std::string& l) {
         const auto* e = find_entry(m.entries, l);
         if (!e) return Bar{};
         // The ratio of the medians, its error bar to the ratio of the minimums (either side).
         const double v = time_over_pspmv(m, *e).first, at_min = time_over_pspmv_best_min(m, *e);
         return at_min > 0 ? bar(v, std::min(v, at_min), std::max(v, at_min)) : bar(v);
       },
       true, 1.0},
      {"breakeven", fmt::format("Calls after which a plan repays its analysis, {} on {}", p, space),
       "break-even calls (log scale)", planned,
       [](const CompareSummary& m, const std::string& l) {
         const auto* e = find_entry(m.planned, l);
         if (!e || e->break_even < 0) return Bar{};
         if (std::isinf(e->break_even)) return Bar{Bar::never};
         if (e->break_even == 0) return Bar{Bar::at_once};
         return bar(e->break_even);
       },
       true, 0},
  };
}

}  // namespace

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

bool render_png(const std::string& dir, const std::string& stem, const std::string& who) {
  const std::string cmd = "cd " + shell_quote(dir) + " && gnuplot -e " + shell_quote("out='" + stem + ".png.tmp'") +
                          " " + shell_quote(stem + ".gp") + " 2>&1";
  std::FILE* pipe = ::popen(cmd.c_str(), "r");
  std::string said;
  if (pipe) {
    char buf[512];
    while (std::fgets(buf, sizeof buf, pipe)) said += buf;
  }
  const int rc = pipe ? ::pclose(pipe) : -1;
  const std::string tmp = dir + "/" + stem + ".png.tmp", png = dir + "/" + stem + ".png";
  if (rc == 0 && std::rename(tmp.c_str(), png.c_str()) == 0) return true;
  // A plot is no measurement: say so and go on (the data and script are written).
  std::remove(tmp.c_str());
  std::cerr << "pspmv " << who << ": warning: " << dir << "/" << stem << ".gp: gnuplot failed (exit " << rc << "): " << said
            << "; no " << png << "\n";
  return false;
}

bool have_gnuplot() { return std::system("command -v gnuplot >/dev/null 2>&1") == 0; }

std::string plot_colour(const std::string& label) {
  static const std::pair<const char*, const char*> colours[] = {
      {"pspmv best", "#1f4e9c"}, {"pspmv auto", "#6fa8dc"}, {"pspmv", "#1f4e9c"},   {"openmp-plain", "#8c8c8c"},
      {"kokkos-kernels", "#e69f00"}, {"cusparse", "#2ca02c"}, {"mkl", "#d62728"}, {"librsb", "#9467bd"},
      {"eigen", "#8c564b"},      {"floor", "#000000"}};
  for (const auto& [prefix, colour] : colours)
    if (label.rfind(prefix, 0) == 0) return colour;
  return "#e377c2";
}

std::string plot_subtitle(const RunInfo& info) {
  return info.machine + " | commit " + info.commit + " | " + info.date;
}

std::vector<std::string> write_plots(const std::vector<CompareSummary>& summaries, const std::string& dir, bool render,
                                     const std::string& subtitle) {
  std::vector<std::string> pngs;
  const bool gnuplot = render && have_gnuplot();
  if (render && !gnuplot)
    std::cerr << "pspmv compare: gnuplot not found (Debian: gnuplot-nox); the .dat and .gp files are written, no PNG\n";
  std::set<std::string> precisions;
  for (const auto& m : summaries) precisions.insert(m.precision);
  for (const auto& p : precisions) {
    std::vector<const CompareSummary*> rows;
    for (const auto& m : summaries)
      if (m.precision == p) rows.push_back(&m);
    for (auto pl : plots_of(rows, p)) {
      // Only columns with something to draw (a log-scale plot of nothing is a gnuplot error).
      std::vector<std::string> cols;
      for (const auto& c : pl.cols)
        if (std::any_of(rows.begin(), rows.end(), [&](const CompareSummary* m) { return pl.value(*m, c).kind != Bar::none; }))
          cols.push_back(c);
      pl.cols = cols;
      if (pl.cols.empty()) continue;
      const std::string stem = pl.name + "-" + p;
      write_file_atomically(dir + "/" + stem + ".dat", data_file(rows, pl));
      write_file_atomically(dir + "/" + stem + ".gp", gnuplot_script(stem + ".dat", stem + ".png", pl, rows, subtitle));
      if (gnuplot && render_png(dir, stem, "compare")) pngs.push_back(dir + "/" + stem + ".png");
    }
  }
  return pngs;
}

}  // namespace pspmv_cli
