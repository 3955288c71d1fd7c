#pragma once
/// @file sell_compress.hpp
/// Compressed column indices for SELL-C-sigma (see sell.hpp's file comment): each slice stores
/// its columns in the smallest of three forms, a column pattern relative to its rows (diagonal
/// slices: no index per entry), 16-bit offsets from a base column, or 32-bit columns. Written
/// once as Kokkos parallel patterns over the slices, so that the host build and the device
/// build run the same code and give the same arrays bit for bit.

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

#include "pspmv/matrix/sell.hpp"

namespace pspmv {

/// A slice's columns compress to 16-bit offsets when max - min over its real entries is below this.
constexpr std::int64_t sell_offset_span = std::int64_t{1} << 16;

namespace detail {
/// Whether slice s, diagonal (kind: SellMatrix::col_base), shares slice s - 1's stored pattern:
/// s - 1 is diagonal too and `same` (compress_columns' first pass) found the same width and the
/// same columns relative to the rows.
template <class Kind, class Same>
KOKKOS_INLINE_FUNCTION bool shares_pattern(const std::int64_t s, const Kind& kind, const Same& same) {
  return s > 0 && same(s) != 0 && kind(s) == sell_diagonal_slice && kind(s - 1) == sell_diagonal_slice;
}
}  // namespace detail

/// Compresses the column indices of S (uncompressed SELL in ExecSpace's memory) in place, on
/// the instance `space`.
/// - A pass over the slices classifies each: diagonal (C consecutive caller rows of the slice's
///   width, entry j of row r at entry j of the first row's column + r), narrow (its real
///   entries span fewer than sell_offset_span columns: base = the smallest, padding and long
///   rows excluded) or wide. A slice without entries counts as narrow (base 0).
/// - A diagonal slice whose pattern (entry j's column minus its row, j < width) is the previous
///   slice's, and that slice is diagonal too, shares that slice's stored pattern. The same pass
///   records whether the pattern matches the previous slice's (read while the slice's columns are
///   at hand); the second scan and the writing pass read that byte instead of both slices' columns.
/// - Two scans place each slice's columns in its array: col_off (16-bit offsets, C x width per
///   narrow slice) or col_idx (32-bit: C x width per wide slice, width per diagonal slice that
///   does not share).
/// - A last pass writes them (padding: offset 0 or column 0, never read).
/// Returns when done. Does nothing to a matrix already compressed.
template <class ExecSpace, class Value, class Mem>
void compress_columns(const ExecSpace& space, SellMatrix<Value, Mem>& S) {
  if (S.compressed) return;
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
  const auto uninit = [](const char* label) { return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)); };
  const std::int64_t nslices = S.nslices(), C = S.slice_height, npos = S.npos, nrows = S.nrows,
                     span = sell_offset_span;
  constexpr std::int32_t wide_kind = sell_wide_slice, diagonal_kind = sell_diagonal_slice;
  const auto sptr = S.slice_ptr;
  const auto width = S.slice_width;
  const auto row_len = S.row_len;
  const auto perm = S.perm;
  const auto col = S.col_idx;
  Kokkos::View<std::int32_t*, Mem> base(uninit("pspmv::sell_col_base"), nslices);
  Kokkos::View<std::int64_t*, Mem> off_ptr(uninit("pspmv::sell_off_ptr"), nslices);
  Kokkos::View<std::int64_t[2], Mem> totals("pspmv::sell_compress_totals");  // 16-bit and 32-bit entries
  // Per slice: 1 where it is diagonal and its pattern is slice s - 1's (s - 1 of the same width,
  // the same columns relative to the rows), else 0; whether s - 1 is diagonal too is read from
  // base afterwards.
  Kokkos::View<std::uint8_t*, Mem> same(uninit("pspmv::sell_same_pattern"), nslices);
  // Wide slices counted in the low 32 bits, diagonal ones above (nslices < 2^31).
  std::int64_t kinds = 0;
  // A team per slice (one warp on a GPU), lanes over the slice's stored entries in order
  // (coalesced): a slice is diagonal where its C rows are consecutive caller rows (no piece of a
  // long row), all of the slice's width, and entry j of row r sits at column col(j, 0) + r;
  // else narrow or wide by the span of its real entries (padding and long rows excluded).
  {
    using Team = Kokkos::TeamPolicy<ExecSpace>;
    using member = typename Team::member_type;
    constexpr bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;
    const int log2_c = detail::log2_slice_height(C);
    Kokkos::parallel_reduce(
        "pspmv::sell_compress_kind", Team(space, static_cast<int>(nslices), 1, host ? 1 : 32),
        KOKKOS_LAMBDA(const member& team, std::int64_t& count) {
          const std::int64_t s = team.league_rank(), first = s * C, w = width(s), from = sptr(s);
          const std::int64_t rows = npos - first < C ? npos - first : C, n = C * w;
          // Rows and column 0 first (C lanes), the other columns only where those hold: a
          // slice that is not diagonal is mostly told by them.
          std::int64_t off = 1;  // rows or entries that break the diagonal form
          if (rows == C && w > 0 && static_cast<std::int64_t>(perm(first)) + C <= nrows) {
            const std::int64_t row0 = perm(first), c0 = col(from);
            Kokkos::parallel_reduce(
                Kokkos::ThreadVectorRange(team, C),
                [&](const std::int64_t r, std::int64_t& bad) {
                  if (perm(first + r) != row0 + r || row_len(first + r) != w || col(from + r) != c0 + r) ++bad;
                },
                off);
            if (off == 0)
              Kokkos::parallel_reduce(
                  Kokkos::ThreadVectorRange(team, C, n),
                  [&](const std::int64_t k, std::int64_t& bad) {
                    const std::int64_t j = k >> log2_c, r = k - (j << log2_c);
                    const std::int64_t c0_j = col(from + (j << log2_c));  // column j of the slice's first row
                    if (static_cast<std::int64_t>(col(from + k)) != c0_j + r) ++bad;
                  },
                  off);
          }
          if (off == 0) {
            std::int64_t differ = 1;  // entries whose column relative to the row is not slice s - 1's
            if (s > 0 && width(s - 1) == w) {
              const std::int64_t d = static_cast<std::int64_t>(perm(first)) - perm(first - C), prev = sptr(s - 1);
              Kokkos::parallel_reduce(
                  Kokkos::ThreadVectorRange(team, w),
                  [&](const std::int64_t j, std::int64_t& bad) {
                    if (static_cast<std::int64_t>(col(from + j * C)) - col(prev + j * C) != d) ++bad;
                  },
                  differ);
            }
            Kokkos::single(Kokkos::PerThread(team), [&]() {
              base(s) = diagonal_kind;
              same(s) = differ == 0 ? 1 : 0;
              count += std::int64_t{1} << 32;
            });
            return;
          }
          // The span of the real entries (padding and long rows excluded), in one pass.
          Kokkos::MinMaxScalar<std::int64_t> span_of;
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(team, n),
              [&](const std::int64_t k, Kokkos::MinMaxScalar<std::int64_t>& m) {
                const std::int64_t j = k >> log2_c, r = k - (j << log2_c);
                if (r < rows && j < row_len(first + r)) {
                  const std::int64_t c = col(from + k);
                  m.min_val = c < m.min_val ? c : m.min_val;
                  m.max_val = c > m.max_val ? c : m.max_val;
                }
              },
              Kokkos::MinMax<std::int64_t>(span_of));
          Kokkos::single(Kokkos::PerThread(team), [&]() {
            same(s) = 0;
            const std::int64_t lo = span_of.min_val, hi = span_of.max_val;
            const bool wide = hi >= 0 && hi - lo >= span;  // no real entry: hi < 0, base 0
            base(s) = hi < 0 ? 0 : (wide ? wide_kind : static_cast<std::int32_t>(lo));
            count += wide ? 1 : 0;
          });
        },
        kinds);
  }
  Kokkos::parallel_scan(
      "pspmv::sell_compress_narrow_ptr", Range(space, 0, nslices),
      KOKKOS_LAMBDA(const std::int64_t s, std::int64_t& acc, const bool final) {
        const bool narrow = base(s) >= 0;
        if (final && narrow) off_ptr(s) = acc;
        acc += narrow ? C * width(s) : 0;
        if (final && s == nslices - 1) totals(0) = acc;
      });
  Kokkos::parallel_scan(
      "pspmv::sell_compress_wide_ptr", Range(space, 0, nslices),
      KOKKOS_LAMBDA(const std::int64_t s, std::int64_t& acc, const bool final) {
        const std::int32_t kind = base(s);
        const bool shared = detail::shares_pattern(s, base, same);
        // A shared pattern is the one that ends here: the previous slice's (same width).
        if (final && kind < 0) off_ptr(s) = shared ? acc - width(s) : acc;
        acc += kind == wide_kind ? C * width(s) : (kind == diagonal_kind && !shared ? width(s) : 0);
        if (final && s == nslices - 1) totals(1) = acc;
      });
  std::int64_t total[2] = {0, 0};
  Kokkos::deep_copy(space, Kokkos::View<std::int64_t[2], Kokkos::HostSpace>(total), totals);
  space.fence();
  Kokkos::View<std::uint16_t*, Mem> off(uninit("pspmv::sell_col_off"), total[0]);
  Kokkos::View<std::int32_t*, Mem> wide_col(uninit("pspmv::sell_col_idx"), total[1]);
  if constexpr (std::is_same<Mem, Kokkos::HostSpace>::value) {  // before the pass below touches them
    detail::advise_huge_pages(off.data(), off.extent(0) * sizeof(std::uint16_t));
    detail::advise_huge_pages(wide_col.data(), wide_col.extent(0) * sizeof(std::int32_t));
  }
  Kokkos::parallel_for(
      "pspmv::sell_compress", Range(space, 0, nslices), KOKKOS_LAMBDA(const std::int64_t s) {
        const std::int64_t b = base(s), n = C * width(s), from = sptr(s), to = off_ptr(s);
        if (b == diagonal_kind) {
          if (detail::shares_pattern(s, base, same)) return;
          const std::int64_t row0 = perm(s * C);
          for (std::int64_t j = 0; j < width(s); ++j) wide_col(to + j) = static_cast<std::int32_t>(col(from + j * C) - row0);
          return;
        }
        if (b == wide_kind) {
          for (std::int64_t k = 0; k < n; ++k) wide_col(to + k) = col(from + k);
          return;
        }
        for (std::int64_t k = 0; k < n; ++k) {
          const std::int64_t p = s * C + k % C, j = k / C;
          const bool real = p < npos && j < row_len(p);  // padding and long rows: offset 0, never read
          off(to + k) = real ? static_cast<std::uint16_t>(col(from + k) - b) : std::uint16_t(0);
        }
      });
  space.fence();
  S.col_idx = wide_col;
  S.col_off = off;
  S.col_base = base;
  S.off_ptr = off_ptr;
  S.wide_slices = kinds & 0xffffffff;
  S.diagonal_slices = kinds >> 32;
  S.compressed = true;
}

}  // namespace pspmv
