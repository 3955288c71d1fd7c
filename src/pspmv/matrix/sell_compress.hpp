#pragma once
/// @file sell_compress.hpp
/// Compressed column indices for SELL-C-sigma (see sell.hpp's file comment): each slice whose
/// real entries span fewer than 65,536 columns stores 16-bit offsets from a base column.
/// Written once as Kokkos parallel patterns over the slices, so that the host build and the
/// device build run the same code and give the same arrays bit for bit.

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

#include "pspmv/matrix/sell.hpp"

namespace pspmv {

/// A slice's columns compress when max - min over its real entries is below this.
constexpr std::int64_t sell_offset_span = std::int64_t{1} << 16;

/// Compresses the column indices of S (uncompressed SELL in ExecSpace's memory) in place, on
/// the instance `space`: a pass over the slices finds each slice's smallest and largest real
/// column (padding and long rows excluded) and its base (-1: kept wide), a scan places the
/// compressed entries, a second pass writes the 16-bit offsets (padding: 0) and the wide
/// slices' 32-bit columns. Returns when done. A slice without entries counts as compressed
/// (base 0). Does nothing to a matrix already compressed.
template <class ExecSpace, class Value, class Mem>
void compress_columns(const ExecSpace& space, SellMatrix<Value, Mem>& S) {
  if (S.compressed) return;
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
  const auto uninit = [](const char* label) { return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)); };
  const std::int64_t nslices = S.nslices(), C = S.slice_height, npos = S.npos, span = sell_offset_span;
  const auto sptr = S.slice_ptr;
  const auto width = S.slice_width;
  const auto row_len = S.row_len;
  const auto col = S.col_idx;
  Kokkos::View<std::int32_t*, Mem> base(uninit("pspmv::sell_col_base"), nslices);
  Kokkos::View<std::int64_t*, Mem> off_ptr(uninit("pspmv::sell_off_ptr"), nslices + 1);
  std::int64_t wide = 0;
  Kokkos::parallel_reduce(
      "pspmv::sell_compress_span", Range(space, 0, nslices),
      KOKKOS_LAMBDA(const std::int64_t s, std::int64_t& count) {
        std::int64_t lo = INT32_MAX, hi = -1;
        for (std::int64_t r = 0; r < C && s * C + r < npos; ++r) {
          const std::int64_t len = row_len(s * C + r);
          for (std::int64_t j = 0; j < len; ++j) {
            const std::int64_t c = col(sptr(s) + j * C + r);
            lo = c < lo ? c : lo;
            hi = c > hi ? c : hi;
          }
        }
        const bool narrow = hi < 0 || hi - lo < span;
        base(s) = hi < 0 ? 0 : (narrow ? static_cast<std::int32_t>(lo) : -1);
        count += narrow ? 0 : 1;
      },
      wide);
  Kokkos::parallel_scan(
      "pspmv::sell_compress_ptr", Range(space, 0, nslices),
      KOKKOS_LAMBDA(const std::int64_t s, std::int64_t& acc, const bool final) {
        if (final) off_ptr(s) = acc;
        acc += base(s) >= 0 ? C * width(s) : 0;
        if (final && s == nslices - 1) off_ptr(nslices) = acc;
      });
  if (nslices == 0) Kokkos::deep_copy(space, off_ptr, std::int64_t(0));
  std::int64_t ncompressed = 0;
  Kokkos::deep_copy(space, Kokkos::View<std::int64_t, Kokkos::HostSpace>(&ncompressed),
                    Kokkos::subview(off_ptr, nslices));
  space.fence();
  const std::int64_t stored = static_cast<std::int64_t>(col.extent(0));
  Kokkos::View<std::uint16_t*, Mem> off(uninit("pspmv::sell_col_off"), ncompressed);
  Kokkos::View<std::int32_t*, Mem> wide_col(uninit("pspmv::sell_col_idx"), stored - ncompressed);
  Kokkos::parallel_for(
      "pspmv::sell_compress", Range(space, 0, nslices), KOKKOS_LAMBDA(const std::int64_t s) {
        const std::int64_t b = base(s), n = C * width(s), from = sptr(s);
        if (b < 0) {
          const std::int64_t to = from - off_ptr(s);
          for (std::int64_t k = 0; k < n; ++k) wide_col(to + k) = col(from + k);
          return;
        }
        const std::int64_t to = off_ptr(s);
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
  S.wide_slices = wide;
  S.compressed = true;
}

}  // namespace pspmv
