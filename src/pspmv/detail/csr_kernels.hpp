#pragma once
/// @file csr_kernels.hpp
/// CSR SpMV kernels, written once as functors templated on the execution space
/// (the shape of Kokkos Kernels' SPMV_Functor). No backend #ifdefs in the kernels: the
/// execution space's own Kokkos dispatch does the rest (masked_dot, a host row sum the kernel
/// calls, has an AVX-512 form under PSPMV_HOST_MASKED_ROWS).
///
/// Every kernel computes y(i) = alpha * sum_k values(k) * x(col_idx(k)) + beta * y(i)
/// with BLAS semantics: when beta == 0, y is written without being read. Whether beta is 0
/// is decided once per call: it is the kernels' BetaZero template parameter.

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

#include "pspmv/backends/exec_traits.hpp"

#if PSPMV_HOST_MASKED_ROWS
#include <immintrin.h>
#endif

namespace pspmv {
namespace detail {

/// sum over k = first, first + stride, ... < end of values(k) * x(col_idx(k)), added in
/// that order (the same rounding as a plain loop). With Unroll > 1 each step first loads
/// Unroll column indices and values, then gathers Unroll entries of x, so that Unroll
/// independent loads are in flight per thread: memory-level parallelism for a GPU lane,
/// whose dependent load chain (col_idx, then x) otherwise leaves the memory system idle
/// (ExecTraits::gather_unroll; measured in perf/results).
template <int Unroll, class Value, class ValuesView, class ColView, class XView>
KOKKOS_INLINE_FUNCTION Value gather_dot(const ValuesView& values, const ColView& col_idx, const XView& x,
                                        std::int64_t first, const std::int64_t end, const std::int64_t stride) {
  Value sum = 0;
  std::int64_t k = first;
  if constexpr (Unroll > 1) {
    for (; k + (Unroll - 1) * stride < end; k += Unroll * stride) {
      std::int32_t c[Unroll];
      Value v[Unroll];
      for (int u = 0; u < Unroll; ++u) {
        c[u] = col_idx(k + u * stride);
        v[u] = values(k + u * stride);
      }
      for (int u = 0; u < Unroll; ++u) sum += v[u] * x(c[u]);
    }
    // The last, partial group (fewer than Unroll entries) with its loads still issued
    // together: a 3-entry row costs one round trip to memory, not three.
    if (k < end) {
      std::int32_t c[Unroll];
      Value v[Unroll];
      for (int u = 0; u < Unroll; ++u) {
        const bool in = k + u * stride < end;
        c[u] = in ? col_idx(k + u * stride) : 0;
        v[u] = in ? values(k + u * stride) : Value(0);
      }
      for (int u = 0; u < Unroll; ++u)
        if (k + u * stride < end) sum += v[u] * x(c[u]);
    }
  } else {
    for (; k < end; k += stride) sum += values(k) * x(col_idx(k));
  }
  return sum;
}

/// sum over k in [begin, end) of values(k) * x(col_idx(k)) in Lanes independent partial sums
/// (entry k goes to partial (k - begin) % Lanes), added in order at the end. A host thread's
/// plain loop is one dependent chain of additions, whose latency bounds it on rows of more than
/// a few entries; Lanes chains cut it Lanes-fold. The last partial group runs a fixed Lanes - 1
/// steps without branches, so that the partial sums stay in registers. Where the instruction set
/// has vector gathers and the compiler is tuned to use them, the full groups may become one
/// vector gather of x and one vector multiply-add. The order of the additions is fixed: two
/// multiplies of a plan give the same y. Reached only through a host Unroll above 1 (`pspmv
/// bench --unroll-sweep`): measured within the noise, it is not the host's default
/// (docs/selection.md).
template <int Lanes, class Value, class ValuesView, class ColView, class XView>
KOKKOS_INLINE_FUNCTION Value lanes_dot(const ValuesView& values, const ColView& col_idx, const XView& x,
                                       const std::int64_t begin, const std::int64_t end) {
  Value part[Lanes] = {};
  std::int64_t k = begin;
  for (; k + Lanes <= end; k += Lanes)
    for (int u = 0; u < Lanes; ++u) part[u] += values(k + u) * x(col_idx(k + u));
  if (k < end)
    for (int u = 0; u < Lanes - 1; ++u) {
      // Branch-free: a step past the row's end reloads its first remaining entry and adds 0.
      const bool in = k + u < end;
      const std::int64_t e = in ? k + u : k;
      const Value term = values(e) * x(col_idx(e));
      part[u] += in ? term : Value(0);
    }
  // In order, not pairwise: GCC vectorizes a pairwise sum through the stack, and the store
  // forwarding that fails there cost more per row than the two extra additions.
  Value sum = part[0];
  for (int u = 1; u < Lanes; ++u) sum += part[u];
  return sum;
}

/// sum over k in [begin, end) of values(k) * x(col_idx(k)) on a host thread. A row of at least
/// MinSimd entries is summed in parallel partial sums, a shorter one by the plain loop. With
/// Gathers, the partial sums are one OpenMP SIMD reduction (`omp simd reduction`), which the
/// compiler turns into SIMD partial sums with vector gathers of x where the instruction set has
/// them (AVX2, AVX-512, SVE), added up at the row's end; without, 4 scalar partial sums over the
/// row's groups of 4 entries, the rest added to the first, the four added in order
/// (ExecTraits::row_gathers says which: the CPUs whose gathers are slow take the scalar sums).
/// A plain loop is one dependent chain of additions, which bounds a core on long rows whose data
/// is in cache; on a short row the vector loop's set-up, masked tail and final reduction cost
/// more than the chain. On the H200's 16-core Xeon host, in one interleaved run of forms of the
/// row loop (perf/results/h200/host-csr-row-loops-interleaved.txt), the SIMD reduction over every
/// row took 0.51-0.69x the plain loop's time on rows of 42 entries (a 212 MB matrix), 0.88-0.90x
/// on a 27-point stencil, 0.96x on rows of 16 and 1.03x on random rows of 8 entries on average;
/// in the 24-input host compare it made the shared matrices of 2-7 entries a row 1.3-3x slower
/// than the run of the plain loop before it (perf/results/h200.md), hence MinSimd
/// (ExecTraits::simd_row_min: with gathers two SIMD registers of Value, else 8 entries). The order of the additions is fixed
/// by the binary and the row's length: two multiplies of a plan give the same y. Outside OpenMP
/// builds (and in a GPU's device code, which never calls it) the Gathers form is the plain loop.
template <int MinSimd, bool Gathers, class Value, class MValue, class Col>
KOKKOS_FORCEINLINE_FUNCTION Value simd_dot(const MValue* values, const Col* col_idx, const Value* x,
                                       const std::int64_t begin, const std::int64_t end) {
  Value sum = 0;
  if (end - begin < MinSimd) {
    for (std::int64_t k = begin; k < end; ++k) sum += values[k] * x[col_idx[k]];
    return sum;
  }
  if constexpr (!Gathers) {
    Value p0 = 0, p1 = 0, p2 = 0, p3 = 0;
    std::int64_t k = begin;
    for (; k + 4 <= end; k += 4) {
      p0 += values[k] * x[col_idx[k]];
      p1 += values[k + 1] * x[col_idx[k + 1]];
      p2 += values[k + 2] * x[col_idx[k + 2]];
      p3 += values[k + 3] * x[col_idx[k + 3]];
    }
    for (; k < end; ++k) p0 += values[k] * x[col_idx[k]];
    return ((p0 + p1) + p2) + p3;
  } else {
#if defined(_OPENMP) && !defined(__CUDA_ARCH__)
#pragma omp simd reduction(+ : sum)
#endif
    for (std::int64_t k = begin; k < end; ++k) sum += values[k] * x[col_idx[k]];
    return sum;
  }
}

#if PSPMV_HOST_MASKED_ROWS
/// An all-ones mask of 8 lanes that the compiler cannot see through, for the gathers of a row's
/// whole groups. A gather under a mask merges into its destination register; GCC 12 compiles one
/// under a mask it knows is all ones as a merge into the register the previous group's gather
/// wrote, so each gather of a row waits for the one before. Under this mask the compiler gives
/// each gather the zero register it is passed (a register copy the core removes), and the gathers
/// of a row overlap. On the 2-core Xeon, in the plan's launch: rows of bayer10 in whole groups
/// without it took 1.20-1.22x the time of one loop of masked groups, and 0.91-0.93x with it
/// (perf/results/cpu-2core-xeon.md, "Host CSR rows: whole groups and a masked tail").
KOKKOS_FORCEINLINE_FUNCTION __mmask8 opaque_full_mask() {
  __mmask8 m = 0xFF;
  asm("" : "+k"(m));
  return m;
}
#endif

/// sum over k in [begin, end) of values[k] * x[col_idx[k]] on a host thread, 8 entries at a time
/// in the lanes of one SIMD register: entry k goes to lane (k - begin) % 8; the row's whole
/// groups of 8 with plain loads, its last 1-7 entries in one group under a mask (lanes past the
/// row's end load nothing: no value, no column, no x), and the 8 lanes are added up at the end in
/// a fixed order. Rows of 1 to 7 entries all take one step through the same branches, so on short
/// rows no branch depends on each row's length, and the core runs ahead across rows and overlaps
/// their gathers. A loop of whole groups and one masked step rather than one loop that masks
/// every group: in the plan's launch on the 2-core Xeon the first took 0.84-0.99x the second's
/// time on the shared matrices of parallel plans and 0.88-0.96x on tiles of 19-22M entries (the
/// same section). Double, float (8 a step), and float values with double vectors; the order of the
/// additions is fixed by the row's length (the same as one loop of masked groups), so two
/// multiplies of a plan give the same y. Forced inline, as simd_dot. Without
/// PSPMV_HOST_MASKED_ROWS (no AVX-512, a CUDA compilation) it is simd_dot, and no plan asks for
/// it (ExecTraits::masked_rows is false).
template <int MinSimd, class Value, class MValue>
KOKKOS_FORCEINLINE_FUNCTION Value masked_dot(const MValue* values, const std::int32_t* col_idx, const Value* x,
                                             const std::int64_t begin, const std::int64_t end) {
#if PSPMV_HOST_MASKED_ROWS
  constexpr std::int64_t W = host_masked_group;
  const __mmask8 full = opaque_full_mask();
  std::int64_t k = begin;
  if constexpr (std::is_same<Value, double>::value) {
    __m512d acc = _mm512_setzero_pd();
    for (; end - k >= W; k += W) {
      const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(col_idx + k));
      __m512d v;
      if constexpr (std::is_same<MValue, float>::value)
        v = _mm512_maskz_cvtps_pd(full, _mm256_loadu_ps(values + k));  // GCC 12 warns on the unmasked form
      else
        v = _mm512_loadu_pd(values + k);
      acc = _mm512_fmadd_pd(v, _mm512_mask_i32gather_pd(_mm512_setzero_pd(), full, c, x, 8), acc);
    }
    if (k < end) {
      const __mmask8 m = static_cast<__mmask8>((1u << (end - k)) - 1u);
      const __m256i c = _mm256_maskz_loadu_epi32(m, col_idx + k);
      __m512d v;
      if constexpr (std::is_same<MValue, float>::value)
        v = _mm512_maskz_cvtps_pd(m, _mm256_maskz_loadu_ps(m, values + k));
      else
        v = _mm512_maskz_loadu_pd(m, values + k);
      acc = _mm512_fmadd_pd(v, _mm512_mask_i32gather_pd(_mm512_setzero_pd(), m, c, x, 8), acc);
    }
    // The two halves, then the two quarters, then the two lanes. The zero-masked extracts: GCC 12
    // warns on the undefined register that the plain extract and cast start from.
    const __m256d q =
        _mm256_add_pd(_mm512_maskz_extractf64x4_pd(0xF, acc, 0), _mm512_maskz_extractf64x4_pd(0xF, acc, 1));
    const __m128d h = _mm_add_pd(_mm256_castpd256_pd128(q), _mm256_extractf128_pd(q, 1));
    return _mm_cvtsd_f64(_mm_add_sd(h, _mm_unpackhi_pd(h, h)));
  } else if constexpr (std::is_same<Value, float>::value && std::is_same<MValue, float>::value) {
    __m256 acc = _mm256_setzero_ps();
    for (; end - k >= W; k += W) {
      const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(col_idx + k));
      acc = _mm256_fmadd_ps(_mm256_loadu_ps(values + k), _mm256_mmask_i32gather_ps(_mm256_setzero_ps(), full, c, x, 4),
                            acc);
    }
    if (k < end) {
      const __mmask8 m = static_cast<__mmask8>((1u << (end - k)) - 1u);
      const __m256i c = _mm256_maskz_loadu_epi32(m, col_idx + k);
      acc = _mm256_fmadd_ps(_mm256_maskz_loadu_ps(m, values + k),
                            _mm256_mmask_i32gather_ps(_mm256_setzero_ps(), m, c, x, 4), acc);
    }
    __m128 h = _mm_add_ps(_mm256_castps256_ps128(acc), _mm256_extractf128_ps(acc, 1));
    h = _mm_add_ps(h, _mm_movehl_ps(h, h));
    return _mm_cvtss_f32(_mm_add_ss(h, _mm_movehdup_ps(h)));
  } else {
    (void)full, (void)k;
    return simd_dot<MinSimd, true, Value>(values, col_idx, x, begin, end);
  }
#else
  return simd_dot<MinSimd, host_row_gathers, Value>(values, col_idx, x, begin, end);
#endif
}

