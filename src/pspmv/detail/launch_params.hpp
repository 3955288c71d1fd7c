#pragma once
/// @file launch_params.hpp
/// choose_launch(): turns row statistics, the lane-slot model, ExecTraits and the
/// caller's AnalyzeOptions into a mapping, a schedule and launch sizes, with the
/// reason for each choice. The only place where defaults are decided.

#include <algorithm>
#include <cstdint>
#include <string>

#include "exec_traits.hpp"
#include "pspmv/errors.hpp"
#include "pspmv/options.hpp"
#include "pspmv/row_stats.hpp"

namespace pspmv {
namespace detail {

struct LaunchChoice {
  Mapping mapping = Mapping::thread_per_row;
  Schedule schedule = Schedule::static_chunks;
  LaunchParams launch;
  std::string reason;
};

/// Nonzeros of the fullest of `parts` equal row blocks (what a static schedule gives each
/// thread) over the mean nnz per block: 1 when the split is even; 1 for an empty matrix.
template <class Offset>
double static_imbalance(const Offset* row_ptr, std::int64_t nrows, std::int64_t parts) {
  const std::int64_t nnz = nrows > 0 ? static_cast<std::int64_t>(row_ptr[nrows]) : 0;
  if (nnz == 0 || parts <= 1) return 1.0;
  std::int64_t fullest = 0;
  for (std::int64_t t = 0; t < parts; ++t) {
    const std::int64_t b = t * nrows / parts, e = (t + 1) * nrows / parts;
    fullest = std::max<std::int64_t>(fullest, static_cast<std::int64_t>(row_ptr[e] - row_ptr[b]));
  }
  return static_cast<double>(fullest) * static_cast<double>(parts) / static_cast<double>(nnz);
}

/// Bytes of a CSR matrix with these row statistics: row_ptr, col_idx and values.
template <class Value, class Offset>
std::int64_t csr_bytes_of(const RowStats& s) {
  return (s.nrows + 1) * static_cast<std::int64_t>(sizeof(Offset)) +
         s.nnz * static_cast<std::int64_t>(sizeof(std::int32_t) + sizeof(Value));
}

inline bool is_power_of_two(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

inline std::string percent(double share) {
  return std::to_string(static_cast<int>(share * 100.0 + 0.5)) + "%";
}

/// Mapping, schedule and launch sizes for `format` (SELL: slice height `slice_height`).
/// GPU vector length for team-per-row: among 2, 4, 8, 16 and 32, the largest whose
/// warp-level lane-slots (team_lane_slots) are within 5% of the fewest. Larger vector
/// lengths read a row's entries in wider coalesced pieces, so ties go to them.
template <class Traits, class Offset>
int best_vector_length(const Offset* row_ptr, std::int64_t nrows, int lane_width) {
  std::int64_t fewest = INT64_MAX;
  std::int64_t slots[6] = {0, 0, 0, 0, 0, 0};
  for (int e = 1, v = 2; v <= lane_width && e < 6; ++e, v *= 2) {
    slots[e] = team_lane_slots(row_ptr, nrows, v, lane_width);
    fewest = std::min(fewest, slots[e]);
  }
  int best = 2;
  for (int e = 1, v = 2; v <= lane_width && e < 6; ++e, v *= 2)
    if (static_cast<double>(slots[e]) <= 1.05 * static_cast<double>(fewest)) best = v;
  return best;
}

/// The GPU's small-matrix rule (ExecTraits<Cuda>::small_team_min_row): a warp per row fits
/// the device at once and the longest row is a long dependent chain for one thread but short
/// enough for one warp. Always false on a host.
template <class Traits>
bool small_matrix_warp_per_row(const RowStats& s, std::int64_t concurrency) {
  if constexpr (Traits::is_gpu) {
    return s.nrows > 0 && s.nrows * Traits::warp_size <= concurrency && s.max_len >= Traits::small_team_min_row &&
           s.max_len <= Traits::small_team_max_row;
  } else {
    (void)s, (void)concurrency;
    return false;
  }
}

template <class ExecSpace, class Value, class Offset>
LaunchChoice choose_launch(const RowStats& s, const LaneSlots& ls, const Offset* row_ptr, const AnalyzeOptions& o,
                           Format format = Format::csr, int slice_height = 0) {
  using Traits = ExecTraits<ExecSpace>;
  LaunchChoice c;
  LaunchParams& p = c.launch;
  const std::int64_t nrows = s.nrows;
  const bool sell = format == Format::sell;
  const std::int64_t concurrency = ExecSpace().concurrency();
  const bool small_team = !sell && small_matrix_warp_per_row<Traits>(s, concurrency);

  if (o.mapping) {
    c.mapping = *o.mapping;
    c.reason = "mapping forced";
  } else if (small_team) {
    c.mapping = Mapping::team_per_row;
    c.reason = "small matrix: " + std::to_string(nrows) + " rows x " + std::to_string(Traits::model_lane_width) +
               " lanes <= concurrency " +
               std::to_string(concurrency) + ", longest row " + std::to_string(s.max_len) +
               ": team_per_row, a warp per row";
  } else if (sell) {
    c.mapping = Mapping::thread_per_row;
    c.reason = "SELL: row per thread (lane r of a slice holds row r)";
  } else if (Traits::is_gpu) {
    // The lane-slot model: fewer slots means fewer idle lanes per useful multiply-add.
    // Team-per-row is judged at its best vector length (see below) and must save a factor
    // ExecTraits::team_slot_advantage of the slots to be chosen.
    const std::int64_t team = team_lane_slots(row_ptr, nrows, best_vector_length<Traits>(row_ptr, nrows, ls.lane_width),
                                              ls.lane_width);
    c.mapping = static_cast<double>(team) * Traits::team_slot_advantage < static_cast<double>(ls.thread_per_row)
                    ? Mapping::team_per_row
                    : Mapping::thread_per_row;
    c.reason = "lane-slots at width " + std::to_string(ls.lane_width) + ": thread_per_row " +
               std::to_string(ls.thread_per_row) + " (" + percent(ls.useful_thread_per_row) +
               " useful), team_per_row at its best vector length " + std::to_string(team) + " (" +
               percent(team > 0 ? static_cast<double>(s.nnz) / static_cast<double>(team) : 1.0) + " useful)";
  } else {
    c.mapping = Mapping::thread_per_row;
    c.reason = "host: thread_per_row (a host team is one thread; its vector lanes are partial sums)";
  }
  if (o.schedule) {
    c.schedule = *o.schedule;
    c.reason += "; schedule forced";
  } else if (Traits::is_gpu) {
    c.schedule = Schedule::static_chunks;
    c.reason += "; GPU: static_chunks (the hardware schedules blocks; a balanced block per thread "
                "would serialize its rows)";
  } else if (Traits::stealing_bytes_per_thread > 0 &&
             csr_bytes_of<Value, Offset>(s) >= Traits::stealing_bytes_per_thread * concurrency) {
    c.schedule = Schedule::work_stealing;
    c.reason += "; CSR " + std::to_string(csr_bytes_of<Value, Offset>(s) >> 20) + " MiB >= " +
                std::to_string(Traits::stealing_bytes_per_thread >> 20) + " MiB x " + std::to_string(concurrency) +
                " threads: work_stealing";
  } else if (s.cv > Traits::cv_balance_threshold) {
    c.schedule = Schedule::nnz_balanced;
    c.reason += "; row-length cv " + std::to_string(s.cv).substr(0, 5) + " > " +
                std::to_string(Traits::cv_balance_threshold).substr(0, 4) + ": nnz_balanced";
  } else if (const double imbalance = static_imbalance(row_ptr, nrows, concurrency);
             imbalance > Traits::static_imbalance_threshold) {
    c.schedule = Schedule::nnz_balanced;
    c.reason += "; row-length cv " + std::to_string(s.cv).substr(0, 5) + ", but a static split into " +
                std::to_string(concurrency) + " row blocks gives its fullest " + std::to_string(imbalance).substr(0, 4) +
                "x the mean nnz > " + std::to_string(Traits::static_imbalance_threshold).substr(0, 4) + ": nnz_balanced";
  } else {
    c.schedule = Schedule::static_chunks;
    c.reason += "; row-length cv " + std::to_string(s.cv).substr(0, 5) + " <= " +
                std::to_string(Traits::cv_balance_threshold).substr(0, 4) + ", static row blocks within " +
                std::to_string(Traits::static_imbalance_threshold).substr(0, 4) + "x the mean nnz: static_chunks";
  }

  if (o.chunk_size < 0 || o.target_chunks < 0 || o.team_size < 0 || o.vector_length < 0 ||
      o.rows_per_team < 0 || o.num_blocks < 0)
    throw InvalidArgument("AnalyzeOptions: sizes must be >= 0 (0 = choose)");
  p.concurrency = concurrency;
  const std::int64_t target = o.target_chunks > 0 ? o.target_chunks : Traits::target_chunks;
  p.chunk_rows = o.chunk_size > 0 ? o.chunk_size : std::max<std::int64_t>(1, (nrows + target - 1) / target);
  p.team_size = o.team_size > 0 ? o.team_size : Traits::team_size;
  p.vector_length = o.vector_length > 0 ? o.vector_length : Traits::template simd_lanes<Value>();
  if (Traits::is_gpu && o.vector_length == 0 && c.mapping == Mapping::team_per_row && format == Format::csr) {
    // GPU team-per-row: the vector length whose warps waste the fewest lane-slots (a full
    // warp under the small-matrix rule), and teams of 128 threads (4 warps) unless the
    // caller set team_size.
    p.vector_length = small_team && !o.mapping ? Traits::template simd_lanes<Value>()
                                               : best_vector_length<Traits>(row_ptr, nrows, ls.lane_width);
    if (o.team_size == 0) p.team_size = std::max(1, 128 / p.vector_length);
  }
  if (sell) {
    p.slice_height = slice_height;
    // Chunks of whole slices; on a GPU the lanes of a team walk one slice's rows.
    p.chunk_rows = (p.chunk_rows + slice_height - 1) / slice_height * slice_height;
    if (o.vector_length == 0 && Traits::is_gpu) p.vector_length = std::min(slice_height, 32);
  }
  if (!is_power_of_two(p.vector_length))
    throw InvalidArgument("vector_length must be a power of two, got " + std::to_string(p.vector_length));
  if (Traits::is_gpu && p.vector_length > 32)
    throw InvalidArgument("vector_length must be at most 32 (a warp) on a GPU, got " +
                          std::to_string(p.vector_length));
  if (Traits::is_gpu && p.team_size * p.vector_length > 1024)
    throw InvalidArgument("team_size * vector_length = " + std::to_string(p.team_size * p.vector_length) +
                          " exceeds 1024 threads per CUDA block");
  const std::int64_t nslices = sell ? (nrows + slice_height - 1) / slice_height : 0;
  if (sell && c.mapping == Mapping::team_per_row) {
    p.slices_per_team = static_cast<std::int32_t>(
        o.rows_per_team > 0 ? std::max<std::int64_t>(1, o.rows_per_team / slice_height)
                            : (Traits::is_gpu ? p.team_size : std::max<std::int64_t>(1, p.chunk_rows / slice_height)));
    p.rows_per_team = p.slices_per_team * slice_height;
    p.league_size = (nslices + p.slices_per_team - 1) / p.slices_per_team;
    p.chunk_size = 1;
  } else if (c.mapping == Mapping::team_per_row) {
    p.rows_per_team = static_cast<std::int32_t>(
        o.rows_per_team > 0 ? o.rows_per_team
                            : (Traits::is_gpu ? p.team_size : std::min<std::int64_t>(p.chunk_rows, INT32_MAX)));
    p.league_size = (nrows + p.rows_per_team - 1) / p.rows_per_team;
    p.chunk_size = std::max<std::int64_t>(1, p.chunk_rows / p.rows_per_team);
  } else {
    p.rows_per_team = 1;
    p.chunk_size = p.chunk_rows;
  }
  if (p.chunk_size > INT32_MAX) p.chunk_size = INT32_MAX;
  const std::int64_t lanes_per_team = static_cast<std::int64_t>(p.team_size) * p.vector_length;
  p.num_blocks = o.num_blocks > 0
                     ? o.num_blocks
                     : (Traits::is_gpu && c.mapping == Mapping::team_per_row
                            ? std::max<std::int64_t>(1, p.concurrency / lanes_per_team)
                            : p.concurrency);
  if (c.schedule == Schedule::nnz_balanced && c.mapping == Mapping::team_per_row)
    p.league_size = p.num_blocks;
  return c;
}

/// Row partition with nearly equal nnz per block: block b starts at the first row whose
/// row_ptr reaches b * nnz / num_blocks (binary search on row_ptr). Blocks may be empty
/// when a single row holds more than nnz / num_blocks.
/// Output: num_blocks + 1 row indices, partition[0] = 0, partition[num_blocks] = nrows.
template <class Offset>
void nnz_partition(const Offset* row_ptr, std::int32_t nrows, std::int64_t num_blocks,
                   std::int32_t* partition) {
  const std::int64_t nnz = static_cast<std::int64_t>(row_ptr[nrows]);
  partition[0] = 0;
  for (std::int64_t b = 1; b < num_blocks; ++b) {
    const Offset target = static_cast<Offset>((static_cast<long double>(nnz) * b) / num_blocks);
    const Offset* it = std::lower_bound(row_ptr, row_ptr + nrows + 1, target);
    partition[b] = static_cast<std::int32_t>(std::min<std::int64_t>(it - row_ptr, nrows));
  }
  partition[num_blocks] = nrows;
}

}  // namespace detail
}  // namespace pspmv
