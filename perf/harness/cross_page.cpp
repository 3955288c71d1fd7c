#include "harness/cross_page.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>

#include "harness/files.hpp"
#include "harness/plots.hpp"

namespace pspmv_cli {

namespace {

using nlohmann::json;

// ---- formatting -----------------------------------------------------------------------------

std::string dash() { return "-"; }

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : "; ") + x;
  return s;
}

std::string ms(double s) { return s > 0 ? fmt::format("{:.4g}", s * 1e3) : dash(); }

std::string gbs(double g) {
  if (!(g > 0)) return dash();
  return g >= 100 ? fmt::format("{:.0f}", g) : g >= 10 ? fmt::format("{:.1f}", g) : fmt::format("{:.2f}", g);
}

std::string times(double x) {
  if (!(x > 0) || !std::isfinite(x)) return dash();
  return x >= 0.01 ? fmt::format("{:.2f}x", x) : fmt::format("{:.3g}x", x);
}

std::string fraction(double x) { return x > 0 && std::isfinite(x) ? fmt::format("{:.2f}", x) : dash(); }

json number_or_null(double x) { return x > 0 && std::isfinite(x) ? json(x) : json(nullptr); }

std::string html_escape(const std::string& s) {
  std::string o;
  for (char c : s) switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&#39;"; break;
      default: o += c;
    }
  return o;
}

/// A Markdown table cell: pipes escaped, line breaks as spaces.
std::string md_cell(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '|') o += "\\|";
    else if (c == '\n' || c == '\r') o += ' ';
    else o += c;
  }
  return o;
}