/// y_i = alpha * sum + beta * y_i; with BetaZero, y_i = alpha * sum without reading y_i.
template <bool BetaZero, class Value>
KOKKOS_FORCEINLINE_FUNCTION void store_y(Value& y_i, const Value alpha, const Value sum, const Value beta) {
  if constexpr (BetaZero) {
    (void)beta;
    y_i = alpha * sum;
  } else {
    y_i = alpha * sum + beta * y_i;
  }
}

/// The kernels' views, unmanaged: the plan's storage and the caller's vectors own the memory and
/// outlive the launch. A managed view's copy counts references with an atomic increment and
/// decrement, and a multiply fills a functor with eight or more of them: on a host, that cost
/// is a measurable part of a multiply of a matrix of a few hundred entries.
template <class T, class Mem>
using KernelView = Kokkos::View<T, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
/// Whether V is a rank-1 View of Value (const or not; not const with Writable) in Mem with a
/// contiguous layout: a vector a multiply can take as a KernelView of its data, unconverted.
template <class V, class Value, class Mem, bool Writable>
constexpr bool plain_vector() {
  if constexpr (Kokkos::is_view<V>::value) {
    return V::rank == 1 && std::is_same<typename V::non_const_value_type, Value>::value &&
           std::is_same<typename V::memory_space, Mem>::value &&
           (std::is_same<typename V::array_layout, Kokkos::LayoutRight>::value ||
            std::is_same<typename V::array_layout, Kokkos::LayoutLeft>::value) &&
           !(Writable && std::is_const<typename V::value_type>::value);
  } else {
    return false;
  }
}
/// x and y of a one-vector multiply that way.
template <class X, class Y, class Value, class Mem>
inline constexpr bool plain_vectors = plain_vector<X, Value, Mem, false>() && plain_vector<Y, Value, Mem, true>();
/// x is only gathered: RandomAccess lets CUDA use the read-only data cache.
template <class T, class Mem>
using GatherView = Kokkos::View<T, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged | Kokkos::RandomAccess>>;

