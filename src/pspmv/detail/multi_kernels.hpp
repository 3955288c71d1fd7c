#pragma once
/// @file multi_kernels.hpp
/// Several vectors at once (SpMM): Y = alpha A X + beta Y for X and Y of k columns, written
/// once as functors templated on the execution space, one per kernel of csr_kernels.hpp and
/// sell_kernels.hpp, launched under the same schedules (schedules.hpp).
///
/// A launch computes a block of K columns (K in 2, 4, 8, 16: a compile-time bucket, so that
/// the K sums of a row live in registers): each matrix entry is read once and multiplied into
/// K sums; on a GPU with LayoutRight, K / W threads of a warp share the entry instead, W sums
/// each, their W values of X one load (MultiColumnLanes). A block of nk < K columns (k = 3 runs
/// in the K = 4 bucket, a single strided column in the K = 2 one) repeats its last column
/// in the spare sums and stores only nk; more than ExecTraits::multi_columns (16 on a host, 8 on
/// a GPU) take several blocks, each a pass over the matrix. Each column's sum adds a row's
/// entries in the order of the one-vector
/// kernel of the same mapping (thread-owned rows: entry order; lane-shared rows: lane l takes
/// entries l, l + lanes, ..., then the lanes reduce in Kokkos' fixed order), fixed per plan.
///
/// Layouts: X(c, q) is gathered at the entry's column c for the K columns q. With LayoutRight
/// those K values are contiguous (one or two cache lines per entry for K <= 16 in f64), with
/// LayoutLeft they are K gathers ncols apart; so LayoutRight is the layout these kernels are
/// built for on both backends (a GPU and a CPU alike pay per cache line gathered). Y is
/// written once per row and column, K contiguous values with LayoutRight.

#include <Kokkos_Core.hpp>

#include <cstdint>

#include "pspmv/detail/csr_kernels.hpp"
#include "pspmv/detail/sell_kernels.hpp"  // gather_dot's column forms (PointerAt, OffsetColumns, DiagonalColumns)
#include "pspmv/detail/storage.hpp"  // Workspace

namespace pspmv {
namespace detail {

/// K partial sums, one per column of a block: the value type of the lane-shared reductions.
template <class Value, int K>
struct MultiSum {
  Value v[K];
  KOKKOS_INLINE_FUNCTION MultiSum() {
    for (int q = 0; q < K; ++q) v[q] = Value(0);
  }
  KOKKOS_INLINE_FUNCTION MultiSum& operator+=(const MultiSum& o) {
    for (int q = 0; q < K; ++q) v[q] += o.v[q];
    return *this;
  }
  KOKKOS_INLINE_FUNCTION void operator+=(const volatile MultiSum& o) volatile {
    for (int q = 0; q < K; ++q) v[q] += o.v[q];
  }
};

/// X and Y as the kernels see them: LayoutStride, which both LayoutRight and LayoutLeft convert
/// to, so that one instantiation serves every pair of layouts (the strides are run-time values;
/// an X with adjacent columns is read at constant offsets from its row: MultiBase::add).
template <class Value, class Mem>
using MultiXView = Kokkos::View<const Value**, Kokkos::LayoutStride, Mem,
                                Kokkos::MemoryTraits<Kokkos::Unmanaged | Kokkos::RandomAccess>>;
template <class Value, class Mem>
using MultiYView = Kokkos::View<Value**, Kokkos::LayoutStride, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

/// The caller's X and Y, the block's columns [col0, col0 + nk) and the BLAS scalars.
template <class ExecSpace, class Value, int K>
struct MultiBase {
  using memory_space = typename ExecSpace::memory_space;
  using sum_type = MultiSum<Value, K>;
  MultiXView<Value, memory_space> X;
  MultiYView<Value, memory_space> Y;
  Value alpha;
  Value beta;
  bool beta_zero = false;  ///< beta == 0: Y is written without being read (a run-time test per row)
  bool x_unit = false;     ///< X's columns are adjacent (LayoutRight): X(c, .) read at constant offsets
  bool x_full = false;     ///< x_unit and nk == K: the K values of X(c, .) one contiguous run
  bool y_full = false;     ///< Y's columns adjacent and nk == K: Y(i, .) written as one contiguous run
  int col0 = 0;            ///< first column of the block
  int nk = K;              ///< columns of the block (1 <= nk <= K)
  int lane_col = 0;        ///< under MultiColumnLanes: this thread's first column's slot in a piece's sums
  bool lane_pack = false;  ///< under MultiColumnLanes: X read through gather_pack (K values per load)
  static constexpr int width = K;

