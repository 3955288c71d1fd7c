#pragma once
/// @file options.hpp
/// AnalyzeOptions (what the caller asks of analyze()) and LaunchParams (what the plan
/// decided). Every field left at its default is chosen by analyze() from the row
/// statistics and ExecTraits; every field set is honoured or rejected with an error.

#include <cstdint>
#include <optional>

#include "pspmv/types.hpp"

namespace pspmv {

/// Options of analyze(). Zero / empty means "let analyze() choose".
struct AnalyzeOptions {
  Format format = Format::csr;           ///< internal storage format
  std::optional<Mapping> mapping;        ///< force thread_per_row or team_per_row
  std::optional<Schedule> schedule;      ///< force a schedule
  std::int64_t chunk_size = 0;           ///< rows per scheduling chunk (static/dynamic); 0: rows / target_chunks
  int target_chunks = 0;                 ///< chunks when chunk_size is 0; 0: ExecTraits::target_chunks (2000)
  int team_size = 0;                     ///< threads per team (team_per_row); 0: ExecTraits::team_size
  int vector_length = 0;                 ///< vector lanes per thread (team_per_row); 0: GPU warp size, CPU SIMD lanes
  int rows_per_team = 0;                 ///< rows per team (team_per_row, static/dynamic); 0: chosen
  std::int64_t num_blocks = 0;           ///< blocks of the nnz-balanced partition; 0: concurrency of the space
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
  int concurrency = 1;             ///< ExecSpace().concurrency() at analyze time
};

}  // namespace pspmv