/// Work tags: iterate over rows (or over teams of consecutive rows), or over the
/// nnz-balanced blocks of a row partition.
struct RowsTag {};
struct BlocksTag {};

/// Value: x, y, alpha, beta and the sums; MValue: the stored matrix values (Value, or float
/// under double vectors: a mixed-precision plan, whose products are formed in Value).
template <class ExecSpace, class Value, class Offset, bool BetaZero, class MValue = Value>
struct CsrViews {
  using memory_space = typename ExecSpace::memory_space;
  KernelView<const Offset*, memory_space> row_ptr;
  KernelView<const std::int32_t*, memory_space> col_idx;
  KernelView<const MValue*, memory_space> values;
  GatherView<const Value*, memory_space> x;
  KernelView<Value*, memory_space> y;
  /// nnz-balanced partition: block b holds rows [partition(b), partition(b + 1)).
  KernelView<const std::int32_t*, memory_space> partition;
  Value alpha;
  Value beta;

  KOKKOS_FORCEINLINE_FUNCTION void store(const std::int32_t i, const Value sum) const {
    store_y<BetaZero>(y(i), alpha, sum, beta);
  }
};

/// Work items [first, last) of team `rank` when each team takes `per_team` of `n` items;
/// computed in 64 bits so that no sum wraps near 2^31.
KOKKOS_INLINE_FUNCTION void team_share(const std::int64_t rank, const std::int32_t per_team, const std::int32_t n,
                                       std::int32_t& first, std::int32_t& last) {
  const std::int64_t begin = rank * per_team, end = begin + per_team;
  first = begin < n ? static_cast<std::int32_t>(begin) : n;
  last = end < n ? static_cast<std::int32_t>(end) : n;
}

