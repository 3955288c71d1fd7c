#pragma once
/// @file sell.hpp
/// SellMatrix: sliced ELLPACK, SELL-C-sigma (M. Kreutzer, G. Hager, G. Wellein, H. Fehske,
/// A. R. Bishop, "A unified sparse matrix data format for efficient general sparse
/// matrix-vector multiplication on modern processors with wide SIMD units", SIAM J. Sci.
/// Comput. 36(5), C401-C423, 2014). Intel's ESB format (slices of 8 rows stored column by
/// column with a bit mask over padding) is its C = 8 ancestor.
///
/// Layout: rows are sorted by descending length inside each window of `sigma` consecutive
/// rows (sigma = 1: no sorting), the permutation kept (perm(p) = original row of permuted
/// position p). Permuted rows are grouped into slices of C rows; slice s stores
/// C x slice_width(s) entries column by column: entry j of local row r sits at
/// slice_ptr(s) + j * C + r. Slice offsets are 64-bit (a padded size may pass 2^31 when
/// nnz does not).
///
/// Long rows: rows longer than a threshold can be taken out of the slices (row_len -1) and
/// kept as a small CSR of their own (long_rows, long_row_ptr, long_col_idx, long_values),
/// computed by a team-per-row kernel: in a slice, lane r walks row r, so a slice of long
/// rows is a warp-length chain of uncoalesced x gathers (measured on the H200: sorted
/// SELL-32 ran the lesson's skewed matrix 1.6x slower than the even one), while a team
/// reads a long row's entries contiguously. This is the ELL + CSR split of HYB-like formats
/// (Bell & Garland, "Implementing sparse matrix-vector multiplication on throughput-oriented
/// processors", SC 2009) applied to SELL-C-sigma.
///
/// Split long rows (the GPU default): instead of a lane-shared kernel, each long row is cut
/// into pieces of at most `long_row_threshold` entries that join the slices as extra
/// positions after the matrix's rows (perm(p) >= nrows names piece perm(p) - nrows), so
/// that they are read column by column and coalesced like any short row; a second kernel
/// adds each long row's piece sums in order (piece_ptr). Measured on the H200: the lesson's
/// skewed matrix (16.8M rows, 524288 rows of 419 entries) spent 0.95 ms of 1.19 ms (f64) in
/// the warp-per-row kernel, 1.44x its share of the floor, while its short rows ran at 1.16x.
/// This is row splitting (as in merge-based and CSR5-style SpMV) restricted to long rows.
///
/// Padding: each row's length is kept (row_len, permuted order) and kernels stop at it,
/// so padding is stored (column 0, value 0) but never read. The alternative, reading the
/// padding with a sentinel column and a zero value, changes results when x holds Inf or
/// NaN (0 * Inf = NaN) and moves the padding's bytes; ESB's bit mask costs a mask per
/// column. The row-length bound costs 4 bytes per row and keeps CSR's exact semantics.
///
/// Compressed columns (`compressed`, AnalyzeOptions::compress): each slice stores its columns
/// in one of three forms, named by col_base(s), and they start at off_ptr(s) in its array:
/// - diagonal (col_base(s) = sell_diagonal_slice, -2): the slice holds C real rows of
///   consecutive caller rows, all of its width, and entry j of every row r lies at column
///   perm(first) + r + d_j (first: the slice's first position). Only the width offsets d_j are
///   stored (32-bit, in col_idx), and a diagonal slice with the previous slice's pattern shares
///   its d_j: an entry costs its value alone. Matrices of a stencil on a grid are made of such
///   slices (the DIA format's idea, kept per slice so that any other slice keeps another form);
///   the slice kernel loads x for them as C consecutive values, without a gather.
/// - narrow (col_base(s) >= 0): the real entries' columns span less than 65,536 (max - min over
///   the entries its rows hold, padding excluded); each entry's column is a 16-bit unsigned
///   offset from the slice's base column col_base(s) (the smallest of them), in col_off.
/// - wide (col_base(s) = sell_wide_slice, -1): 32-bit columns, in col_idx.
/// Narrow and wide slices keep the slice layout (entry j of local row r at j * C + r from the
/// slice's start). A narrow entry costs 2 + sizeof(Value) bytes instead of 4 + sizeof(Value);
/// a slice costs 12 bytes more (its kind or base and its offset). The values, row lengths and
/// permutation do not change, nor does the padding rule (offset 0, never read). The long-row
/// CSR (split off, not split) keeps 32-bit columns. On a GPU the compressed plan is built from
/// the uncompressed one by compress_columns(); on the host csr_to_compressed_sell() scatters the
/// values alone and writes the columns once, in their forms, from the CSR rows. The two give the
/// same arrays bit for bit (tests/test_parallel_analysis.cpp, tests/test_compressed.cpp).

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "pspmv/matrix/csr.hpp"
#include "pspmv/matrix/host_parallel.hpp"
#include "pspmv/errors.hpp"