/// An HTML id / file-name-safe form of a matrix name.
std::string slug(const std::string& s) {
  std::string o;
  for (char c : s) o += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
  return o;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

/// The context block flattened to (key, value) lines: nested objects as "a.b", arrays joined,
/// null as "(not found)".
void flatten(const json& j, const std::string& prefix, std::vector<std::pair<std::string, std::string>>& out) {
  if (j.is_object()) {
    if (j.empty()) out.emplace_back(prefix, "{}");
    for (auto it = j.begin(); it != j.end(); ++it) flatten(it.value(), prefix.empty() ? it.key() : prefix + "." + it.key(), out);
    return;
  }
  if (j.is_array()) {
    std::string s;
    for (const auto& x : j) s += (s.empty() ? "" : "; ") + (x.is_string() ? x.get<std::string>() : x.dump());
    out.emplace_back(prefix, j.empty() ? std::string("(none)") : s);
    return;
  }
  if (j.is_null()) out.emplace_back(prefix, "(not found)");
  else out.emplace_back(prefix, j.is_string() ? j.get<std::string>() : j.dump());
}

/// The table of the runs: a line per field (the record's own, then the union of the context
/// keys in order of first appearance), a column per run.
struct RunTable {
  std::vector<std::string> keys;
  std::vector<std::vector<std::string>> values;  // values[run][key]
};

RunTable run_table(const CrossReport& r) {
  RunTable t;
  std::vector<std::vector<std::pair<std::string, std::string>>> per(r.runs.size());
  for (std::size_t k = 0; k < r.runs.size(); ++k) {
    const Run& run = r.runs[k];
    auto& f = per[k];
    f.emplace_back("file", run.file);
    f.emplace_back("machine label", run.label);
    f.emplace_back("kind", run.kind);
    f.emplace_back("noise warnings", run.warnings.empty() ? (run.context.is_null() ? "(no context)" : "none")
                                                          : join(run.warnings));
    f.emplace_back("command", run.command);
    f.emplace_back("record commit", run.commit);
    f.emplace_back("record machine", run.machine);
    f.emplace_back("record host_isa", run.host_isa);
    if (run.context.is_null()) f.emplace_back("context", "no context (an older record)");
    else flatten(run.context, "context", f);
  }
  for (const auto& f : per)
    for (const auto& [k, v] : f)
      if (std::find(t.keys.begin(), t.keys.end(), k) == t.keys.end()) t.keys.push_back(k);
  for (const auto& f : per) {
    std::vector<std::string> row(t.keys.size(), dash());
    for (const auto& [k, v] : f) row[std::find(t.keys.begin(), t.keys.end(), k) - t.keys.begin()] = v.empty() ? dash() : v;
    t.values.push_back(row);
  }
  return t;
}

/// The lines of one matrix's table: one per machine that measured it.
struct Line {
  std::size_t machine;
  std::vector<std::string> cells;
  bool noisy;
};

std::vector<std::string> matrix_header(const CrossReport& r) {
  return {"machine",    "pspmv best plan", "ms",         "GB/s",       "x floor",
          "best peer",  "peer ms",         "peer GB/s",  "peer x floor", "peer/pspmv",
          "over " + r.machines[r.reference].label, "note"};
}

std::vector<Line> matrix_lines(const CrossReport& r, const MatrixRow& row) {
  std::vector<Line> out;
  for (std::size_t i = 0; i < r.machines.size(); ++i) {
    const Cell& c = row.cells[i];
    if (!c.present) continue;
    const auto& m = c.m;
    std::string note = c.noisy ? "noisy" : "";
    if (!r.runs[c.run].warnings.empty()) note += note.empty() ? "run warned" : " (run warned)";
    out.push_back({i,
                   {r.machines[i].label, m.pspmv.variant, ms(m.pspmv.median_s), gbs(m.pspmv.gbs),
                    fraction(m.pspmv.ratio_to_floor), m.has_peer ? m.peer.impl + " " + m.peer.variant : dash(),
                    m.has_peer ? ms(m.peer.median_s) : dash(), m.has_peer ? gbs(m.peer.gbs) : dash(),
                    m.has_peer ? fraction(m.peer.ratio_to_floor) : dash(), times(pspmv_over_peer(c)),
                    row.shared ? times(speedup_over_reference(r, row, i)) : dash(), note},
                   c.noisy});
  }
  return out;
}

std::vector<std::string> summary_header(const CrossReport& r) {
  return {"machine",       "matrices", "pspmv over best peer", "pspmv faster on",
          "over " + r.machines[r.reference].label, "floor reached", "noisy"};
}

/// The pairwise table's rows: each machine's label, then its ratio to every machine.
std::vector<std::vector<std::string>> pairwise_rows(const CrossReport& r, const PrecisionSummary& p) {
  std::vector<std::vector<std::string>> pw;
  for (std::size_t i = 0; i < r.machines.size(); ++i) {
    std::vector<std::string> line{r.machines[i].label};
    for (std::size_t j = 0; j < r.machines.size(); ++j) line.push_back(i == j ? dash() : times(p.pairwise[i][j]));
    pw.push_back(line);
  }
  return pw;
}

std::vector<std::string> summary_cells(const CrossReport& r, const PrecisionSummary& p, std::size_t i) {
  const auto& s = p.machines[i];
  return {r.machines[i].label,
          std::to_string(s.matrices),
          s.peer_matrices ? times(s.over_peer) : dash(),
          s.peer_matrices ? fmt::format("{} of {}", s.peer_wins, s.peer_matrices) : dash(),
          i == r.reference ? std::string("1.00x (reference)") : times(s.over_reference),
          s.floor_matrices ? fmt::format("{}{}", fraction(s.floor_reached),
                                         s.floor_matrices < s.matrices ? fmt::format(" ({} of {})", s.floor_matrices, s.matrices) : "")
                           : dash(),
          s.noisy ? fmt::format("{} of {}", s.noisy, s.matrices) : std::string("0")};
}

std::string reading_text(const CrossReport& r) {
  return "Each machine is a machine and execution space; its times, GB/s and floor come from its own runs. "
         "*pspmv best plan*: the fastest verified pspmv variant of the run (for a `tune` record, the fastest of "
         "the plans timed together). *GB/s*: the minimum bytes of one multiply over the median time. *x floor*: "
         "median time over the machine's own bandwidth floor (1.00 = at the floor; GPU: a device copy, host: a "
         "streaming read). *best peer*: the fastest verified other library of the same run. *peer/pspmv*: the "
         "peer's time over pspmv's (> 1: pspmv faster). *over " + r.machines[r.reference].label +
         "*: the reference machine's pspmv time over this machine's (> 1: this machine faster). Summary: "
         "geometric means over the matrices every machine measured (name, precision, rows and nnz alike); "
         "*floor reached* = floor time / pspmv time. *noisy*: the record flags its timing as noisy, or its run "
         "recorded noise warnings; such lines are kept and marked, never dropped. Only ratios within one run are "
         "free of run-to-run drift; ratios between machines compare separate runs.";
}

// ---- plots ----------------------------------------------------------------------------------

struct PlotSpec {
  std::string name, title, ylabel;
  bool log;
  bool mark_one;
  std::vector<std::size_t> machines;
  std::function<double(const MatrixRow&, std::size_t)> value;
};

std::string gp_text(const std::string& s) {
  std::string o;
  for (char c : s) o += c == '"' ? '\'' : c;
  return o;
}

}  // namespace

