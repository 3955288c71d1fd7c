#pragma once
/// @file sell_kernels.hpp
/// SELL-C-sigma SpMV kernels, written once as functors templated on the execution space.
/// Each row's sum takes only its own entries (padding never enters a sum: the row kernels stop at
/// the row's length; the host slice kernel either masks a padded column to the rows that have an
/// entry there (its AVX-512 register form) or loads it with the others and discards the padded
/// products). y is written through the
/// permutation (caller's row order) unless the plan keeps the permuted order.
/// A compressed plan (SellMatrix::compressed) reads a slice's columns as base + 16-bit offset,
/// as 32-bit columns (a wide slice) or as the row plus the slice's pattern (a diagonal slice);
/// the same row loop reads all three, the slice loop loads a diagonal slice's x contiguously.

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "pspmv/detail/csr_kernels.hpp"
#include "pspmv/matrix/sell.hpp"  // sell_wide_slice, sell_diagonal_slice
#include "pspmv/matrix/row_stats.hpp"  // PointerAt

namespace pspmv {
namespace detail {

/// Column k of a compressed slice: its base column plus a 16-bit offset.
struct OffsetColumns {
  const std::uint16_t* off;
  std::int32_t base;
  KOKKOS_INLINE_FUNCTION std::int32_t operator()(const std::int64_t k) const {
    return base + static_cast<std::int32_t>(off[k]);
  }
};

/// Column of entry k (= j * C + lane) of a row at caller row `row` in a diagonal slice: the row
/// plus the slice's offset d_j.
struct DiagonalColumns {
  const std::int32_t* d;
  std::int32_t row;
  int log2_c;
  KOKKOS_INLINE_FUNCTION std::int32_t operator()(const std::int64_t k) const {
    return row + d[k >> log2_c];
  }
};

/// acc + v * x: one fused multiply-add where the instruction set has one (the form a compiler
/// that contracts gives the other kernels' `sum += v * x`), else a multiply and an add. Written
/// out so that every instantiation of the slice loop rounds alike: left to the compiler, a
/// contraction depended on how it vectorized each instantiation (16-bit offsets against 32-bit
/// columns gave y differing in the last bit in float).
template <class T>
KOKKOS_INLINE_FUNCTION T mul_add(const T v, const T x, const T acc) {
#if defined(__FMA__) || defined(__ARM_FEATURE_FMA) || defined(__CUDA_ARCH__)
  return std::fma(v, x, acc);
#else
  return acc + v * x;
#endif
}

/// Unrolls the loop that follows completely on a host compiler that takes GCC's pragma, so that
/// the sums of a SELL slice (C of SellSliceColumns, C x K of MultiSellSlices) are named
/// registers, not a stack array. Not under nvcc, whose front end does not take the pragma, so
/// also not for the host kernels of a CUDA build (they compile through nvcc too).
#if defined(__GNUC__) && !defined(__CUDACC__) && !defined(__HIPCC__)
#define PSPMV_UNROLL_ALL _Pragma("GCC unroll 16")
#else
#define PSPMV_UNROLL_ALL
#endif

/// The pragma of SellSliceColumns' loop over a column's C rows: `omp simd` where the host takes
/// vector gathers (PSPMV_HOST_ROW_GATHERS, with OpenMP, not through nvcc), else a complete unroll.
#if PSPMV_HOST_ROW_GATHERS && defined(_OPENMP) && !defined(__CUDACC__) && !defined(__HIPCC__)
#define PSPMV_SLICE_ROWS _Pragma("omp simd")
#else
#define PSPMV_SLICE_ROWS PSPMV_UNROLL_ALL
#endif

/// Passes `sum` through an empty asm statement that the compiler must assume reads and changes
/// it in a scalar SSE register: the sums so marked are not packed into one vector register.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION void scalar_sum(T& sum) {
#if defined(__GNUC__) && !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__) && defined(__SSE2__)
  asm("" : "+x"(sum));
#else
  (void)sum;
#endif
}

/// Whether SellSliceColumns runs a slice of height C in one AVX-512 register of C sums
/// (SellSliceColumns::register_slice): a build with AVX-512 gathers (PSPMV_HOST_MASKED_ROWS, as
/// the CSR rows' masked groups; never a CUDA compilation), C the register's lanes: 8 doubles
/// (double or float values) or 16 floats.
template <class Value, class MValue, int C>
inline constexpr bool register_slices =
    host_masked_rows && ((std::is_same<Value, double>::value && C == 8 &&
                          (std::is_same<MValue, double>::value || std::is_same<MValue, float>::value)) ||
                         (std::is_same<Value, float>::value && std::is_same<MValue, float>::value && C == 16));

#if PSPMV_HOST_MASKED_ROWS
/// opaque_full_mask (detail/csr_kernels.hpp) for 16 lanes.
KOKKOS_FORCEINLINE_FUNCTION __mmask16 opaque_full_mask16() {
  __mmask16 m = 0xFFFF;
  asm("" : "+k"(m));
  return m;
}

/// The least of 8 32-bit integers. (Not _mm512_reduce_min_epi32, whose register halves GCC 12
/// warns start undefined.)
KOKKOS_FORCEINLINE_FUNCTION std::int32_t least_of(__m256i v) {
  v = _mm256_min_epi32(v, _mm256_permute2x128_si256(v, v, 1));
  v = _mm256_min_epi32(v, _mm256_shuffle_epi32(v, 0x4E));  // lanes 2 3 0 1 of each half
  v = _mm256_min_epi32(v, _mm256_shuffle_epi32(v, 0xB1));  // lanes 1 0 3 2
  return _mm256_cvtsi256_si32(v);
}

/// The column indices of one column of a slice of C rows in 32-bit lanes: 32-bit columns as
/// they are, 16-bit offsets widened. (The zero-masked forms of the 512-bit operations here and in
/// register_slice: GCC 12 warns on the undefined register that the unmasked ones start from.)
template <int C, class Col>
KOKKOS_FORCEINLINE_FUNCTION auto slice_column_lanes(const Col* c) {
  if constexpr (C == 8) {
    if constexpr (std::is_same<Col, std::uint16_t>::value)
      return _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(c)));
    else
      return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(c));
  } else {
    if constexpr (std::is_same<Col, std::uint16_t>::value)
      return _mm512_maskz_cvtepu16_epi32(0xFFFF, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(c)));
    else
      return _mm512_loadu_si512(c);
  }
}
#endif