  /// s(q) += v * X(c, col0 + q) for the K sums (the spare ones repeat the last column).
  /// x_full: K contiguous loads and K multiply-adds with no per-column select, which the host
  /// compiler turns into one or two SIMD loads and multiply-adds (the select of the spare
  /// columns kept it scalar: 1.9x slower at K = 8 in f64 on the 2-core EPYC, perf/probes/multi_columns_loop.cpp,
  /// docs/selection.md); the same additions in the same order as the general form.
  KOKKOS_INLINE_FUNCTION void add(sum_type& s, const Value v, const std::int32_t c) const {
    const int last = nk - 1;
    if (x_full) {
      const Value* xr = X.data() + static_cast<std::int64_t>(c) * static_cast<std::int64_t>(X.stride(0)) + col0;
      for (int q = 0; q < K; ++q) s.v[q] += v * xr[q];
    } else if (x_unit) {
      // The raw row (X.data() is a plain pointer under every memory trait; X(c, q) may be a
      // read-only load returning a value on a GPU, whose address cannot be taken).
      const Value* xr = X.data() + static_cast<std::int64_t>(c) * static_cast<std::int64_t>(X.stride(0)) + col0;
      for (int q = 0; q < K; ++q) s.v[q] += v * xr[q < nk ? q : last];
    } else {
      for (int q = 0; q < K; ++q) s.v[q] += v * X(c, col0 + (q < nk ? q : last));
    }
  }
  /// K adjacent values of X (a row's entries in the columns col0 .. col0 + K - 1), aligned to
  /// their size so that a GPU thread loads them as one run (one 128-bit load for 2 doubles or 4
  /// floats, two for 4 doubles).
  struct alignas(sizeof(Value) * K) XPack {
    Value v[K];
  };
  /// The K sums of a row's entries first, first + stride, ... < end under MultiColumnLanes
  /// (lane_pack: this thread's K adjacent columns of a LayoutRight block, X(c, col0) aligned to
  /// XPack): U entries' values and columns loaded, then their U runs of X gathered, one XPack
  /// each. With U > 1 a SELL row's next entry, C entries further and a new 32-byte sector for
  /// each warp, is in flight with the others (the one-vector kernels' gather_dot, whose loop this
  /// is for K sums); on the H200 (k = 8, f64, K = 1) the SELL plans of skewed:16777216 and
  /// stencil27:120 ran 2.25x and 1.18x faster so, even:16777216's 0.77x (docs/selection.md). A
  /// CSR row's entries are contiguous: MultiCsrThreadPerRow takes them one at a time (U = 1;
  /// 4 ahead ran its k = 8 0.71-1.07x). Each column's sum adds the entries in entry order with
  /// add()'s products: the K-sum kernel's Y.
  template <int U, class ValuesAt, class ColumnAt>
  KOKKOS_INLINE_FUNCTION void gather_pack(sum_type& s, const ValuesAt& values, const ColumnAt& column,
                                          std::int64_t k, const std::int64_t end, const std::int64_t stride) const {
    // X's values read as XPack: an aligned run of K Values, the access nvcc compiles to vector
    // loads (as CUDA's own double2 and float4 are read); only a GPU runs it (lane_pack).
    const XPack* xp = reinterpret_cast<const XPack*>(X.data() + col0);
    const std::int64_t ld = static_cast<std::int64_t>(X.stride(0)) / K;
    for (; k + (U - 1) * stride < end; k += U * stride) {
      std::int32_t c[U];
      Value v[U];
      for (int u = 0; u < U; ++u) {
        c[u] = column(k + u * stride);
        v[u] = values(k + u * stride);
      }
      for (int u = 0; u < U; ++u) {
        const XPack x = xp[static_cast<std::int64_t>(c[u]) * ld];
        for (int q = 0; q < K; ++q) s.v[q] += v[u] * x.v[q];
      }
    }
    if constexpr (U > 1) {
      // The last, partial group with its loads issued together (gather_dot's tail).
      if (k < end) {
        std::int32_t c[U];
        Value v[U];
        for (int u = 0; u < U; ++u) {
          const bool in = k + u * stride < end;
          c[u] = in ? column(k + u * stride) : 0;
          v[u] = in ? Value(values(k + u * stride)) : Value(0);
        }
        for (int u = 0; u < U; ++u)
          if (k + u * stride < end) {
            const XPack x = xp[static_cast<std::int64_t>(c[u]) * ld];
            for (int q = 0; q < K; ++q) s.v[q] += v[u] * x.v[q];
          }
      }
    }
  }
  /// add() with x_full known at compile time (Full: the contiguous form; else add()).
  template <bool Full>
  KOKKOS_INLINE_FUNCTION void add_to(sum_type& s, const Value v, const std::int32_t c) const {
    if constexpr (Full) {
      const Value* xr = X.data() + static_cast<std::int64_t>(c) * static_cast<std::int64_t>(X.stride(0)) + col0;
PSPMV_UNROLL_ALL
      for (int q = 0; q < K; ++q) s.v[q] += v * xr[q];
    } else {
      add(s, v, c);
    }
  }
  /// Y(i, col0 + q) = alpha s(q) + beta Y(i, col0 + q) for the nk columns (Y not read when beta_zero).
  KOKKOS_INLINE_FUNCTION void store(const std::int32_t i, const sum_type& s) const {
    if (y_full) {
      Value* yr = Y.data() + static_cast<std::int64_t>(i) * static_cast<std::int64_t>(Y.stride(0)) + col0;
      if (beta_zero)
        for (int q = 0; q < K; ++q) yr[q] = alpha * s.v[q];
      else
        for (int q = 0; q < K; ++q) yr[q] = alpha * s.v[q] + beta * yr[q];
    } else if (beta_zero) {
      for (int q = 0; q < K; ++q)
        if (q < nk) Y(i, col0 + q) = alpha * s.v[q];
    } else {
      for (int q = 0; q < K; ++q)
        if (q < nk) Y(i, col0 + q) = alpha * s.v[q] + beta * Y(i, col0 + q);
    }
  }
  /// The K sums of entries [begin, end) shared by the `lanes` vector lanes of the calling
  /// thread: lane l takes begin + l, + lanes, ...; then the lanes reduce.
  template <class Member, class ValuesView, class ColView>
  KOKKOS_INLINE_FUNCTION sum_type lane_sum(const Member& team, const ValuesView& values, const ColView& col_idx,
                                           const std::int64_t begin, const std::int64_t end, const int lanes) const {
    sum_type s;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, lanes),
        [&](const int l, sum_type& part) {
          for (std::int64_t k = begin + l; k < end; k += lanes) add(part, values(k), col_idx(k));
        },
        s);
    return s;
  }
};