std::string machine_colour(std::size_t i) {
  static const char* palette[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"};
  return palette[i % 8];
}

std::string base64(const std::string& bytes) {
  static const char* a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string o;
  o.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) | (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                       static_cast<unsigned char>(bytes[i + 2]);
    o += a[v >> 18 & 63];
    o += a[v >> 12 & 63];
    o += a[v >> 6 & 63];
    o += a[v & 63];
  }
  if (i + 1 == bytes.size()) {
    const unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
    o += a[v >> 18 & 63];
    o += a[v >> 12 & 63];
    o += "==";
  } else if (i + 2 == bytes.size()) {
    const unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) | (static_cast<unsigned char>(bytes[i + 1]) << 8);
    o += a[v >> 18 & 63];
    o += a[v >> 12 & 63];
    o += a[v >> 6 & 63];
    o += '=';
  }
  return o;
}

std::vector<CrossPlot> write_cross_plots(const CrossReport& r, const std::string& dir, bool render) {
  std::vector<CrossPlot> out;
  const bool gnuplot = render && have_gnuplot();
  if (render && !gnuplot)
    std::fprintf(stderr, "pspmv report: gnuplot not found (Debian: gnuplot-nox); the .dat and .gp files are written, no PNG\n");
  std::vector<std::size_t> all, others;
  for (std::size_t i = 0; i < r.machines.size(); ++i) {
    all.push_back(i);
    if (i != r.reference) others.push_back(i);
  }
  const std::string ref = r.machines[r.reference].label;
  for (const auto& p : r.summaries) {
    std::vector<const MatrixRow*> rows;
    for (const auto& row : r.rows)
      if (row.shared && row.precision == p.precision) rows.push_back(&row);
    const std::vector<PlotSpec> specs = {
        {"gbs", fmt::format("SpMV bandwidth of pspmv's best plan, {}, per machine (higher is better)", p.precision),
         "GB/s (log scale)", true, false, all,
         [](const MatrixRow& row, std::size_t i) { return row.cells[i].m.pspmv.gbs; }},
        {"floor", fmt::format("Fraction of each machine's own bandwidth floor reached by pspmv, {} (1 = at the floor)", p.precision),
         "floor time / pspmv time", false, true, all,
         [](const MatrixRow& row, std::size_t i) { return floor_reached(row.cells[i]); }},
        {"speedup", fmt::format("Speedup of each machine over {}, pspmv's best plan, {} (> 1: faster; log scale)", ref, p.precision),
         "reference time / machine time", true, true, others,
         [&r](const MatrixRow& row, std::size_t i) { return speedup_over_reference(r, row, i); }},
        {"peers", fmt::format("pspmv's best plan over the best peer on each machine, {} (> 1: pspmv faster; log scale)", p.precision),
         "best peer time / pspmv time", true, true, all,
         [](const MatrixRow& row, std::size_t i) { return pspmv_over_peer(row.cells[i]); }},
    };
    for (const auto& spec : specs) {
      std::vector<std::size_t> cols;
      double lo = INFINITY, hi = 0;
      for (std::size_t i : spec.machines) {
        bool any = false;
        for (const auto* row : rows) {
          const double v = spec.value(*row, i);
          if (v > 0 && std::isfinite(v)) {
            any = true;
            lo = std::min(lo, v);
            hi = std::max(hi, v);
          }
        }
        if (any) cols.push_back(i);
      }
      if (cols.empty()) continue;
      const std::string stem = spec.name + "-" + p.precision;
      std::string dat = "\"matrix\"";
      for (std::size_t i : cols) dat += " \"" + gp_text(r.machines[i].label) + "\"";
      dat += "\n";
      for (const auto* row : rows) {
        dat += "\"" + gp_text(row->matrix) + "\"";
        for (std::size_t i : cols) {
          const double v = spec.value(*row, i);
          dat += v > 0 && std::isfinite(v) ? fmt::format(" {:.6g}", v) : std::string(" ?");
        }
        dat += "\n";
      }
      if (spec.mark_one) {
        lo = std::min(lo, 1.0);
        hi = std::max(hi, 1.0);
      }
      const double ylo = spec.log ? lo / 1.6 : 0, yhi = spec.log ? hi * 1.6 : hi * 1.15;
      std::string gp = "# Written by pspmv report; render with: gnuplot " + stem + ".gp\n";
      gp += fmt::format("set terminal pngcairo size {},760 noenhanced font \",11\"\n",
                        std::max<std::size_t>(1000, std::min<std::size_t>(2400, 260 + rows.size() * (40 + 18 * cols.size()))));
      gp += "if (!exists(\"out\")) out = '" + stem + ".png'\nset output out\n";
      gp += "set title \"" + gp_text(spec.title) + "\"\n";
      gp += "set datafile missing \"?\"\nset style data histogram\nset style histogram clustered gap 1\n";
      gp += "set style fill solid 0.9 border -1\nset boxwidth 0.9\n";
      gp += "set xtics rotate by -35 scale 0 nomirror\nset key outside below center horizontal\nset grid ytics\n";
      gp += "set ylabel \"" + gp_text(spec.ylabel) + "\"\n";
      if (spec.log) {
        gp += "set logscale y\n";
        // Within three decades, ticks at 1, 2 and 5 of each decade (else gnuplot's decades).
        if (yhi / ylo < 1000) {
          std::string tics;
          for (int e = static_cast<int>(std::floor(std::log10(ylo))); e <= static_cast<int>(std::ceil(std::log10(yhi))); ++e)
            for (double m : {1.0, 2.0, 5.0}) {
              const double t = m * std::pow(10.0, e);
              if (t >= ylo && t <= yhi) tics += fmt::format("{}\"{:g}\" {:g}", tics.empty() ? "" : ", ", t, t);
            }
          gp += "set ytics (" + tics + ")\n";
        }
      }
      gp += fmt::format("set yrange [{:.6g}:{:.6g}]\n", ylo, yhi);
      if (spec.mark_one) gp += "set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 2 lc rgb \"#333333\" front\n";
      gp += "plot";
      for (std::size_t k = 0; k < cols.size(); ++k)
        gp += fmt::format("{} '{}' using {}{} title columnheader({}) lc rgb \"{}\"", k ? "," : "", k ? "" : stem + ".dat",
                          k + 2, k ? "" : ":xtic(1)", k + 2, machine_colour(cols[k]));
      gp += "\n";
      write_file_atomically(dir + "/" + stem + ".dat", dat);
      write_file_atomically(dir + "/" + stem + ".gp", gp);
      CrossPlot cp{p.precision, stem, spec.title, ""};
      if (gnuplot && render_png(dir, stem, "report")) cp.png = dir + "/" + stem + ".png";
      out.push_back(cp);
    }
  }
  return out;
}