/// Value: x, y, alpha, beta and the sums; MValue: the stored values (see CsrViews).
template <class ExecSpace, class Value, int Unroll, bool BetaZero, class MValue = Value>
struct SellViews {
  using memory_space = typename ExecSpace::memory_space;
  KernelView<const std::int64_t*, memory_space> slice_ptr;
  KernelView<const std::int32_t*, memory_space> row_len;
  KernelView<const std::int32_t*, memory_space> perm;
  KernelView<const std::int32_t*, memory_space> col_idx;
  KernelView<const MValue*, memory_space> values;
  /// Compressed plan: kind or base column per slice (sell_wide_slice, sell_diagonal_slice or
  /// >= 0), the start of its columns in col_off or col_idx, the 16-bit offsets (SellMatrix).
  KernelView<const std::int32_t*, memory_space> col_base;
  KernelView<const std::int64_t*, memory_space> off_ptr;
  KernelView<const std::uint16_t*, memory_space> col_off;
  GatherView<const Value*, memory_space> x;
  KernelView<Value*, memory_space> y;
  /// nnz-balanced partition over slices: block b holds slices [partition(b), partition(b + 1)).
  KernelView<const std::int32_t*, memory_space> partition;
  /// Split long rows: the sum of piece q lands in partial(q) (SellCombinePieces adds them).
  KernelView<Value*, memory_space> partial;
  Value alpha;
  Value beta;
  std::int32_t nrows = 0;  ///< rows of the matrix: a position holding perm(p) >= nrows is a piece
  std::int32_t npos = 0;   ///< permuted positions (nrows plus pieces)
  std::int32_t nslices = 0;
  int log2_c = 3;  ///< C = 1 << log2_c
  bool permuted_output = false;
  bool compressed = false;  ///< columns as SellMatrix::compressed stores them