/// Thread-per-row: one thread (one GPU lane) computes a whole row.
/// RowsTag: one work item per row. BlocksTag: one work item per nnz-balanced block.
/// Masked: a host thread sums each row in masked SIMD groups (masked_dot; LaunchParams::masked_rows).
template <class ExecSpace, class Value, class Offset, int Unroll = ExecTraits<ExecSpace>::gather_unroll,
          bool BetaZero = false, class MValue = Value, bool Masked = false>
struct CsrThreadPerRow : CsrViews<ExecSpace, Value, Offset, BetaZero, MValue> {
  /// Inlined by force into the launch's loop (with simd_dot): GCC 12 otherwise called it once
  /// per row from the library's instantiations. On the H200 machine's Xeon host the serial
  /// plan of 494_bus took 1.6-1.8x the plain loop's time with the call and 1.3-1.4x without
  /// (perf/results/h200/host-row-call-interleaved.txt).
  KOKKOS_FORCEINLINE_FUNCTION void row(const std::int32_t i) const {
    if constexpr (!ExecTraits<ExecSpace>::is_gpu && Unroll > 1) {
      // A host thread: Unroll partial sums (lanes_dot), SIMD lanes where the compiler can.
      this->store(i, lanes_dot<Unroll, Value>(this->values, this->col_idx, this->x, this->row_ptr(i),
                                              this->row_ptr(i + 1)));
    } else if constexpr (!ExecTraits<ExecSpace>::is_gpu) {
      this->store(i, host_sum(this->values.data(), this->col_idx.data(), this->x.data(), this->row_ptr(i),
                              this->row_ptr(i + 1)));
    } else {
      this->store(i, gather_dot<Unroll, Value>(this->values, this->col_idx, this->x, this->row_ptr(i),
                                               this->row_ptr(i + 1), 1));
    }
  }
  KOKKOS_FORCEINLINE_FUNCTION void operator()(const RowsTag, const std::int32_t i) const { row(i); }
  KOKKOS_FORCEINLINE_FUNCTION void operator()(const BlocksTag, const std::int32_t b) const {
    const std::int32_t end = this->partition(b + 1);
    for (std::int32_t i = this->partition(b); i < end; ++i) row(i);
  }

