#pragma once
/// @file row_stats_on.hpp
/// Row statistics of a CSR already in an execution space's memory, computed there (a GPU's
/// matrix is not read back for them): the lane-slot model and RowStats as the host pass of
/// row_stats.hpp gives them (both end in detail::finish_facts), and the narrow-column share.

#include <Kokkos_Core.hpp>

#include <climits>
#include <cstdint>
#include <optional>

#include "pspmv/matrix/row_stats.hpp"

namespace pspmv {
namespace detail {

/// The integer sums of one pass over the rows: what FactsTotals holds, with the sum of squared
/// lengths in two 32-bit halves of each term (as FactsPart) and the histogram up to 2^31 - 1
/// entries a row (a longer row counts in `longer`, and the host pass, which sums such rows'
/// squares apart in a long double, takes the matrix).
struct SpaceFactsSum {
  static constexpr int buckets = 33;  ///< bits of a length below 2^31: 0 to 31, and 32 for longer
  std::int64_t min_len, max_len, empty, sum, thread_slots, team_slots, longer;
  std::int64_t vector_slots[5];  ///< LaneSlots::team_at_vector (W a power of two)
  std::uint64_t sum2_lo, sum2_hi;
  std::int64_t histogram[buckets];
};

/// parallel_reduce functor of matrix_facts_on: work item g is the lane group of rows
/// [g * W, (g + 1) * W), the groups of the host pass.
template <class RowPtr>
struct SpaceFactsPass {
  using value_type = SpaceFactsSum;
  RowPtr row_ptr;
  std::int64_t nrows = 0, W = 32;

