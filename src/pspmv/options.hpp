#pragma once
/// @file options.hpp
/// AnalyzeOptions (what the caller asks of analyze()) and LaunchParams (what the plan
/// decided). Every field left at its default is chosen by analyze() from the row
/// statistics and ExecTraits; every field set is honoured or rejected with an error.

#include <cstdint>
#include <optional>

#include "pspmv/types.hpp"

namespace pspmv {

/// How analyze() chooses a plan.
///  - model: from row statistics and the lane-slot model with ExecTraits' named thresholds
///    (the default; every choice and the statistic that decided it in Plan::reason()).
///  - tune:  times the model's plan and candidate plans within a budget, keeps the fastest
///    (pspmv::tune with default TuneOptions; call tune() itself to set the budget).
///  - fixed: no decision: what the options leave unset is CSR, thread_per_row, static_chunks.
enum class Selection { model, tune, fixed };

/// Options of analyze(). Zero / empty means "let analyze() choose".
struct AnalyzeOptions {
  Selection selection = Selection::model;  ///< model | tune | fixed (see Selection)
  Operation operation = Operation::plain;  ///< plain: y = alpha A x + beta y; transpose: y = alpha A^T x + beta y,
                                           ///< A^T built at analyze time and stored (Plan::operation())
  std::optional<Format> format;          ///< force csr or sell; empty: chosen (SELL on a GPU when it fits the memory limit)
  int slice_height = 0;                  ///< SELL C (4, 8, 16, 32, 64); 0: ExecTraits (32 on CUDA, SIMD lanes on a CPU)
  std::int64_t sigma = 0;                ///< SELL sorting window in rows (1: none); 0: ExecTraits::sell_sigma_slices * C
  bool keep_permuted = false;            ///< SELL: write y in the plan's permuted row order (see Plan::permutation());
                                         ///< needs a SELL plan (an automatic format becomes SELL)
  std::int64_t sell_long_row = 0;        ///< SELL: rows longer than this leave the slices for a team-per-row CSR part;
                                         ///< 0: ExecTraits::sell_long_row; < 0: never
  std::optional<bool> sell_long_split;   ///< SELL: cut long rows into pieces inside the slices (true) or keep them
                                         ///< in a lane-shared CSR part (false); empty: ExecTraits::sell_long_split.
                                         ///< keep_permuted needs false (a piece has no row of its own)
  std::optional<bool> compress;         ///< SELL: compressed columns (true: each slice diagonal, no column per
                                         ///< entry, or 16-bit offsets from a per-slice base where its columns
                                         ///< span < 65,536, else 32-bit; SellMatrix), 32-bit columns (false);
                                         ///< empty: chosen (ExecTraits::diagonal_min_share, diagonal_min_bytes,
                                         ///< compress_min_bytes, compress_min_share). Needs SELL
  double sell_memory_limit = 0;          ///< automatic format: SELL only if its bytes <= this x CSR bytes; 0: ExecTraits (1.1)
  std::optional<Mapping> mapping;        ///< force thread_per_row or team_per_row
  std::optional<Schedule> schedule;      ///< force a schedule
  std::int64_t chunk_size = 0;           ///< rows per scheduling chunk (static/dynamic); 0: rows / target_chunks
  int target_chunks = 0;                 ///< chunks when chunk_size is 0; 0: ExecTraits::target_chunks (2000)
  int team_size = 0;                     ///< threads per team (team_per_row); 0: ExecTraits::team_size
  int vector_length = 0;                 ///< vector lanes per thread (team_per_row); 0: GPU warp size, CPU SIMD lanes
  int rows_per_team = 0;                 ///< rows per team (team_per_row, static/dynamic); 0: chosen
  std::int64_t num_blocks = 0;           ///< blocks of the nnz-balanced partition; 0: the threads of a multiply
  std::optional<std::int64_t> block_row_weight;  ///< nnz_balanced CSR plan: a block's cost is its entries plus
                                         ///< this many per row (1: rows and entries alike, Merrill and
                                         ///< Garland's merge path); any weight, 0 too, means blocks of entries;
                                         ///< empty: no row term (blocks of entries, or of masked groups where
                                         ///< block_groups applies) (docs/selection.md, "Blocks of masked
                                         ///< groups", its last paragraph). Needs a CSR plan
                                         ///< under nnz_balanced (an
                                         ///< automatic format becomes CSR, an automatic schedule
                                         ///< nnz_balanced); at most 2^20
  std::optional<bool> block_groups;      ///< nnz_balanced CSR thread_per_row plan whose rows go in masked SIMD
                                         ///< groups (LaunchParams::masked_rows): empty or true, blocks of nearly
                                         ///< equal groups (a row ceil(len / 8) + 1; group_partition); false, or
                                         ///< empty beside block_row_weight, of entries (+ block_row_weight x
                                         ///< rows) (docs/selection.md, "Blocks of masked groups"). true steers
                                         ///< an automatic format to CSR, mapping to thread_per_row and schedule
                                         ///< to nnz_balanced; it needs a build with masked rows, and no
                                         ///< block_row_weight. The plan's several-vector multiplies (not in
                                         ///< masked groups) run the same blocks
  int threads = 0;                       ///< host: threads that run a multiply (1 to the space's concurrency);
                                         ///< 0: every thread of the instance (1 for the serial schedule)
  bool deterministic = false;            ///< y bit-identical whatever the launch sizes, schedule and thread count
                                         ///< (not only run to run, which every plan is): each row summed by one
                                         ///< thread, in an order fixed by the build and the row's length, so
                                         ///< thread_per_row, no lane-shared or split
                                         ///< long rows; a forced team_per_row or sell_long_row > 0 is an error
  bool fingerprint = true;               ///< hash the matrix at analyze time so that Plan::matches() can tell
                                         ///< whether it changed since (one parallel pass over the arrays)
  bool copy_matrix = false;              ///< a CSR plan whose space can hold the caller's arrays as they are (a
                                         ///< host plan of a HostCsr, a device plan of a CSR in its memory) shares
                                         ///< them (false: the caller must not change them while the plan lives)
                                         ///< or keeps its own copy (true); arrays the caller does not let Kokkos
                                         ///< count (unmanaged Views) are always copied
};

/// Launch sizes recorded in a plan.
struct LaunchParams {
  std::int64_t chunk_size = 1;     ///< work items per scheduling chunk (rows, or teams for team_per_row)
  std::int64_t chunk_rows = 1;     ///< rows per scheduling chunk
  int team_size = 1;               ///< threads per team (team_per_row)
  int vector_length = 1;           ///< vector lanes per thread (team_per_row)
  std::int32_t rows_per_team = 1;  ///< rows per team (team_per_row, static/dynamic)
  std::int64_t league_size = 0;    ///< teams launched (team_per_row)
  std::int64_t num_blocks = 0;     ///< blocks of the nnz partition (nnz_balanced)
  std::int64_t block_row_weight = 0;  ///< CSR nnz_balanced: each block holds nearly equal entries + this x rows
  bool block_groups = false;       ///< CSR nnz_balanced with masked_rows: each block holds nearly equal masked
                                   ///< groups (a row ceil(len / 8) + 1), not entries (group_partition)
  int concurrency = 1;             ///< the analyzing instance's concurrency()
  int threads = 0;                 ///< host: threads of a multiply (at most the calling instance's concurrency);
                                   ///< 0 on a GPU
  int slice_height = 0;            ///< SELL C (0 for CSR)
  std::int64_t sigma = 0;          ///< SELL sorting window (0 for CSR)
  std::int32_t slices_per_team = 0;  ///< SELL slice-per-team, static/dynamic
  bool slice_columns = false;      ///< SELL thread-per-row as a thread per slice, C rows in SIMD lanes (ESB);
                                   ///< chunk_size then counts slices
  std::int64_t long_row_threshold = 0;  ///< SELL: rows longer than this are long rows (0: none)
  std::int64_t long_rows = 0;           ///< SELL: number of long rows
  int long_team_size = 1;               ///< SELL long-row kernel: threads per team (one row each)
  int long_vector_length = 1;           ///< SELL long-row kernel: lanes per row
  bool long_split = false;              ///< SELL: long rows cut into pieces inside the slices
  std::int64_t long_pieces = 0;         ///< SELL, split: number of pieces
  bool compressed = false;              ///< SELL: compressed columns (diagonal slices, 16-bit offsets; SellMatrix)
  bool masked_rows = false;             ///< host CSR thread_per_row: each row in masked SIMD groups of 8
                                        ///< entries (detail::masked_dot; ExecTraits::masked_rows), else
                                        ///< detail::simd_dot (multiply_unrolled's partial sums replace either)
};

}  // namespace pspmv
