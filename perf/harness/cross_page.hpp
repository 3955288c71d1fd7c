#pragma once
// The outputs of `pspmv report`: gnuplot plots (one colour per machine), a self-contained HTML
// page, a Markdown page for a repository, and the merged data as JSON and CSV.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/cross.hpp"

namespace pspmv_cli {

/// One plot of the report.
struct CrossPlot {
  std::string precision, stem, title;  ///< stem: "gbs-f64", the file name without extension
  std::string png;                     ///< the PNG written, empty when it was not rendered
};

/// Writes dir/STEM.{dat,gp} of each plot (GB/s, floor reached, speedup over the reference,
/// pspmv over the best peer) per precision of the summaries, and with `render` the PNGs.
std::vector<CrossPlot> write_cross_plots(const CrossReport& r, const std::string& dir, bool render);

/// The page as one self-contained HTML document (the PNGs inlined as data URIs).
/// `command` is the report's own command line.
std::string cross_html(const CrossReport& r, const std::vector<CrossPlot>& plots, const std::string& command);

/// The page as Markdown; images are linked as image_prefix + STEM.png.
std::string cross_markdown(const CrossReport& r, const std::vector<CrossPlot>& plots, const std::string& command,
                           const std::string& image_prefix);

/// The merged data: runs, machines, matrices with each machine's cell, summaries.
nlohmann::json cross_json(const CrossReport& r, const std::string& command);

/// One CSV line per matrix and machine (RFC 4180 quoting).
std::string cross_csv(const CrossReport& r);

/// csv_field(s) (harness/records.hpp): s as an RFC 4180 CSV field.
std::string csv_field(const std::string& s);

/// The bytes as base64 (RFC 4648, with padding).
std::string base64(const std::string& bytes);

/// The colour of machine i (Okabe and Ito's palette, distinguishable with colour blindness).
std::string machine_colour(std::size_t i);

}  // namespace pspmv_cli