  /// Row at permuted position p: entry j at slice_ptr(p / C) + j * C + p % C (its column, in
  /// a compressed plan, at off_ptr(p / C) + j * C + p % C of col_off or of col_idx (narrow or
  /// wide slice), or perm(p) + col_idx(off_ptr(p / C) + j) (diagonal slice)).
  KOKKOS_INLINE_FUNCTION void row(const std::int32_t p) const {
    const std::int32_t s = p >> log2_c;
    const std::int32_t C = 1 << log2_c;
    const std::int32_t lane = p - (s << log2_c);
    const std::int64_t base = slice_ptr(s) + lane;
    const std::int32_t len = row_len(p);
    if (len < 0) return;  // a long row: SellLongRows or SellCombinePieces computes it
    const std::int64_t end = static_cast<std::int64_t>(len) * C;
    if (compressed) {
      const PointerAt<MValue> v{values.data() + base};
      const std::int32_t first = col_base(s);
      if (first >= 0) {
        finish(p, gather_dot<Unroll, Value>(v, OffsetColumns{col_off.data() + off_ptr(s) + lane, first}, x,
                                            std::int64_t{0}, end, C));
      } else if (first == sell_diagonal_slice) {
        finish(p, gather_dot<Unroll, Value>(v, DiagonalColumns{col_idx.data() + off_ptr(s), perm(p), log2_c}, x,
                                            std::int64_t{0}, end, C));
      } else {
        finish(p, gather_dot<Unroll, Value>(v, PointerAt<std::int32_t>{col_idx.data() + off_ptr(s) + lane}, x,
                                            std::int64_t{0}, end, C));
      }
      return;
    }
    finish(p, gather_dot<Unroll, Value>(values, col_idx, x, base, base + end, C));
  }
  /// Stores the sum of position p: into y (through the permutation unless permuted_output),
  /// or, for a piece of a split long row, into partial.
  KOKKOS_INLINE_FUNCTION void finish(const std::int32_t p, const Value sum) const {
    const std::int32_t v = perm(p);
    if (v >= nrows) {
      partial(v - nrows) = sum;
      return;
    }
    store_y<BetaZero>(y(permuted_output ? p : v), alpha, sum, beta);
  }
  KOKKOS_INLINE_FUNCTION void slice(const std::int32_t s) const {
    const std::int32_t first = s << log2_c;
    const std::int64_t end = static_cast<std::int64_t>(first) + (1 << log2_c);
    const std::int32_t last = end < npos ? static_cast<std::int32_t>(end) : npos;
    for (std::int32_t p = first; p < last; ++p) row(p);
  }
};

/// Row-per-thread over SELL: one thread (GPU lane) per row; consecutive threads take
/// consecutive rows of a slice, so their loads of column j are contiguous (coalesced on a
/// GPU). RowsTag: one work item per row. BlocksTag: one work item per block of slices.
template <class ExecSpace, class Value, int Unroll = ExecTraits<ExecSpace>::gather_unroll, bool BetaZero = false,
          class MValue = Value>
struct SellRowPerThread : SellViews<ExecSpace, Value, Unroll, BetaZero, MValue> {
  KOKKOS_INLINE_FUNCTION void operator()(const RowsTag, const std::int32_t p) const { this->row(p); }
  KOKKOS_INLINE_FUNCTION void operator()(const BlocksTag, const std::int32_t b) const {
    const std::int32_t end = this->partition(b + 1);
    for (std::int32_t s = this->partition(b); s < end; ++s) this->slice(s);
  }
};