/// CSR, a thread per row (CsrThreadPerRow's shape). RowsTag: a row; BlocksTag: a block of rows.
template <class ExecSpace, class Value, class Offset, int K, class MValue = Value>
struct MultiCsrThreadPerRow : MultiBase<ExecSpace, Value, K> {
  using memory_space = typename ExecSpace::memory_space;
  KernelView<const Offset*, memory_space> row_ptr;
  KernelView<const std::int32_t*, memory_space> col_idx;
  KernelView<const MValue*, memory_space> values;
  KernelView<const std::int32_t*, memory_space> partition;

  KOKKOS_INLINE_FUNCTION void row(const std::int32_t i) const {
    typename MultiCsrThreadPerRow::sum_type s;
    const std::int64_t end = row_ptr(i + 1);
    bool lanes = false;  // under MultiColumnLanes
    if constexpr (ExecTraits<ExecSpace>::multi_column_lanes) lanes = K == 1 || this->lane_pack;
    if (lanes)
      this->template gather_pack<1>(s, values, col_idx, row_ptr(i), end, 1);
    else
      for (std::int64_t k = row_ptr(i); k < end; ++k) this->add(s, values(k), col_idx(k));
    this->store(i, s);
  }
  KOKKOS_INLINE_FUNCTION void operator()(const RowsTag, const std::int32_t i) const { row(i); }
  KOKKOS_INLINE_FUNCTION void operator()(const BlocksTag, const std::int32_t b) const {
    const std::int32_t end = partition(b + 1);
    for (std::int32_t i = partition(b); i < end; ++i) row(i);
  }
};

