#pragma once
/// @file row_stats.hpp
/// Row-length statistics and the lane-slot model, computed on the host from row_ptr, in
/// parallel over pieces of rows (matrix/host_parallel.hpp).
///
/// Lane-slot model (the lesson's measure of SIMT waste): a lane-slot is one lane of one
/// W-wide group (a warp, W = 32 on NVIDIA GPUs) on one loop iteration, whether or not
/// that lane has a nonzero to process. Useful share = nnz / lane-slots.
///  - thread-per-row: rows go to lanes in aligned groups of W consecutive rows; a group
///    runs as many iterations as its longest row: slots = sum over groups of W * max length.
///  - team-per-row (warp-per-row): the W lanes of a group share one row:
///    slots = sum over rows of W * ceil(length / W); an empty row still costs nothing here.
///  - SELL-C-sigma with C = W is thread-per-row over rows sorted within windows of sigma.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "pspmv/errors.hpp"
#include "pspmv/matrix/host_parallel.hpp"

namespace pspmv {

/// Lane-slots of the two CSR mappings at one lane width.
struct LaneSlots {
  int lane_width = 32;
  std::int64_t thread_per_row = 0;  ///< sum over W-row groups of W * longest row
  std::int64_t team_per_row = 0;    ///< sum over rows of W * ceil(len / W)
  double useful_thread_per_row = 0;  ///< nnz / thread_per_row (1 when no slots)
  double useful_team_per_row = 0;    ///< nnz / team_per_row (1 when no slots)
  /// team_lane_slots() at vector lengths 2, 4, 8, 16 and 32 (entry e: 2^(e + 1); lengths above
  /// lane_width hold 0), counted by the statistics pass where `vector_slots` is set (GPU plans:
  /// the team-per-row rule then needs no pass of its own over row_ptr).
  std::int64_t team_at_vector[5] = {0, 0, 0, 0, 0};
  bool vector_slots = false;
};

namespace detail {
/// One row's terms of LaneSlots::team_at_vector: row r (0-based in its aligned group of W rows,
/// W a power of two) of `len` entries; `last`: the matrix's last row. The warp of W / V rows
/// that the row closes adds W times its longest row's ceil(len / V); `longest` holds the open
/// warps' maxima. The statistics passes on the host and on an execution space both call it.
KOKKOS_INLINE_FUNCTION void add_vector_slots(const std::int64_t r, const std::int64_t len, const bool last,
                                             const std::int64_t W, std::int64_t* longest, std::int64_t* slots) {
  for (int e = 0; e < 5; ++e) {
    const std::int64_t V = std::int64_t{2} << e;
    if (V > W) break;
    const std::int64_t iters = (len + V - 1) >> (e + 1);
    longest[e] = iters > longest[e] ? iters : longest[e];
    if (last || ((r + 1) & (W / V - 1)) == 0) {
      slots[e] += W * longest[e];
      longest[e] = 0;
    }
  }
}
}  // namespace detail

/// Statistics of the row lengths of a CSR matrix.
struct RowStats {
  std::int64_t nrows = 0, ncols = 0, nnz = 0;
  std::int64_t min_len = 0, max_len = 0;
  double mean = 0, stddev = 0;
  double cv = 0;  ///< coefficient of variation stddev / mean (0 when mean is 0)
  std::int64_t empty_rows = 0;
  /// histogram[0] counts empty rows; histogram[b] for b >= 1 counts lengths in
  /// [2^(b-1), 2^b), so lengths 1 | 2-3 | 4-7 | 8-15 ...
  std::vector<std::int64_t> histogram;
  /// Mean over the nonzeros of |col / ncols - row / nrows|: 0 on the diagonal, a few
  /// thousandths for banded, stencil and block-diagonal matrices, about 1/3 when columns are
  /// uniformly random (each x access then lands anywhere in x). Set by column_spread() and
  /// by matrix_facts() with_spread (`pspmv info`; no rule of analyze() reads it); -1 when not
  /// computed.
  double col_spread = -1;
  /// Share of the nonzeros that lie in aligned blocks of span_block rows whose columns span
  /// fewer than 65,536 (max - min): the slices SELL-C-sigma forms inside such a block (any C,
  /// sigma <= span_block) store 16-bit column offsets (SellMatrix::compressed). Computed in
  /// the row-statistics pass when compute_row_stats() is given the columns; -1 when not.
  double narrow_share = -1;
  /// Share of the nonzeros in aligned blocks of diagonal_block rows whose rows after the first
  /// each repeat the previous row's columns shifted by one (the same length, at least 1; entry j
  /// at the previous row's column j plus 1): the nonzeros that a compressed SELL plan of slice
  /// height C = diagonal_block, unsorted, holds in diagonal slices (SellMatrix: no column stored
  /// per entry). A stencil on a grid or a band, away from its edges. Computed in the pass of
  /// narrow_share where a block height is asked for (compute_row_stats with col_idx and a block,
  /// matrix_facts); -1 when not.
  double diagonal_share = -1;
  std::int64_t diagonal_block = 0;  ///< rows per block of diagonal_share (0: not computed)
  /// Rows per aligned block of narrow_share (a multiple of every SELL C, at least any sigma it covers).
  static constexpr std::int64_t span_block = 1024;
  /// Label of bucket b of the histogram, e.g. "0", "1", "2-3", "4-7".
  static std::string bucket_label(std::size_t b);
};

/// What analyze() measures of a matrix before it chooses: row statistics (column spread
/// included where a rule uses it) and the lane-slot model at ExecTraits::model_lane_width.
struct MatrixFacts {
  RowStats stats;
  LaneSlots lane_slots;
};

namespace detail {
/// Sum over k in [begin, end) of |col_idx[k] * cn - r| (one row's term of
/// RowStats::col_spread). A row of 16 or more entries: 8 partial sums over its whole groups of
/// 8 entries (entry k to partial (k - begin) % 8), added pairwise, then the last entries' own
/// sum; a shorter row: one sum in order. The order depends on the row alone (not on the thread
/// count). On one core of the 2-core EPYC (standalone loops over 33.5M entries), one chain took
/// 1.8x the time of the 8 partial sums on rows of 16 entries; on random rows of 0-16 entries,
/// the 8 partial sums on every row took 1.3x the time of this form (the statistics pass with
/// the spread alone, 2 threads).
inline double row_spread(const std::int32_t* col_idx, std::int64_t begin, std::int64_t end, double cn, double r) {
  if (end - begin < 16) {
    double sum = 0;
    for (std::int64_t k = begin; k < end; ++k) sum += std::fabs(static_cast<double>(col_idx[k]) * cn - r);
    return sum;
  }
  double p[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::int64_t k = begin;
  for (; k + 8 <= end; k += 8)
    for (int u = 0; u < 8; ++u) p[u] += std::fabs(static_cast<double>(col_idx[k + u]) * cn - r);
  double tail = 0;
  for (; k < end; ++k) tail += std::fabs(static_cast<double>(col_idx[k]) * cn - r);
  return (((p[0] + p[1]) + (p[2] + p[3])) + ((p[4] + p[5]) + (p[6] + p[7]))) + tail;
}

/// Bits of len (0 for 0): the histogram bucket of a row of len entries.
inline std::size_t length_bucket(std::int64_t len) {
  return len > 0 ? static_cast<std::size_t>(64 - __builtin_clzll(static_cast<unsigned long long>(len))) : 0;
}

/// Entry k of an array from a pointer, callable on the host and in a kernel (the host pass's
/// row_ptr and col for shifted_entries; gather_dot's values and columns of one slice's row).
template <class T>
struct PointerAt {
  const T* p;
  KOKKOS_INLINE_FUNCTION T operator()(const std::int64_t k) const { return p[k]; }
};

/// Entries of row i (> 0) if it repeats row i - 1's columns shifted by one (RowStats::
/// diagonal_share), else 0. row_ptr(k) and col(k) read the CSR (pointers or Views, host or device).
template <class RowPtr, class Col>
KOKKOS_INLINE_FUNCTION std::int64_t shifted_entries(const RowPtr& row_ptr, const Col& col, const std::int64_t i) {
  const std::int64_t b = static_cast<std::int64_t>(row_ptr(i)), e = static_cast<std::int64_t>(row_ptr(i + 1)),
                     pb = static_cast<std::int64_t>(row_ptr(i - 1));
  if (e == b || e - b != b - pb) return 0;
  for (std::int64_t k = 0; k < e - b; ++k)
    if (col(b + k) != col(pb + k) + 1) return 0;
  return e - b;
}

/// Entries of the aligned block of D rows starting at row b if its rows after the first each
/// repeat the previous row shifted by one (RowStats::diagonal_share), else 0; the caller keeps
/// b + D <= nrows.
template <class RowPtr, class Col>
KOKKOS_INLINE_FUNCTION std::int64_t diagonal_block_entries(const RowPtr& row_ptr, const Col& col, const std::int64_t b,
                                                           const std::int64_t D) {
  for (std::int64_t i = b + 1; i < b + D; ++i)
    if (shifted_entries(row_ptr, col, i) == 0) return 0;
  return static_cast<std::int64_t>(row_ptr(b + D)) - static_cast<std::int64_t>(row_ptr(b));
}

/// The statistics pass's sums over one piece of rows: integers (exact in any order) except
/// the column-spread sum, which is kept per piece and added in piece order.
struct FactsPart {
  std::int64_t min_len = INT64_MAX, max_len = 0, empty = 0, narrow = 0, diagonal = 0, sum = 0;
  /// sum of len^2 over rows of fewer than 2^31 entries, in two 32-bit halves of each term
  /// (len^2 < 2^62; a piece of 2^16 rows keeps either half's sum below 2^48): exact without
  /// 128-bit integers. Longer rows (64-bit offsets) go to sum2_long: exact for rows of fewer
  /// than 2^32 entries (len^2 < 2^64), rounded beyond.
  std::uint64_t sum2_lo = 0, sum2_hi = 0;
  long double sum2_long = 0;
  std::int64_t thread_slots = 0, team_slots = 0;
  std::int64_t vector_slots[5] = {0, 0, 0, 0, 0};  ///< LaneSlots::team_at_vector's sums
  long double spread = 0;
  std::int64_t histogram[64] = {};
  std::size_t buckets = 0;
};

/// What the statistics pass computes: RowStats always; lane slots at lane_width when it divides
/// host_piece (a lane group never straddles two pieces; else lane_slots holds no counts, and
/// matrix_facts() computes them apart);
/// RowStats::narrow_share with `span`, diagonal_share with a diagonal_block, RowStats::col_spread
/// with `spread` (each reads col_idx; the diagonal test stops at a block's first row that is not
/// its predecessor shifted, so on most matrices it reads two rows of each block).
struct FactsRequest {
  int lane_width = 0;  ///< 0: no lane slots
  bool vector_slots = false;  ///< LaneSlots::team_at_vector too (a lane width that is a power of two)
  bool span = false, spread = false;
  int diagonal_block = 0;  ///< RowStats::diagonal_share over blocks of this many rows (0: not; reads col_idx)
};

/// The row-length sums of a whole matrix, from which finish_facts() derives RowStats and the
/// lane-slot counts: integers, and the sum of squared lengths, exact in a long double (its
/// 64-bit mantissa) while below 2^64. The host pass and the pass on an execution space
/// (row_stats_on.hpp) both end here, so that they give the same statistics.
struct FactsTotals {
  std::int64_t min_len = INT64_MAX, max_len = 0, empty = 0, sum = 0, thread_slots = 0, team_slots = 0;
  std::int64_t vector_slots[5] = {0, 0, 0, 0, 0};
  bool has_vector_slots = false;
  long double sum2 = 0;
  std::vector<std::int64_t> histogram;  ///< up to the last non-empty bucket
};

/// f's RowStats (nrows, ncols and nnz already set, nrows > 0) and, with `slots`, its lane
/// slots and their useful shares, from the totals t.
inline void finish_facts(MatrixFacts& f, const FactsTotals& t, bool slots) {
  RowStats& s = f.stats;
  s.min_len = t.min_len;
  s.max_len = t.max_len;
  s.empty_rows = t.empty;
  s.histogram = t.histogram;
  const long double mean = static_cast<long double>(t.sum) / s.nrows;
  s.mean = static_cast<double>(mean);
  const long double var = t.sum2 / s.nrows - mean * mean;
  s.stddev = var > 0 ? std::sqrt(static_cast<double>(var)) : 0.0;
  s.cv = s.mean > 0 ? s.stddev / s.mean : 0.0;
  if (!slots) return;
  auto& ls = f.lane_slots;
  ls.thread_per_row = t.thread_slots;
  ls.team_per_row = t.team_slots;
  const double nnz = static_cast<double>(s.nnz);
  ls.useful_thread_per_row = ls.thread_per_row ? nnz / static_cast<double>(ls.thread_per_row) : 1.0;
  ls.useful_team_per_row = ls.team_per_row ? nnz / static_cast<double>(ls.team_per_row) : 1.0;
  ls.vector_slots = t.has_vector_slots;
  for (int e = 0; e < 5; ++e) ls.team_at_vector[e] = t.has_vector_slots ? t.vector_slots[e] : 0;
}

/// One parallel pass over pieces of detail::host_piece rows: row_ptr once, and col_idx block by
/// block of RowStats::span_block rows for narrow_share and col_spread together (the spread
/// loop reads a block's columns just after its min/max loop did). The column spread: each row
/// by row_spread, the rows of a block summed in order in a double, the blocks of a piece in
/// order in a long double, the pieces in order. Results do not depend on the thread count.
template <class Offset>
MatrixFacts facts_pass(const Offset* row_ptr, const std::int32_t* col_idx, std::int64_t nrows, std::int64_t ncols,
                       const FactsRequest& want) {
  static_assert(host_piece % RowStats::span_block == 0, "a piece holds whole span blocks");
  MatrixFacts f;
  RowStats& s = f.stats;
  s.nrows = nrows;
  s.ncols = ncols;
  s.nnz = nrows > 0 ? static_cast<std::int64_t>(row_ptr[nrows]) : 0;
  const std::int64_t W = want.lane_width > 0 && host_piece % want.lane_width == 0 ? want.lane_width : 0;
  const bool vector_slots = want.vector_slots && W > 0 && (W & (W - 1)) == 0;
  f.lane_slots.lane_width = want.lane_width > 0 ? want.lane_width : f.lane_slots.lane_width;
  const bool spread = want.spread && ncols > 0 && s.nnz > 0;
  if (want.diagonal_block < 0 || (want.diagonal_block > 0 && RowStats::span_block % want.diagonal_block != 0))
    throw InvalidArgument("row statistics: diagonal block of " + std::to_string(want.diagonal_block) +
                          " rows (must divide " + std::to_string(RowStats::span_block) + ")");
  const std::int64_t D = want.diagonal_block;
  if (nrows == 0) {
    if (want.spread) s.col_spread = 0.0;
    f.lane_slots.useful_thread_per_row = f.lane_slots.useful_team_per_row = 1.0;
    return f;
  }
  const double rn = 1.0 / static_cast<double>(nrows), cn = ncols > 0 ? 1.0 / static_cast<double>(ncols) : 0.0;
  std::vector<FactsPart> parts(static_cast<std::size_t>(pieces_of(nrows)));
  for_pieces("pspmv::row_stats", nrows, host_piece, [&](std::int64_t piece, std::int64_t begin, std::int64_t end) {
    FactsPart p;
    const std::int64_t group = W > 0 ? W : end - begin;
    for (std::int64_t g = begin; g < end; g += group) {
      const std::int64_t ge = std::min(end, g + group);
      std::int64_t longest = 0, vector_longest[5] = {0, 0, 0, 0, 0};
      for (std::int64_t i = g; i < ge; ++i) {
        const std::int64_t len = static_cast<std::int64_t>(row_ptr[i + 1] - row_ptr[i]);
        p.min_len = len < p.min_len ? len : p.min_len;
        p.max_len = len > p.max_len ? len : p.max_len;
        p.sum += len;
        if (len < (std::int64_t{1} << 31)) {
          const std::uint64_t sq = static_cast<std::uint64_t>(len) * static_cast<std::uint64_t>(len);
          p.sum2_lo += sq & 0xffffffffull;
          p.sum2_hi += sq >> 32;
        } else {
          p.sum2_long += static_cast<long double>(len) * static_cast<long double>(len);
        }
        p.empty += len == 0;
        ++p.histogram[length_bucket(len)];
        longest = len > longest ? len : longest;
        if (W > 0) p.team_slots += W * (len <= W ? std::int64_t{len > 0} : (len + W - 1) / W);  // no division for short rows
        if (vector_slots) add_vector_slots(i - g, len, i == nrows - 1, W, vector_longest, p.vector_slots);
      }
      if (W > 0) p.thread_slots += W * longest;
    }
    for (std::size_t b = 64; b > 0; --b)
      if (p.histogram[b - 1]) {
        p.buckets = b;
        break;
      }
    if (want.span || spread || D > 0) {
      for (std::int64_t g = begin; g < end; g += RowStats::span_block) {
        const std::int64_t ge = std::min(end, g + RowStats::span_block);
        const std::int64_t kb = static_cast<std::int64_t>(row_ptr[g]), ke = static_cast<std::int64_t>(row_ptr[ge]);
        if (D > 0) {
          const PointerAt<Offset> rp{row_ptr};
          const PointerAt<std::int32_t> ci{col_idx};
          for (std::int64_t b = g; b + D <= ge; b += D) p.diagonal += diagonal_block_entries(rp, ci, b, D);
        }
        if (want.span) {
          std::int32_t lo = INT32_MAX, hi = -1;
          for (std::int64_t k = kb; k < ke; ++k) {
            lo = col_idx[k] < lo ? col_idx[k] : lo;
            hi = col_idx[k] > hi ? col_idx[k] : hi;
          }
          if (hi < 0 || std::int64_t{hi} - lo < (std::int64_t{1} << 16)) p.narrow += ke - kb;
        }
        if (spread) {
          double block = 0;  // the block's rows in order, then the block into the piece's sum
          for (std::int64_t i = g; i < ge; ++i)
            block += row_spread(col_idx, static_cast<std::int64_t>(row_ptr[i]), static_cast<std::int64_t>(row_ptr[i + 1]),
                                cn, static_cast<double>(i) * rn);
          p.spread += block;
        }
      }
    }
    parts[static_cast<std::size_t>(piece)] = p;
  });
  FactsTotals t;
  t.has_vector_slots = vector_slots;
  std::int64_t narrow = 0, diagonal = 0;
  long double spread_sum = 0;
  std::size_t buckets = 0;
  for (const FactsPart& p : parts) buckets = std::max(buckets, p.buckets);
  t.histogram.assign(buckets, 0);
  for (const FactsPart& p : parts) {
    t.min_len = std::min(t.min_len, p.min_len);
    t.max_len = std::max(t.max_len, p.max_len);
    t.empty += p.empty;
    t.sum += p.sum;
    t.sum2 += static_cast<long double>(p.sum2_hi) * 4294967296.0L + static_cast<long double>(p.sum2_lo) + p.sum2_long;
    narrow += p.narrow;
    diagonal += p.diagonal;
    spread_sum += p.spread;
    t.thread_slots += p.thread_slots;
    t.team_slots += p.team_slots;
    for (int e = 0; e < 5; ++e) t.vector_slots[e] += p.vector_slots[e];
    for (std::size_t b = 0; b < p.buckets; ++b) t.histogram[b] += p.histogram[b];
  }
  finish_facts(f, t, W > 0);
  if (want.span) s.narrow_share = s.nnz > 0 ? static_cast<double>(narrow) / static_cast<double>(s.nnz) : 1.0;
  if (D > 0) {
    s.diagonal_block = D;
    s.diagonal_share = s.nnz > 0 ? static_cast<double>(diagonal) / static_cast<double>(s.nnz) : 0.0;
  }
  if (want.spread) s.col_spread = spread ? static_cast<double>(spread_sum / static_cast<long double>(s.nnz)) : 0.0;
  return f;
}
}  // namespace detail

/// Row statistics of a CSR matrix given its row_ptr (nrows + 1 entries, host memory); in
/// parallel over pieces of rows (detail::facts_pass). With col_idx (nnz entries, host memory),
/// the same pass also reads the columns for RowStats::narrow_share and, with a diagonal_block
/// (4, 8, 16, 32 or 64 rows), diagonal_share.
template <class Offset>
RowStats compute_row_stats(const Offset* row_ptr, std::int64_t nrows, std::int64_t ncols,
                           const std::int32_t* col_idx = nullptr, int diagonal_block = 0) {
  detail::FactsRequest want;
  want.span = col_idx != nullptr;
  want.diagonal_block = col_idx != nullptr ? diagonal_block : 0;
  return detail::facts_pass(row_ptr, col_idx, nrows, ncols, want).stats;
}

/// RowStats::col_spread of a CSR matrix (row_ptr: nrows + 1 entries, col_idx: nnz entries,
/// host memory); 0 for an empty matrix. Each row's terms are summed by detail::row_spread, the
/// rows of a piece of detail::host_piece rows in order, the pieces' sums in order: the result
/// does not depend on the thread count, and is the col_spread of matrix_facts.
template <class Offset>
double column_spread(const Offset* row_ptr, const std::int32_t* col_idx, std::int64_t nrows, std::int64_t ncols) {
  if (nrows <= 0 || ncols <= 0 || row_ptr[nrows] == 0) return 0.0;
  detail::FactsRequest want;
  want.spread = true;
  return detail::facts_pass(row_ptr, col_idx, nrows, ncols, want).stats.col_spread;
}

/// Lane-slots of thread-per-row and team-per-row at lane width `lane_width` (> 0); in
/// parallel over pieces of whole W-row groups (integer sums).
template <class Offset>
LaneSlots compute_lane_slots(const Offset* row_ptr, std::int64_t nrows, int lane_width = 32) {
  LaneSlots ls;
  ls.lane_width = lane_width;
  const std::int64_t W = lane_width;
  const std::int64_t groups = (nrows + W - 1) / W, piece = std::max<std::int64_t>(1, detail::host_piece / W);
  std::vector<std::int64_t> thread(static_cast<std::size_t>(detail::pieces_of(groups, piece)), 0), team(thread);
  detail::for_pieces("pspmv::lane_slots", groups, piece, [&](std::int64_t b, std::int64_t gb, std::int64_t ge) {
    std::int64_t th = 0, te = 0;
    for (std::int64_t g = gb * W; g < ge * W && g < nrows; g += W) {
      std::int64_t longest = 0;
      for (std::int64_t i = g; i < nrows && i < g + W; ++i) {
        const std::int64_t len = static_cast<std::int64_t>(row_ptr[i + 1] - row_ptr[i]);
        longest = len > longest ? len : longest;
        te += W * ((len + W - 1) / W);
      }
      th += W * longest;
    }
    thread[b] = th;
    team[b] = te;
  });
  for (std::size_t b = 0; b < thread.size(); ++b) {
    ls.thread_per_row += thread[b];
    ls.team_per_row += team[b];
  }
  const double nnz = nrows > 0 ? static_cast<double>(row_ptr[nrows]) : 0.0;
  ls.useful_thread_per_row = ls.thread_per_row ? nnz / static_cast<double>(ls.thread_per_row) : 1.0;
  ls.useful_team_per_row = ls.team_per_row ? nnz / static_cast<double>(ls.team_per_row) : 1.0;
  return ls;
}

/// Lane-slots of team-per-row at vector length V on W-lane warps: a warp holds W / V
/// consecutive rows, V lanes each, and runs as many iterations as its longest row needs:
/// slots = sum over warps of W * max over its rows of ceil(len / V). V = W is warp-per-row
/// (equal to LaneSlots::team_per_row when no row is empty); V = 1 is thread-per-row.
/// In parallel over pieces of whole warps (integer sums).
template <class Offset>
std::int64_t team_lane_slots(const Offset* row_ptr, std::int64_t nrows, int vector_length, int lane_width = 32) {
  const std::int64_t V = vector_length, W = lane_width, rows_per_warp = W / V > 0 ? W / V : 1;
  const std::int64_t warps = (nrows + rows_per_warp - 1) / rows_per_warp,
                     piece = std::max<std::int64_t>(1, detail::host_piece / rows_per_warp);
  std::vector<std::int64_t> part(static_cast<std::size_t>(detail::pieces_of(warps, piece)), 0);
  detail::for_pieces("pspmv::team_lane_slots", warps, piece, [&](std::int64_t b, std::int64_t wb, std::int64_t we) {
    std::int64_t slots = 0;
    for (std::int64_t g = wb * rows_per_warp; g < we * rows_per_warp && g < nrows; g += rows_per_warp) {
      std::int64_t iters = 0;
      for (std::int64_t i = g; i < nrows && i < g + rows_per_warp; ++i) {
        const std::int64_t len = static_cast<std::int64_t>(row_ptr[i + 1] - row_ptr[i]);
        iters = std::max(iters, (len + V - 1) / V);
      }
      slots += W * iters;
    }
    part[b] = slots;
  });
  std::int64_t slots = 0;
  for (const std::int64_t p : part) slots += p;
  return slots;
}

/// Row partition with nearly equal nnz per block: block b starts at the first row whose
/// row_ptr reaches b * nnz / num_blocks (binary search on row_ptr). Blocks may be empty
/// when a single row holds more than nnz / num_blocks. Works on any monotone offsets
/// (SELL's slice offsets too). The blocks' searches run in parallel on the host.
/// With `row_weight` w a block's cost is its entries plus w per row: block b starts at the
/// first row i whose row_ptr[i] + w i reaches b (nnz + w nrows) / num_blocks, rounded down (w = 0:
/// entries alone; w = 1: the merge path of Merrill and Garland; LaunchParams::block_row_weight).
/// Output: num_blocks + 1 row indices, partition[0] = 0, partition[num_blocks] = nrows.
template <class Offset>
void nnz_partition(const Offset* row_ptr, std::int32_t nrows, std::int64_t num_blocks, std::int32_t* partition,
                   std::int64_t row_weight = 0) {
  if (row_weight < 0) throw InvalidArgument("nnz_partition: row weight " + std::to_string(row_weight) + " < 0");
  const long double total = static_cast<long double>(row_ptr[nrows]) + static_cast<long double>(row_weight) * nrows;
  partition[0] = 0;
  detail::for_each_index("pspmv::nnz_partition", num_blocks - 1, [&](std::int64_t i) {
    const std::int64_t b = i + 1;
    const auto target = static_cast<std::int64_t>(total * b / num_blocks);
    // The first row r in [0, nrows] whose row_ptr[r] + w r reaches the target (monotone in r).
    std::int64_t lo = 0, hi = nrows;
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (static_cast<std::int64_t>(row_ptr[mid]) + row_weight * mid < target)
        lo = mid + 1;
      else
        hi = mid;
    }
    partition[b] = static_cast<std::int32_t>(lo);
  });
  partition[num_blocks] = nrows;
}

/// Row partition with nearly equal masked groups per block, for the rows of a host CSR plan that
/// sums each row in masked SIMD groups of `group` entries (detail::masked_dot): a row of len
/// entries costs ceil(len / group) groups and one more for its reduction and store, whatever
/// those entries, so a block of equal entries can hold many times the work of another where
/// short rows cluster (docs/selection.md, "Blocks of masked groups"). Block b starts at the first
/// row whose cost prefix reaches b * total / num_blocks, rounded down (nnz_partition over that
/// prefix). The prefix is an exclusive scan over pieces of rows on the host threads.
/// Output: num_blocks + 1 row indices, partition[0] = 0, partition[num_blocks] = nrows.
/// @throws InvalidArgument for a group below 1.
template <class Offset>
void group_partition(const Offset* row_ptr, std::int32_t nrows, std::int64_t num_blocks, std::int32_t* partition,
                     std::int64_t group) {
  if (group < 1) throw InvalidArgument("group_partition: group " + std::to_string(group) + " < 1");
  // An analysis array (uninitialized, huge pages where large): the scan writes every entry.
  const auto cost = detail::host_array<std::int64_t>("pspmv::group_partition", std::int64_t{nrows} + 1);
  detail::exclusive_scan<std::int64_t>(
      "pspmv::group_partition", nrows,
      [&](std::int64_t i) {
        return (static_cast<std::int64_t>(row_ptr[i + 1] - row_ptr[i]) + group - 1) / group + 1;
      },
      cost.data());
  nnz_partition(cost.data(), nrows, num_blocks, partition);
}

/// The facts of a host CSR matrix (any type with nrows, ncols, row_ptr and col_idx Views) in
/// one pass (detail::facts_pass). With `with_span`, RowStats::narrow_share (and diagonal_share
/// over blocks of diagonal_block rows where it is not 0); with
/// `with_spread`, RowStats::col_spread; with `vector_slots`, LaneSlots::team_at_vector (where
/// lane_width is a power of two dividing detail::host_piece).
template <class Csr>
MatrixFacts matrix_facts(const Csr& A, int lane_width, bool with_spread, bool with_span = false,
                         int diagonal_block = 0, bool vector_slots = false) {
  if (lane_width <= 0) throw InvalidArgument("matrix_facts: lane width " + std::to_string(lane_width) + " (must be > 0)");
  detail::FactsRequest want;
  want.lane_width = lane_width;
  want.vector_slots = vector_slots;
  want.span = with_span;
  want.diagonal_block = diagonal_block;
  want.spread = with_spread;
  MatrixFacts f = detail::facts_pass(A.row_ptr.data(), A.col_idx.data(), A.nrows, A.ncols, want);
  if (detail::host_piece % lane_width != 0)  // lane groups would straddle pieces
    f.lane_slots = compute_lane_slots(A.row_ptr.data(), A.nrows, lane_width);
  return f;
}

}  // namespace pspmv