  KOKKOS_INLINE_FUNCTION void init(value_type& v) const {
    v.min_len = INT64_MAX;
    v.max_len = v.empty = v.sum = v.thread_slots = v.team_slots = v.longer = 0;
    v.sum2_lo = v.sum2_hi = 0;
    for (int e = 0; e < 5; ++e) v.vector_slots[e] = 0;
    for (int b = 0; b < value_type::buckets; ++b) v.histogram[b] = 0;
  }
  template <class D, class S>
  KOKKOS_INLINE_FUNCTION static void add(D& d, const S& s) {
    d.min_len = s.min_len < d.min_len ? s.min_len : d.min_len;
    d.max_len = s.max_len > d.max_len ? s.max_len : d.max_len;
    d.empty += s.empty;
    d.sum += s.sum;
    d.thread_slots += s.thread_slots;
    d.team_slots += s.team_slots;
    d.longer += s.longer;
    d.sum2_lo += s.sum2_lo;
    d.sum2_hi += s.sum2_hi;
    for (int e = 0; e < 5; ++e) d.vector_slots[e] += s.vector_slots[e];
    for (int b = 0; b < value_type::buckets; ++b) d.histogram[b] += s.histogram[b];
  }
  KOKKOS_INLINE_FUNCTION void join(value_type& d, const value_type& s) const { add(d, s); }
  KOKKOS_INLINE_FUNCTION void join(volatile value_type& d, const volatile value_type& s) const { add(d, s); }

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t g, value_type& v) const {
    const std::int64_t b = g * W, e = b + W < nrows ? b + W : nrows;
    const bool vector_slots = (W & (W - 1)) == 0;
    std::int64_t longest = 0, vector_longest[5] = {0, 0, 0, 0, 0};
    for (std::int64_t i = b; i < e; ++i) {
      const std::int64_t len = static_cast<std::int64_t>(row_ptr(i + 1) - row_ptr(i));
      if (vector_slots) add_vector_slots(i - b, len, i == nrows - 1, W, vector_longest, v.vector_slots);
      v.min_len = len < v.min_len ? len : v.min_len;
      v.max_len = len > v.max_len ? len : v.max_len;
      v.sum += len;
      v.empty += len == 0;
      longest = len > longest ? len : longest;
      v.team_slots += W * (len <= W ? std::int64_t{len > 0} : (len + W - 1) / W);
      if (len < (std::int64_t{1} << 31)) {
        const std::uint64_t sq = static_cast<std::uint64_t>(len) * static_cast<std::uint64_t>(len);
        v.sum2_lo += sq & 0xffffffffull;
        v.sum2_hi += sq >> 32;
        int bits = 0;  // length_bucket(len)
        while (bits < 31 && (len >> bits) != 0) ++bits;
        ++v.histogram[bits];
      } else {
        ++v.longer;
        ++v.histogram[value_type::buckets - 1];
      }
    }
    v.thread_slots += W * longest;
  }
};

/// matrix_facts(A, lane_width, false, false, 0, true) of a CSR in `space`'s memory, computed on `space` in one
/// parallel_reduce over lane groups (a few sums come back, not row_ptr), field for field the
/// host pass's: its integers are the same sums, and the squared lengths' sum is exact in both
/// below 2^64. A is validated (its nnz is the length of col_idx).
/// std::nullopt for an empty matrix or a row of 2^31 entries or more, which the host pass
/// handles (with a long double sum of their squares).
template <class ExecSpace, class Csr>
std::optional<MatrixFacts> matrix_facts_on(const ExecSpace& space, const Csr& A, int lane_width) {
  if (lane_width <= 0) throw InvalidArgument("matrix_facts_on: lane width " + std::to_string(lane_width) + " (must be > 0)");
  const std::int64_t nrows = A.nrows, W = lane_width;
  if (nrows <= 0) return std::nullopt;
  SpaceFactsPass<decltype(A.row_ptr)> pass{A.row_ptr, nrows, W};
  SpaceFactsSum v;
  Kokkos::parallel_reduce("pspmv::row_stats_on", Kokkos::RangePolicy<ExecSpace>(space, 0, (nrows + W - 1) / W), pass, v);
  if (v.longer > 0) return std::nullopt;
  MatrixFacts f;
  f.stats.nrows = nrows;
  f.stats.ncols = A.ncols;
  f.stats.nnz = static_cast<std::int64_t>(A.nnz());
  f.lane_slots.lane_width = lane_width;
  FactsTotals t;
  t.min_len = v.min_len;
  t.max_len = v.max_len;
  t.empty = v.empty;
  t.sum = v.sum;
  t.thread_slots = v.thread_slots;
  t.team_slots = v.team_slots;
  t.has_vector_slots = (W & (W - 1)) == 0;
  for (int e = 0; e < 5; ++e) t.vector_slots[e] = v.vector_slots[e];
  t.sum2 = static_cast<long double>(v.sum2_hi) * 4294967296.0L + static_cast<long double>(v.sum2_lo);
  int last = SpaceFactsSum::buckets;
  while (last > 0 && v.histogram[last - 1] == 0) --last;
  t.histogram.assign(v.histogram, v.histogram + last);
  finish_facts(f, t, true);
  return f;
}

/// RowStats::narrow_share (with `narrow_share`) and, for a diagonal_block D > 0, diagonal_share
/// of a CSR in `space`'s memory, computed there: the nonzeros of the aligned blocks of RowStats::span_block rows whose
/// columns span less than 65,536, and those of the aligned blocks of D rows that repeat the
/// previous row's columns shifted by one, over nnz (the same blocks and tests as
/// compute_row_stats on the host).
template <class ExecSpace, class Csr>
void column_shares_on(const ExecSpace& space, const Csr& A, RowStats& s, bool narrow_share, int diagonal_block) {
  using member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using Offset = typename Csr::offset_type;
  const auto row_ptr = A.row_ptr;
  const auto col_idx = A.col_idx;
  const std::int64_t nrows = A.nrows, block = RowStats::span_block;
  const std::int64_t blocks = (nrows + block - 1) / block;
  std::int64_t narrow = 0;
  if (narrow_share) {
    Kokkos::parallel_reduce(
        "pspmv::narrow_share", Kokkos::TeamPolicy<ExecSpace>(space, blocks, Kokkos::AUTO),
        KOKKOS_LAMBDA(const member& team, std::int64_t& sum) {
          const std::int64_t g = team.league_rank() * block;
          const std::int64_t ge = g + block < nrows ? g + block : nrows;
          const Offset b = row_ptr(g), e = row_ptr(ge);
          std::int32_t lo = INT32_MAX, hi = -1;
          Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(team, b, e), [&](const Offset k, std::int32_t& l) { l = col_idx(k) < l ? col_idx(k) : l; },
              Kokkos::Min<std::int32_t>(lo));
          Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(team, b, e), [&](const Offset k, std::int32_t& h) { h = col_idx(k) > h ? col_idx(k) : h; },
              Kokkos::Max<std::int32_t>(hi));
          Kokkos::single(Kokkos::PerTeam(team), [&]() {
            if (e == b || std::int64_t{hi} - lo < (std::int64_t{1} << 16)) sum += static_cast<std::int64_t>(e - b);
          });
        },
        narrow);
  }
  const auto nnz = static_cast<std::int64_t>(A.nnz());
  if (narrow_share) s.narrow_share = nnz > 0 ? static_cast<double>(narrow) / static_cast<double>(nnz) : 1.0;
  if (diagonal_block <= 0) return;
  if (block % diagonal_block != 0)
    throw InvalidArgument("row statistics: diagonal block of " + std::to_string(diagonal_block) +
                          " rows (must divide " + std::to_string(block) + ")");
  const std::int64_t D = diagonal_block;
  std::int64_t diagonal = 0;
  Kokkos::parallel_reduce(
      "pspmv::diagonal_share", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, nrows / D),
      KOKKOS_LAMBDA(const std::int64_t k, std::int64_t& sum) { sum += diagonal_block_entries(row_ptr, col_idx, k * D, D); },
      diagonal);
  s.diagonal_block = D;
  s.diagonal_share = nnz > 0 ? static_cast<double>(diagonal) / static_cast<double>(nnz) : 0.0;
}

}  // namespace detail
}  // namespace pspmv