namespace pspmv {

/// SellMatrix::col_base of a compressed plan's slice kept with 32-bit columns.
constexpr std::int32_t sell_wide_slice = -1;
/// SellMatrix::col_base of a diagonal slice (columns: row + a per-slice pattern; file comment).
constexpr std::int32_t sell_diagonal_slice = -2;

/// A SELL-C-sigma matrix (see the file comment for the layout).
template <class Value, class MemorySpace = Kokkos::HostSpace>
struct SellMatrix {
  using value_type = Value;
  using memory_space = MemorySpace;
  std::int32_t nrows = 0, ncols = 0;
  int slice_height = 8;           ///< C: rows per slice (4, 8, 16, 32 or 64)
  std::int32_t sigma = 1;         ///< sorting window in rows (1: no sorting)
  std::int64_t nnz = 0;           ///< real entries (padding excluded)
  Kokkos::View<std::int64_t*, MemorySpace> slice_ptr;    ///< nslices + 1 offsets into col_idx/values
  Kokkos::View<std::int32_t*, MemorySpace> slice_width;  ///< nslices: longest row of each slice
  Kokkos::View<std::int32_t*, MemorySpace> row_len;      ///< npos, permuted order (-1: a long row)
  Kokkos::View<std::int32_t*, MemorySpace> perm;         ///< npos: row (or nrows + piece) of permuted position
  Kokkos::View<std::int32_t*, MemorySpace> col_idx;      ///< padded size (compressed: wide slices' columns, diagonal patterns)
  bool compressed = false;        ///< columns per slice diagonal, 16-bit or 32-bit (file comment)
  Kokkos::View<std::int32_t*, MemorySpace> col_base;     ///< compressed: nslices, base column (-1: wide, -2: diagonal)
  Kokkos::View<std::int64_t*, MemorySpace> off_ptr;      ///< compressed: nslices, start in col_off or col_idx
  Kokkos::View<std::uint16_t*, MemorySpace> col_off;     ///< compressed: the narrow slices' column offsets
  std::int64_t wide_slices = 0;   ///< compressed: slices kept with 32-bit columns
  std::int64_t diagonal_slices = 0;  ///< compressed: slices of a column pattern relative to their rows
  Kokkos::View<Value*, MemorySpace> values;              ///< padded size
  std::int32_t npos = 0;          ///< permuted positions: nrows, plus the pieces of split long rows
  bool long_split = false;        ///< long rows split into pieces inside the slices (else the long-row CSR)
  std::int64_t long_row_threshold = 0;                   ///< rows longer than this left the slices (0: none)
  Kokkos::View<std::int64_t*, MemorySpace> piece_ptr;    ///< split: nlong + 1 offsets into the pieces
  Kokkos::View<std::int32_t*, MemorySpace> long_rows;    ///< nlong: original row of each long row
  Kokkos::View<std::int32_t*, MemorySpace> long_pos;     ///< nlong: its permuted position
  Kokkos::View<std::int64_t*, MemorySpace> long_row_ptr; ///< nlong + 1
  Kokkos::View<std::int32_t*, MemorySpace> long_col_idx; ///< long nnz
  Kokkos::View<Value*, MemorySpace> long_values;         ///< long nnz

