// `pspmv report`: the JSON records of several runs of bench, compare and tune (machines,
// execution spaces, precisions) merged into one page: per matrix each machine's best pspmv plan
// and best peer against its own floor, the ratios between machines, geometric-mean summaries,
// gnuplot plots, a self-contained HTML page, Markdown, JSON and CSV (harness/cross.hpp,
// harness/cross_page.hpp).
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>

#include "command.hpp"
#include "harness/cross.hpp"
#include "harness/cross_page.hpp"
#include "harness/files.hpp"

namespace pspmv_cli {

namespace {

struct ReportOptions {
  std::vector<std::string> files;
  std::vector<std::string> labels;  ///< one per file, or none
  std::string reference;            ///< a label; empty: the first file's machine
  std::string out_dir = "report-out";
  std::string markdown;  ///< the Markdown page's path; empty: out_dir/report.md
  bool no_plots = false;
};

/// The folder of the Markdown page to the output folder, as a prefix of image links ("" when
/// they are the same folder).
std::string image_prefix(const std::string& markdown, const std::string& out_dir) {
  namespace fs = std::filesystem;
  const fs::path md_dir = fs::absolute(fs::path(markdown)).parent_path();
  const fs::path rel = fs::absolute(fs::path(out_dir)).lexically_normal().lexically_relative(md_dir.lexically_normal());
  const std::string s = rel.generic_string();
  return s.empty() || s == "." ? std::string() : s + "/";
}

/// The summary as text, for the terminal.
std::string summary_text(const CrossReport& r) {
  std::string s;
  for (const auto& p : r.summaries) {
    s += fmt::format("{}: {} matrices in every run (reference: {})\n", p.precision, p.shared, r.machines[r.reference].label);
    s += fmt::format("  {:<44} {:>16} {:>14} {:>14} {:>7}\n", "machine", "pspmv/best peer", "over reference",
                     "floor reached", "noisy");
    for (std::size_t i = 0; i < r.machines.size(); ++i) {
      const auto& m = p.machines[i];
      s += fmt::format("  {:<44} {:>16} {:>14} {:>14} {:>7}\n", r.machines[i].label.substr(0, 44),
                       m.peer_matrices ? fmt::format("{:.2f}x ({}/{})", m.over_peer, m.peer_wins, m.peer_matrices) : "-",
                       fmt::format("{:.2f}x", m.over_reference),
                       m.floor_matrices ? fmt::format("{:.2f}", m.floor_reached) : "-", m.noisy);
    }
  }
  if (!r.mismatches.empty()) {
    s += "size mismatches (not merged):\n";
    for (const auto& m : r.mismatches) {
      s += "  " + m.matrix + " " + m.precision + ":";
      for (const auto& x : m.sizes) s += " [" + x + "]";
      s += "\n";
    }
  }
  return s;
}

int run(const ReportOptions& o, const RunInfo& info) {
  if (!o.labels.empty() && o.labels.size() != o.files.size())
    throw pspmv::InvalidArgument(fmt::format("report: {} labels for {} files; give one --label per file, in order",
                                             o.labels.size(), o.files.size()));
  std::vector<Run> runs;
  for (std::size_t i = 0; i < o.files.size(); ++i) runs.push_back(load_run(o.files[i], o.labels.empty() ? "" : o.labels[i]));
  const CrossReport r = cross_report(std::move(runs), o.reference);

  make_dirs(o.out_dir);
  const std::string dir = o.out_dir + "/";
  const std::string markdown = o.markdown.empty() ? dir + "report.md" : o.markdown;
  const auto plots = write_cross_plots(r, o.out_dir, !o.no_plots);
  write_file_atomically(dir + "report.json", cross_json(r, info.command).dump(2) + "\n");
  write_file_atomically(dir + "report.csv", cross_csv(r));
  write_file_atomically(markdown, cross_markdown(r, plots, info.command, image_prefix(markdown, o.out_dir)));
  write_file_atomically(dir + "report.html", cross_html(r, plots, info.command));
  std::cout << summary_text(r);
  std::cerr << "pspmv report: wrote " << dir << "{report.html, report.json, report.csv}, " << markdown;
  for (const auto& p : plots)
    if (!p.png.empty()) std::cerr << ", " << p.png;
  std::cerr << "\n";
  return 0;
}

}  // namespace

Command add_report(CLI::App& app) {
  auto o = std::make_shared<ReportOptions>();
  auto* sub = app.add_subcommand(
      "report", "merge the JSON records of several runs (bench, compare, tune; machines, spaces, precisions) into one "
                "page: per-matrix tables, geometric-mean summaries, plots, HTML, Markdown, JSON and CSV");
  sub->add_option("records", o->files, "JSON records: bench --json, compare's compare.json, tune --json")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_option("--label", o->labels, "the machine of each file, once per file in order; files with one label are "
                                        "one machine (default: from each record)");
  sub->add_option("--reference", o->reference, "the machine (a label) the others are compared with (default: the first file's)");
  sub->add_option("-o,--out", o->out_dir, "output folder (created; files in it are replaced)");
  sub->add_option("--markdown", o->markdown, "where the Markdown page goes (default OUT/report.md); its images link into OUT");
  sub->add_flag("--no-plots", o->no_plots, "write the .dat and .gp files but do not run gnuplot");
  return {sub, [o](const RunInfo& info) { return run(*o, info); }};
}

}  // namespace pspmv_cli