// ---- HTML -----------------------------------------------------------------------------------

namespace {

std::string html_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                       const std::vector<std::string>& row_classes = {}) {
  std::string s = "<table>\n<tr>";
  for (const auto& h : header) s += "<th>" + html_escape(h) + "</th>";
  s += "</tr>\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string cls = i < row_classes.size() && !row_classes[i].empty() ? " class=\"" + row_classes[i] + "\"" : "";
    s += "<tr" + cls + ">";
    for (const auto& c : rows[i]) s += "<td>" + html_escape(c) + "</td>";
    s += "</tr>\n";
  }
  return s + "</table>\n";
}

/// Text with Markdown's *emphasis* and `code` as HTML (escaped first).
std::string inline_html(const std::string& text) {
  std::string o;
  bool em = false, code = false;
  for (char c : html_escape(text)) {
    if (c == '*' && !code) {
      o += em ? "</i>" : "<i>";
      em = !em;
    } else if (c == '`') {
      o += code ? "</code>" : "<code>";
      code = !code;
    } else {
      o += c;
    }
  }
  return o;
}

std::string swatch(std::size_t i) {
  return "<span class=\"swatch\" style=\"background:" + machine_colour(i) + "\"></span>";
}

}  // namespace

std::string cross_html(const CrossReport& r, const std::vector<CrossPlot>& plots, const std::string& command) {
  std::string s;
  s += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>pspmv: SpMV across machines</title>\n";
  s += "<style>\nbody{font-family:sans-serif;margin:2em;max-width:1500px;color:#222}\n"
       "table{border-collapse:collapse;margin:0.5em 0 1.5em 0;font-size:0.9em}\n"
       "th,td{border:1px solid #bbb;padding:0.25em 0.5em;text-align:left;vertical-align:top}\n"
       "th{background:#eee}\ntr.noisy td{background:#fff3c4}\ntr.reference td{font-weight:bold}\n"
       ".swatch{display:inline-block;width:0.9em;height:0.9em;margin-right:0.4em;border:1px solid #444;vertical-align:middle}\n"
       "img{max-width:100%;border:1px solid #ccc;margin:0.5em 0}\ncode{background:#f4f4f4;padding:0 0.2em}\n"
       ".runs td{font-size:0.85em;max-width:28em;word-break:break-word}\n.warn{color:#8a5a00;font-weight:bold}\n</style>\n</head>\n<body>\n";
  s += "<h1>pspmv: SpMV across machines</h1>\n";
  s += "<p>Made by <code>" + html_escape(command) + "</code> from " + std::to_string(r.runs.size()) +
       " run records. Reference machine: <b>" + html_escape(r.machines[r.reference].label) + "</b>.</p>\n<ul>\n";
  for (std::size_t i = 0; i < r.machines.size(); ++i) {
    std::string files;
    for (auto k : r.machines[i].runs) files += (files.empty() ? "" : ", ") + r.runs[k].file;
    bool warned = false;
    for (auto k : r.machines[i].runs) warned = warned || !r.runs[k].warnings.empty();
    s += "<li>" + swatch(i) + html_escape(r.machines[i].label) + ": " + html_escape(files) +
         (warned ? " <span class=\"warn\">(noise warnings: see Runs)</span>" : "") + "</li>\n";
  }
  s += "</ul>\n";

  s += "<h2 id=\"summary\">Summary</h2>\n";
  for (const auto& p : r.summaries) {
    s += "<h3>" + html_escape(p.precision) + ": " + std::to_string(p.shared) + " matrices in every run</h3>\n";
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> classes;
    for (std::size_t i = 0; i < r.machines.size(); ++i) {
      rows.push_back(summary_cells(r, p, i));
      classes.push_back(p.machines[i].noisy ? "noisy" : i == r.reference ? "reference" : "");
    }
    s += html_table(summary_header(r), rows, classes);
    if (r.machines.size() > 2) {
      std::vector<std::string> header{"row machine over column machine"};
      for (const auto& m : r.machines) header.push_back(m.label);
      const auto pw = pairwise_rows(r, p);
      s += "<p>Pairwise: geometric mean of the column machine's pspmv time over the row machine's (&gt; 1: the row machine faster).</p>\n";
      s += html_table(header, pw);
    }
  }

  s += "<h2 id=\"plots\">Plots</h2>\n";
  for (const auto& pl : plots) {
    s += "<h3>" + html_escape(pl.title) + "</h3>\n";
    if (pl.png.empty()) s += "<p>Not rendered (no gnuplot); <code>" + html_escape(pl.stem) + ".gp</code> renders it.</p>\n";
    else
      s += "<img alt=\"" + html_escape(pl.title) + "\" src=\"data:image/png;base64," + base64(read_file(pl.png)) + "\">\n";
  }

  s += "<h2 id=\"matrices\">Per matrix</h2>\n";
  for (const auto& row : r.rows) {
    if (!row.shared) continue;
    s += "<h3 id=\"m-" + slug(row.matrix + "-" + row.precision) + "\">" + html_escape(row.matrix) + " " +
         html_escape(row.precision) + fmt::format(" <small>({} rows, {} nnz)</small></h3>\n", row.rows, row.nnz);
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> classes;
    for (const auto& l : matrix_lines(r, row)) {
      rows.push_back(l.cells);
      rows.back()[0] = l.cells[0];
      classes.push_back(l.noisy ? "noisy" : l.machine == r.reference ? "reference" : "");
    }
    s += html_table(matrix_header(r), rows, classes);
  }

  s += "<h2 id=\"unmatched\">Matrices not in every run</h2>\n";
  {
    std::vector<std::vector<std::string>> rows;
    for (const auto& row : r.rows) {
      if (row.shared) continue;
      std::string where;
      for (std::size_t i = 0; i < r.machines.size(); ++i)
        if (row.cells[i].present)
          where += (where.empty() ? "" : "; ") + r.machines[i].label + " " + ms(row.cells[i].m.pspmv.median_s) + " ms, " +
                   gbs(row.cells[i].m.pspmv.gbs) + " GB/s";
      rows.push_back({row.matrix, row.precision, std::to_string(row.rows), std::to_string(row.nnz), where});
    }
    if (rows.empty()) s += "<p>None: every matrix is in every run.</p>\n";
    else s += html_table({"matrix", "precision", "rows", "nnz", "measured on (pspmv best)"}, rows);
  }
  s += "<h3 id=\"mismatches\">Size mismatches (not merged)</h3>\n";
  if (r.mismatches.empty()) s += "<p>None.</p>\n";
  else {
    std::vector<std::vector<std::string>> rows;
    for (const auto& m : r.mismatches) rows.push_back({m.matrix, m.precision, join(m.sizes)});
    s += html_table({"matrix", "precision", "sizes per machine"}, rows);
  }
  if (!r.duplicates.empty()) {
    s += "<h3>Measured twice on one machine (the first file given kept)</h3>\n<ul>\n";
    for (const auto& d : r.duplicates) s += "<li>" + html_escape(d) + "</li>\n";
    s += "</ul>\n";
  }

  s += "<h2 id=\"runs\">Runs and their context</h2>\n";
  {
    const auto t = run_table(r);
    std::vector<std::string> header{"field"};
    for (std::size_t k = 0; k < r.runs.size(); ++k) header.push_back("run " + std::to_string(k + 1));
    std::vector<std::vector<std::string>> rows;
    for (std::size_t i = 0; i < t.keys.size(); ++i) {
      std::vector<std::string> line{t.keys[i]};
      for (const auto& v : t.values) line.push_back(v[i]);
      rows.push_back(line);
    }
    s += "<div class=\"runs\">" + html_table(header, rows) + "</div>\n";
  }
  s += "<h2 id=\"reading\">Reading the tables</h2>\n<p>" + inline_html(reading_text(r)) + "</p>\n";
  s += "</body>\n</html>\n";
  return s;
}