/// ESB-style slices (Intel's ESB, Liu et al. 2013; SELL-C-sigma's SIMD form): one work item per
/// slice, its C rows computed together column by column, so that the C lanes of a SIMD register
/// gather C independent x entries per column step. In a build with AVX-512 gathers, at the heights
/// of one register (register_slices), the slice runs in intrinsics (register_slice). Elsewhere the
/// vectorization comes from the compiler: the inner loop over the C rows is a loop over contiguous
/// col_idx and values with a gather of x, marked `omp simd` where the host takes vector gathers
/// (ExecTraits::row_gathers), which GCC 12 turns into vgatherdpd / vgatherdps when it tunes for a
/// CPU whose gathers it favours (Sapphire Rapids, Haswell; its generic tuning emulates them); the
/// test `sell_fixed_heights_codegen` reads the vectorized form back. A build tuned for AMD Zen
/// keeps the C sums as C scalar chains instead (the loop unrolled, each sum held out of vector
/// registers by scalar_sum): there the compiler had packed them into one register from scalar
/// loads, and the 2-core Zen machine ran the kernel at 1.20-1.38x the time of a plain loop of the
/// same column loops on rows of 3.8-8 entries that way, 1.03-1.10x with scalar sums
/// (perf/results/cpu-2core.md, "The SELL slice kernel against its own plain loop"). In every build
/// a full slice of ordinary rows stores its C sums through the permutation with no test per row.
/// Padding costs no wrong result: a row past its length keeps its sum (the padded entry's product,
/// which may be 0 * Inf = NaN, is discarded by a blend, or in register_slice never computed: its
/// lane is masked), and the first min-length columns of a slice need no mask. Each row adds its
/// entries in column order, the order of the row-per-lane kernel (SellRowPerThread, the GPU's form
/// of the same layout: a lane per row, consecutive lanes reading consecutive addresses).
/// RowsTag: one work item per slice. BlocksTag: one work item per block of slices. The gather
/// unroll factor does not apply (the C lanes are the independent loads in flight).
/// Compressed: the plan's columns are compressed (SellMatrix::compressed); a template parameter so
/// that each slice loop has one static index width to vectorize.
template <class ExecSpace, class Value, bool BetaZero = false, bool Compressed = false, class MValue = Value>
struct SellSliceColumns : SellViews<ExecSpace, Value, 1, BetaZero, MValue> {
  static constexpr int max_c = 64;  ///< the largest slice height (check_sell_parameters)
  KernelView<const std::int32_t*, typename ExecSpace::memory_space> slice_width;

