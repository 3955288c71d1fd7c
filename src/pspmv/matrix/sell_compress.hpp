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

#include "pspmv/matrix/sell.hpp"

namespace pspmv {

/// A slice's columns compress to 16-bit offsets when max - min over its real entries is below this.
constexpr std::int64_t sell_offset_span = std::int64_t{1} << 16;

namespace detail {
/// Whether slice s (uncompressed arrays) is diagonal: C real rows of consecutive caller rows
/// (perm(p + 1) = perm(p) + 1, no piece of a long row), all of the slice's width, entry j of
/// row r at column col(j, 0) + r.
template <class SlicePtr, class Width, class RowLen, class Perm, class Col>
KOKKOS_INLINE_FUNCTION bool diagonal_slice(const std::int64_t s, const std::int64_t C, const std::int64_t npos,
                                           const std::int64_t nrows, const SlicePtr& sptr, const Width& width,
                                           const RowLen& row_len, const Perm& perm, const Col& col) {
  const std::int64_t first = s * C, w = width(s);
  if (first + C > npos || w <= 0) return false;
  const std::int64_t row0 = perm(first);
  if (row0 + C > nrows) return false;
  for (std::int64_t r = 0; r < C; ++r)
    if (perm(first + r) != row0 + r || row_len(first + r) != w) return false;
  for (std::int64_t j = 0; j < w; ++j) {
    const std::int64_t at = sptr(s) + j * C, c0 = col(at);
    for (std::int64_t r = 1; r < C; ++r)
      if (col(at + r) != c0 + r) return false;
  }
  return true;
}

/// Whether slice s, diagonal (kind: SellMatrix::col_base), shares slice s - 1's stored pattern:
/// s - 1 is diagonal too, of the same width, with the same columns relative to its rows.
template <class Kind, class SlicePtr, class Width, class Perm, class Col>
KOKKOS_INLINE_FUNCTION bool shares_pattern(const std::int64_t s, const std::int64_t C, const Kind& kind,
                                           const SlicePtr& sptr, const Width& width, const Perm& perm,
                                           const Col& col) {
  if (s == 0 || kind(s) != sell_diagonal_slice || kind(s - 1) != sell_diagonal_slice || width(s) != width(s - 1))
    return false;
  const std::int64_t d = static_cast<std::int64_t>(perm(s * C)) - perm((s - 1) * C);
  for (std::int64_t j = 0; j < width(s); ++j)
    if (static_cast<std::int64_t>(col(sptr(s) + j * C)) - col(sptr(s - 1) + j * C) != d) return false;
  return true;
}
}  // namespace detail

/// Compresses the column indices of S (uncompressed SELL in ExecSpace's memory) in place, on
/// the instance `space`.
/// - A pass over the slices classifies each: diagonal (detail::diagonal_slice), narrow (its real
///   entries span fewer than sell_offset_span columns: base = the smallest, padding and long
///   rows excluded) or wide. A slice without entries counts as narrow (base 0).
/// - A diagonal slice whose pattern (entry j's column minus its row, j < width) is the previous
///   slice's, and that slice is diagonal too, shares that slice's stored pattern.
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
  // Wide slices counted in the low 32 bits, diagonal ones above (nslices < 2^31).
  std::int64_t kinds = 0;
  Kokkos::parallel_reduce(
      "pspmv::sell_compress_kind", Range(space, 0, nslices),
      KOKKOS_LAMBDA(const std::int64_t s, std::int64_t& count) {
        if (detail::diagonal_slice(s, C, npos, nrows, sptr, width, row_len, perm, col)) {
          base(s) = diagonal_kind;
          count += std::int64_t{1} << 32;
          return;
        }
        std::int64_t lo = INT32_MAX, hi = -1;
        for (std::int64_t r = 0; r < C && s * C + r < npos; ++r) {
          const std::int64_t len = row_len(s * C + r);
          for (std::int64_t j = 0; j < len; ++j) {
            const std::int64_t c = col(sptr(s) + j * C + r);
            lo = c < lo ? c : lo;
            hi = c > hi ? c : hi;
          }
        }
        const bool wide = hi - lo >= span;
        base(s) = hi < 0 ? 0 : (wide ? wide_kind : static_cast<std::int32_t>(lo));
        count += wide ? 1 : 0;
      },
      kinds);
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
        const bool shared = detail::shares_pattern(s, C, base, sptr, width, perm, col);
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
  Kokkos::parallel_for(
      "pspmv::sell_compress", Range(space, 0, nslices), KOKKOS_LAMBDA(const std::int64_t s) {
        const std::int64_t b = base(s), n = C * width(s), from = sptr(s), to = off_ptr(s);
        if (b == diagonal_kind) {
          if (detail::shares_pattern(s, C, base, sptr, width, perm, col)) return;
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