  std::int64_t nlong() const { return static_cast<std::int64_t>(long_rows.extent(0)); }
  /// Pieces of split long rows (positions npos - nrows).
  std::int64_t npieces() const { return static_cast<std::int64_t>(npos) - nrows; }
  std::int64_t nslices() const { return static_cast<std::int64_t>(slice_width.extent(0)); }
  /// Stored entries: the slices' (padding included) plus the long rows'.
  std::int64_t stored() const { return static_cast<std::int64_t>(values.extent(0) + long_values.extent(0)); }
  /// stored / nnz (1 when nnz is 0).
  double padding_ratio() const { return nnz > 0 ? static_cast<double>(stored()) / static_cast<double>(nnz) : 1.0; }
  std::size_t bytes() const {
    return (slice_ptr.extent(0) + long_row_ptr.extent(0) + piece_ptr.extent(0) + off_ptr.extent(0)) *
               sizeof(std::int64_t) +
           (slice_width.extent(0) + row_len.extent(0) + perm.extent(0) + col_idx.extent(0) + long_rows.extent(0) +
            long_pos.extent(0) + long_col_idx.extent(0) + col_base.extent(0)) *
               sizeof(std::int32_t) +
           col_off.extent(0) * sizeof(std::uint16_t) + (values.extent(0) + long_values.extent(0)) * sizeof(Value);
  }
  /// Stored entries whose column is a 16-bit offset (0 unless compressed).
  std::int64_t compressed_entries() const { return static_cast<std::int64_t>(col_off.extent(0)); }
  /// Bytes of the same matrix uncompressed (a 4-byte column per stored slice entry, no kinds or offsets).
  std::size_t uncompressed_bytes() const {
    return bytes() + values.extent(0) * sizeof(std::int32_t) -
           (col_idx.extent(0) + col_base.extent(0)) * sizeof(std::int32_t) -
           col_off.extent(0) * sizeof(std::uint16_t) - off_ptr.extent(0) * sizeof(std::int64_t);
  }
};

/// Size of a SELL-C-sigma form of a CSR row structure, computed without building it.
struct SellShape {
  std::int64_t nslices = 0;
  std::int64_t stored = 0;  ///< sum over slices of C x slice width (the SELL lane-slots), plus long-row entries
  std::int64_t long_rows = 0;  ///< rows kept out of the slices
  std::int64_t pieces = 0;     ///< split long rows: their pieces, inside the slices
  double padding = 1.0;     ///< stored / nnz
  /// Bytes of the SELL arrays for a given value size (with a split plan's piece sums).
  std::size_t bytes(std::size_t value_size, std::int32_t nrows) const {
    return static_cast<std::size_t>(nslices + 1 + long_rows + 1) * 8 + static_cast<std::size_t>(nslices) * 4 +
           static_cast<std::size_t>(nrows + pieces) * 8 + static_cast<std::size_t>(long_rows) * 8 +
           static_cast<std::size_t>(pieces) * value_size + static_cast<std::size_t>(stored) * (4 + value_size);
  }
};

/// @throws InvalidArgument unless C is 4, 8, 16, 32 or 64 and sigma >= 1.
inline void check_sell_parameters(int slice_height, std::int64_t sigma) {
  if (slice_height != 4 && slice_height != 8 && slice_height != 16 && slice_height != 32 && slice_height != 64)
    throw InvalidArgument("SELL slice height C must be 4, 8, 16, 32 or 64, got " + std::to_string(slice_height));
  if (sigma < 1) throw InvalidArgument("SELL sorting window sigma must be >= 1, got " + std::to_string(sigma));
}

namespace detail {
/// log2 of a slice height (a power of two: check_sell_parameters), for shifts in kernels.
inline int log2_slice_height(std::int64_t C) {
  int b = 0;
  while ((std::int64_t{1} << b) < C) ++b;
  return b;
}

/// The positions of a SELL form before sorting: the matrix's rows, then (split long rows)
/// the pieces of each long row. 4 bytes per position plus 8 per piece.
struct SellRows {
  std::int32_t nrows = 0;
  Kokkos::View<std::int32_t*, Kokkos::HostSpace> len;          ///< npos: entries of each position (-1: a long row)
  Kokkos::View<std::int64_t*, Kokkos::HostSpace> piece_begin;  ///< npieces: first entry of each piece in the CSR arrays
  Kokkos::View<std::int32_t*, Kokkos::HostSpace> long_rows;    ///< the long rows, increasing
  Kokkos::View<std::int64_t*, Kokkos::HostSpace> piece_ptr;    ///< split: nlong + 1 offsets into the pieces
  std::int64_t npos() const { return static_cast<std::int64_t>(len.extent(0)); }
  /// First entry of position v in the CSR arrays.
  template <class Offset>
  std::int64_t begin(const Offset* row_ptr, std::int64_t v) const {
    return v < nrows ? static_cast<std::int64_t>(row_ptr[v]) : piece_begin(v - nrows);
  }
};

/// The positions of A's rows (sell_rows) sorted within windows of sigma: what SELL-C-sigma's
/// layout depends on besides C. choose() computes it for the shape, and csr_to_sell() takes
/// it again instead of sorting twice.
struct SellOrder {
  SellRows rows;
  Kokkos::View<std::int32_t*, Kokkos::HostSpace> perm;  ///< npos: position held at sorted place p
  std::int64_t sigma = 0, long_row_threshold = 0;
  bool split = false;
  bool empty() const { return sigma == 0; }
  /// Whether this order is the one of these parameters.
  bool is(std::int64_t sigma_, std::int64_t threshold, bool split_) const {
    return !empty() && sigma == sigma_ && long_row_threshold == threshold && split == split_;
  }
};

/// The positions in parallel over pieces of rows: each piece counts its long rows and their
/// pieces, an exclusive scan over the pieces places them, a second pass writes them.
template <class Offset>
SellRows sell_rows(const Offset* row_ptr, std::int32_t nrows, std::int64_t long_row_threshold, bool split) {
  SellRows r;
  r.nrows = nrows;
  const std::int64_t n = nrows, T = long_row_threshold;
  const auto length = [row_ptr](std::int64_t i) { return static_cast<std::int64_t>(row_ptr[i + 1] - row_ptr[i]); };
  const auto is_long = [&](std::int64_t len) { return T > 0 && len > T; };
  const std::int64_t np = pieces_of(n);
  // Per piece: long rows, pieces, and the first short row too long for a slice (n: none).
  std::vector<std::int64_t> nlong(static_cast<std::size_t>(np) + 1, 0), npieces(nlong), too_long(nlong);
  for_pieces("pspmv::sell_rows_count", n, host_piece, [&](std::int64_t b, std::int64_t begin, std::int64_t end) {
    std::int64_t l = 0, q = 0, bad = n;
    for (std::int64_t i = begin; i < end; ++i) {
      const std::int64_t len = length(i);
      if (is_long(len)) {
        ++l;
        q += (len + T - 1) / T;
      } else if (len > INT32_MAX && bad == n) {
        bad = i;
      }
    }
    nlong[b + 1] = l;
    npieces[b + 1] = split ? q : 0;
    too_long[b] = bad;
  });
  for (std::int64_t b = 0; b < np; ++b)
    if (too_long[b] < n) {
      const std::int64_t i = too_long[b];
      throw InvalidArgument("SELL: row " + std::to_string(i) + " holds " + std::to_string(length(i)) +
                            " entries, beyond a slice's 32-bit row length; set sell_long_row (rows beyond it "
                            "leave the slices)");
    }
  for (std::int64_t b = 0; b < np; ++b) {
    nlong[b + 1] += nlong[b];
    npieces[b + 1] += npieces[b];
  }
  const std::int64_t total_long = nlong[np], total_pieces = npieces[np];
  if (n + total_pieces > INT32_MAX)
    throw InvalidArgument("SELL: " + std::to_string(nrows) + " rows plus " + std::to_string(total_pieces) +
                          " pieces of split long rows exceed 2^31 - 1 positions; raise sell_long_row or "
                          "set sell_long_split = false");
  r.len = host_array<std::int32_t>("pspmv::sell_rows_len", n + total_pieces);
  r.long_rows = host_array<std::int32_t>("pspmv::sell_long_rows", total_long);
  r.piece_begin = host_array<std::int64_t>("pspmv::sell_piece_begin", total_pieces);
  if (split) {
    r.piece_ptr = host_array<std::int64_t>("pspmv::sell_piece_ptr", total_long + 1);
    r.piece_ptr(0) = 0;
  }
  for_pieces("pspmv::sell_rows", n, host_piece, [&](std::int64_t b, std::int64_t begin, std::int64_t end) {
    std::int64_t l = nlong[b], q = npieces[b];
    for (std::int64_t i = begin; i < end; ++i) {
      const std::int64_t len = length(i);
      if (!is_long(len)) {
        r.len(i) = static_cast<std::int32_t>(len);
        continue;
      }
      r.len(i) = -1;
      r.long_rows(l) = static_cast<std::int32_t>(i);
      ++l;
      if (!split) continue;
      for (std::int64_t k = 0; k < len; k += T, ++q) {
        r.piece_begin(q) = static_cast<std::int64_t>(row_ptr[i]) + k;
        r.len(n + q) = static_cast<std::int32_t>(std::min(T, len - k));
      }
      r.piece_ptr(l) = q;
    }
  });
  return r;
}

/// Permutation of positions sorted by descending length within windows of sigma (stable);
/// a long row (outside the slices) sorts by its full length. The windows are sorted in
/// parallel, each by one thread, in the order a serial std::stable_sort gives: left as it is when
/// already in order, by counting when its lengths span at most 4 sigma, else by std::stable_sort.
template <class Offset>
Kokkos::View<std::int32_t*, Kokkos::HostSpace> sell_permutation(const SellRows& rows, const Offset* row_ptr,
                                                                 std::int64_t sigma) {
  const std::int64_t n = rows.npos();
  auto perm = host_array<std::int32_t>("pspmv::sell_perm", n);
  std::int32_t* pp = perm.data();
  if (sigma <= 1 || n <= 1) {
    for_each_index("pspmv::sell_permutation", n, [&](std::int64_t p) { pp[p] = static_cast<std::int32_t>(p); });
    return perm;
  }
  const std::int32_t* len = rows.len.data();
  auto key = [&](std::int32_t v) -> std::int64_t {
    return len[v] >= 0 ? len[v] : static_cast<std::int64_t>(row_ptr[v + 1] - row_ptr[v]);
  };
  for_pieces("pspmv::sell_permutation", n, sigma, [&](std::int64_t, std::int64_t w, std::int64_t e) {
    for (std::int64_t p = w; p < e; ++p) pp[p] = static_cast<std::int32_t>(p);
    // A window already in descending order (equal lengths: stencils, banded and FEM matrices)
    // is its own stable sort; the check reads the lengths once, a sort several times.
    bool sorted = true;
    std::int64_t lo = key(static_cast<std::int32_t>(w)), hi = lo;
    for (std::int64_t p = w + 1; p < e; ++p) {
      const std::int64_t k = key(static_cast<std::int32_t>(p));
      sorted = sorted && key(static_cast<std::int32_t>(p - 1)) >= k;
      lo = k < lo ? k : lo;
      hi = k > hi ? k : hi;
    }
    if (sorted) return;
    if (hi - lo > 4 * (e - w)) {
      std::stable_sort(pp + w, pp + e, [&](std::int32_t a, std::int32_t b) { return key(a) > key(b); });
      return;
    }
    // Lengths within a span of 4 sigma: a counting sort, longest first, each length's positions in
    // their order (stable: the order std::stable_sort gives), in two passes over the window.
    std::vector<std::int64_t> start(static_cast<std::size_t>(hi - lo + 2), 0);
    for (std::int64_t p = w; p < e; ++p) ++start[static_cast<std::size_t>(hi - key(static_cast<std::int32_t>(p)) + 1)];
    for (std::size_t b = 1; b < start.size(); ++b) start[b] += start[b - 1];
    for (std::int64_t p = w; p < e; ++p)
      pp[w + start[static_cast<std::size_t>(hi - key(static_cast<std::int32_t>(p)))]++] = static_cast<std::int32_t>(p);
  });
  return perm;
}

/// The sorted order of A's row structure for sigma and the long-row handling.
template <class Offset>
SellOrder sell_order(const Offset* row_ptr, std::int32_t nrows, std::int64_t sigma, std::int64_t long_row_threshold,
                     bool split) {
  SellOrder o;
  o.rows = sell_rows(row_ptr, nrows, long_row_threshold, split);
  o.perm = sell_permutation(o.rows, row_ptr, sigma);
  o.sigma = sigma;
  o.long_row_threshold = long_row_threshold;
  o.split = split;
  return o;
}

/// Longest position of each slice of C sorted positions (-1 rows count as 0), in parallel.
template <class Order>
void slice_widths(const Order& o, std::int64_t C, std::int32_t* width) {
  const std::int64_t npos = o.rows.npos(), nslices = (npos + C - 1) / C;
  const std::int32_t* len = o.rows.len.data();
  const std::int32_t* perm = o.perm.data();
  for_each_index("pspmv::sell_slice_width", nslices, [&](std::int64_t s) {
    std::int32_t w = 0;
    for (std::int64_t p = s * C; p < std::min<std::int64_t>(npos, (s + 1) * C); ++p) w = std::max(w, len[perm[p]]);
    width[s] = w;
  });
}

/// SellShape of an order at slice height C.
template <class Offset>
SellShape sell_shape_of(const SellOrder& o, const Offset* row_ptr, std::int32_t nrows, int slice_height) {
  const std::int64_t npos = o.rows.npos(), C = slice_height;
  SellShape s;
  s.nslices = (npos + C - 1) / C;
  s.long_rows = static_cast<std::int64_t>(o.rows.long_rows.extent(0));
  s.pieces = npos - nrows;
  std::vector<std::int32_t> width(static_cast<std::size_t>(s.nslices));
  slice_widths(o, C, width.data());
  std::vector<std::int64_t> ptr(width.size() + 1);
  s.stored = exclusive_scan<std::int64_t>("pspmv::sell_shape", s.nslices, [&](std::int64_t sl) { return C * width[sl]; },
                                          ptr.data());
  if (!o.split) {
    const std::int32_t* lr = o.rows.long_rows.data();
    std::vector<std::int64_t> lptr(static_cast<std::size_t>(s.long_rows) + 1);
    s.stored += exclusive_scan<std::int64_t>(
        "pspmv::sell_shape_long", s.long_rows,
        [&](std::int64_t l) { return static_cast<std::int64_t>(row_ptr[lr[l] + 1] - row_ptr[lr[l]]); }, lptr.data());
  }
  const std::int64_t nnz = nrows > 0 ? static_cast<std::int64_t>(row_ptr[nrows]) : 0;
  s.padding = nnz > 0 ? static_cast<double>(s.stored) / static_cast<double>(nnz) : 1.0;
  return s;
}
}  // namespace detail

/// Shape of SELL-C-sigma for a row structure (row_ptr with nrows + 1 entries).
/// Rows longer than `long_row_threshold` (> 0) count as long rows, stored unpadded.
/// With `split`, long rows are cut into pieces of at most long_row_threshold entries that
/// join the slices (see SellMatrix); otherwise they are stored unpadded beside them.
template <class Offset>
SellShape sell_shape(const Offset* row_ptr, std::int32_t nrows, int slice_height, std::int64_t sigma,
                     std::int64_t long_row_threshold = 0, bool split = false) {
  check_sell_parameters(slice_height, sigma);
  const auto order = detail::sell_order(row_ptr, nrows, sigma, long_row_threshold, split);
  return detail::sell_shape_of(order, row_ptr, nrows, slice_height);
}

namespace detail {
// The passes of csr_to_sell(A, C, order), one function each: nvcc's front end (CUDA 12's EDG)
// fails on a function template that holds several of these host lambdas.

/// out[p] = len[perm[p]] for p < n.
inline void gather_lengths(const std::int32_t* len, const std::int32_t* perm, std::int64_t n, std::int32_t* out) {
  for_each_index("pspmv::sell_row_len", n, [=](std::int64_t p) { out[p] = len[perm[p]]; });
}

/// ptr = exclusive scan of the long rows' lengths (nlong + 1 entries); returns their entries.
template <class Offset>
std::int64_t long_row_offsets(const Offset* rp, const std::int32_t* lr, std::int64_t nlong, std::int64_t* ptr) {
  return exclusive_scan<std::int64_t>(
      "pspmv::sell_long_row_ptr", nlong, [=](std::int64_t l) { return static_cast<std::int64_t>(rp[lr[l] + 1] - rp[lr[l]]); },
      ptr);
}

/// pos[l] = sorted position of long row lr[l] (lr increasing: a binary search per position).
inline void long_row_positions(const std::int32_t* len, const std::int32_t* perm, std::int64_t npos,
                               const std::int32_t* lr, std::int64_t nlong, std::int32_t* pos) {
  for_each_index("pspmv::sell_long_pos", npos, [=](std::int64_t p) {
    if (len[perm[p]] < 0) pos[std::lower_bound(lr, lr + nlong, perm[p]) - lr] = static_cast<std::int32_t>(p);
  });
}

/// The long rows' entries, row after row, into their own CSR arrays.
template <class Value, class Offset>
void copy_long_rows(const Offset* rp, const std::int32_t* ci, const Value* va, const std::int32_t* lr, std::int64_t nlong,
                    const std::int64_t* ptr, std::int32_t* col, Value* val) {
  for_each_index("pspmv::sell_long_rows", nlong, [=](std::int64_t l) {
    const std::int64_t b = static_cast<std::int64_t>(rp[lr[l]]);
    for (std::int64_t k = 0; k < ptr[l + 1] - ptr[l]; ++k) {
      col[ptr[l] + k] = ci[b + k];
      val[ptr[l] + k] = va[b + k];
    }
  });
}

/// slice_ptr = exclusive scan of C x width; returns the stored entries.
inline std::int64_t slice_offsets(const std::int32_t* width, std::int64_t nslices, std::int64_t C, std::int64_t* ptr) {
  return exclusive_scan<std::int64_t>("pspmv::sell_slice_ptr", nslices, [=](std::int64_t s) { return C * width[s]; },
                                      ptr);
}

/// The scatter: slice s's column j holds entry j of its C positions, padding (column 0,
/// value 0) past each position's length. Position v < n starts at rp[v], a piece at
/// piece_begin[v - n]. With col null, the values alone (the columns are written compressed).
template <class Value, class Offset>
void scatter_slices(const Offset* rp, const std::int64_t* piece_begin, std::int64_t n, const std::int32_t* ci,
                    const Value* va, const std::int32_t* perm, const std::int32_t* row_len, std::int64_t npos,
                    const std::int32_t* width, const std::int64_t* sptr, std::int64_t nslices, std::int64_t C,
                    std::int32_t* col, Value* val) {
  for_each_index("pspmv::csr_to_sell", nslices, [=](std::int64_t s) {
    const std::int64_t w = width[s], base = sptr[s];
    for (std::int64_t r = 0; r < C; ++r) {
      const std::int64_t p = s * C + r;
      std::int64_t have = 0;
      if (p < npos && row_len[p] > 0) {
        have = row_len[p];
        const std::int64_t v = perm[p];
        const std::int64_t b = v < n ? static_cast<std::int64_t>(rp[v]) : piece_begin[v - n];
        if (col)
          for (std::int64_t j = 0; j < have; ++j) col[base + j * C + r] = ci[b + j];
        for (std::int64_t j = 0; j < have; ++j) val[base + j * C + r] = va[b + j];
      }
      for (std::int64_t j = have; j < w; ++j) {  // padding: column 0, value 0, never read
        if (col) col[base + j * C + r] = 0;
        val[base + j * C + r] = Value(0);
      }
    }
  });
}
}  // namespace detail

namespace detail {
/// csr_to_sell(A, C, order); with `columns` false, every array but col_idx (left empty: the
/// compressed build writes the columns in their own forms, csr_to_compressed_sell).
template <class Value, class Offset>
SellMatrix<Value, Kokkos::HostSpace> sell_of(const HostCsr<Value, Offset>& A, int slice_height, const SellOrder& order,
                                             bool columns) {
  SellMatrix<Value, Kokkos::HostSpace> S;
  const std::int64_t C = slice_height;
  const std::int32_t n = A.nrows;
  const auto& rows = order.rows;
  const std::int32_t npos = static_cast<std::int32_t>(rows.npos());
  S.nrows = n;
  S.npos = npos;
  S.ncols = A.ncols;
  S.slice_height = slice_height;
  S.sigma = static_cast<std::int32_t>(std::min<std::int64_t>(order.sigma, std::max<std::int32_t>(1, npos)));
  S.nnz = static_cast<std::int64_t>(A.nnz());
  S.long_split = order.split;
  S.long_row_threshold = order.long_row_threshold;
  const std::int64_t nslices = (npos + C - 1) / C;
  S.perm = order.perm;
  S.row_len = host_array<std::int32_t>("pspmv::sell_row_len", npos);
  detail::gather_lengths(rows.len.data(), order.perm.data(), npos, S.row_len.data());
  const std::int64_t nlong = static_cast<std::int64_t>(rows.long_rows.extent(0));
  S.long_rows = rows.long_rows;
  if (S.long_split) {
    S.piece_ptr = rows.piece_ptr;
  } else {
    S.long_pos = host_array<std::int32_t>("pspmv::sell_long_pos", nlong);
    S.long_row_ptr = host_array<std::int64_t>("pspmv::sell_long_row_ptr", nlong + 1);
    const std::int64_t long_nnz =
        detail::long_row_offsets(A.row_ptr.data(), rows.long_rows.data(), nlong, S.long_row_ptr.data());
    S.long_col_idx = host_array<std::int32_t>("pspmv::sell_long_col_idx", long_nnz);
    S.long_values = host_array<Value>("pspmv::sell_long_values", long_nnz);
    if (nlong > 0)
      detail::long_row_positions(rows.len.data(), order.perm.data(), npos, rows.long_rows.data(), nlong,
                                 S.long_pos.data());
    detail::copy_long_rows(A.row_ptr.data(), A.col_idx.data(), A.values.data(), rows.long_rows.data(), nlong,
                           S.long_row_ptr.data(), S.long_col_idx.data(), S.long_values.data());
  }
  S.slice_width = host_array<std::int32_t>("pspmv::sell_slice_width", nslices);
  S.slice_ptr = host_array<std::int64_t>("pspmv::sell_slice_ptr", nslices + 1);
  detail::slice_widths(order, C, S.slice_width.data());
  const std::int64_t stored = detail::slice_offsets(S.slice_width.data(), nslices, C, S.slice_ptr.data());
  if (columns) S.col_idx = host_array<std::int32_t>("pspmv::sell_col_idx", stored);
  S.values = host_array<Value>("pspmv::sell_values", stored);
  detail::scatter_slices(A.row_ptr.data(), rows.piece_begin.data(), n, A.col_idx.data(), A.values.data(),
                         order.perm.data(), S.row_len.data(), npos, S.slice_width.data(), S.slice_ptr.data(), nslices, C,
                         columns ? S.col_idx.data() : nullptr, S.values.data());
  return S;
}
}  // namespace detail

/// Converts a validated host CSR matrix to SELL-C-sigma on the host, from the sorted order
/// `order` of its rows (detail::sell_order with this sigma, threshold and split: choose()
/// keeps the one it computed for the shape). Every step runs in parallel on the host: the
/// permuted row lengths, the slice widths, the scan of slice offsets, the scatter of the
/// entries (padding written as column 0, value 0 by the same pass) and the long-row CSR.
template <class Value, class Offset>
SellMatrix<Value, Kokkos::HostSpace> csr_to_sell(const HostCsr<Value, Offset>& A, int slice_height,
                                                 const detail::SellOrder& order) {
  return detail::sell_of(A, slice_height, order, true);
}

/// Converts a validated host CSR matrix to SELL-C-sigma on the host (sorting its rows first:
/// csr_to_sell with detail::sell_order).
/// Rows longer than `long_row_threshold` (> 0) leave the slices: into the long-row CSR, or
/// with `split` cut into pieces of at most that many entries inside the slices.
/// @throws InvalidArgument for bad C or sigma, or more than 2^31 - 1 positions.
template <class Value, class Offset>
SellMatrix<Value, Kokkos::HostSpace> csr_to_sell(const HostCsr<Value, Offset>& A, int slice_height,
                                                 std::int64_t sigma, std::int64_t long_row_threshold = 0,
                                                 bool split = false) {
  check_sell_parameters(slice_height, sigma);
  const auto order =
      detail::sell_order(A.row_ptr.data(), A.nrows, sigma, long_row_threshold, split && long_row_threshold > 0);
  return csr_to_sell(A, slice_height, order);
}

/// Deep copy of a SELL matrix into another memory space, ordered on the execution-space
/// instance `space` (asynchronous: fence `space` before using the copy or releasing S).
template <class DstSpace, class ExecSpace, class Value, class SrcSpace>
SellMatrix<Value, DstSpace> copy_to(const ExecSpace& space, const SellMatrix<Value, SrcSpace>& S) {
  SellMatrix<Value, DstSpace> D;
  D.nrows = S.nrows;
  D.ncols = S.ncols;
  D.slice_height = S.slice_height;
  D.sigma = S.sigma;
  D.nnz = S.nnz;
  D.long_row_threshold = S.long_row_threshold;
  D.npos = S.npos;
  D.long_split = S.long_split;
  D.compressed = S.compressed;
  D.wide_slices = S.wide_slices;
  D.diagonal_slices = S.diagonal_slices;
  auto mirror = [&space](auto& dst, const auto& src, const char* label) {
    using V = std::decay_t<decltype(dst)>;
    dst = V(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), src.extent(0));
    Kokkos::deep_copy(space, dst, src);
  };
  mirror(D.slice_ptr, S.slice_ptr, "pspmv::sell_slice_ptr");
  mirror(D.slice_width, S.slice_width, "pspmv::sell_slice_width");
  mirror(D.row_len, S.row_len, "pspmv::sell_row_len");
  mirror(D.perm, S.perm, "pspmv::sell_perm");
  mirror(D.col_idx, S.col_idx, "pspmv::sell_col_idx");
  mirror(D.values, S.values, "pspmv::sell_values");
  mirror(D.long_rows, S.long_rows, "pspmv::sell_long_rows");
  mirror(D.long_pos, S.long_pos, "pspmv::sell_long_pos");
  mirror(D.long_row_ptr, S.long_row_ptr, "pspmv::sell_long_row_ptr");
  mirror(D.long_col_idx, S.long_col_idx, "pspmv::sell_long_col_idx");
  mirror(D.long_values, S.long_values, "pspmv::sell_long_values");
  mirror(D.piece_ptr, S.piece_ptr, "pspmv::sell_piece_ptr");
  mirror(D.col_base, S.col_base, "pspmv::sell_col_base");
  mirror(D.off_ptr, S.off_ptr, "pspmv::sell_off_ptr");
  mirror(D.col_off, S.col_off, "pspmv::sell_col_off");
  return D;
}

/// Deep copy of a SELL matrix into another memory space; returns when done.
template <class DstSpace, class Value, class SrcSpace>
SellMatrix<Value, DstSpace> copy_to(const SellMatrix<Value, SrcSpace>& S) {
  using Exec = typename DstSpace::execution_space;
  auto D = copy_to<DstSpace>(Exec(), S);
  Exec().fence();
  return D;
}

}  // namespace pspmv
