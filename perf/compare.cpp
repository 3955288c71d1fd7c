#include "compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <set>
#include <sys/stat.h>

namespace pspmv_cli {

double break_even_calls(double analyze_s, double unplanned_analyze_s, double planned_s, double unplanned_s) {
  const double extra = std::max(0.0, analyze_s - unplanned_analyze_s);
  const double saved = unplanned_s - planned_s;
  if (!(saved > 0)) return std::numeric_limits<double>::infinity();
  return extra / saved;
}

namespace {

std::string key(const Record& r) { return r.matrix + "\x1f" + r.precision + "\x1f" + r.space; }

bool usable(const Record& r) { return !r.skipped && r.verified && r.median_s > 0; }

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
  if (b < 10) return fmt::format("{:.2f}", b);
  return fmt::format("{:.0f}", b);
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
  return e;
}

double geomean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double s = 0;
  for (double x : v) s += std::log(x);
  return std::exp(s / static_cast<double>(v.size()));
}

/// A gnuplot data file: first column the matrix name, then one column per label; "?" where a
/// value is missing (set datafile missing "?").
std::string data_file(const std::vector<const CompareSummary*>& rows, const std::vector<std::string>& labels,
                      const std::function<double(const CompareSummary&, const std::string&)>& value) {
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

std::string gnuplot_script(const std::string& dat, const std::string& png, const std::string& title,
                           const std::string& ylabel, std::size_t ncols, bool logscale, double ref_line) {
  std::string s;
  s += "# Written by pspmv compare; render with: gnuplot " + png.substr(0, png.size() - 4) + ".gp\n";
  s += "set terminal pngcairo size 1600,800 noenhanced font \",11\"\n";
  s += "if (!exists(\"out\")) out = '" + png + "'\nset output out\n";
  s += "set title \"" + title + "\"\n";
  s += "set datafile missing \"?\"\n";
  s += "set style data histogram\nset style histogram clustered gap 1\n";
  s += "set style fill solid 0.85 border -1\nset boxwidth 0.9\n";
  s += "set xtics rotate by -35 scale 0 nomirror\nset key outside right top\nset grid ytics\n";
  s += "set ylabel \"" + ylabel + "\"\nset yrange [" + std::string(logscale ? "0.5" : "0") + ":*]\n";
  if (logscale) s += "set logscale y\n";
  if (ref_line > 0) s += fmt::format("set arrow from graph 0, first {0} to graph 1, first {0} nohead dt 2 lw 2\n", ref_line);
  s += fmt::format("plot for [i=2:{}] '{}' using i:xtic(1) title columnheader(i)\n", ncols + 1, dat);
  return s;
}

/// Creates d and its missing parents; "" when it exists as a folder afterwards, else why not.
std::string make_dirs(const std::string& d) {
  for (std::size_t i = 1; i <= d.size(); ++i) {
    if (i < d.size() && d[i] != '/') continue;
    const std::string part = d.substr(0, i);
    if (::mkdir(part.c_str(), 0777) != 0 && errno != EEXIST) return part + ": " + std::strerror(errno);
  }
  struct stat st {};
  if (::stat(d.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return d + ": exists and is not a folder";
  return "";
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace

std::vector<CompareSummary> summarize(const std::vector<Record>& records) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<Record>> groups;
  for (const auto& r : records) {
    if (!groups.count(key(r))) order.push_back(key(r));
    groups[key(r)].push_back(r);
  }
  std::vector<CompareSummary> out;
  for (const auto& k : order) {
    const auto& g = groups[k];
    CompareSummary s;
    s.matrix = g.front().matrix;
    s.precision = g.front().precision;
    s.space = g.front().space;
    s.rows = g.front().rows;
    s.nnz = g.front().nnz;
    s.floor_gbs = g.front().floor_gbs;
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
    s += fmt::format("  {:<16} {:<44} {:>10} {:>8} {:>7} {:>11} {:>10} {:>10} {:>10}\n", "implementation",
                     "variant (its fastest)", "median ms", "GB/s", "x floor", "analyze ms", "break-even",
                     "this/best", "this/auto");
    const CompareEntry* best = nullptr;
    const CompareEntry* automatic = nullptr;
    for (const auto& e : m.entries) {
      if (e.label == "pspmv best") best = &e;
      if (e.label == "pspmv auto") automatic = &e;
    }
    for (const auto& e : m.entries) {
      const bool peer = e.impl != "pspmv";
      const double sb = peer && best ? e.median_s / best->median_s : 0;
      const double sa = peer && automatic ? e.median_s / automatic->median_s : 0;
      if (peer && best) over_best[e.impl].push_back(sb);
      if (peer && automatic) over_auto[e.impl].push_back(sa);
      s += fmt::format("  {:<16} {:<44} {:>10.4f} {:>8.2f} {:>7.2f} {:>11.3f} {:>10} {:>10} {:>10}\n", e.label,
                       e.variant.substr(0, 44), e.median_s * 1e3, e.gbs, e.ratio_to_floor, e.analyze_s * 1e3,
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
  s += "\nthis/best, this/auto: this implementation's time over pspmv's best variant and over its automatic plan.\n"
       "break-even: extra analysis time / (unplanned call time - planned call time); the unplanned call is\n"
       "  pspmv: CSR thread_per_row/static_chunks; MKL: mkl_sparse_?_mv without optimize; librsb: untuned;\n"
       "  cuSPARSE: CSR_ALG1. '-': no analysis stage; never: the plan is not faster than the unplanned call.\n";
  return s;
}

int run_compare(const std::vector<Input>& inputs, const CompareOptions& o) {
  if (const std::string why = make_dirs(o.out_dir); !why.empty())
    throw pspmv::Error("cannot create the output folder " + why);
  BenchOptions bo = o.bench;
  bo.peers = true;
  std::vector<Record> records;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto& in = inputs[i];
    std::cerr << fmt::format("pspmv compare: [{}/{}] {} ({} x {}, nnz {})\n", i + 1, inputs.size(), in.name, in.A.nrows,
                             in.A.ncols, in.A.nnz());
    auto r = run_bench(in, bo);
    records.insert(records.end(), r.begin(), r.end());
  }
  const auto summaries = summarize(records);
  const std::string text = compare_table(summaries);
  std::cout << text;

  // Group records for per-record break-even in the outputs.
  std::map<std::string, std::vector<Record>> groups;
  for (const auto& r : records) groups[key(r)].push_back(r);

  nlohmann::json doc;
  doc["command"] = o.command;
  doc["commit"] = o.commit;
  doc["machine"] = o.machine;
  doc["records"] = nlohmann::json::array();
  std::string csv = csv_header();
  csv.pop_back();
  csv += ",unplanned,break_even_calls\n";
  for (const auto& r : records) {
    auto j = to_json(r);
    const double b = record_break_even(r, groups[key(r)]);
    j["break_even_calls"] = b < 0 ? nlohmann::json(nullptr) : std::isinf(b) ? nlohmann::json("never") : nlohmann::json(b);
    doc["records"].push_back(j);
    std::string line = to_csv(r);
    line.pop_back();
    csv += line + "," + r.unplanned + "," + (b < 0 ? std::string("") : std::isinf(b) ? std::string("never") : fmt::format("{:.6g}", b)) + "\n";
  }
  doc["summary"] = nlohmann::json::array();
  std::string scsv = "matrix,precision,space,rows,nnz,floor_gbs,label,impl,variant,median_s,gbs,ratio_to_floor,analyze_s,"
                     "break_even_calls,best_over_this,auto_over_this\n";
  for (const auto& m : summaries) {
    const CompareEntry *best = nullptr, *automatic = nullptr;
    for (const auto& e : m.entries) {
      if (e.label == "pspmv best") best = &e;
      if (e.label == "pspmv auto") automatic = &e;
    }
    nlohmann::json je = nlohmann::json::array();
    for (const auto& e : m.entries) {
      const double sb = best ? e.median_s / best->median_s : 0, sa = automatic ? e.median_s / automatic->median_s : 0;
      const nlohmann::json be = e.break_even < 0 ? nlohmann::json(nullptr)
                                : std::isinf(e.break_even) ? nlohmann::json("never") : nlohmann::json(e.break_even);
      je.push_back({{"label", e.label}, {"impl", e.impl}, {"variant", e.variant}, {"median_s", e.median_s},
                    {"gbs", e.gbs}, {"ratio_to_floor", e.ratio_to_floor}, {"analyze_s", e.analyze_s},
                    {"break_even_calls", be}, {"time_over_pspmv_best", sb}, {"time_over_pspmv_auto", sa}});
      scsv += fmt::format("{},{},{},{},{},{:.4f},{},{},\"{}\",{:.6e},{:.4f},{:.4f},{:.6e},{},{:.4f},{:.4f}\n", m.matrix,
                          m.precision, m.space, m.rows, m.nnz, m.floor_gbs, e.label, e.impl, e.variant, e.median_s, e.gbs,
                          e.ratio_to_floor, e.analyze_s,
                          e.break_even < 0 ? std::string("") : fmt_break_even(e.break_even), sb, sa);
    }
    nlohmann::json jp = nlohmann::json::array();
    for (const auto& e : m.planned)
      jp.push_back({{"label", e.label}, {"analyze_s", e.analyze_s}, {"median_s", e.median_s},
                    {"break_even_calls", e.break_even < 0 ? nlohmann::json(nullptr)
                                         : std::isinf(e.break_even) ? nlohmann::json("never") : nlohmann::json(e.break_even)}});
    doc["summary"].push_back({{"matrix", m.matrix}, {"precision", m.precision}, {"space", m.space}, {"rows", m.rows},
                              {"nnz", m.nnz}, {"floor_gbs", m.floor_gbs}, {"entries", je}, {"planned", jp}});
  }
  const std::string dir = o.out_dir + "/";
  write_file_atomically(dir + "compare.json", doc.dump(2) + "\n");
  write_file_atomically(dir + "records.csv", csv);
  write_file_atomically(dir + "summary.csv", scsv);
  write_file_atomically(dir + "summary.txt", "# " + o.command + "\n# commit " + o.commit + ", " + o.machine + "\n\n" + text);

  // Plots, one set per precision.
  std::set<std::string> precisions;
  for (const auto& m : summaries) precisions.insert(m.precision);
  std::vector<std::string> pngs;
  bool have_gnuplot = o.plots && std::system("command -v gnuplot >/dev/null 2>&1") == 0;
  if (o.plots && !have_gnuplot)
    std::cerr << "pspmv compare: gnuplot not found (Debian: gnuplot-nox); the .dat and .gp files are written, no PNG\n";
  for (const auto& p : precisions) {
    std::vector<const CompareSummary*> rows;
    std::vector<std::string> labels, peers;
    for (const auto& m : summaries)
      if (m.precision == p) {
        rows.push_back(&m);
        for (const auto& e : m.entries) {
          if (std::find(labels.begin(), labels.end(), e.label) == labels.end()) labels.push_back(e.label);
          if (e.impl != "pspmv" && std::find(peers.begin(), peers.end(), e.label) == peers.end()) peers.push_back(e.label);
        }
      }
    auto find = [](const CompareSummary& m, const std::string& l) -> const CompareEntry* {
      for (const auto& e : m.entries)
        if (e.label == l) return &e;
      return nullptr;
    };
    const std::string space = rows.empty() ? "" : rows.front()->space;
    struct Plot {
      std::string name, title, ylabel;
      std::vector<std::string> cols;
      std::function<double(const CompareSummary&, const std::string&)> value;
      bool log;
      double ref;
    };
    std::vector<std::string> with_floor = labels;
    with_floor.insert(with_floor.begin(), "floor (bandwidth)");
    std::vector<std::string> planned;  // every plan with an analysis stage to repay
    for (const auto* m : rows)
      for (const auto& e : m->planned)
        if (std::find(planned.begin(), planned.end(), e.label) == planned.end()) planned.push_back(e.label);
    auto find_planned = [](const CompareSummary& m, const std::string& l) -> const CompareEntry* {
      for (const auto& e : m.planned)
        if (e.label == l) return &e;
      return nullptr;
    };
    const std::vector<Plot> plots = {
        {"gbs", fmt::format("SpMV bandwidth, {} on {} (minimum bytes / median time; higher is better)", p, space), "GB/s",
         with_floor,
         [&](const CompareSummary& m, const std::string& l) {
           if (l == "floor (bandwidth)") return m.floor_gbs;
           const auto* e = find(m, l);
           return e ? e->gbs : 0.0;
         },
         false, 0},
        {"floor", fmt::format("Time over the bandwidth floor, {} on {} (1 = at the floor; lower is better)", p, space),
         "median time / floor time", labels,
         [&](const CompareSummary& m, const std::string& l) {
           const auto* e = find(m, l);
           return e ? e->ratio_to_floor : 0.0;
         },
         false, 1.0},
        {"speedup", fmt::format("Speedup of pspmv's best variant over each peer's best, {} on {} (> 1: pspmv faster)", p, space),
         "peer time / pspmv best time", peers,
         [&](const CompareSummary& m, const std::string& l) {
           const auto* e = find(m, l);
           const auto* b = find(m, "pspmv best");
           return e && b ? e->median_s / b->median_s : 0.0;
         },
         false, 1.0},
        {"breakeven", fmt::format("Calls after which a plan repays its analysis, {} on {} (no bar: repaid at once, or never)", p, space),
         "break-even calls (log scale)", planned,
         [&](const CompareSummary& m, const std::string& l) {
           const auto* e = find_planned(m, l);
           return e && e->break_even > 0 && std::isfinite(e->break_even) ? e->break_even : 0.0;
         },
         true, 0},
    };
    for (auto pl : plots) {
      // Only columns with at least one value (a log-scale plot of nothing is a gnuplot error).
      std::vector<std::string> cols;
      for (const auto& c : pl.cols)
        for (const auto* m : rows) {
          const double v = pl.value(*m, c);
          if (std::isfinite(v) && v > 0) {
            cols.push_back(c);
            break;
          }
        }
      pl.cols = cols;
      if (pl.cols.empty() || rows.empty()) continue;
      const std::string stem = pl.name + "-" + p;
      write_file_atomically(dir + stem + ".dat", data_file(rows, pl.cols, pl.value));
      write_file_atomically(dir + stem + ".gp",
                            gnuplot_script(stem + ".dat", stem + ".png", pl.title, pl.ylabel, pl.cols.size(), pl.log, pl.ref));
      if (!have_gnuplot) continue;
      // Into a temporary name, renamed into place when gnuplot succeeded.
      const std::string cmd = "cd " + shell_quote(o.out_dir) + " && gnuplot -e " +
                              shell_quote("out='" + stem + ".png.tmp'") + " " + shell_quote(stem + ".gp") + " 2>&1";
      std::FILE* pipe = ::popen(cmd.c_str(), "r");
      std::string said;
      if (pipe) {
        char buf[512];
        while (std::fgets(buf, sizeof buf, pipe)) said += buf;
      }
      const int rc = pipe ? ::pclose(pipe) : -1;
      const std::string tmp = dir + stem + ".png.tmp", png = dir + stem + ".png";
      if (rc != 0 || std::rename(tmp.c_str(), png.c_str()) != 0) {
        // A plot is no measurement: say so and go on (the data and script are written).
        std::remove(tmp.c_str());
        std::cerr << "pspmv compare: warning: " << dir << stem << ".gp: gnuplot failed (exit " << rc << "): " << said
                  << "; no " << png << "\n";
        continue;
      }
      pngs.push_back(png);
    }
  }
  std::cerr << "pspmv compare: wrote " << dir << "{compare.json, records.csv, summary.csv, summary.txt}";
  for (const auto& p : pngs) std::cerr << ", " << p;
  std::cerr << "\n";
  int rc = 0;
  for (const auto& r : records)
    if (!r.verified && !r.skipped) {
      std::cerr << "pspmv compare: " << r.matrix << " " << r.precision << " " << r.impl << " " << r.variant
                << " did not match the reference (max rel err " << r.max_rel_err << ")\n";
      rc = 3;
    }
  return rc;
}

}  // namespace pspmv_cli