  /// Slice s with its columns at `col` (32-bit columns, or 16-bit offsets) gathered from `x`
  /// (x shifted by the slice's base column when `col` holds offsets): the compiler sees a
  /// static index width, widens 16-bit offsets in register and keeps the vector gathers.
  /// The slice heights 4, 8 and 16 (ExecTraits::sell_slice_height, a SIMD register of double or
  /// float, under AVX2 and AVX-512) run a loop whose height is
  /// a constant, so that the C sums stay in registers across the columns; any other height runs
  /// the same loop with C read at run time, its sums in memory.
  template <class Col>
  KOKKOS_INLINE_FUNCTION void slice_sum(const std::int32_t s, const Col* col, const Value* x) const {
    switch (this->log2_c) {
      case 2: slice_sum_of<4>(s, col, x); return;
      case 3: slice_sum_of<8>(s, col, x); return;
      case 4: slice_sum_of<16>(s, col, x); return;
      default: slice_sum_of<0>(s, col, x); return;
    }
  }
  /// slice_sum at slice height Fixed (0: 1 << log2_c, read at run time).
  template <int Fixed, class Col>
  KOKKOS_INLINE_FUNCTION void slice_sum_of(const std::int32_t s, const Col* col, const Value* x) const {
#if PSPMV_HOST_MASKED_ROWS
    if constexpr (!ExecTraits<ExecSpace>::is_gpu && register_slices<Value, MValue, Fixed>) {
      register_slice<Fixed>(s, col, x);
      return;
    }
#endif
    constexpr int capacity = Fixed > 0 ? Fixed : max_c;
    const int C = Fixed > 0 ? Fixed : 1 << this->log2_c;
    const std::int32_t first = s << this->log2_c;
    const int rows = first + C <= this->npos ? C : this->npos - first;
    const std::int32_t width = this->slice_width(s);
    const MValue* val = this->values.data() + this->slice_ptr(s);
    Value acc[capacity];
    std::int32_t len[capacity];
    bool ordinary = true;  // no long row (length -1) in the slice
    std::int32_t shortest = width;
    PSPMV_UNROLL_ALL
    for (int r = 0; r < C; ++r) {
      acc[r] = Value(0);
      len[r] = r < rows ? this->row_len(first + r) : 0;  // -1: a long row, computed elsewhere
      shortest = len[r] < shortest ? (len[r] > 0 ? len[r] : 0) : shortest;
      ordinary = ordinary && len[r] >= 0;
    }
    constexpr bool gathers = ExecTraits<ExecSpace>::row_gathers;
    std::int32_t j = 0;
    for (; j < shortest; ++j) {  // every row of the slice has column j
      const Col* cj = col + static_cast<std::int64_t>(j) * C;
      const MValue* vj = val + static_cast<std::int64_t>(j) * C;
      PSPMV_SLICE_ROWS
      for (int r = 0; r < C; ++r) {
        acc[r] = mul_add(Value(vj[r]), x[cj[r]], acc[r]);
        if constexpr (!gathers) scalar_sum(acc[r]);
      }
    }
    for (; j < width; ++j) {  // the padded tail: rows shorter than j + 1 keep their sums
      const Col* cj = col + static_cast<std::int64_t>(j) * C;
      const MValue* vj = val + static_cast<std::int64_t>(j) * C;
      PSPMV_SLICE_ROWS
      for (int r = 0; r < C; ++r) {
        const Value t = mul_add(Value(vj[r]), x[cj[r]], acc[r]);
        acc[r] = j < len[r] ? t : acc[r];
        if constexpr (!gathers) scalar_sum(acc[r]);
      }
    }
    // A full slice of ordinary rows in a plan without pieces, y in the caller's order (every
    // slice but the last of most plans): C stores through the permutation, no test per row.
    if (rows == C && ordinary && this->npos == this->nrows && !this->permuted_output) {
      PSPMV_UNROLL_ALL
      for (int r = 0; r < C; ++r) store_y<BetaZero>(this->y(this->perm(first + r)), this->alpha, acc[r], this->beta);
    } else {
      PSPMV_UNROLL_ALL
      for (int r = 0; r < C; ++r)
        if (r < rows && len[r] >= 0) this->finish(first + r, acc[r]);
    }
  }
#if PSPMV_HOST_MASKED_ROWS
  /// slice_sum_of's loops in AVX-512 intrinsics (register_slices: C = 8 doubles or 16 floats):
  /// the slice's C row lengths one masked vector load from row_len (lanes past the last row load
  /// nothing and count as empty rows, a long row's -1 as no entry), its C sums one register. Each
  /// of the first `shortest` columns, which every row has, is a load of C values, a gather of x
  /// at the C columns under opaque_full_mask (each gather into a fresh register, not merged into
  /// the previous column's: see opaque_full_mask) and a fused multiply-add; each padded column
  /// after them the same under the mask of the rows that still have an entry there, so padded
  /// lanes load no x and keep their sums. The same multiply-adds in the same order as the generic
  /// loops, so the same y bit for bit. Written out because GCC 12's vectorization of the generic
  /// loops depends on its tuning: for the 2-core Xeon (-march=native) it packed the C sums from
  /// scalar loads of x without a gather, and where it gathers (-mtune=sapphirerapids) it took two
  /// 4-lane gathers a column, each merging into a register an earlier gather wrote, so depending
  /// on it (perf/results/cpu-2core-xeon.md, "The SELL slice loop in AVX-512 registers").
  template <int C, class Col>
  KOKKOS_FORCEINLINE_FUNCTION void register_slice(const std::int32_t s, const Col* col, const Value* x) const {
    const std::int32_t first = s << this->log2_c;
    const int rows = first + C <= this->npos ? C : this->npos - first;
    const std::int32_t width = this->slice_width(s);
    const MValue* val = this->values.data() + this->slice_ptr(s);
    const std::int32_t* lengths = this->row_len.data() + first;
    alignas(64) Value acc[C];
    std::uint32_t long_rows = 0;  // bit r: row r is a long row (length -1), computed elsewhere
    if constexpr (C == 8) {
      const __mmask8 in = static_cast<__mmask8>((1u << rows) - 1u);
      const __m256i lens = _mm256_maskz_loadu_epi32(in, lengths);
      long_rows = _mm256_cmplt_epi32_mask(lens, _mm256_setzero_si256());
      const std::int32_t least = least_of(_mm256_max_epi32(lens, _mm256_setzero_si256()));
      const std::int32_t shortest = least < width ? least : width;
      const __mmask8 full = opaque_full_mask();
      const auto whole_values = [full](const MValue* v) {  // a column every row has
        if constexpr (std::is_same<MValue, float>::value)
          return _mm512_maskz_cvtps_pd(full, _mm256_loadu_ps(v));  // GCC 12 warns on the unmasked form
        else
          return _mm512_loadu_pd(v);
      };
      const auto masked_values = [](const MValue* v, const __mmask8 m) {  // the rows of mask m
        if constexpr (std::is_same<MValue, float>::value)
          return _mm512_maskz_cvtps_pd(m, _mm256_maskz_loadu_ps(m, v));
        else
          return _mm512_maskz_loadu_pd(m, v);
      };
      __m512d a = _mm512_setzero_pd();
      std::int32_t j = 0;
      for (; j < shortest; ++j) {
        const std::int64_t at = static_cast<std::int64_t>(j) * C;
        const __m512d g = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), full, slice_column_lanes<C>(col + at), x, 8);
        a = _mm512_fmadd_pd(whole_values(val + at), g, a);
      }
      for (; j < width; ++j) {
        const std::int64_t at = static_cast<std::int64_t>(j) * C;
        const __mmask8 m = _mm256_cmpgt_epi32_mask(lens, _mm256_set1_epi32(j));
        const __m512d g = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), m, slice_column_lanes<C>(col + at), x, 8);
        a = _mm512_mask3_fmadd_pd(masked_values(val + at, m), g, a, m);
      }
      _mm512_store_pd(acc, a);
    } else {
      const __mmask16 in = static_cast<__mmask16>((1u << rows) - 1u);
      const __m512i lens = _mm512_maskz_loadu_epi32(in, lengths);
      long_rows = _mm512_cmplt_epi32_mask(lens, _mm512_setzero_si512());
      const __m512i at_least_0 = _mm512_maskz_max_epi32(0xFFFF, lens, _mm512_setzero_si512());
      const std::int32_t least = least_of(_mm256_min_epi32(_mm512_maskz_extracti64x4_epi64(0xF, at_least_0, 0),
                                                           _mm512_maskz_extracti64x4_epi64(0xF, at_least_0, 1)));
      const std::int32_t shortest = least < width ? least : width;
      const __mmask16 full = opaque_full_mask16();
      __m512 a = _mm512_setzero_ps();
      std::int32_t j = 0;
      for (; j < shortest; ++j) {
        const std::int64_t at = static_cast<std::int64_t>(j) * C;
        const __m512 g = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), full, slice_column_lanes<C>(col + at), x, 4);
        a = _mm512_fmadd_ps(_mm512_loadu_ps(val + at), g, a);
      }
      for (; j < width; ++j) {
        const std::int64_t at = static_cast<std::int64_t>(j) * C;
        const __mmask16 m = _mm512_cmpgt_epi32_mask(lens, _mm512_set1_epi32(j));
        const __m512 g = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m, slice_column_lanes<C>(col + at), x, 4);
        a = _mm512_mask3_fmadd_ps(_mm512_maskz_loadu_ps(m, val + at), g, a, m);
      }
      _mm512_store_ps(acc, a);
    }
    // As slice_sum_of: a full slice of ordinary rows, no pieces, y in the caller's order: C
    // stores through the permutation, no test per row.
    if (rows == C && long_rows == 0 && this->npos == this->nrows && !this->permuted_output) {
      PSPMV_UNROLL_ALL
      for (int r = 0; r < C; ++r) store_y<BetaZero>(this->y(this->perm(first + r)), this->alpha, acc[r], this->beta);
    } else {
      for (int r = 0; r < rows; ++r)
        if (!((long_rows >> r) & 1u)) this->finish(first + r, acc[r]);
    }
  }