// ---- Markdown -------------------------------------------------------------------------------

namespace {

std::string md_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
  std::string s = "|";
  for (const auto& h : header) s += " " + md_cell(h) + " |";
  s += "\n|";
  for (std::size_t i = 0; i < header.size(); ++i) s += "---|";
  s += "\n";
  for (const auto& row : rows) {
    s += "|";
    for (const auto& c : row) s += " " + md_cell(c) + " |";
    s += "\n";
  }
  return s + "\n";
}

}  // namespace

std::string cross_markdown(const CrossReport& r, const std::vector<CrossPlot>& plots, const std::string& command,
                           const std::string& image_prefix) {
  std::string s = "# SpMV across machines\n\n";
  s += "Made by `" + command + "` from " + std::to_string(r.runs.size()) + " run records. Reference machine: **" +
       md_cell(r.machines[r.reference].label) + "**. Machines (plot colour):\n\n";
  for (std::size_t i = 0; i < r.machines.size(); ++i) {
    std::string files;
    for (auto k : r.machines[i].runs) files += (files.empty() ? "`" : ", `") + r.runs[k].file + "`";
    bool warned = false;
    for (auto k : r.machines[i].runs) warned = warned || !r.runs[k].warnings.empty();
    s += "- " + r.machines[i].label + " (" + machine_colour(i) + "): " + files + (warned ? " (noise warnings: see Runs)" : "") + "\n";
  }
  s += "\n## Summary\n\n";
  for (const auto& p : r.summaries) {
    s += "### " + p.precision + ": " + std::to_string(p.shared) + " matrices in every run\n\n";
    std::vector<std::vector<std::string>> rows;
    for (std::size_t i = 0; i < r.machines.size(); ++i) rows.push_back(summary_cells(r, p, i));
    s += md_table(summary_header(r), rows);
    if (r.machines.size() > 2) {
      std::vector<std::string> header{"row over column"};
      for (const auto& m : r.machines) header.push_back(m.label);
      const auto pw = pairwise_rows(r, p);
      s += "Pairwise: geometric mean of the column machine's pspmv time over the row machine's (> 1: the row machine faster).\n\n";
      s += md_table(header, pw);
    }
  }
  s += "## Plots\n\n";
  for (const auto& pl : plots)
    s += pl.png.empty() ? "(" + pl.title + ": not rendered; `gnuplot " + pl.stem + ".gp` renders it)\n\n"
                        : "![" + pl.title + "](" + image_prefix + pl.stem + ".png)\n\n";
  s += "## Per matrix\n\n";
  for (const auto& p : r.summaries) {
    s += "### " + p.precision + "\n\n";
    std::vector<std::string> header = matrix_header(r);
    header.insert(header.begin(), "matrix");
    std::vector<std::vector<std::string>> rows;
    for (const auto& row : r.rows) {
      if (!row.shared || row.precision != p.precision) continue;
      bool first = true;
      for (const auto& l : matrix_lines(r, row)) {
        auto cells = l.cells;
        cells.insert(cells.begin(), first ? fmt::format("{} ({} rows, {} nnz)", row.matrix, row.rows, row.nnz) : "");
        if (l.noisy) cells.back() = "**" + cells.back() + "**";
        rows.push_back(cells);
        first = false;
      }
    }
    s += md_table(header, rows);
  }
  s += "## Matrices not in every run\n\n";
  {
    std::vector<std::vector<std::string>> rows;
    for (const auto& row : r.rows) {
      if (row.shared) continue;
      std::string where;
      for (std::size_t i = 0; i < r.machines.size(); ++i)
        if (row.cells[i].present)
          where += (where.empty() ? "" : "; ") + r.machines[i].label + " " + ms(row.cells[i].m.pspmv.median_s) + " ms, " +
                   gbs(row.cells[i].m.pspmv.gbs) + " GB/s";
      rows.push_back({row.matrix, row.precision, std::to_string(row.rows), std::to_string(row.nnz), where});
    }
    s += rows.empty() ? "None: every matrix is in every run.\n\n"
                      : md_table({"matrix", "precision", "rows", "nnz", "measured on (pspmv best)"}, rows);
  }
  s += "Size mismatches (not merged): ";
  if (r.mismatches.empty()) s += "none.\n\n";
  else {
    s += "\n\n";
    std::vector<std::vector<std::string>> rows;
    for (const auto& m : r.mismatches) rows.push_back({m.matrix, m.precision, join(m.sizes)});
    s += md_table({"matrix", "precision", "sizes per machine"}, rows);
  }
  if (!r.duplicates.empty()) {
    s += "Measured twice on one machine (the first file given kept):\n\n";
    for (const auto& d : r.duplicates) s += "- " + d + "\n";
    s += "\n";
  }
  s += "## Runs and their context\n\n";
  {
    const auto t = run_table(r);
    std::vector<std::string> header{"field"};
    for (std::size_t k = 0; k < r.runs.size(); ++k) header.push_back("run " + std::to_string(k + 1));
    std::vector<std::vector<std::string>> rows;
    for (std::size_t i = 0; i < t.keys.size(); ++i) {
      std::vector<std::string> line{t.keys[i]};
      for (const auto& v : t.values) line.push_back(v[i]);
      rows.push_back(line);
    }
    s += md_table(header, rows);
  }
  s += "## Reading the tables\n\n" + reading_text(r) + "\n";
  return s;
}

