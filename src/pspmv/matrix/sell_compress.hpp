#pragma once
/// @file sell_compress.hpp
/// Compressed column indices for SELL-C-sigma (see sell.hpp's file comment): each slice stores
/// its columns in the smallest of three forms, a column pattern relative to its rows (diagonal
/// slices: no index per entry), 16-bit offsets from a base column, or 32-bit columns.
/// compress_columns() compresses a SELL matrix in any memory space, as Kokkos parallel patterns
/// over the slices (a GPU plan's build). csr_to_compressed_sell() builds the host's from the CSR
/// without 32-bit columns between: its two passes over the slices read each slice's rows from
/// the CSR, and its placement of the columns is compress_columns' own (detail::place_columns).
/// Both give the same arrays bit for bit (the tests compare them); what the host's build saves:
/// perf/probes/sell_conversion.cpp, perf/results/cpu-2core-xeon.md.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

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

/// compress_columns' result besides the columns it writes, in memory space Mem: each slice's
/// kind or base column (col_base), the start of its columns (off_ptr), whether a diagonal slice
/// has the previous slice's pattern (`same`: 1 where it is diagonal with the width and the
/// columns relative to the rows of slice s - 1; whether s - 1 is diagonal too is read from base),
/// the two column arrays and the count of wide slices (low 32 bits) and diagonal ones (above;
/// nslices < 2^31).
template <class Mem>
struct ColumnForms {
  Kokkos::View<std::int32_t*, Mem> base;
  Kokkos::View<std::int64_t*, Mem> off_ptr;
  Kokkos::View<std::uint8_t*, Mem> same;
  Kokkos::View<std::uint16_t*, Mem> off;      ///< narrow slices' 16-bit offsets (place_columns)
  Kokkos::View<std::int32_t*, Mem> wide_col;  ///< wide slices' columns, diagonal patterns (place_columns)
  std::int64_t kinds = 0;
  explicit ColumnForms(std::int64_t nslices)
      : base(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("pspmv::sell_col_base")), nslices),
        off_ptr(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("pspmv::sell_off_ptr")), nslices),
        same(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("pspmv::sell_same_pattern")), nslices) {}
  /// S takes the forms (its 32-bit columns replaced by wide_col).
  template <class Value>
  void install(SellMatrix<Value, Mem>& S) const {
    S.col_idx = wide_col;
    S.col_off = off;
    S.col_base = base;
    S.off_ptr = off_ptr;
    S.wide_slices = kinds & 0xffffffff;
    S.diagonal_slices = kinds >> 32;
    S.compressed = true;
  }
};

/// With every slice's base and `same` set: two scans place each slice's columns (off_ptr) in
/// col_off (16-bit offsets, C x width per narrow slice) or col_idx (32-bit: C x width per wide
/// slice, width per diagonal slice that does not share), then both arrays are allocated.
template <class ExecSpace, class Mem>
void place_columns(const ExecSpace& space, const std::int64_t C, const Kokkos::View<std::int32_t*, Mem>& width,
                   ColumnForms<Mem>& forms) {
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
  constexpr std::int32_t wide_kind = sell_wide_slice, diagonal_kind = sell_diagonal_slice;
  const std::int64_t nslices = static_cast<std::int64_t>(width.extent(0));
  const auto base = forms.base;
  const auto same = forms.same;
  const auto off_ptr = forms.off_ptr;
  Kokkos::View<std::int64_t[2], Mem> totals("pspmv::sell_compress_totals");  // 16-bit and 32-bit entries
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
  if constexpr (std::is_same<Mem, Kokkos::HostSpace>::value) {  // on huge pages where large
    forms.off = host_array<std::uint16_t>("pspmv::sell_col_off", total[0]);
    forms.wide_col = host_array<std::int32_t>("pspmv::sell_col_idx", total[1]);
  } else {
    forms.off = Kokkos::View<std::uint16_t*, Mem>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("pspmv::sell_col_off")), total[0]);
    forms.wide_col = Kokkos::View<std::int32_t*, Mem>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("pspmv::sell_col_idx")), total[1]);
  }
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
  const std::int64_t nslices = S.nslices(), C = S.slice_height, npos = S.npos, nrows = S.nrows,
                     span = sell_offset_span;
  constexpr std::int32_t wide_kind = sell_wide_slice, diagonal_kind = sell_diagonal_slice;
  const auto sptr = S.slice_ptr;
  const auto width = S.slice_width;
  const auto row_len = S.row_len;
  const auto perm = S.perm;
  const auto col = S.col_idx;
  detail::ColumnForms<Mem> forms(nslices);
  const auto base = forms.base;
  const auto same = forms.same;
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
        forms.kinds);
  }
  detail::place_columns(space, C, width, forms);
  const auto off_ptr = forms.off_ptr;
  const auto off = forms.off;
  const auto wide_col = forms.wide_col;
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
  forms.install(S);
}