#endif
  /// A diagonal slice (SellMatrix: C rows of consecutive caller rows from perm(first), all of
  /// the slice's width, entry j of row r at column perm(first) + r + d[j]): column j's x values
  /// are C consecutive ones, loaded as a vector without a gather, and no row needs a mask.
  template <int Fixed>
  KOKKOS_INLINE_FUNCTION void diagonal_sum_of(const std::int32_t s, const std::int32_t* d) const {
    constexpr int capacity = Fixed > 0 ? Fixed : max_c;
    const int C = Fixed > 0 ? Fixed : 1 << this->log2_c;
    const std::int32_t first = s << this->log2_c;
    const std::int32_t width = this->slice_width(s);
    const MValue* val = this->values.data() + this->slice_ptr(s);
    const std::int64_t row0 = this->perm(first);
    Value acc[capacity];
    for (int r = 0; r < C; ++r) acc[r] = Value(0);
    for (std::int32_t j = 0; j < width; ++j) {
      const Value* xj = this->x.data() + (row0 + d[j]);  // row0 + d_j: the column of row 0's entry j
      const MValue* vj = val + static_cast<std::int64_t>(j) * C;
      for (int r = 0; r < C; ++r) acc[r] = mul_add(Value(vj[r]), xj[r], acc[r]);
    }
    for (int r = 0; r < C; ++r) this->finish(first + r, acc[r]);
  }
  KOKKOS_INLINE_FUNCTION void diagonal_sum(const std::int32_t s, const std::int32_t* d) const {
    switch (this->log2_c) {
      case 2: diagonal_sum_of<4>(s, d); return;
      case 3: diagonal_sum_of<8>(s, d); return;
      case 4: diagonal_sum_of<16>(s, d); return;
      default: diagonal_sum_of<0>(s, d); return;
    }
  }
  KOKKOS_INLINE_FUNCTION void columns(const std::int32_t s) const {
    if constexpr (Compressed) {
      const std::int32_t first = this->col_base(s);
      if (first >= 0)
        slice_sum(s, this->col_off.data() + this->off_ptr(s), this->x.data() + first);
      else if (first == sell_diagonal_slice)
        diagonal_sum(s, this->col_idx.data() + this->off_ptr(s));
      else
        slice_sum(s, this->col_idx.data() + this->off_ptr(s), this->x.data());
    } else {
      slice_sum(s, this->col_idx.data() + this->slice_ptr(s), this->x.data());
    }
  }
  KOKKOS_INLINE_FUNCTION void operator()(const RowsTag, const std::int32_t s) const { columns(s); }
  KOKKOS_INLINE_FUNCTION void operator()(const BlocksTag, const std::int32_t b) const {
    const std::int32_t end = this->partition(b + 1);
    for (std::int32_t s = this->partition(b); s < end; ++s) columns(s);
  }
};

