#pragma once
// The plots of `pspmv compare`: per precision, gnuplot data and scripts of GB/s (with the
// floor), time over the floor, speedup of pspmv's best over each peer and break-even calls,
// rendered to PNG by gnuplot where it is installed.
#include <string>
#include <vector>

#include "harness/summary.hpp"

namespace pspmv_cli {

/// Writes dir/{gbs,floor,speedup,breakeven}-PREC.{dat,gp} for the plots that have a value, and
/// with `render` runs gnuplot on each (a failure is a warning on stderr, not an error).
/// @return the PNG files written.
std::vector<std::string> write_plots(const std::vector<CompareSummary>& summaries, const std::string& dir, bool render);

}  // namespace pspmv_cli