  /// A host thread's sum of entries [begin, end) (Unroll 1): in masked SIMD groups (masked_dot)
  /// with Masked, else a long row as one OpenMP SIMD reduction and a short one as the plain loop
  /// (simd_dot).
  static KOKKOS_FORCEINLINE_FUNCTION Value host_sum(const MValue* values, const std::int32_t* col_idx, const Value* x,
                                                    const std::int64_t begin, const std::int64_t end) {
    constexpr int min_simd = ExecTraits<ExecSpace>::template simd_row_min<Value>();
    if constexpr (Masked)
      return masked_dot<min_simd, Value>(values, col_idx, x, begin, end);
    else
      return simd_dot<min_simd, ExecTraits<ExecSpace>::row_gathers, Value>(values, col_idx, x, begin, end);
  }

  /// Rows [0, nrows) on the calling thread, from the arrays' and vectors' pointers: a serial
  /// plan's multiply (Plan::multiply_x), which so fills no functor of Views on each call (on
  /// karate, 156 entries, those Views cost about half the rows' time: docs/selection.md). Each
  /// row is row()'s: the same sum and store, so the same y bit for bit.
  static void rows_on_caller(const Offset* row_ptr, const std::int32_t* col_idx, const MValue* values, const Value* x,
                             Value* y, const Value alpha, const Value beta, const std::int32_t nrows) {
    static_assert(!ExecTraits<ExecSpace>::is_gpu && Unroll == 1, "rows_on_caller: a host kernel of one sum a row");
    for (std::int32_t i = 0; i < nrows; ++i)
      store_y<BetaZero>(y[i], alpha, host_sum(values, col_idx, x, row_ptr[i], row_ptr[i + 1]), beta);
  }
};