/// CSR, a team per row (CsrTeamPerRow's shape): team threads take rows, the vector lanes of a
/// thread share one.
template <class ExecSpace, class Value, class Offset, int K, class MValue = Value>
struct MultiCsrTeamPerRow : MultiCsrThreadPerRow<ExecSpace, Value, Offset, K, MValue> {
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  std::int32_t nrows = 0;
  std::int32_t rows_per_team = 1;
  int vector_length = 1;

  KOKKOS_INLINE_FUNCTION void row(const member_type& team, const std::int32_t i) const {
    const auto s = this->lane_sum(team, this->values, this->col_idx, this->row_ptr(i), this->row_ptr(i + 1),
                                  vector_length);
    Kokkos::single(Kokkos::PerThread(team), [&]() { this->store(i, s); });
  }
  KOKKOS_INLINE_FUNCTION void team_work(const member_type& team, const std::int64_t t) const {
    std::int32_t first = 0, last = 0;
    team_share(t, rows_per_team, nrows, first, last);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, first, last), [&](const std::int32_t i) { row(team, i); });
  }
  KOKKOS_INLINE_FUNCTION void operator()(const RowsTag, const member_type& team) const {
    team_work(team, team.league_rank());
  }
  KOKKOS_INLINE_FUNCTION void operator()(const BlocksTag, const member_type& team) const {
    const std::int32_t first = this->partition(team.league_rank());
    const std::int32_t last = this->partition(team.league_rank() + 1);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, first, last), [&](const std::int32_t i) { row(team, i); });
  }
};

/// SELL-C-sigma's arrays (SellViews) for several vectors. A piece of a split long row leaves
/// its nk sums in partial(piece * ExecTraits::multi_columns + q).
template <class ExecSpace, class Value, int K, class MValue = Value>
struct MultiSellViews : MultiBase<ExecSpace, Value, K> {
  using memory_space = typename ExecSpace::memory_space;
  using sum_type = MultiSum<Value, K>;
  KernelView<const std::int64_t*, memory_space> slice_ptr;
  KernelView<const std::int32_t*, memory_space> row_len;
  KernelView<const std::int32_t*, memory_space> perm;
  KernelView<const std::int32_t*, memory_space> col_idx;
  KernelView<const MValue*, memory_space> values;
  KernelView<const std::int32_t*, memory_space> partition;
  KernelView<Value*, memory_space> partial;
  /// Compressed plan (SellMatrix::compressed): kind or base column per slice, the start of its
  /// columns, 16-bit offsets (as SellViews).
  KernelView<const std::int32_t*, memory_space> col_base;
  KernelView<const std::int64_t*, memory_space> off_ptr;
  KernelView<const std::uint16_t*, memory_space> col_off;
  std::int32_t nrows = 0, npos = 0, nslices = 0;
  int log2_c = 3;
  bool permuted_output = false;
  bool compressed = false;

