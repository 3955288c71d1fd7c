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

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "pspmv/matrix/csr.hpp"
#include "pspmv/errors.hpp"

namespace pspmv {

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
  Kokkos::View<std::int32_t*, MemorySpace> col_idx;      ///< padded size
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
    return (slice_ptr.extent(0) + long_row_ptr.extent(0) + piece_ptr.extent(0)) * sizeof(std::int64_t) +
           (slice_width.extent(0) + row_len.extent(0) + perm.extent(0) + col_idx.extent(0) + long_rows.extent(0) +
            long_pos.extent(0) + long_col_idx.extent(0)) *
               sizeof(std::int32_t) +
           (values.extent(0) + long_values.extent(0)) * sizeof(Value);
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
/// The positions of a SELL form before sorting: the matrix's rows, then (split long rows)
/// the pieces of each long row. 4 bytes per position plus 8 per piece.
struct SellRows {
  std::int32_t nrows = 0;
  std::vector<std::int32_t> len;          ///< npos: entries of each position (-1: a long row)
  std::vector<std::int64_t> piece_begin;  ///< npieces: first entry of each piece in the CSR arrays
  std::vector<std::int32_t> long_rows;    ///< the long rows, increasing
  std::vector<std::int64_t> piece_ptr;    ///< split: nlong + 1 offsets into the pieces
  std::int64_t npos() const { return static_cast<std::int64_t>(len.size()); }
  /// First entry of position v in the CSR arrays.
  template <class Offset>
  std::int64_t begin(const Offset* row_ptr, std::int64_t v) const {
    return v < nrows ? static_cast<std::int64_t>(row_ptr[v]) : piece_begin[v - nrows];
  }
};

template <class Offset>
SellRows sell_rows(const Offset* row_ptr, std::int32_t nrows, std::int64_t long_row_threshold, bool split) {
  SellRows r;
  r.nrows = nrows;
  r.len.resize(static_cast<std::size_t>(nrows));
  if (split) r.piece_ptr.push_back(0);
  std::vector<std::int32_t> piece_len;
  for (std::int32_t i = 0; i < nrows; ++i) {
    const std::int64_t len = row_ptr[i + 1] - row_ptr[i];
    if (long_row_threshold > 0 && len > long_row_threshold) {
      r.len[i] = -1;
      r.long_rows.push_back(i);
      if (split) {
        for (std::int64_t k = 0; k < len; k += long_row_threshold) {
          r.piece_begin.push_back(static_cast<std::int64_t>(row_ptr[i]) + k);
          piece_len.push_back(static_cast<std::int32_t>(std::min(long_row_threshold, len - k)));
        }
        r.piece_ptr.push_back(static_cast<std::int64_t>(piece_len.size()));
      }
      continue;
    }
    if (len > INT32_MAX)
      throw InvalidArgument("SELL: row " + std::to_string(i) + " holds " + std::to_string(len) +
                            " entries, beyond a slice's 32-bit row length; set sell_long_row (rows beyond it "
                            "leave the slices)");
    r.len[i] = static_cast<std::int32_t>(len);
  }
  if (static_cast<std::int64_t>(nrows) + static_cast<std::int64_t>(piece_len.size()) > INT32_MAX)
    throw InvalidArgument("SELL: " + std::to_string(nrows) + " rows plus " + std::to_string(piece_len.size()) +
                          " pieces of split long rows exceed 2^31 - 1 positions; raise sell_long_row or "
                          "set sell_long_split = false");
  r.len.insert(r.len.end(), piece_len.begin(), piece_len.end());
  return r;
}

/// Permutation of positions sorted by descending length within windows of sigma (stable);
/// a long row (outside the slices) sorts by its full length.
template <class Offset>
std::vector<std::int32_t> sell_permutation(const SellRows& rows, const Offset* row_ptr, std::int64_t sigma) {
  const std::int64_t n = rows.npos();
  std::vector<std::int32_t> perm(static_cast<std::size_t>(n));
  std::iota(perm.begin(), perm.end(), 0);
  if (sigma <= 1) return perm;
  auto key = [&](std::int32_t v) -> std::int64_t {
    return rows.len[v] >= 0 ? rows.len[v] : static_cast<std::int64_t>(row_ptr[v + 1] - row_ptr[v]);
  };
  for (std::int64_t w = 0; w < n; w += sigma) {
    const std::int64_t e = std::min<std::int64_t>(n, w + sigma);
    std::stable_sort(perm.begin() + w, perm.begin() + e, [&](std::int32_t a, std::int32_t b) { return key(a) > key(b); });
  }
  return perm;
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
  const auto rows = detail::sell_rows(row_ptr, nrows, long_row_threshold, split);
  const auto perm = detail::sell_permutation(rows, row_ptr, sigma);
  const std::int64_t npos = rows.npos();
  SellShape s;
  const std::int64_t C = slice_height;
  s.nslices = (npos + C - 1) / C;
  s.long_rows = static_cast<std::int64_t>(rows.long_rows.size());
  s.pieces = npos - nrows;
  if (!split)
    for (const std::int32_t i : rows.long_rows) s.stored += row_ptr[i + 1] - row_ptr[i];
  for (std::int64_t sl = 0; sl < s.nslices; ++sl) {
    std::int64_t w = 0;
    for (std::int64_t p = sl * C; p < std::min<std::int64_t>(npos, (sl + 1) * C); ++p)
      w = std::max<std::int64_t>(w, rows.len[perm[p]]);
    s.stored += C * w;
  }
  const std::int64_t nnz = nrows > 0 ? static_cast<std::int64_t>(row_ptr[nrows]) : 0;
  s.padding = nnz > 0 ? static_cast<double>(s.stored) / static_cast<double>(nnz) : 1.0;
  return s;
}

/// Converts a validated host CSR matrix to SELL-C-sigma on the host.
/// Rows longer than `long_row_threshold` (> 0) leave the slices: into the long-row CSR, or
/// with `split` cut into pieces of at most that many entries inside the slices.
/// @throws InvalidArgument for bad C or sigma, or more than 2^31 - 1 positions.
template <class Value, class Offset>
SellMatrix<Value, Kokkos::HostSpace> csr_to_sell(const HostCsr<Value, Offset>& A, int slice_height,
                                                 std::int64_t sigma, std::int64_t long_row_threshold = 0,
                                                 bool split = false) {
  check_sell_parameters(slice_height, sigma);
  SellMatrix<Value, Kokkos::HostSpace> S;
  const std::int64_t C = slice_height;
  const std::int32_t n = A.nrows;
  const auto rows = detail::sell_rows(A.row_ptr.data(), n, long_row_threshold, split && long_row_threshold > 0);
  const std::int32_t npos = static_cast<std::int32_t>(rows.len.size());
  S.nrows = n;
  S.npos = npos;
  S.ncols = A.ncols;
  S.slice_height = slice_height;
  S.sigma = static_cast<std::int32_t>(std::min<std::int64_t>(sigma, std::max<std::int32_t>(1, npos)));
  S.nnz = static_cast<std::int64_t>(A.nnz());
  S.long_split = split && long_row_threshold > 0;
  const auto perm = detail::sell_permutation(rows, A.row_ptr.data(), sigma);
  const std::int64_t nslices = (npos + C - 1) / C;
  S.perm = Kokkos::View<std::int32_t*, Kokkos::HostSpace>("pspmv::sell_perm", npos);
  S.row_len = Kokkos::View<std::int32_t*, Kokkos::HostSpace>("pspmv::sell_row_len", npos);
  S.slice_width = Kokkos::View<std::int32_t*, Kokkos::HostSpace>("pspmv::sell_slice_width", nslices);
  S.slice_ptr = Kokkos::View<std::int64_t*, Kokkos::HostSpace>("pspmv::sell_slice_ptr", nslices + 1);
  S.long_row_threshold = long_row_threshold;
  for (std::int32_t p = 0; p < npos; ++p) {
    S.perm(p) = perm[p];
    S.row_len(p) = rows.len[perm[p]];  // -1: a long row
  }
  const std::int64_t nlong = static_cast<std::int64_t>(rows.long_rows.size());
  S.long_rows = Kokkos::View<std::int32_t*, Kokkos::HostSpace>("pspmv::sell_long_rows", nlong);
  for (std::int64_t l = 0; l < nlong; ++l) S.long_rows(l) = rows.long_rows[l];
  if (S.long_split) {
    S.piece_ptr = Kokkos::View<std::int64_t*, Kokkos::HostSpace>("pspmv::sell_piece_ptr", nlong + 1);
    for (std::int64_t l = 0; l <= nlong; ++l) S.piece_ptr(l) = rows.piece_ptr[l];
  } else {
    std::vector<std::int64_t> long_ptr(1, 0);
    for (const std::int32_t i : rows.long_rows) long_ptr.push_back(long_ptr.back() + (A.row_ptr(i + 1) - A.row_ptr(i)));
    S.long_pos = Kokkos::View<std::int32_t*, Kokkos::HostSpace>("pspmv::sell_long_pos", nlong);
    S.long_row_ptr = Kokkos::View<std::int64_t*, Kokkos::HostSpace>("pspmv::sell_long_row_ptr", nlong + 1);
    S.long_col_idx = Kokkos::View<std::int32_t*, Kokkos::HostSpace>("pspmv::sell_long_col_idx", long_ptr.back());
    S.long_values = Kokkos::View<Value*, Kokkos::HostSpace>("pspmv::sell_long_values", long_ptr.back());
    std::vector<std::int32_t> pos_of(static_cast<std::size_t>(n));
    for (std::int32_t p = 0; p < npos; ++p) pos_of[perm[p]] = p;
    for (std::int64_t l = 0; l < nlong; ++l) {
      S.long_pos(l) = pos_of[rows.long_rows[l]];
      S.long_row_ptr(l + 1) = long_ptr[l + 1];
      const Offset b = A.row_ptr(rows.long_rows[l]);
      for (std::int64_t k = 0; k < long_ptr[l + 1] - long_ptr[l]; ++k) {
        S.long_col_idx(long_ptr[l] + k) = A.col_idx(b + k);
        S.long_values(long_ptr[l] + k) = A.values(b + k);
      }
    }
  }
  for (std::int64_t s = 0; s < nslices; ++s) {
    std::int32_t w = 0;
    for (std::int64_t p = s * C; p < std::min<std::int64_t>(npos, (s + 1) * C); ++p) w = std::max(w, S.row_len(p));
    S.slice_width(s) = w;
    S.slice_ptr(s + 1) = S.slice_ptr(s) + C * w;
  }
  const std::int64_t stored = S.slice_ptr(nslices);
  S.col_idx = Kokkos::View<std::int32_t*, Kokkos::HostSpace>("pspmv::sell_col_idx", stored);  // zero: padding
  S.values = Kokkos::View<Value*, Kokkos::HostSpace>("pspmv::sell_values", stored);
  Kokkos::parallel_for(
      "pspmv::csr_to_sell", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, nslices),
      [&](const std::int64_t s) {
        for (std::int64_t p = s * C; p < std::min<std::int64_t>(npos, (s + 1) * C); ++p) {
          const std::int64_t r = p - s * C;
          const std::int64_t b = rows.begin(A.row_ptr.data(), S.perm(p));
          for (std::int32_t j = 0; j < S.row_len(p); ++j) {
            S.col_idx(S.slice_ptr(s) + j * C + r) = A.col_idx(b + j);
            S.values(S.slice_ptr(s) + j * C + r) = A.values(b + j);
          }
        }
      });
  Kokkos::DefaultHostExecutionSpace().fence();  // the host only: no wait on device work
  return S;
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