/// Team-per-row: the threads of a team take consecutive rows (TeamThreadRange), the
/// vector lanes of a thread share one row (ThreadVectorRange reduction). With vector
/// length 32 on CUDA this is warp-per-row. RowsTag: team t takes rows
/// [t * rows_per_team, (t + 1) * rows_per_team). BlocksTag: team t takes block t.
template <class ExecSpace, class Value, class Offset, int Unroll = ExecTraits<ExecSpace>::gather_unroll,
          bool BetaZero = false, class MValue = Value>
struct CsrTeamPerRow : CsrViews<ExecSpace, Value, Offset, BetaZero, MValue> {
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  std::int32_t nrows = 0;
  std::int32_t rows_per_team = 1;
  int vector_length = 1;  ///< lanes per row (the policy's vector length)

  KOKKOS_INLINE_FUNCTION void row(const member_type& team, const std::int32_t i) const {
    const Value sum = row_sum(team, this->values, this->col_idx, this->x, this->row_ptr(i), this->row_ptr(i + 1),
                              vector_length);
    Kokkos::single(Kokkos::PerThread(team), [&]() { this->store(i, sum); });
  }

  /// sum_k values(k) * x(col_idx(k)) over [begin, end), shared by the `lanes` vector lanes of
  /// the calling thread. Unroll > 1 (a GPU): lane l takes entries begin + l, + lanes,
  /// ... with unrolled loads, then the lanes reduce. Otherwise one ThreadVectorRange reduce
  /// over the entries (a host SIMD loop).
  template <class ValuesView, class ColView, class XView>
  KOKKOS_INLINE_FUNCTION static Value row_sum(const member_type& team, const ValuesView& values,
                                              const ColView& col_idx, const XView& x, const std::int64_t begin,
                                              const std::int64_t end, const int lanes) {
    constexpr int U = Unroll;
    Value sum = 0;
    if (U > 1) {
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, lanes),
          [&](const int l, Value& partial) { partial += gather_dot<U, Value>(values, col_idx, x, begin + l, end, lanes); },
          sum);
    } else {
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, begin, end),
          [&](const std::int64_t k, Value& partial) { partial += values(k) * x(col_idx(k)); }, sum);
    }
    return sum;
  }
  /// Rows [t * rows_per_team, (t + 1) * rows_per_team): league index t's work (RowsTag).
  KOKKOS_INLINE_FUNCTION void team_work(const member_type& team, const std::int64_t t) const {
    std::int32_t first = 0, last = 0;
    team_share(t, rows_per_team, nrows, first, last);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, first, last),
                         [&](const std::int32_t i) { row(team, i); });
  }
  KOKKOS_INLINE_FUNCTION void operator()(const RowsTag, const member_type& team) const {
    team_work(team, team.league_rank());
  }
  KOKKOS_INLINE_FUNCTION void operator()(const BlocksTag, const member_type& team) const {
    const std::int32_t first = this->partition(team.league_rank());
    const std::int32_t last = this->partition(team.league_rank() + 1);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, first, last),
                         [&](const std::int32_t i) { row(team, i); });
  }
};

/// y = beta * y (y = 0 with BetaZero, without reading y): the alpha == 0 / nnz == 0 path.
template <class ExecSpace, class Value, bool BetaZero>
struct ScaleY {
  KernelView<Value*, typename ExecSpace::memory_space> y;
  Value beta;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int32_t i) const {
    if constexpr (BetaZero) {
      y(i) = Value(0);
    } else {
      y(i) = beta * y(i);
    }
  }
};

}  // namespace detail
}  // namespace pspmv