  /// Row at permuted position p (entry j at slice_ptr(p / C) + j C + p % C; its column as
  /// SellViews::row reads it), in entry order.
  KOKKOS_INLINE_FUNCTION void row(const std::int32_t p) const {
    const std::int32_t s = p >> log2_c;
    const std::int32_t C = 1 << log2_c;
    const std::int32_t lane = p - (s << log2_c);
    const std::int64_t base = slice_ptr(s) + lane;
    const std::int32_t len = row_len(p);
    if (len < 0) return;  // a long row: MultiSellLongRows or MultiSellCombinePieces
    sum_type sum;
    const std::int64_t n = static_cast<std::int64_t>(len) * C;
    if constexpr (ExecTraits<ExecSpace>::multi_column_lanes) {
      if (K == 1 || this->lane_pack) {  // MultiColumnLanes: SellViews::row's loads, K columns a thread
        constexpr int U = ExecTraits<ExecSpace>::gather_unroll;
        if (compressed) {
          const PointerAt<MValue> v{values.data() + base};
          const std::int32_t first = col_base(s);
          if (first >= 0)
            this->template gather_pack<U>(sum, v, OffsetColumns{col_off.data() + off_ptr(s) + lane, first},
                                          std::int64_t{0}, n, C);
          else if (first == sell_diagonal_slice)
            this->template gather_pack<U>(sum, v, DiagonalColumns{col_idx.data() + off_ptr(s), perm(p), log2_c},
                                          std::int64_t{0}, n, C);
          else
            this->template gather_pack<U>(sum, v, PointerAt<std::int32_t>{col_idx.data() + off_ptr(s) + lane},
                                          std::int64_t{0}, n, C);
        } else {
          this->template gather_pack<U>(sum, values, col_idx, base, base + n, C);
        }
        finish(p, sum);
        return;
      }
    }
    if (compressed) {
      const std::int32_t first = col_base(s);
      if (first >= 0) {
        const std::int64_t o = off_ptr(s) + lane;
        for (std::int64_t j = 0; j < n; j += C)
          this->add(sum, values(base + j), first + static_cast<std::int32_t>(col_off(o + j)));
      } else if (first == sell_diagonal_slice) {
        const std::int64_t o = off_ptr(s);
        const std::int32_t row = perm(p);
        for (std::int64_t j = 0; j < len; ++j) this->add(sum, values(base + j * C), row + col_idx(o + j));
      } else {
        const std::int64_t w = off_ptr(s) + lane;
        for (std::int64_t j = 0; j < n; j += C) this->add(sum, values(base + j), col_idx(w + j));
      }
    } else {
      for (std::int64_t j = 0; j < n; j += C) this->add(sum, values(base + j), col_idx(base + j));
    }
    finish(p, sum);
  }
  KOKKOS_INLINE_FUNCTION void finish(const std::int32_t p, const sum_type& sum) const {
    const std::int32_t v = perm(p);
    if (v >= nrows) {
      const std::int64_t at = static_cast<std::int64_t>(v - nrows) * ExecTraits<ExecSpace>::multi_columns;
      for (int q = 0; q < K; ++q)
        if (q < this->nk) partial(at + this->lane_col + q) = sum.v[q];
      return;
    }
    this->store(permuted_output ? p : v, sum);
  }
  KOKKOS_INLINE_FUNCTION void slice(const std::int32_t s) const {
    const std::int32_t first = s << log2_c;
    const std::int64_t end = static_cast<std::int64_t>(first) + (1 << log2_c);
    const std::int32_t last = end < npos ? static_cast<std::int32_t>(end) : npos;
    for (std::int32_t p = first; p < last; ++p) row(p);
  }
};

/// SELL, a thread per row (SellRowPerThread). RowsTag: a position; BlocksTag: a block of slices.
template <class ExecSpace, class Value, int K, class MValue = Value>
struct MultiSellRowPerThread : MultiSellViews<ExecSpace, Value, K, MValue> {
  KOKKOS_INLINE_FUNCTION void operator()(const RowsTag, const std::int32_t p) const { this->row(p); }
  KOKKOS_INLINE_FUNCTION void operator()(const BlocksTag, const std::int32_t b) const {
    const std::int32_t end = this->partition(b + 1);
    for (std::int32_t s = this->partition(b); s < end; ++s) this->slice(s);
  }
};