// ---- JSON and CSV ---------------------------------------------------------------------------

namespace {

json fastest_json(const Fastest& f) {
  return {{"impl", f.impl},
          {"variant", f.variant},
          {"median_s", f.median_s},
          {"gbs", number_or_null(f.gbs)},
          {"ratio_to_floor", number_or_null(f.ratio_to_floor)},
          {"noisy", f.noisy}};
}

}  // namespace

json cross_json(const CrossReport& r, const std::string& command) {
  json j;
  j["pspmv_report"] = 1;
  j["command"] = command;
  j["reference"] = r.machines[r.reference].label;
  j["machines"] = json::array();
  for (std::size_t i = 0; i < r.machines.size(); ++i) {
    json files = json::array();
    for (auto k : r.machines[i].runs) files.push_back(r.runs[k].file);
    j["machines"].push_back({{"label", r.machines[i].label}, {"space", r.machines[i].space}, {"colour", machine_colour(i)},
                             {"runs", files}});
  }
  j["runs"] = json::array();
  for (const auto& run : r.runs)
    j["runs"].push_back({{"file", run.file},       {"label", run.label},     {"kind", run.kind},
                         {"command", run.command}, {"commit", run.commit},   {"machine", run.machine},
                         {"host_isa", run.host_isa}, {"context", run.context}, {"no_context", run.context.is_null()},
                         {"warnings", run.warnings}});
  j["matrices"] = json::array();
  for (const auto& row : r.rows) {
    json cells = json::array();
    for (std::size_t i = 0; i < r.machines.size(); ++i) {
      const Cell& c = row.cells[i];
      if (!c.present) continue;
      cells.push_back({{"machine", r.machines[i].label},
                       {"run", r.runs[c.run].file},
                       {"pspmv", fastest_json(c.m.pspmv)},
                       {"peer", c.m.has_peer ? fastest_json(c.m.peer) : json(nullptr)},
                       {"floor_s", number_or_null(c.m.floor_s)},
                       {"floor_gbs", number_or_null(c.m.floor_gbs)},
                       {"floor_reached", number_or_null(floor_reached(c))},
                       {"pspmv_over_peer", number_or_null(pspmv_over_peer(c))},
                       {"speedup_over_reference", row.shared ? number_or_null(speedup_over_reference(r, row, i)) : json(nullptr)},
                       {"noisy", c.noisy}});
    }
    j["matrices"].push_back({{"matrix", row.matrix}, {"precision", row.precision}, {"rows", row.rows}, {"nnz", row.nnz},
                             {"shared", row.shared}, {"machines", cells}});
  }
  j["summary"] = json::array();
  for (const auto& p : r.summaries) {
    json ms = json::array();
    for (std::size_t i = 0; i < r.machines.size(); ++i) {
      const auto& s = p.machines[i];
      json over = json::object();
      for (std::size_t k = 0; k < r.machines.size(); ++k)
        if (k != i) over[r.machines[k].label] = number_or_null(p.pairwise[i][k]);
      ms.push_back({{"machine", r.machines[i].label},
                    {"matrices", s.matrices},
                    {"pspmv_over_best_peer", number_or_null(s.over_peer)},
                    {"peer_matrices", s.peer_matrices},
                    {"pspmv_wins", s.peer_wins},
                    {"speedup_over_reference", number_or_null(s.over_reference)},
                    {"floor_reached", number_or_null(s.floor_reached)},
                    {"floor_matrices", s.floor_matrices},
                    {"noisy", s.noisy},
                    {"speedup_over", over}});
    }
    j["summary"].push_back({{"precision", p.precision}, {"shared_matrices", p.shared}, {"machines", ms}});
  }
  j["mismatches"] = json::array();
  for (const auto& m : r.mismatches)
    j["mismatches"].push_back({{"matrix", m.matrix}, {"precision", m.precision}, {"sizes", m.sizes}});
  j["duplicates"] = r.duplicates;
  return j;
}

