#pragma once
// The plots of `pspmv compare`: per precision, gnuplot data and scripts of GB/s (with the
// floor), time over the floor, speedup of pspmv's best over each peer and break-even calls,
// rendered to PNG by gnuplot where it is installed. Every library keeps one colour in every
// figure (plot_colour); timings carry min-median error bars; ratios are on log axes with 1
// marked; each figure names the machine, the commit and the date under its title.
#include <string>
#include <vector>

#include "harness/run_info.hpp"
#include "harness/summary.hpp"

namespace pspmv_cli {

/// The fixed colour ("#rrggbb") of a plotted label: by library ("pspmv best", "pspmv auto",
/// "mkl ...", "cusparse ...", ...; the floor black), the same in every figure.
std::string plot_colour(const std::string& label);

/// "machine | commit C | DATE": the subtitle of every figure of a run.
std::string plot_subtitle(const RunInfo& info);

/// Writes dir/{gbs,floor,speedup,breakeven}-PREC.{dat,gp} for the plots that have a value, and
/// with `render` runs gnuplot on each (a failure is a warning on stderr, not an error).
/// @return the PNG files written.
std::vector<std::string> write_plots(const std::vector<CompareSummary>& summaries, const std::string& dir, bool render,
                                     const std::string& subtitle = "");

/// Whether gnuplot is on the PATH.
bool have_gnuplot();

/// Runs gnuplot on dir/stem.gp into dir/stem.png (a temporary name renamed into place when
/// gnuplot succeeded); false, with a warning on stderr naming `who` (the subcommand), when it
/// failed.
bool render_png(const std::string& dir, const std::string& stem, const std::string& who);

/// s quoted for the shell, in single quotes.
std::string shell_quote(const std::string& s);

}  // namespace pspmv_cli