/// SELL, a thread per slice (the work items of a host's SellSliceColumns plan), in ESB's order:
/// the slice's entry columns one after the other, each column's C entries (one per row of the
/// slice) multiplied into their rows' K sums, so that the C x K sums of the slice stay in
/// registers (C = 8, K = 8 in f64: eight AVX-512 registers, each row's K sums one register) and C
/// chains of multiply-adds run side by side, where the row-by-row walk (MultiSellViews::row) has
/// one. Each row's entries are still added in entry order: the same additions as the row walk.
/// Slice heights 8 and the host's own (columns()) run with C fixed at compile time; any other
/// walks the rows one after the other (MultiSellViews::slice). A host-only kernel (choose() sets slice_columns only
/// where ExecTraits::sell_slice_columns). RowsTag: a slice; BlocksTag: a block of slices.
template <class ExecSpace, class Value, int K, class MValue = Value>
struct MultiSellSlices : MultiSellViews<ExecSpace, Value, K, MValue> {
  using sum_type = MultiSum<Value, K>;
  KernelView<const std::int32_t*, typename ExecSpace::memory_space> slice_width;

  /// Slice s at height C, the column of row r's entry j being column(j, r): the rows' first
  /// `shortest` entries unmasked, then the padded tail, where a row past its length (a long row
  /// kept elsewhere has length -1) keeps its sums by a select, with no branch (column 0 read in
  /// its place) and no product of the padding's value reaching the sums. Full: the block's X
  /// values at a column are one contiguous run (MultiBase::x_full), a template parameter so that
  /// the loops hold no test of it.
  template <int C, bool Full, class Column>
  KOKKOS_INLINE_FUNCTION void block_of(const std::int32_t s, const Column& column) const {
    const std::int32_t first = s << this->log2_c;
    const int rows = first + C <= this->npos ? C : this->npos - first;
    const std::int32_t width = slice_width(s);
    const MValue* val = this->values.data() + this->slice_ptr(s);
    sum_type acc[C];
    std::int32_t len[C];
    std::int32_t shortest = width;
    for (int r = 0; r < C; ++r) {
      len[r] = r < rows ? this->row_len(first + r) : 0;
      shortest = len[r] < shortest ? (len[r] > 0 ? len[r] : 0) : shortest;
    }
    std::int32_t j = 0;
    for (; j < shortest; ++j) {
      const MValue* vj = val + static_cast<std::int64_t>(j) * C;
PSPMV_UNROLL_ALL
      for (int r = 0; r < C; ++r) this->template add_to<Full>(acc[r], Value(vj[r]), column(j, r));
    }
    for (; j < width; ++j) {
      const MValue* vj = val + static_cast<std::int64_t>(j) * C;
PSPMV_UNROLL_ALL
      for (int r = 0; r < C; ++r) {
        const bool in = j < len[r];
        sum_type t = acc[r];
        this->template add_to<Full>(t, Value(vj[r]), in ? column(j, r) : 0);
        for (int q = 0; q < K; ++q) acc[r].v[q] = in ? t.v[q] : acc[r].v[q];
      }
    }
    for (int r = 0; r < rows; ++r)
      if (len[r] >= 0) this->finish(first + r, acc[r]);
  }
  /// Slice s at height C, its columns read in the slice's own form (as MultiSellViews::row).
  template <int C, bool Full>
  KOKKOS_INLINE_FUNCTION void block(const std::int32_t s) const {
    const std::int64_t entries = C;  // entry j of row r at j * C + r
    if (!this->compressed) {
      const std::int32_t* col = this->col_idx.data() + this->slice_ptr(s);
      block_of<C, Full>(s, [&](const std::int32_t j, const int r) { return col[j * entries + r]; });
      return;
    }
    const std::int32_t base = this->col_base(s);
    if (base >= 0) {
      const std::uint16_t* off = this->col_off.data() + this->off_ptr(s);
      block_of<C, Full>(s, [&](const std::int32_t j, const int r) {
        return base + static_cast<std::int32_t>(off[j * entries + r]);
      });
    } else if (base == sell_diagonal_slice) {
      // C consecutive rows from perm(first), entry j of row r at column perm(first) + r + d[j].
      const std::int32_t* d = this->col_idx.data() + this->off_ptr(s);
      const std::int32_t row0 = this->perm(s << this->log2_c);
      block_of<C, Full>(s, [&](const std::int32_t j, const int r) { return row0 + r + d[j]; });
    } else {
      const std::int32_t* col = this->col_idx.data() + this->off_ptr(s);
      block_of<C, Full>(s, [&](const std::int32_t j, const int r) { return col[j * entries + r]; });
    }
  }
  template <int C>
  KOKKOS_INLINE_FUNCTION void block(const std::int32_t s) const {
    if (this->x_full)
      block<C, true>(s);
    else
      block<C, false>(s);
  }
  /// Height 8 and the host's own height for Value (ExecTraits::sell_slice_height) in ESB's order,
  /// any other by the row walk: each fixed height is a fully unrolled C x K body per column form,
  /// whose compile time is paid once per height.
  KOKKOS_INLINE_FUNCTION void columns(const std::int32_t s) const {
    constexpr int own = ExecTraits<ExecSpace>::template sell_slice_height<Value>();
    if (this->log2_c == 3)
      block<8>(s);
    else if (own != 8 && (1 << this->log2_c) == own)
      block<own>(s);
    else
      this->slice(s);
  }
  KOKKOS_INLINE_FUNCTION void operator()(const RowsTag, const std::int32_t s) const { columns(s); }
  KOKKOS_INLINE_FUNCTION void operator()(const BlocksTag, const std::int32_t b) const {
    const std::int32_t end = this->partition(b + 1);
    for (std::int32_t s = this->partition(b); s < end; ++s) columns(s);
  }
};