/// Slice-per-team: the threads of a team take slices (TeamThreadRange), the vector lanes
/// of a thread walk the C rows of its slice (ThreadVectorRange); on a GPU with vector
/// length C (<= 32) lane r holds row r and loads column by column are coalesced.
/// RowsTag: team t takes slices [t * slices_per_team, (t + 1) * slices_per_team).
/// BlocksTag: team t takes block t of the partition.
template <class ExecSpace, class Value, int Unroll = ExecTraits<ExecSpace>::gather_unroll, bool BetaZero = false,
          class MValue = Value>
struct SellSlicePerTeam : SellViews<ExecSpace, Value, Unroll, BetaZero, MValue> {
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  std::int32_t slices_per_team = 1;

  KOKKOS_INLINE_FUNCTION void slice_lanes(const member_type& team, const std::int32_t s) const {
    const std::int32_t first = s << this->log2_c;
    const std::int64_t end = static_cast<std::int64_t>(first) + (1 << this->log2_c);
    const std::int32_t count = end < this->npos ? (1 << this->log2_c) : this->npos - first;
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, count), [&](const std::int32_t r) { this->row(first + r); });
  }
  /// Slices [t * slices_per_team, (t + 1) * slices_per_team): league index t's work (RowsTag).
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

/// The long rows of a SELL plan (rows taken out of the slices), one row per team thread
/// with its vector lanes sharing the row (warp-per-row at vector length 32 on a GPU):
/// team t takes long rows [t * rows_per_team, (t + 1) * rows_per_team).
template <class ExecSpace, class Value, int Unroll = ExecTraits<ExecSpace>::long_row_unroll, bool BetaZero = false,
          class MValue = Value>