namespace detail {
// The host's compressed build from the CSR (csr_to_compressed_sell): compress_columns' passes
// with each slice's columns read row by row from A, where a slice's position p holds entry j of
// its row at ci[begin(p) + j] for j < row_len(p), and column 0 past it (the uncompressed
// padding). One function per pass: nvcc's front end fails on a function template that holds
// several host lambdas (sell.hpp).

/// The first pass: each slice's base and `same`, as compress_columns' first pass defines them,
/// and the count of wide and diagonal slices.
template <class Value, class Offset>
void classify_from_csr(const HostCsr<Value, Offset>& A, const SellRows& rows, const SellMatrix<Value, Kokkos::HostSpace>& S,
                       ColumnForms<Kokkos::HostSpace>& forms) {
  const std::int64_t C = S.slice_height, npos = S.npos, nrows = S.nrows, nslices = S.nslices();
  const Offset* rp = A.row_ptr.data();
  const std::int32_t* ci = A.col_idx.data();
  const std::int32_t *perm = S.perm.data(), *len = S.row_len.data(), *width = S.slice_width.data();
  std::int32_t* base = forms.base.data();
  std::uint8_t* same = forms.same.data();
  constexpr std::int64_t piece = 1024;  // slices: a piece per thread many times over
  std::vector<std::int64_t> piece_kinds(static_cast<std::size_t>(pieces_of(nslices, piece)), 0);
  for_pieces("pspmv::sell_compress_kind", nslices, piece, [&](std::int64_t b, std::int64_t begin, std::int64_t end) {
    std::int64_t kinds = 0;
    for (std::int64_t s = begin; s < end; ++s) {
      const std::int64_t first = s * C, w = width[s], nr = std::min(C, npos - first);
      const std::int32_t* c0 = ci + rows.begin(rp, perm[first]);
      bool diagonal = nr == C && w > 0 && static_cast<std::int64_t>(perm[first]) + C <= nrows;
      for (std::int64_t r = 0; diagonal && r < C; ++r) {
        diagonal = perm[first + r] == perm[first] + r && len[first + r] == w;
        const std::int32_t* cr = ci + (diagonal ? rows.begin(rp, perm[first + r]) : 0);
        for (std::int64_t j = 0; diagonal && j < w; ++j) diagonal = static_cast<std::int64_t>(cr[j]) == c0[j] + r;
      }
      if (diagonal) {
        // Slice s - 1's first position stores entry j of its row, or column 0 past its length.
        bool match = s > 0 && width[s - 1] == w;
        if (match) {
          const std::int64_t q = first - C, d = static_cast<std::int64_t>(perm[first]) - perm[q], lq = len[q];
          const std::int32_t* cq = ci + (lq > 0 ? rows.begin(rp, perm[q]) : 0);
          for (std::int64_t j = 0; match && j < w; ++j) match = c0[j] - (j < lq ? static_cast<std::int64_t>(cq[j]) : 0) == d;
        }
        base[s] = sell_diagonal_slice;
        same[s] = match ? 1 : 0;
        kinds += std::int64_t{1} << 32;
        continue;
      }
      std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = -1;  // over the real entries
      for (std::int64_t r = 0; r < nr; ++r) {
        const std::int64_t l = len[first + r];
        if (l <= 0) continue;
        const std::int32_t* cr = ci + rows.begin(rp, perm[first + r]);
        for (std::int64_t j = 0; j < l; ++j) {
          lo = std::min<std::int64_t>(lo, cr[j]);
          hi = std::max<std::int64_t>(hi, cr[j]);
        }
      }
      const bool wide = hi >= 0 && hi - lo >= sell_offset_span;  // no real entry: hi < 0, base 0
      base[s] = hi < 0 ? 0 : (wide ? sell_wide_slice : static_cast<std::int32_t>(lo));
      same[s] = 0;
      kinds += wide ? 1 : 0;
    }
    piece_kinds[static_cast<std::size_t>(b)] = kinds;
  });
  forms.kinds = 0;
  for (const std::int64_t k : piece_kinds) forms.kinds += k;
}

/// The last pass: each slice's columns in their form, read row by row from A (padding: offset
/// 0 or column 0, never read).
template <class Value, class Offset>
void write_from_csr(const HostCsr<Value, Offset>& A, const SellRows& rows, const SellMatrix<Value, Kokkos::HostSpace>& S,
                    const ColumnForms<Kokkos::HostSpace>& forms) {
  const std::int64_t C = S.slice_height, npos = S.npos;
  const Offset* rp = A.row_ptr.data();
  const std::int32_t* ci = A.col_idx.data();
  const std::int32_t *perm = S.perm.data(), *len = S.row_len.data(), *width = S.slice_width.data();
  const auto base = forms.base;
  const auto same = forms.same;
  const std::int64_t* off_ptr = forms.off_ptr.data();
  std::uint16_t* off = forms.off.data();
  std::int32_t* wide_col = forms.wide_col.data();
  for_each_index("pspmv::sell_compress", S.nslices(), [=](std::int64_t s) {
    const std::int64_t b = base(s), w = width[s], first = s * C, to = off_ptr[s];
    if (b == sell_diagonal_slice) {
      if (shares_pattern(s, base, same)) return;
      const std::int32_t* c0 = ci + rows.begin(rp, perm[first]);
      for (std::int64_t j = 0; j < w; ++j) wide_col[to + j] = static_cast<std::int32_t>(c0[j] - perm[first]);
      return;
    }
    for (std::int64_t r = 0; r < C; ++r) {
      const std::int64_t p = first + r, l = p < npos ? std::max<std::int64_t>(len[p], 0) : 0;
      const std::int32_t* cr = ci + (l > 0 ? rows.begin(rp, perm[p]) : 0);
      if (b == sell_wide_slice) {
        for (std::int64_t j = 0; j < l; ++j) wide_col[to + j * C + r] = cr[j];
        for (std::int64_t j = l; j < w; ++j) wide_col[to + j * C + r] = 0;
      } else {
        for (std::int64_t j = 0; j < l; ++j) off[to + j * C + r] = static_cast<std::uint16_t>(cr[j] - b);
        for (std::int64_t j = l; j < w; ++j) off[to + j * C + r] = 0;
      }
    }
  });
}
}  // namespace detail

