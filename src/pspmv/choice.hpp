#pragma once
/// @file choice.hpp
/// What choose() decides for a matrix on an execution space: a PlanChoice (format, mapping,
/// schedule, launch sizes) and its Reason, one clause per decision, rendered to text once.

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "pspmv/options.hpp"
#include "pspmv/types.hpp"

namespace pspmv {

/// The decisions a Reason explains, in the order choose() takes them.
enum class Decision { format, mapping, schedule };

/// Why a plan is what it is: one clause per decision, in the order taken, each naming the
/// statistic and the ExecTraits threshold that decided it, or that the caller forced it.
class Reason {
 public:
  struct Clause {
    Decision decision;
    std::string text;  ///< e.g. "row-length cv 4.520 > 1.00: nnz_balanced"
  };
  void add(Decision decision, std::string text) { clauses_.push_back({decision, std::move(text)}); }
  const std::vector<Clause>& clauses() const { return clauses_; }
  /// The clauses joined by "; ".
  std::string str() const {
    std::string s;
    for (const auto& c : clauses_) s += (s.empty() ? "" : "; ") + c.text;
    return s;
  }

 private:
  std::vector<Clause> clauses_;
};

/// A plan's decisions: everything analyze() needs to build its storage and launch kernels.
struct PlanChoice {
  Format format = Format::csr;
  Mapping mapping = Mapping::thread_per_row;
  Schedule schedule = Schedule::static_chunks;
  LaunchParams launch;  ///< launch sizes; SELL's C, sigma and long-row handling included
  bool keep_permuted = false;  ///< SELL: y in the plan's row order (Plan::permutation())
  Reason reason;
};

/// What analyze() spent, phase by phase, in seconds of wall time (Plan::analysis()). Host
/// phases run on all host threads; copy includes the wait for the device.
struct AnalysisPhases {
  double validation = 0;   ///< validate(): row_ptr monotone, columns in range
  double statistics = 0;   ///< row statistics, column spread, lane-slot model
  double choice = 0;       ///< choose(), with the sorted SELL order its shape needs
  double conversion = 0;   ///< CSR to SELL-C-sigma from that order (0 for a CSR plan)
  double partition = 0;    ///< the nnz partition of an nnz_balanced plan
  double copy = 0;         ///< the copy into the execution space's memory (an upload to a device
                           ///< through the staging buffers takes the fingerprint on the way)
  double fingerprint = 0;  ///< the content fingerprint (AnalyzeOptions::fingerprint) where it is a
                           ///< pass of its own (near 0 where the upload took it)
  double total = 0;        ///< all of analyze(), as Plan::analyze_seconds()
  /// analyze(space, A, options, like): validation and statistics were taken from `like`
  /// (0 here; statistics > 0 where this plan's choice wanted a column statistic `like` had not
  /// read, and the statistics were computed again), and so were conversion and copy when the
  /// plan shares like's stored matrix.
  bool reused = false;
  bool shares_storage = false;  ///< the stored matrix is like's (same format, C, sigma, long rows)
  bool shares_input = false;    ///< a CSR plan holding the caller's arrays, not a copy (copy is then 0)
  bool device_input = false;    ///< analyzed from a CSR already in the space's memory (no upload)
  /// device_input, and row_ptr was copied to the host (a CSR plan of nnz-balanced blocks, or a
  /// matrix without rows); false for every other device-input plan
  bool row_ptr_read_back = false;
  /// a SELL plan of a CSR in a GPU's memory whose order and shape were computed there
  /// (sell_order_on, sell_shape_on): the host sorted no rows and copied no order (but for
  /// windows wider than 4,096 rows, sorted on the host from their lengths)
  bool device_order = false;
  /// The phases by name, in order (total last).
  std::vector<std::pair<const char*, double>> named() const {
    return {{"validation", validation}, {"statistics", statistics}, {"choice", choice},
            {"conversion", conversion}, {"partition", partition},   {"copy", copy},
            {"fingerprint", fingerprint}, {"total", total}};
  }
};

namespace detail {
/// `v` with `decimals` digits after the point, for reasons and descriptions.
inline std::string fixed(double v, int decimals = 2) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}
inline std::string percent(double share) { return std::to_string(static_cast<int>(share * 100.0 + 0.5)) + "%"; }
}  // namespace detail

/// One line: format, mapping, schedule and launch sizes of a choice, e.g. "csr thread_per_row
/// static_chunks chunk_rows=262 masked_rows"; `padding` is the SELL plan's stored entries over nnz.
inline std::string describe(const PlanChoice& c, double padding) {
  const LaunchParams& p = c.launch;
  const bool sell = c.format == Format::sell, team = c.mapping == Mapping::team_per_row;
  std::string s = sell ? "sell C=" + std::to_string(p.slice_height) + " sigma=" + std::to_string(p.sigma) +
                             " padding=" + detail::fixed(padding, 3) + (p.compressed ? " compressed " : " ")
                       : std::string("csr ");
  s += to_string(c.mapping) + " " + to_string(c.schedule);
  if (team)
    s += " team_size=" + std::to_string(p.team_size) + " vector_length=" + std::to_string(p.vector_length) +
         " league=" + std::to_string(p.league_size);
  if (sell && p.long_rows > 0)
    s += " long_rows=" + std::to_string(p.long_rows) + "(>" + std::to_string(p.long_row_threshold) + ")" +
         (p.long_split ? " split=" + std::to_string(p.long_pieces) + "pieces" : " warp");
  s += c.schedule == Schedule::nnz_balanced ? " blocks=" + std::to_string(p.num_blocks)
                                            : " chunk_rows=" + std::to_string(p.chunk_rows);
  if (c.schedule == Schedule::nnz_balanced && p.block_row_weight > 0)
    s += " row_weight=" + std::to_string(p.block_row_weight);
  if (c.schedule == Schedule::nnz_balanced && p.block_groups) s += " group_blocks";
  if (p.threads > 0 && p.threads < p.concurrency) s += " threads=" + std::to_string(p.threads);
  if (p.masked_rows) s += " masked_rows";
  if (team && c.schedule != Schedule::nnz_balanced)
    s += sell ? " slices_per_team=" + std::to_string(p.slices_per_team)
              : " rows_per_team=" + std::to_string(p.rows_per_team);
  return s;
}

}  // namespace pspmv