struct SellLongRows {
  using memory_space = typename ExecSpace::memory_space;
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  KernelView<const std::int32_t*, memory_space> long_rows;
  KernelView<const std::int32_t*, memory_space> long_pos;
  KernelView<const std::int64_t*, memory_space> long_row_ptr;
  KernelView<const std::int32_t*, memory_space> col_idx;
  KernelView<const MValue*, memory_space> values;
  GatherView<const Value*, memory_space> x;
  KernelView<Value*, memory_space> y;
  Value alpha;
  Value beta;
  std::int32_t nlong = 0;
  std::int32_t rows_per_team = 1;
  int vector_length = 1;  ///< lanes per long row (the policy's vector length)
  bool permuted_output = false;

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    std::int32_t first = 0, last = 0;
    team_share(team.league_rank(), rows_per_team, nlong, first, last);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, first, last), [&](const std::int32_t l) {
      // The same lane-shared row sum as CSR team-per-row.
      const Value sum = CsrTeamPerRow<ExecSpace, Value, std::int64_t, Unroll, BetaZero>::row_sum(
          team, values, col_idx, x, long_row_ptr(l), long_row_ptr(l + 1), vector_length);
      Kokkos::single(Kokkos::PerThread(team),
                     [&]() { store_y<BetaZero>(y(permuted_output ? long_pos(l) : long_rows(l)), alpha, sum, beta); });
    });
  }
};

/// Split long rows: y(long_rows(l)) = alpha * (sum of its piece sums, in order) + beta * y,
/// one long row per work item, after the slices' kernel wrote partial.
template <class ExecSpace, class Value, bool BetaZero>
struct SellCombinePieces {
  using memory_space = typename ExecSpace::memory_space;
  KernelView<const std::int32_t*, memory_space> long_rows;
  KernelView<const std::int64_t*, memory_space> piece_ptr;
  KernelView<const Value*, memory_space> partial;
  KernelView<Value*, memory_space> y;
  Value alpha;
  Value beta;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int32_t l) const {
    Value sum = 0;
    for (std::int64_t q = piece_ptr(l); q < piece_ptr(l + 1); ++q) sum += partial(q);
    store_y<BetaZero>(y(long_rows(l)), alpha, sum, beta);
  }
};

}  // namespace detail
}  // namespace pspmv