std::string cross_csv(const CrossReport& r) {
  std::string s =
      "matrix,precision,rows,nnz,shared,machine,space,run,kind,pspmv_variant,pspmv_median_s,pspmv_gbs,pspmv_x_floor,"
      "floor_s,floor_gbs,floor_reached,peer,peer_variant,peer_median_s,peer_gbs,peer_x_floor,pspmv_over_peer,"
      "speedup_over_reference,noisy\n";
  const auto num = [](double x) { return x > 0 && std::isfinite(x) ? fmt::format("{:.6g}", x) : std::string(); };
  for (const auto& row : r.rows)
    for (std::size_t i = 0; i < r.machines.size(); ++i) {
      const Cell& c = row.cells[i];
      if (!c.present) continue;
      const auto& m = c.m;
      const std::vector<std::string> f = {
          row.matrix, row.precision, std::to_string(row.rows), std::to_string(row.nnz), row.shared ? "true" : "false",
          r.machines[i].label, r.machines[i].space, r.runs[c.run].file, r.runs[c.run].kind, m.pspmv.variant,
          num(m.pspmv.median_s), num(m.pspmv.gbs), num(m.pspmv.ratio_to_floor), num(m.floor_s), num(m.floor_gbs),
          num(floor_reached(c)), m.has_peer ? m.peer.impl : "", m.has_peer ? m.peer.variant : "",
          m.has_peer ? num(m.peer.median_s) : "", m.has_peer ? num(m.peer.gbs) : "",
          m.has_peer ? num(m.peer.ratio_to_floor) : "", num(pspmv_over_peer(c)),
          row.shared ? num(speedup_over_reference(r, row, i)) : "", c.noisy ? "true" : "false"};
      for (std::size_t k = 0; k < f.size(); ++k) s += (k ? "," : "") + csv_field(f[k]);
      s += "\n";
    }
  return s;
}

}  // namespace pspmv_cli
