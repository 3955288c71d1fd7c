#pragma once
/// @file types.hpp
/// The vocabulary of a plan: storage format, work mapping and schedule.
/// Each enum has to_string() and a parse_*() that throws pspmv::InvalidArgument
/// naming the accepted spellings. Strings are for the CLI and reports only; the
/// hot path dispatches on the enums.

#include <array>
#include <string>
#include <string_view>

namespace pspmv {

/// Storage format of a plan's internal copy.
enum class Format {
  csr,   ///< compressed sparse row (row_ptr, col_idx, values)
  sell,  ///< sliced ELLPACK, SELL-C-sigma (Kreutzer et al., SIAM J. Sci. Comput. 36(5), 2014)
};

/// How rows are mapped onto the execution space's parallelism.
enum class Mapping {
  thread_per_row,  ///< one thread (GPU: one lane) computes a whole row
  team_per_row,    ///< a team's vector lanes share one row (GPU: warp-per-row at vector length 32)
};

/// How rows (or slices) are distributed over threads or teams.
enum class Schedule {
  static_chunks,   ///< Kokkos Schedule<Static>: each thread takes one contiguous range of chunks
  dynamic_chunks,  ///< pspmv's own dynamic schedule, OpenMP's schedule(dynamic, chunk): one worker
                   ///< per thread (team) takes the next chunk from one shared atomic counter
                   ///< until none is left
  nnz_balanced,    ///< one contiguous block of rows per thread/team with nearly equal nnz
                   ///< (+ LaunchParams::block_row_weight x rows), or, for host CSR rows in
                   ///< masked SIMD groups, nearly equal groups unless block_groups is false or
                   ///< a row weight is set (LaunchParams::block_groups);
                   ///< computed at analyze time by binary search on row_ptr (or on the groups'
                   ///< prefix)
  work_stealing,   ///< pspmv's own: each thread drains the contiguous range of chunks a static
                   ///< schedule would give it, then takes chunks from the back of the others'
                   ///< ranges (the host default for large matrices; see detail::ChunkQueues)
  serial,          ///< host only, thread_per_row only: the calling thread runs every row (slice) in
                   ///< order, with no parallel region (the host default for matrices that fit a
                   ///< core's cache, where a parallel launch costs more than the work)
};

/// What a plan multiplies by: A itself or its transpose (chosen at analyze time).
enum class Operation {
  plain,      ///< y = alpha A x + beta y
  transpose,  ///< y = alpha A^T x + beta y: the plan stores A^T (x has nrows(A) entries, y ncols(A))
};

inline constexpr std::array<Format, 2> all_formats{Format::csr, Format::sell};
inline constexpr std::array<Mapping, 2> all_mappings{Mapping::thread_per_row, Mapping::team_per_row};
inline constexpr std::array<Schedule, 5> all_schedules{Schedule::static_chunks, Schedule::dynamic_chunks,
                                                       Schedule::nnz_balanced, Schedule::work_stealing,
                                                       Schedule::serial};

/// Whether a plan on an execution space of this kind can run `schedule` with `mapping`: serial
/// runs on a host only, and only thread_per_row (a host team needs a parallel launch).
inline constexpr bool schedule_runs(Schedule schedule, Mapping mapping, bool gpu) {
  return schedule != Schedule::serial || (!gpu && mapping == Mapping::thread_per_row);
}

std::string to_string(Format f);
std::string to_string(Mapping m);
std::string to_string(Schedule s);
std::string to_string(Operation o);

/// Parses "csr" or "sell". @throws InvalidArgument for anything else.
Format parse_format(std::string_view s);
/// Parses "thread" / "thread_per_row" or "team" / "team_per_row". @throws InvalidArgument.
Mapping parse_mapping(std::string_view s);
/// Parses "static" / "static_chunks", "dynamic" / "dynamic_chunks", "nnz" / "nnz_balanced",
/// "stealing" / "work_stealing", "serial".
/// @throws InvalidArgument.
Schedule parse_schedule(std::string_view s);
/// Parses "plain" / "none" or "transpose" / "t". @throws InvalidArgument.
Operation parse_operation(std::string_view s);

}  // namespace pspmv
