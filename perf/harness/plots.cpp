#include "harness/plots.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <set>

#include "harness/files.hpp"

namespace pspmv_cli {

namespace {

using Value = std::function<double(const CompareSummary&, const std::string&)>;

struct Plot {
  std::string name, title, ylabel;
  std::vector<std::string> cols;
  Value value;
  bool log;
  double ref;
};

/// A gnuplot data file: first column the matrix name, then one column per label; "?" where a
/// value is missing (set datafile missing "?").
std::string data_file(const std::vector<const CompareSummary*>& rows, const std::vector<std::string>& labels,
                      const Value& value) {
  std::string s = "\"matrix\"";
  for (const auto& l : labels) s += " \"" + l + "\"";
  s += "\n";
  for (const auto* m : rows) {
    s += "\"" + m->matrix + "\"";
    for (const auto& l : labels) {
      const double v = value(*m, l);
      s += (std::isfinite(v) && v > 0) ? fmt::format(" {:.6g}", v) : std::string(" ?");
    }
    s += "\n";
  }
  return s;
}

std::string gnuplot_script(const std::string& dat, const std::string& png, const Plot& p) {
  std::string s;
  s += "# Written by pspmv compare; render with: gnuplot " + png.substr(0, png.size() - 4) + ".gp\n";
  s += "set terminal pngcairo size 1600,800 noenhanced font \",11\"\n";
  s += "if (!exists(\"out\")) out = '" + png + "'\nset output out\n";
  s += "set title \"" + p.title + "\"\n";
  s += "set datafile missing \"?\"\n";
  s += "set style data histogram\nset style histogram clustered gap 1\n";
  s += "set style fill solid 0.85 border -1\nset boxwidth 0.9\n";
  s += "set xtics rotate by -35 scale 0 nomirror\nset key outside right top\nset grid ytics\n";
  s += "set ylabel \"" + p.ylabel + "\"\nset yrange [" + std::string(p.log ? "0.5" : "0") + ":*]\n";
  if (p.log) s += "set logscale y\n";
  if (p.ref > 0) s += fmt::format("set arrow from graph 0, first {0} to graph 1, first {0} nohead dt 2 lw 2\n", p.ref);
  s += fmt::format("plot for [i=2:{}] '{}' using i:xtic(1) title columnheader(i)\n", p.cols.size() + 1, dat);
  return s;
}

/// Adds the labels of `entries` that `labels` lacks, in order; with peers_only, only peers'.
void add_labels(std::vector<std::string>& labels, const std::vector<CompareEntry>& entries, bool peers_only) {
  for (const auto& e : entries)
    if ((!peers_only || e.impl != "pspmv") && std::find(labels.begin(), labels.end(), e.label) == labels.end())
      labels.push_back(e.label);
}

/// The plot value that is `field` of the entry labelled l (0 where m has none).
Value entry_field(double CompareEntry::*field) {
  return [field](const CompareSummary& m, const std::string& l) {
    const auto* e = find_entry(m.entries, l);
    return e ? e->*field : 0.0;
  };
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
  std::vector<std::string> with_floor = labels;
  with_floor.insert(with_floor.begin(), "floor (bandwidth)");
  return {
      {"gbs", fmt::format("SpMV bandwidth, {} on {} (minimum bytes / median time; higher is better)", p, space), "GB/s",
       with_floor,
       [gbs = entry_field(&CompareEntry::gbs)](const CompareSummary& m, const std::string& l) {
         return l == "floor (bandwidth)" ? m.floor_gbs : gbs(m, l);
       },
       false, 0},
      {"floor", fmt::format("Time over the bandwidth floor, {} on {} (1 = at the floor; lower is better)", p, space),
       "median time / floor time", labels, entry_field(&CompareEntry::ratio_to_floor), false, 1.0},
      {"speedup", fmt::format("Speedup of pspmv's best variant over each peer's best, {} on {} (> 1: pspmv faster)", p, space),
       "peer time / pspmv best time", peers,
       [](const CompareSummary& m, const std::string& l) {
         const auto* e = find_entry(m.entries, l);
         const auto* b = find_entry(m.entries, "pspmv best");
         return e && b ? e->median_s / b->median_s : 0.0;
       },
       false, 1.0},
      {"breakeven", fmt::format("Calls after which a plan repays its analysis, {} on {} (no bar: repaid at once, or never)", p, space),
       "break-even calls (log scale)", planned,
       [](const CompareSummary& m, const std::string& l) {
         const auto* e = find_entry(m.planned, l);
         return e && e->break_even > 0 && std::isfinite(e->break_even) ? e->break_even : 0.0;
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

std::vector<std::string> write_plots(const std::vector<CompareSummary>& summaries, const std::string& dir, bool render) {
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
      // Only columns with at least one value (a log-scale plot of nothing is a gnuplot error).
      std::vector<std::string> cols;
      for (const auto& c : pl.cols)
        if (std::any_of(rows.begin(), rows.end(), [&](const CompareSummary* m) {
              const double v = pl.value(*m, c);
              return std::isfinite(v) && v > 0;
            }))
          cols.push_back(c);
      pl.cols = cols;
      if (pl.cols.empty()) continue;
      const std::string stem = pl.name + "-" + p;
      write_file_atomically(dir + "/" + stem + ".dat", data_file(rows, pl.cols, pl.value));
      write_file_atomically(dir + "/" + stem + ".gp", gnuplot_script(stem + ".dat", stem + ".png", pl));
      if (gnuplot && render_png(dir, stem, "compare")) pngs.push_back(dir + "/" + stem + ".png");
    }
  }
  return pngs;
}

}  // namespace pspmv_cli
