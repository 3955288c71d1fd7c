#pragma once
// `pspmv report`: the records of several runs (machines, execution spaces, precisions) merged
// into one comparison. Matrices match by name, precision, rows and nnz; a name measured with
// other sizes on another machine is reported as a mismatch, never merged. Ratios between
// machines are taken only on matrices every machine measured.
#include <cstdint>
#include <string>
#include <vector>

#include "harness/run_records.hpp"

namespace pspmv_cli {

/// A machine and execution space: the runs labelled alike.
struct Machine {
  std::string label, space;
  std::vector<std::size_t> runs;  ///< indices into CrossReport::runs
};

/// One machine's measurement of a matrix, and the run it comes from.
struct Cell {
  bool present = false;
  std::size_t run = 0;
  Measure m;
  bool noisy = false;  ///< the fastest records' own flag, or the run's context warnings
};

/// A matrix at one precision (name, rows and nnz alike), with each machine's cell.
struct MatrixRow {
  std::string matrix, precision;
  std::int64_t rows = 0, nnz = 0;
  std::vector<Cell> cells;  ///< one per machine, in CrossReport::machines order
  bool shared = false;      ///< every machine measured it
};

/// A matrix name measured at one precision with different sizes on different machines.
struct Mismatch {
  std::string matrix, precision;
  std::vector<std::string> sizes;  ///< "LABEL: ROWS rows, NNZ nnz", one per machine
};

/// One machine's summary over the shared matrices of one precision.
struct MachineSummary {
  int matrices = 0;
  /// Geometric mean of the best peer's time over pspmv's best time (> 1: pspmv faster), over
  /// the matrices with a peer; 0 when none has one.
  double over_peer = 0;
  int peer_matrices = 0, peer_wins = 0;
  /// Geometric mean of the reference machine's pspmv time over this machine's (> 1: faster).
  double over_reference = 0;
  /// Geometric mean of floor time / pspmv's best time (1: at the machine's own floor), over the
  /// matrices with a floor; 0 when none has one.
  double floor_reached = 0;
  int floor_matrices = 0;
  int noisy = 0;  ///< matrices whose cell is marked noisy
};

/// The summary of one precision: one line per machine and the pairwise geometric means.
struct PrecisionSummary {
  std::string precision;
  int shared = 0;  ///< matrices every machine measured
  std::vector<MachineSummary> machines;
  /// pairwise[i][j]: geometric mean of machine j's pspmv time over machine i's (> 1: i faster).
  std::vector<std::vector<double>> pairwise;
};

/// The merged comparison.
struct CrossReport {
  std::vector<Run> runs;
  std::vector<Machine> machines;
  std::size_t reference = 0;  ///< index into machines
  std::vector<MatrixRow> rows;  ///< order of first appearance over the runs
  std::vector<Mismatch> mismatches;
  std::vector<std::string> duplicates;  ///< measurements a machine's earlier run already held (ignored)
  std::vector<PrecisionSummary> summaries;  ///< precisions with at least one shared matrix
};

/// Merges the runs. `reference` is a machine's label (empty: the first run's).
/// @throws pspmv::InvalidArgument when `reference` names no machine; pspmv::Error naming every
/// file when no matrix is in every run.
CrossReport cross_report(std::vector<Run> runs, const std::string& reference);

/// The geometric mean of v (0 for an empty v).
double geometric_mean(const std::vector<double>& v);

/// pspmv's best time on the reference machine over that on `machine` (0 when either is absent).
double speedup_over_reference(const CrossReport& r, const MatrixRow& row, std::size_t machine);

/// The best peer's time over pspmv's best time (0 without a peer).
double pspmv_over_peer(const Cell& c);

/// Floor time over pspmv's best time (0 without a floor).
double floor_reached(const Cell& c);

}  // namespace pspmv_cli