/// SELL, a slice per team thread with its vector lanes on the slice's rows (SellSlicePerTeam).
template <class ExecSpace, class Value, int K, class MValue = Value>
struct MultiSellSlicePerTeam : MultiSellViews<ExecSpace, Value, K, MValue> {
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  std::int32_t slices_per_team = 1;

  KOKKOS_INLINE_FUNCTION void slice_lanes(const member_type& team, const std::int32_t s) const {
    const std::int32_t first = s << this->log2_c;
    const std::int64_t end = static_cast<std::int64_t>(first) + (1 << this->log2_c);
    const std::int32_t count = end < this->npos ? (1 << this->log2_c) : this->npos - first;
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, count), [&](const std::int32_t r) { this->row(first + r); });
  }
  KOKKOS_INLINE_FUNCTION void team_work(const member_type& team, const std::int64_t t) const {
    std::int32_t first = 0, last = 0;
    team_share(t, slices_per_team, this->nslices, first, last);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, first, last),
                         [&](const std::int32_t s) { slice_lanes(team, s); });
  }
  KOKKOS_INLINE_FUNCTION void operator()(const RowsTag, const member_type& team) const {
    team_work(team, team.league_rank());
  }
  KOKKOS_INLINE_FUNCTION void operator()(const BlocksTag, const member_type& team) const {
    const std::int32_t first = this->partition(team.league_rank());
    const std::int32_t last = this->partition(team.league_rank() + 1);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, first, last),
                         [&](const std::int32_t s) { slice_lanes(team, s); });
  }
};