/// csr_to_sell(A, C, order) followed by compress_columns() on the host, bit for bit, without
/// the 32-bit columns between: the scatter writes the values alone, and the two passes of the
/// compression read each slice's columns row by row from A (detail::classify_from_csr,
/// detail::write_from_csr), so that they are written once, in their compressed forms. What
/// analyze() runs for a compressed SELL plan in host memory.
template <class Value, class Offset>
SellMatrix<Value, Kokkos::HostSpace> csr_to_compressed_sell(const HostCsr<Value, Offset>& A, int slice_height,
                                                            const detail::SellOrder& order) {
  auto S = detail::sell_of(A, slice_height, order, false);
  detail::ColumnForms<Kokkos::HostSpace> forms(S.nslices());
  detail::classify_from_csr(A, order.rows, S, forms);
  detail::place_columns(Kokkos::DefaultHostExecutionSpace(), slice_height, S.slice_width, forms);
  detail::write_from_csr(A, order.rows, S, forms);
  forms.install(S);
  return S;
}

/// csr_to_sell(A, C, sigma, long_row_threshold, split) compressed: csr_to_compressed_sell.
template <class Value, class Offset>
SellMatrix<Value, Kokkos::HostSpace> csr_to_compressed_sell(const HostCsr<Value, Offset>& A, int slice_height,
                                                            std::int64_t sigma, std::int64_t long_row_threshold = 0,
                                                            bool split = false) {
  check_sell_parameters(slice_height, sigma);
  const auto order =
      detail::sell_order(A.row_ptr.data(), A.nrows, sigma, long_row_threshold, split && long_row_threshold > 0);
  return csr_to_compressed_sell(A, slice_height, order);
}

}  // namespace pspmv
