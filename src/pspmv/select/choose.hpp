#pragma once
/// @file choose.hpp
/// choose(): the one place where a plan's defaults are decided. From a matrix's row
/// statistics, its row structure, ExecTraits and the caller's AnalyzeOptions it decides the
/// format, the mapping, the schedule and the launch sizes, with a Reason clause for each.
/// Every rule and the measurements behind it: docs/selection.md.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "pspmv/backends/exec_traits.hpp"
#include "pspmv/detail/csr_kernels.hpp"
#include "pspmv/detail/sell_kernels.hpp"
#include "pspmv/errors.hpp"
#include "pspmv/matrix/csr.hpp"
#include "pspmv/matrix/row_stats.hpp"
#include "pspmv/matrix/sell.hpp"
#include "pspmv/options.hpp"
#include "pspmv/choice.hpp"

namespace pspmv {

/// team_lane_slots() at vector length V (2 to 32, a power of two) and the facts' lane width:
/// the statistics pass's count (LaneSlots::team_at_vector) where it made one, else a pass over
/// row_ptr (host memory).
template <class Offset>
std::int64_t team_slots_at(const Offset* row_ptr, std::int64_t nrows, const LaneSlots& ls, int V) {
  if (V < 2 || V > 32 || V > ls.lane_width || (V & (V - 1)) != 0)
    throw InvalidArgument("team lane-slots: vector length " + std::to_string(V) + " (a power of two from 2 to " +
                          std::to_string(std::min(32, ls.lane_width)) + ")");
  if (ls.vector_slots) {
    int e = 0;
    while ((2 << e) < V) ++e;
    return ls.team_at_vector[e];
  }
  if (row_ptr == nullptr && nrows > 0)
    throw std::logic_error("pspmv: team-per-row lane-slots asked of a matrix whose row_ptr is not on the host");
  return team_lane_slots(row_ptr, nrows, V, ls.lane_width);
}

/// GPU team-per-row vector length: among 2, 4, 8, 16 and 32, the largest whose warp-level
/// lane-slots (team_lane_slots) are within 5% of the fewest (wider pieces of a row coalesce
/// better, so ties go to them).
template <class Traits, class Offset>
int best_vector_length(const Offset* row_ptr, std::int64_t nrows, const LaneSlots& ls) {
  std::int64_t fewest = INT64_MAX;
  std::int64_t slots[6] = {0, 0, 0, 0, 0, 0};
  for (int e = 1, v = 2; v <= ls.lane_width && e < 6; ++e, v *= 2) {
    slots[e] = team_slots_at(row_ptr, nrows, ls, v);
    fewest = std::min(fewest, slots[e]);
  }
  int best = 2;
  for (int e = 1, v = 2; v <= ls.lane_width && e < 6; ++e, v *= 2)
    if (static_cast<double>(slots[e]) <= 1.05 * static_cast<double>(fewest)) best = v;
  return best;
}

/// The GPU's small-matrix rule (ExecTraits::small_team_min_row): a warp per row fits the
/// device at once, and the longest row is a long dependent chain for one thread but short
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

namespace detail {

inline bool is_power_of_two(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

/// Bytes of a CSR matrix with these row statistics: row_ptr, col_idx and values.
template <class Value, class Offset>
std::int64_t csr_bytes_of(const RowStats& s) {
  return (s.nrows + 1) * static_cast<std::int64_t>(sizeof(Offset)) +
         s.nnz * static_cast<std::int64_t>(sizeof(std::int32_t) + sizeof(Value));
}

/// SELL's storage parameters: C, the sorting window and the long-row handling.
struct SellParams {
  int C = 0;
  std::int64_t sigma = 1, long_threshold = 0;
  bool long_split = false;
  bool operator==(const SellParams& o) const {
    return C == o.C && sigma == o.sigma && long_threshold == o.long_threshold && long_split == o.long_split;
  }
};

/// A SELL shape already known (a plan built from the same matrix stores it): choose() takes
/// it instead of sorting the rows when its parameters are the ones chosen.
struct KnownSell {
  SellParams params;
  SellShape shape;
};

template <class Traits, class Value>
SellParams sell_params(const AnalyzeOptions& o, std::int32_t nrows) {
  if (o.sigma < 0 || o.slice_height < 0)
    throw InvalidArgument("AnalyzeOptions: SELL sigma and slice_height must be >= 0 (0 = choose), got sigma = " +
                          std::to_string(o.sigma) + ", slice_height = " + std::to_string(o.slice_height));
  SellParams p;
  p.C = o.slice_height > 0 ? o.slice_height : Traits::template sell_slice_height<Value>();
  p.sigma = std::max<std::int64_t>(
      1, std::min<std::int64_t>(o.sigma > 0 ? o.sigma : std::int64_t{Traits::sell_sigma_slices} * p.C,
                                std::max<std::int32_t>(1, nrows)));
  const std::int64_t long_row = o.sell_long_row != 0 ? o.sell_long_row : Traits::sell_long_row;
  p.long_threshold = long_row > 0 ? long_row : 0;
  if (o.keep_permuted && p.long_threshold > 0 && o.sell_long_split.value_or(false))
    throw InvalidArgument("keep_permuted needs sell_long_split = false: a piece of a split long row has no "
                          "position of its own in y");
  p.long_split = p.long_threshold > 0 && !o.keep_permuted && o.sell_long_split.value_or(Traits::sell_long_split);
  return p;
}

/// The options a deterministic plan is chosen with (AnalyzeOptions::deterministic: a row per
/// thread, long rows kept in the slices); other options as they are.
inline AnalyzeOptions deterministic_options(const AnalyzeOptions& o) {
  if (!o.deterministic) return o;
  AnalyzeOptions d = o;
  d.deterministic = false;
  d.mapping = Mapping::thread_per_row;
  d.sell_long_row = -1;
  d.sell_long_split.reset();
  return d;
}

/// CSR team_per_row's lane-slots at its best vector length (best_vector_length): the GPU
/// mapping rule's count.
template <class Traits, class Offset>
std::int64_t csr_team_slots(const Offset* row_ptr, const MatrixFacts& f) {
  return team_slots_at(row_ptr, f.stats.nrows, f.lane_slots,
                       best_vector_length<Traits>(row_ptr, f.stats.nrows, f.lane_slots));
}

/// Whether `team` lane-slots of CSR team_per_row save team_slot_advantage times thread_per_row's
/// (the GPU mapping rule takes team_per_row then).
template <class Traits>
bool csr_team_wins(std::int64_t team, const LaneSlots& ls) {
  return static_cast<double>(team) * Traits::team_slot_advantage < static_cast<double>(ls.thread_per_row);
}

/// A mean row length with one decimal, truncated, not rounded, so that a "<" it is compared by
/// stays true as printed (11.96 reads 11.9, never "12.0 < 12").
inline std::string truncated(double mean) { return fixed(std::floor(mean * 10) / 10, 1); }

/// The short-row rule of a space that prefers SELL (ExecTraits::csr_short_mean, the GPU): rows
/// of fewer than csr_short_mean entries on average, none longer than the space's sell_long_row
/// (a caller's AnalyzeOptions::sell_long_row shapes SELL plans only), thread_per_row forced or
/// kept by the CSR mapping rule (csr_team_wins), and no diagonal slices by the rule
/// (diagonal_rows): CSR a thread per row. Returns the reason's words where it holds, else
/// nothing; never on a space without the rule. row_ptr: on the host, or null where the lane
/// slots hold every vector length (LaneSlots::vector_slots).
template <class Traits, class Offset>
std::string short_rows_csr(const Offset* row_ptr, const MatrixFacts& f, const AnalyzeOptions& o, double csr_bytes);

/// Whether choose_format() computes a SELL shape on a space that prefers SELL (the GPU): a
/// forced SELL format, keep_permuted or compress, or no forced format and neither the
/// small-matrix rule nor the short-row rule. False where the space does not prefer SELL (a host
/// decides by other statistics first).
template <class Traits, class Offset>
bool needs_sell_shape(const Offset* row_ptr, const AnalyzeOptions& o, const MatrixFacts& f, std::int64_t concurrency,
                      double csr_bytes) {
  if (!Traits::prefer_sell) return false;
  if (o.format) return *o.format == Format::sell;
  if (o.keep_permuted || o.compress.value_or(false)) return true;
  if (!o.mapping && small_matrix_warp_per_row<Traits>(f.stats, concurrency)) return false;
  return short_rows_csr<Traits>(row_ptr, f, o, csr_bytes).empty();
}

/// Whether the host's SELL rule can fire for a matrix of csr_bytes with rows of `mean` entries
/// on average on `concurrency` threads (sell_bytes_per_thread a thread or more, rows of
/// sell_min_mean entries or more; never on a space without the rule). The rule was measured with
/// the thread-per-row slice kernel: a caller who forces team_per_row keeps CSR.
template <class Traits>
bool host_sell_rows(double mean, double csr_bytes, std::int64_t concurrency, const AnalyzeOptions& o) {
  return Traits::sell_bytes_per_thread > 0 && (!o.mapping || *o.mapping == Mapping::thread_per_row) &&
         csr_bytes >= static_cast<double>(Traits::sell_bytes_per_thread) * static_cast<double>(concurrency) &&
         mean >= Traits::sell_min_mean;
}

/// The column statistics that choose_format() and choose_compress() can consult for a matrix of
/// nrows rows, nnz entries and csr_bytes under `o` on `concurrency` threads: the narrow share
/// where the plan can be a SELL plan of compress_min_bytes or more with compression left to the
/// rule, the diagonal share over blocks of the plan's slice height where the diagonal rule can
/// fire (diagonal_min_bytes or more, neither compression nor a CSR format forced). No rule reads
/// the column spread (RowStats keeps -1; `pspmv info` computes it).
/// analyze() reads col_idx for them only where one is wanted (RowStats keeps -1 otherwise): on
/// host matrices below diagonal_min_bytes whose plan stays CSR, or with the format or
/// compression forced otherwise, the statistics are a pass over row_ptr alone.
template <class Traits, class Value>
FactsRequest column_facts_needed(const AnalyzeOptions& o, std::int64_t nrows, std::int64_t nnz,
                                 std::int64_t csr_bytes, std::int64_t concurrency) {
  FactsRequest want;
  const bool forced = o.format || o.keep_permuted || o.compress.value_or(false);
  const double mean = nrows > 0 ? static_cast<double>(static_cast<long double>(nnz) / nrows) : 0.0;
  const bool may_sell = o.format ? *o.format == Format::sell
                                 : o.keep_permuted || o.compress.value_or(false) || Traits::prefer_sell ||
                                       (!forced && host_sell_rows<Traits>(mean, static_cast<double>(csr_bytes), concurrency, o));
  // The diagonal-slice rule (choose_format on a host, choose_compress) can fire.
  const bool diagonal = !o.compress && (!o.format || *o.format == Format::sell) && csr_bytes >= Traits::diagonal_min_bytes;
  want.span = may_sell && !o.compress && csr_bytes >= Traits::compress_min_bytes;
  // The diagonal share over blocks of the slice height the plan would take (none for a height
  // that choose() will refuse).
  const int C = o.slice_height > 0 ? o.slice_height : Traits::template sell_slice_height<Value>();
  want.diagonal_block = diagonal && C >= 4 && C <= 64 && RowStats::span_block % C == 0 ? C : 0;
  return want;
}

/// The diagonal-slice rule: compression not forced either way, a CSR of diagonal_min_bytes or
/// more and a diagonal share (RowStats::diagonal_share, over blocks of the plan's slice height)
/// of diagonal_min_share or more. Returns
/// the reason's words where it holds, else nothing.
template <class Traits>
std::string diagonal_rows(const RowStats& s, const AnalyzeOptions& o, double csr_bytes) {
  if (o.compress || csr_bytes < static_cast<double>(Traits::diagonal_min_bytes) ||
      s.diagonal_share < Traits::diagonal_min_share)
    return {};
  return "diagonal share " + fixed(s.diagonal_share, 3) + " (blocks of " + std::to_string(s.diagonal_block) +
         " rows, each row the previous one's columns shifted by one) >= " +
         fixed(Traits::diagonal_min_share, 2) + ", CSR " +
         std::to_string(static_cast<std::int64_t>(csr_bytes) >> 20) + " MiB >= " +
         std::to_string(Traits::diagonal_min_bytes >> 20) + " MiB";
}

template <class Traits, class Offset>
std::string short_rows_csr(const Offset* row_ptr, const MatrixFacts& f, const AnalyzeOptions& o, double csr_bytes) {
  const RowStats& s = f.stats;
  if (!(Traits::csr_short_mean > 0) || s.nrows == 0 || s.mean >= Traits::csr_short_mean ||
      (Traits::sell_long_row > 0 && s.max_len > Traits::sell_long_row) ||
      (o.mapping && *o.mapping != Mapping::thread_per_row) || !diagonal_rows<Traits>(s, o, csr_bytes).empty())
    return {};
  if (!o.mapping && csr_team_wins<Traits>(csr_team_slots<Traits>(row_ptr, f), f.lane_slots)) return {};
  return "mean row " + truncated(s.mean) + " < " + fixed(Traits::csr_short_mean, 0) + ", longest " +
         std::to_string(s.max_len) + " <= " + std::to_string(Traits::sell_long_row) +
         ": short rows stay CSR a thread per row (SELL gains nothing there, and costs more analysis)";
}

/// The format rule: forced, keep_permuted, or SELL where this space prefers it (or the host's
/// SELL-rows or diagonal-slice rule) and its bytes stay within the memory limit.
template <class ExecSpace, class Value, class Offset>
Format choose_format(const ExecSpace& space, const HostCsr<Value, Offset>& A, const MatrixFacts& f,
                     const AnalyzeOptions& o, const SellParams& sp, SellShape& shape, SellOrder& order,
                     const KnownSell* known, Reason& reason) {
  using Traits = ExecTraits<ExecSpace>;
  const RowStats& s = f.stats;
  const double csr_bytes = static_cast<double>(A.bytes());
  const bool caller_limit = o.sell_memory_limit > 0;
  const double limit = caller_limit ? o.sell_memory_limit : Traits::sell_memory_limit;
  const auto shape_of = [&] {  // the sorted order is kept: the conversion takes it instead of sorting again
    check_sell_parameters(sp.C, sp.sigma);
    if (known && known->params == sp) {
      shape = known->shape;
      return;
    }
    if (A.row_ptr.data() == nullptr && A.nrows > 0)
      throw std::logic_error("pspmv: a SELL shape asked of a matrix whose row_ptr is not on the host");
    order = sell_order(A.row_ptr.data(), A.nrows, sp.sigma, sp.long_threshold, sp.long_split);
    shape = sell_shape_of(order, A.row_ptr.data(), A.nrows, sp.C);
  };
  // SELL if its bytes stay within `allowed` times the CSR bytes.
  const auto sell_within = [&](double allowed, const std::string& prefix, const std::string& why) {
    shape_of();
    const double ratio = static_cast<double>(shape.bytes(sizeof(Value), A.nrows)) / csr_bytes;
    const bool fits = ratio <= allowed;
    reason.add(Decision::format, prefix + "SELL-" + std::to_string(sp.C) + "-" + std::to_string(sp.sigma) + " would take " +
                             fixed(ratio, 3) + "x the CSR bytes (padding " + fixed(shape.padding, 3) + ") " +
                             (fits ? "<= " : "> ") + fixed(allowed, 2) + why + (fits ? ": SELL" : ": keeping CSR"));
    return fits ? Format::sell : Format::csr;
  };
  if (o.format) {
    if (o.keep_permuted && *o.format != Format::sell)
      throw InvalidArgument("keep_permuted needs a SELL plan (a CSR plan keeps the caller's row order); "
                            "set format = sell or leave it to analyze()");
    if (o.compress.value_or(false) && *o.format != Format::sell)
      throw InvalidArgument("compress needs a SELL plan (column offsets are per slice); "
                            "set format = sell or leave it to analyze()");
    reason.add(Decision::format, "format forced");
    if (*o.format == Format::sell) shape_of();
    return *o.format;
  }
  if (o.keep_permuted || o.compress.value_or(false)) {
    reason.add(Decision::format, o.keep_permuted ? "keep_permuted: SELL" : "compress: SELL");
    shape_of();
    return Format::sell;
  }
  if (o.block_row_weight || o.block_groups.value_or(false)) {
    reason.add(Decision::format, o.block_row_weight ? "block_row_weight: CSR" : "block_groups: CSR");
    return Format::csr;
  }
  if (Traits::prefer_sell && !o.mapping && small_matrix_warp_per_row<Traits>(s, space.concurrency())) {
    reason.add(Decision::format, "small matrix (ExecTraits::small_team_min_row): CSR");
    return Format::csr;
  }
  if (Traits::prefer_sell) {
    if (const std::string why = short_rows_csr<Traits>(A.row_ptr.data(), f, o, csr_bytes); !why.empty()) {
      reason.add(Decision::format, why);
      return Format::csr;
    }
    // Irregular rows: thread-per-row CSR would idle most lanes, so SELL may take more memory.
    const bool irregular = !caller_limit && f.lane_slots.useful_thread_per_row < Traits::irregular_useful_share;
    return sell_within(irregular ? std::max(limit, Traits::sell_memory_limit_irregular) : limit, "",
                       irregular ? " (irregular rows: thread-per-row CSR " +
                                       percent(f.lane_slots.useful_thread_per_row) + " useful lane-slots)"
                                 : std::string());
  }
  if (const std::string why = diagonal_rows<Traits>(s, o, csr_bytes); !why.empty())
    return sell_within(limit, why + ": ", "");
  // Whole KiB below a MiB (a small matrix would read "CSR 0 MiB"), whole MiB from there, both
  // truncated: the "<" they are compared by stays true as printed.
  const auto whole = static_cast<std::int64_t>(csr_bytes);
  const std::string bytes = "CSR " + (whole < (std::int64_t{1} << 20) ? std::to_string(whole >> 10) + " KiB"
                                                                      : std::to_string(whole >> 20) + " MiB");
  const std::string per_thread = std::to_string(Traits::sell_bytes_per_thread >> 20) + " MiB x " +
                                 std::to_string(space.concurrency()) + (space.concurrency() == 1 ? " thread" : " threads");
  if (host_sell_rows<Traits>(s.mean, csr_bytes, space.concurrency(), o))
    return sell_within(limit,
                       "mean row " + fixed(s.mean, 1) + " >= " + fixed(Traits::sell_min_mean, 0) + ", " + bytes +
                           " >= " + per_thread + ": ",
                       "");
  if (Traits::sell_bytes_per_thread > 0 && o.mapping && *o.mapping != Mapping::thread_per_row)
    reason.add(Decision::format, "host default: CSR (mapping " + to_string(*o.mapping) +
                                     " forced; the SELL rule is the thread-per-row slice kernel's)");
  else if (Traits::sell_bytes_per_thread > 0 && s.mean < Traits::sell_min_mean)
    reason.add(Decision::format, "host default: CSR (mean row " + truncated(s.mean) + " < " +
                                     fixed(Traits::sell_min_mean, 0) + ": short rows stay CSR)");
  else if (Traits::sell_bytes_per_thread > 0)
    reason.add(Decision::format, "host default: CSR (" + bytes + " < " + per_thread + ")");
  else
    reason.add(Decision::format, "host default: CSR");
  return Format::csr;
}

/// The compression rule of a SELL plan: forced; or the diagonal-slice rule (diagonal_rows); or
/// 16-bit column offsets when the CSR is large
/// enough to be bandwidth-bound (ExecTraits::compress_min_bytes), enough of its nonzeros lie in
/// row blocks of narrow column span (RowStats::narrow_share >= compress_min_share) and the
/// compressed plan, estimated from that share, stays within the CSR bytes.
template <class Traits, class Value>
bool choose_compress(const RowStats& s, const AnalyzeOptions& o, const SellShape& shape, std::int32_t nrows,
                     double csr_bytes, Reason& reason) {
  if (o.compress) {
    reason.add(Decision::format, *o.compress ? "compression forced: each slice diagonal, 16-bit offsets or 32-bit"
                                             : "compression off: 32-bit columns");
    return *o.compress;
  }
  if (const std::string why = diagonal_rows<Traits>(s, o, csr_bytes); !why.empty()) {
    reason.add(Decision::format, why + ": compressed columns (diagonal slices store none per entry)");
    return true;
  }
  if constexpr (Traits::compress_min_bytes == std::numeric_limits<std::int64_t>::max()) {
    (void)s, (void)shape, (void)nrows, (void)csr_bytes;
    reason.add(Decision::format, "no diagonal slices by the rule, and no 16-bit offsets on this space by default "
                                 "(ExecTraits::compress_min_bytes: never; measured slower): 32-bit columns");
    return false;
  } else {
    const auto mib = [](double b) { return std::to_string(static_cast<std::int64_t>(b) >> 20) + " MiB"; };
    if (csr_bytes < static_cast<double>(Traits::compress_min_bytes) || s.narrow_share < 0) {
      reason.add(Decision::format, "CSR " + mib(csr_bytes) + " < " + mib(static_cast<double>(Traits::compress_min_bytes)) +
                                       " (ExecTraits::compress_min_bytes): 32-bit columns");
      return false;
    }
    const std::string share = "narrow column span share " + fixed(s.narrow_share, 3);
    if (s.narrow_share < Traits::compress_min_share) {
      reason.add(Decision::format, share + " < " + fixed(Traits::compress_min_share, 2) + ": 32-bit columns");
      return false;
    }
    const double saved = 2.0 * static_cast<double>(shape.stored) * s.narrow_share,
                 added = 12.0 * static_cast<double>(shape.nslices);
    const double ratio = (static_cast<double>(shape.bytes(sizeof(Value), nrows)) - saved + added) / csr_bytes;
    const bool fits = ratio <= 1.0;
    reason.add(Decision::format, share + " >= " + fixed(Traits::compress_min_share, 2) + ", CSR " + mib(csr_bytes) +
                                     " >= " + mib(static_cast<double>(Traits::compress_min_bytes)) +
                                     ", compressed SELL about " + fixed(ratio, 3) + "x the CSR bytes" +
                                     (fits ? ": 16-bit column offsets" : " > 1: 32-bit columns"));
    return fits;
  }
}

/// The mapping rule (the lane-slot model on a GPU; thread_per_row on a host and for SELL).
template <class Traits, class Offset>
Mapping choose_mapping(const Offset* row_ptr, const MatrixFacts& f, const AnalyzeOptions& o, bool sell,
                       bool small_team, std::int64_t concurrency, Reason& reason) {
  const RowStats& s = f.stats;
  const LaneSlots& ls = f.lane_slots;
  if (o.mapping) {
    reason.add(Decision::mapping, "mapping forced");
    return *o.mapping;
  }
  if (o.block_groups.value_or(false)) {
    reason.add(Decision::mapping, "block_groups: thread_per_row (rows in masked groups)");
    return Mapping::thread_per_row;
  }
  if (small_team) {
    reason.add(Decision::mapping, "small matrix: " + std::to_string(s.nrows) + " rows x " +
                              std::to_string(Traits::model_lane_width) + " lanes <= concurrency " +
                              std::to_string(concurrency) + ", longest row " + std::to_string(s.max_len) +
                              ": team_per_row, a warp per row");
    return Mapping::team_per_row;
  }
  if (sell) {
    reason.add(Decision::mapping, Traits::sell_slice_columns
                                      ? "SELL: a thread per slice, its C rows in SIMD lanes column by column (ESB)"
                                      : "SELL: row per thread (lane r of a slice holds row r)");
    return Mapping::thread_per_row;
  }
  if (!Traits::is_gpu) {
    reason.add(Decision::mapping, std::string("host: thread_per_row (a host team is one thread; its vector lanes are "
                                              "partial sums") +
                                      (Traits::masked_rows ? "; each row in masked SIMD groups of 8 entries)" : ")"));
    return Mapping::thread_per_row;
  }
  // Fewer lane-slots means fewer idle lanes per useful multiply-add; team-per-row, at its best
  // vector length, must save a factor ExecTraits::team_slot_advantage.
  const std::int64_t team = csr_team_slots<Traits>(row_ptr, f);
  reason.add(Decision::mapping, "lane-slots at width " + std::to_string(ls.lane_width) + ": thread_per_row " +
                            std::to_string(ls.thread_per_row) + " (" + percent(ls.useful_thread_per_row) +
                            " useful), team_per_row at its best vector length " + std::to_string(team) + " (" +
                            percent(team > 0 ? static_cast<double>(s.nnz) / static_cast<double>(team) : 1.0) +
                            " useful)");
  return csr_team_wins<Traits>(team, ls) ? Mapping::team_per_row : Mapping::thread_per_row;
}

/// The schedule rule: static on a GPU; on a host serial for matrices that fit a core's cache
/// (unless the caller asked for more than one thread), work stealing for large matrices (1 MiB of
/// CSR per thread of the instance), else nnz-balanced (static on one thread).
template <class Traits, class Value, class Offset, class Vector = Value>
Schedule choose_schedule(const RowStats& s, std::int64_t ncols, Mapping mapping,
                         const AnalyzeOptions& o, std::int64_t concurrency, Reason& reason) {
  if (o.schedule) {
    if (!schedule_runs(*o.schedule, mapping, Traits::is_gpu))
      throw InvalidArgument(Traits::is_gpu ? "schedule serial runs on a host execution space only"
                                           : "schedule serial runs thread_per_row only (a host team needs a "
                                             "parallel launch); got mapping " + to_string(mapping));
    reason.add(Decision::schedule, "schedule forced");
    return *o.schedule;
  }
  if (o.block_row_weight || o.block_groups.value_or(false)) {
    reason.add(Decision::schedule, o.block_row_weight ? "block_row_weight: nnz_balanced" : "block_groups: nnz_balanced");
    return Schedule::nnz_balanced;
  }
  if (Traits::is_gpu) {
    reason.add(Decision::schedule, "GPU: static_chunks (the hardware schedules blocks; a balanced block per thread "
                           "would serialize its rows)");
    return Schedule::static_chunks;
  }
  const std::int64_t bytes = csr_bytes_of<Value, Offset>(s);
  const std::int64_t touched = bytes + (s.nrows + ncols) * static_cast<std::int64_t>(sizeof(Vector));
  if (mapping == Mapping::thread_per_row && touched <= Traits::serial_max_bytes && o.threads <= 1) {
    reason.add(Decision::schedule, "CSR and vectors " + std::to_string(touched >> 10) + " KiB <= " +
                                       std::to_string(Traits::serial_max_bytes >> 10) +
                                       " KiB: serial (the calling thread; a parallel launch costs more)");
    return Schedule::serial;
  }
  if (Traits::stealing_bytes_per_thread > 0 && bytes >= Traits::stealing_bytes_per_thread * concurrency) {
    reason.add(Decision::schedule, "CSR " + std::to_string(bytes >> 20) + " MiB >= " +
                               std::to_string(Traits::stealing_bytes_per_thread >> 20) + " MiB x " +
                               std::to_string(concurrency) + " threads: work_stealing");
    return Schedule::work_stealing;
  }
  // The threads that will run the rows: the caller's count, or the instance's.
  const std::int64_t threads = o.threads > 0 ? o.threads : concurrency;
  if (threads <= 1) {
    reason.add(Decision::schedule, "one thread: static_chunks (nothing to balance)");
    return Schedule::static_chunks;
  }
  // One block of nearly equal nonzeros per thread: a static split of the rows at best, and
  // faster wherever row lengths vary (docs/selection.md).
  reason.add(Decision::schedule, "CSR " + std::to_string(bytes >> 10) + " KiB < " +
                                     std::to_string(Traits::stealing_bytes_per_thread >> 20) + " MiB x " +
                                     std::to_string(concurrency) +
                                     " threads: nnz_balanced (a block of nearly equal nonzeros per thread)");
  return Schedule::nnz_balanced;
}

/// The threads of a host multiply: the caller's, or all of the instance's (fewer gain nothing
/// under a region of the whole team: docs/selection.md). 1 for the serial schedule; 0 on a GPU.
/// @throws InvalidArgument for threads on a GPU, beyond the instance's concurrency, with a team
///         mapping below the concurrency, or above 1 with the serial schedule.
template <class Traits>
int choose_threads(Mapping mapping, Schedule schedule, const AnalyzeOptions& o, std::int64_t concurrency,
                   Reason& reason) {
  if (Traits::is_gpu) {
    if (o.threads > 0) throw InvalidArgument("AnalyzeOptions::threads applies to a host execution space only");
    return 0;
  }
  if (o.threads > concurrency)
    throw InvalidArgument("AnalyzeOptions::threads " + std::to_string(o.threads) + " exceeds the concurrency " +
                          std::to_string(concurrency) + " of the execution space");
  if (schedule == Schedule::serial) {
    if (o.threads > 1)
      throw InvalidArgument("schedule serial runs on the calling thread; got threads " + std::to_string(o.threads));
    return 1;
  }
  if (mapping == Mapping::team_per_row) {
    if (o.threads > 0 && o.threads < concurrency)
      throw InvalidArgument("threads " + std::to_string(o.threads) +
                            " below the concurrency needs thread_per_row (team_per_row launches Kokkos teams on "
                            "every thread)");
    return static_cast<int>(concurrency);
  }
  if (o.threads > 0) {
    reason.add(Decision::schedule, "threads forced: " + std::to_string(o.threads));
    return o.threads;
  }
  return static_cast<int>(concurrency);
}

/// The largest team Kokkos can launch for the functor; a caller's request beyond it is an
/// error here, not a Kokkos::abort inside multiply().
template <class ExecSpace, class Functor, class... Tag>
int clamp_team(const ExecSpace& space, int team_size, int vector_length, bool caller_set) {
  const int max_team = Kokkos::TeamPolicy<ExecSpace, Tag...>(space, 1, 1, vector_length)
                           .team_size_max(Functor{}, Kokkos::ParallelForTag());
  if (team_size <= max_team) return team_size;
  if (caller_set)
    throw InvalidArgument("team_size " + std::to_string(team_size) + " exceeds the maximum " +
                          std::to_string(max_team) + " of " + space.name() + " at vector_length " +
                          std::to_string(vector_length));
  return std::max(1, max_team);
}

}  // namespace detail

/// Decides a plan for A (validated host CSR with facts `f`) on the execution-space instance
/// `space`: format, mapping, schedule and launch sizes; each decision the caller left open
/// is taken from ExecTraits' named thresholds, each one set is honoured or rejected.
/// @throws InvalidArgument for options out of range (sizes < 0, SELL C not in
///         {4, 8, 16, 32, 64}, a vector length that is not a power of two or exceeds a warp,
///         a team beyond the space's limit, keep_permuted with a CSR format or split rows).
/// With `order` given, the sorted order of A's rows computed for a SELL shape is moved there
/// (empty when none was computed), so that the conversion does not sort again; with `known`,
/// a shape of A known for its parameters is taken instead of sorting.
/// Vector: the type of x, y and the sums (A's value type, or double under a float A: a
/// mixed-precision plan): SIMD widths and the vectors' bytes are counted in it.
template <class ExecSpace, class Value, class Offset, class Vector = Value>
PlanChoice choose(const ExecSpace& space, const HostCsr<Value, Offset>& A, const MatrixFacts& f,
                  const AnalyzeOptions& o, detail::SellOrder* order = nullptr,
                  const detail::KnownSell* known = nullptr) {
  using Traits = ExecTraits<ExecSpace>;
  using V = Vector;
  if (o.deterministic) {  // docs/design.md, Determinism
    if (o.mapping && *o.mapping != Mapping::thread_per_row)
      throw InvalidArgument("AnalyzeOptions: deterministic needs mapping thread_per_row (a team_per_row row is "
                            "summed by lanes whose number the plan chooses), got " + to_string(*o.mapping));
    if (o.sell_long_row > 0)
      throw InvalidArgument("AnalyzeOptions: deterministic keeps long rows in the slices; got sell_long_row = " +
                            std::to_string(o.sell_long_row));
    if (o.sell_long_split.value_or(false))
      throw InvalidArgument("AnalyzeOptions: deterministic keeps long rows in the slices; got sell_long_split = true");
    PlanChoice c = choose<ExecSpace, Value, Offset, Vector>(space, A, f, detail::deterministic_options(o), order, known);
    c.reason.add(Decision::mapping, "deterministic: thread_per_row, long rows kept in the slices (each row summed "
                                    "by one thread, in an order fixed by the build and the row's length)");
    return c;
  }
  if (o.chunk_size < 0 || o.target_chunks < 0 || o.team_size < 0 || o.vector_length < 0 || o.rows_per_team < 0 ||
      o.num_blocks < 0 || o.threads < 0)
    throw InvalidArgument("AnalyzeOptions: sizes must be >= 0 (0 = choose)");
  PlanChoice c;
  LaunchParams& p = c.launch;
  const RowStats& s = f.stats;
  const Offset* row_ptr = A.row_ptr.data();
  const std::int64_t nrows = s.nrows, concurrency = space.concurrency();
  const detail::SellParams sp = detail::sell_params<Traits, V>(o, A.nrows);
  SellShape shape;
  detail::SellOrder sell_order;
  c.format = detail::choose_format(space, A, f, o, sp, shape, sell_order, known, c.reason);
  const bool sell = c.format == Format::sell;
  if (order) *order = sell ? std::move(sell_order) : detail::SellOrder{};
  if (sell) check_sell_parameters(sp.C, sp.sigma);
  const bool small_team = !sell && small_matrix_warp_per_row<Traits>(s, concurrency);
  c.mapping = detail::choose_mapping<Traits>(row_ptr, f, o, sell, small_team, concurrency, c.reason);
  c.schedule = detail::choose_schedule<Traits, Value, Offset, V>(s, A.ncols, c.mapping, o, concurrency, c.reason);
  const bool team = c.mapping == Mapping::team_per_row;

  // Launch sizes.
  p.concurrency = static_cast<int>(concurrency);
  const std::int64_t target = o.target_chunks > 0 ? o.target_chunks : Traits::target_chunks;
  p.chunk_rows = o.chunk_size > 0 ? o.chunk_size : std::max<std::int64_t>(1, (nrows + target - 1) / target);
  p.team_size = o.team_size > 0 ? o.team_size : Traits::team_size;
  p.vector_length = o.vector_length > 0 ? o.vector_length : Traits::template simd_lanes<V>();
  if (Traits::is_gpu && o.vector_length == 0 && team && !sell) {
    // The vector length whose warps waste the fewest lane-slots (a full warp under the
    // small-matrix rule), and teams of 128 threads (4 warps) unless the caller set team_size.
    p.vector_length = small_team && !o.mapping
                          ? Traits::template simd_lanes<V>()
                          : best_vector_length<Traits>(row_ptr, nrows, f.lane_slots);
    if (o.team_size == 0) p.team_size = std::max(1, 128 / p.vector_length);
  }
  if (sell) {
    p.slice_height = sp.C;
    p.chunk_rows = (p.chunk_rows + sp.C - 1) / sp.C * sp.C;  // chunks of whole slices
    if (o.vector_length == 0 && Traits::is_gpu) p.vector_length = std::min(sp.C, 32);
  }
  if (!detail::is_power_of_two(p.vector_length))
    throw InvalidArgument("vector_length must be a power of two, got " + std::to_string(p.vector_length));
  if (Traits::is_gpu && p.vector_length > 32)
    throw InvalidArgument("vector_length must be at most 32 (a warp) on a GPU, got " +
                          std::to_string(p.vector_length));
  if (Traits::is_gpu && p.team_size * p.vector_length > 1024)
    throw InvalidArgument("team_size * vector_length = " + std::to_string(p.team_size * p.vector_length) +
                          " exceeds 1024 threads per CUDA block");
  // SELL positions: the rows plus the pieces of split long rows, in slices of C.
  const std::int64_t nslices = sell ? shape.nslices : 0;
  if (sell && team) {
    p.slices_per_team = static_cast<std::int32_t>(
        o.rows_per_team > 0 ? std::max<std::int64_t>(1, o.rows_per_team / sp.C)
                            : (Traits::is_gpu ? p.team_size : std::max<std::int64_t>(1, p.chunk_rows / sp.C)));
    p.rows_per_team = p.slices_per_team * sp.C;
    p.league_size = (nslices + p.slices_per_team - 1) / p.slices_per_team;
    p.chunk_size = 1;
  } else if (team) {
    p.rows_per_team = static_cast<std::int32_t>(
        o.rows_per_team > 0 ? o.rows_per_team
                            : (Traits::is_gpu ? p.team_size : std::min<std::int64_t>(p.chunk_rows, INT32_MAX)));
    p.league_size = (nrows + p.rows_per_team - 1) / p.rows_per_team;
    p.chunk_size = std::max<std::int64_t>(1, p.chunk_rows / p.rows_per_team);
  } else if (sell && Traits::sell_slice_columns) {
    p.slice_columns = true;
    p.rows_per_team = 1;
    p.chunk_size = std::max<std::int64_t>(1, p.chunk_rows / sp.C);  // whole slices
  } else {
    p.rows_per_team = 1;
    p.chunk_size = p.chunk_rows;
    p.masked_rows = Traits::masked_rows;  // rows in masked SIMD groups (docs/selection.md)
  }
  p.chunk_size = std::min<std::int64_t>(p.chunk_size, INT32_MAX);
  p.threads = detail::choose_threads<Traits>(c.mapping, c.schedule, o, concurrency, c.reason);
  const std::int64_t lanes_per_team = static_cast<std::int64_t>(p.team_size) * p.vector_length;
  p.num_blocks = o.num_blocks > 0 ? o.num_blocks
                                  : (Traits::is_gpu ? (team ? std::max<std::int64_t>(1, concurrency / lanes_per_team)
                                                            : concurrency)
                                                    : p.threads);
  if (sell && c.schedule == Schedule::nnz_balanced)  // blocks of whole slices
    p.num_blocks = std::max<std::int64_t>(1, std::min<std::int64_t>(p.num_blocks, nslices));
  if (o.block_row_weight) {
    if (sell || c.schedule != Schedule::nnz_balanced)
      throw InvalidArgument("AnalyzeOptions::block_row_weight weighs the rows of a CSR plan's nnz_balanced blocks; "
                            "this plan is " + to_string(c.format) + " under " + to_string(c.schedule) +
                            " (leave format and schedule to analyze(), set them to csr and nnz_balanced, or leave "
                            "the weight unset)");
    if (*o.block_row_weight < 0 || *o.block_row_weight > (std::int64_t{1} << 20))
      throw InvalidArgument("AnalyzeOptions::block_row_weight must be 0 to 2^20 entries a row, got " +
                            std::to_string(*o.block_row_weight));
    p.block_row_weight = *o.block_row_weight;
  }
  // Rows in masked groups cost groups, not entries: their blocks hold nearly equal groups unless
  // block_groups is false or a row weight is set (docs/selection.md, "Blocks of masked groups").
  const bool group_rows = !sell && c.schedule == Schedule::nnz_balanced && p.masked_rows;
  if (o.block_groups && *o.block_groups) {
    if (o.block_row_weight)
      throw InvalidArgument("AnalyzeOptions::block_groups and block_row_weight are two costs of a block; set one");
    if (!Traits::masked_rows)
      throw InvalidArgument("AnalyzeOptions::block_groups weighs rows summed in masked SIMD groups, which this "
                            "build does not have on " + std::string(space.name()) +
                            " (ExecTraits::masked_rows: a host build with AVX-512 gathers); leave it unset");
    if (!group_rows)
      throw InvalidArgument("AnalyzeOptions::block_groups weighs the rows of a CSR thread_per_row plan's "
                            "nnz_balanced blocks; this plan is " + to_string(c.format) + " " +
                            to_string(c.mapping) + " under " + to_string(c.schedule) +
                            " (set format csr, mapping thread_per_row and schedule nnz_balanced, or leave it unset)");
  }
  p.block_groups = group_rows && !o.block_row_weight && o.block_groups.value_or(true);
  if (p.block_groups)
    c.reason.add(Decision::schedule, "rows in masked groups of " + std::to_string(host_masked_group) +
                                         ": blocks of nearly equal groups (a row ceil(len / " +
                                         std::to_string(host_masked_group) + ") + 1), not of entries");
  if (c.schedule == Schedule::nnz_balanced && team) p.league_size = p.num_blocks;
  if (team)
    p.team_size =
        sell ? detail::clamp_team<ExecSpace,
                                  detail::SellSlicePerTeam<ExecSpace, V, Traits::gather_unroll, false, Value>,
                                  detail::RowsTag>(space, p.team_size, p.vector_length, o.team_size > 0)
             : detail::clamp_team<ExecSpace,
                                  detail::CsrTeamPerRow<ExecSpace, V, Offset, Traits::gather_unroll, false, Value>,
                                  detail::RowsTag>(space, p.team_size, p.vector_length, o.team_size > 0);
  if (sell) {
    c.keep_permuted = o.keep_permuted;
    p.sigma = sp.sigma;
    p.long_row_threshold = sp.long_threshold;
    p.long_rows = shape.long_rows;
    p.long_split = sp.long_split;
    p.long_pieces = shape.pieces;
    p.compressed = detail::choose_compress<Traits, Value>(s, o, shape, A.nrows, static_cast<double>(A.bytes()),
                                                          c.reason);
    if (p.long_rows > 0 && !p.long_split) {
      // One long row per team thread, its lanes sharing the row: warp-per-row on a GPU.
      p.long_vector_length = Traits::is_gpu ? 32 : Traits::template simd_lanes<V>();
      p.long_team_size = detail::clamp_team<ExecSpace, detail::SellLongRows<ExecSpace, V, Traits::long_row_unroll, false, Value>>(
          space, Traits::long_row_warps, p.long_vector_length, false);
    }
  }
  return c;
}

}  // namespace pspmv