/// SELL's long rows kept out of the slices (SellLongRows): a row per team thread, its vector
/// lanes sharing it.
template <class ExecSpace, class Value, int K, class MValue = Value>
struct MultiSellLongRows : MultiBase<ExecSpace, Value, K> {
  using memory_space = typename ExecSpace::memory_space;
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  KernelView<const std::int32_t*, memory_space> long_rows;
  KernelView<const std::int32_t*, memory_space> long_pos;
  KernelView<const std::int64_t*, memory_space> long_row_ptr;
  KernelView<const std::int32_t*, memory_space> col_idx;
  KernelView<const MValue*, memory_space> values;
  std::int32_t nlong = 0;
  std::int32_t rows_per_team = 1;
  int vector_length = 1;
  bool permuted_output = false;

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    std::int32_t first = 0, last = 0;
    team_share(team.league_rank(), rows_per_team, nlong, first, last);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, first, last), [&](const std::int32_t l) {
      const auto s = this->lane_sum(team, values, col_idx, long_row_ptr(l), long_row_ptr(l + 1), vector_length);
      Kokkos::single(Kokkos::PerThread(team), [&]() { this->store(permuted_output ? long_pos(l) : long_rows(l), s); });
    });
  }
};

/// Split long rows: each column's piece sums added in piece order (SellCombinePieces).
template <class ExecSpace, class Value, int K>
struct MultiSellCombinePieces : MultiBase<ExecSpace, Value, K> {
  using memory_space = typename ExecSpace::memory_space;
  KernelView<const std::int32_t*, memory_space> long_rows;
  KernelView<const std::int64_t*, memory_space> piece_ptr;
  KernelView<const Value*, memory_space> partial;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int32_t l) const {
    typename MultiBase<ExecSpace, Value, K>::sum_type s;
    for (std::int64_t q = piece_ptr(l); q < piece_ptr(l + 1); ++q)
      for (int c = 0; c < K; ++c)
        if (c < this->nk) s.v[c] += partial(q * ExecTraits<ExecSpace>::multi_columns + c);
    this->store(long_rows(l), s);
  }
};

/// Several vectors with X's and Y's columns adjacent (LayoutRight) on a GPU: a thread per row and
/// W adjacent columns of the block (W = Inner::width), the K / W threads of a row next to each
/// other in a warp. A row's entry is loaded once for its threads (one address), the K values of
/// X(c, .) it multiplies are one coalesced load, a run of W per thread (MultiBase::gather_pack),
/// and Y(i, .) one coalesced store, where a thread that owns a row and K sums
/// (MultiCsrThreadPerRow, MultiSellRowPerThread) issues K loads per entry, each touching as many
/// rows of X as the warp has threads. Inner is that kernel for W columns (lane_pack): work item
/// t is Inner's item t / (K / W) (a row, a position or a block, as the schedule gives them) in
/// columns W (t % (K / W)) onwards; the groups from `lanes` on are idle. Each column's sum takes
/// the row's entries in entry order, as in the K-sum kernel: the same additions, so the same Y.
template <class Inner, int K>
struct MultiColumnLanes : Inner {
  static constexpr int groups = K / Inner::width;
  static_assert(groups * Inner::width == K, "MultiColumnLanes: W divides K");
  int lanes = groups;  ///< the groups of W columns the block fills

  KOKKOS_INLINE_FUNCTION Inner column(const int g) const {
    Inner f = *this;
    f.col0 += g * Inner::width;
    f.lane_col = g * Inner::width;
    return f;
  }
  KOKKOS_INLINE_FUNCTION void operator()(const RowsTag, const std::int32_t t) const {
    const int g = t % groups;
    if (g < lanes) column(g)(RowsTag(), t / groups);
  }
  KOKKOS_INLINE_FUNCTION void operator()(const BlocksTag, const std::int32_t t) const {
    const int g = t % groups;
    if (g < lanes) column(g)(BlocksTag(), t / groups);
  }
};

/// Y = beta Y (0 when beta_zero, Y not read), every column: the alpha == 0 / nnz == 0 path.
template <class ExecSpace, class Value>
struct MultiScaleY {
  MultiYView<Value, typename ExecSpace::memory_space> Y;
  Value beta;
  bool beta_zero = false;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int32_t i) const {
    const int k = static_cast<int>(Y.extent(1));
    for (int q = 0; q < k; ++q) Y(i, q) = beta_zero ? Value(0) : beta * Y(i, q);
  }
};

}  // namespace detail
}  // namespace pspmv
