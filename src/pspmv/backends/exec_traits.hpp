#pragma once
/// @file exec_traits.hpp
/// Hardware knowledge, in one place: what pspmv assumes about each Kokkos execution space.
/// Every number is named, with one line on what it does; the measurements behind each are
/// in docs/selection.md. choose() (pspmv/select/choose.hpp) turns them and a matrix's row
/// statistics into a plan.

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <limits>
#include <type_traits>

namespace pspmv {

/// The widest SIMD register of the instruction set the host code is compiled for, in bytes
/// (the compiler's target macros, set by CMake's PSPMV_HOST_ARCH).
inline constexpr int host_simd_bytes =
#if defined(__AVX512F__)
    64;
#elif defined(__AVX__)
    32;
#else
    16;  // SSE2 (baseline x86-64), NEON (AArch64)
#endif

/// Name of that instruction set's vector extension, for reports.
inline constexpr const char* host_isa =
#if defined(__AVX512F__)
    "avx512";
#elif defined(__AVX2__)
    "avx2";
#elif defined(__AVX__)
    "avx";
#elif defined(__ARM_FEATURE_SVE)
    "sve";
#elif defined(__ARM_NEON)
    "neon";
#elif defined(__SSE2__)
    "sse2";
#else
    "scalar";
#endif

/// Whether the host code gathers x with vector gathers: in its long CSR rows (an OpenMP SIMD
/// reduction, else scalar partial sums) and in the ESB slice loop (detail::SellSliceColumns: the
/// loop over a column's C rows marked `omp simd`, else C scalar sums). The compiler's tuning
/// decides, as it does for its own loops: a build tuned for AMD Zen 1-5 (GCC's __tune_znver1__
/// to __tune_znver5__, which -march=native sets there) takes the scalar forms, since its gathers
/// cost more than the loads they replace; any other build takes the gathers. On a 2-core Zen
/// virtual machine the gathers took 1.26-1.76x the plain loop's time on CSR rows of 16-42
/// entries, the partial sums 0.95-1.11x; on the Xeon host the gathers took 0.51-0.90x on rows of
/// 27-42 entries in its L3 and the same time as the partial sums beyond it (docs/selection.md).
/// -DPSPMV_HOST_GATHERS=0 or 1 overrides the choice. A macro (0 or 1) for the preprocessor's
/// choice of pragma, and the same as a constant.
#if defined(PSPMV_HOST_GATHERS)
#define PSPMV_HOST_ROW_GATHERS (PSPMV_HOST_GATHERS != 0)
#elif defined(__tune_znver1__) || defined(__tune_znver2__) || defined(__tune_znver3__) || \
    defined(__tune_znver4__) || defined(__tune_znver5__)
#define PSPMV_HOST_ROW_GATHERS 0
#else
#define PSPMV_HOST_ROW_GATHERS 1
#endif
inline constexpr bool host_row_gathers = PSPMV_HOST_ROW_GATHERS;

/// Whether a host CSR thread_per_row plan sums each row 8 entries at a time in masked AVX-512 lanes
/// (detail::masked_dot): a build with AVX-512F, VL and FMA that takes the gathers
/// (host_row_gathers), outside CUDA compilations (__CUDACC__: every file of a CUDA build, whose
/// host plans keep detail::simd_dot). A macro (0 or 1) for the preprocessor, and the same as a
/// constant.
#if defined(__AVX512F__) && defined(__AVX512VL__) && defined(__FMA__) && !defined(__CUDACC__) && \
    PSPMV_HOST_ROW_GATHERS
#define PSPMV_HOST_MASKED_ROWS 1
#else
#define PSPMV_HOST_MASKED_ROWS 0
#endif
inline constexpr bool host_masked_rows = PSPMV_HOST_MASKED_ROWS;
/// Entries of one masked group of such a row (whatever the value type: 8 doubles or 8 floats).
inline constexpr int host_masked_group = 8;

/// Defaults for a host (CPU) execution space: OpenMP, Serial, Threads.
template <class ExecSpace, class Enable = void>
struct ExecTraits {
  /// Whether threads of a team execute in lockstep SIMT groups (a GPU).
  static constexpr bool is_gpu = false;
  /// SIMD register width in bytes, from the build (host_simd_bytes): 64 under AVX-512.
  static constexpr int simd_bytes = host_simd_bytes;
  template <class Value>
  KOKKOS_INLINE_FUNCTION static constexpr int simd_lanes() { return simd_bytes / static_cast<int>(sizeof(Value)); }
  /// Lane width of the lane-slot model (a warp; `pspmv info` reports it on every space).
  static constexpr int model_lane_width = 32;
  /// Threads per team for team-per-row: a host team is one thread, its vector lanes SIMD lanes.
  static constexpr int team_size = 1;
  /// Chunks that static/dynamic scheduling splits the rows into (Intel's SpMV prototype's
  /// "about 2000 chunks"); chunk = ceil(rows / target_chunks).
  static constexpr int target_chunks = 2000;
  /// Bytes of a multiply (CSR arrays, x and y) up to which the default schedule is serial: the
  /// calling thread alone, with no parallel region, since a launch on every thread costs more
  /// than such a matrix's work (docs/selection.md).
  static constexpr std::int64_t serial_max_bytes = std::int64_t{64} << 10;
  /// CSR bytes per thread from which the default schedule is work_stealing.
  static constexpr std::int64_t stealing_bytes_per_thread = std::int64_t{1} << 20;
  /// 64-bit words between two chunk-queue words (one 64-byte cache line: no false sharing).
  static constexpr std::int64_t chunk_queue_stride = 64 / 8;
  /// Most chunk queues of a work_stealing launch (beyond, workers share queues).
  static constexpr std::int64_t max_chunk_queues = 64;
  /// CSR bytes per thread from which rows of sell_min_mean entries or more take SELL.
  static constexpr std::int64_t sell_bytes_per_thread = std::int64_t{1} << 20;
  /// SELL slice height C: the values of one SIMD register, as in Intel's ESB (at least 4).
  template <class Value>
  KOKKOS_INLINE_FUNCTION static constexpr int sell_slice_height() {
    return simd_lanes<Value>() < 4 ? 4 : simd_lanes<Value>();
  }
  /// Default sorting window sigma, in slices (Kreutzer et al. 2014: a small multiple of C).
  static constexpr int sell_sigma_slices = 32;
  /// SELL thread-per-row runs a thread per slice, its C rows in SIMD lanes column by column
  /// (Intel's ESB; detail::SellSliceColumns).
  static constexpr bool sell_slice_columns = true;
  /// The automatic format takes SELL only within this factor of the CSR bytes.
  static constexpr double sell_memory_limit = 1.1;
  /// A SELL plan takes compressed columns (AnalyzeOptions::compress) by default when its CSR
  /// takes at least this many bytes (beyond the caches: bandwidth-bound)...
  static constexpr std::int64_t compress_min_bytes = std::int64_t{64} << 20;
  /// ...and at least this share of its nonzeros lies in row blocks of narrow column span
  /// (RowStats::narrow_share).
  static constexpr double compress_min_share = 0.5;
  /// A matrix of at least diagonal_min_bytes with a diagonal share (RowStats::diagonal_share over
  /// blocks of the plan's slice height: a stencil, a band) of at least diagonal_min_share takes
  /// a compressed SELL plan: its diagonal slices store no column per entry (SellMatrix). On the
  /// H200's Xeon host, stencil27:100 (f64) ran 1.10-1.17x faster than MKL's optimized product
  /// (two leases), against 0.47x for the CSR plan before, and stencil7:200 0.90-1.11x
  /// (perf/results/h200.md, "Diagonal slices"; stencil27:100's compressed plan, 231 MB, fits
  /// that host's 300 MiB L3, its CSR not).
  static constexpr std::int64_t diagonal_min_bytes = compress_min_bytes;
  static constexpr double diagonal_min_share = 0.5;
  /// Whether the automatic format prefers SELL wherever it fits (not on a host).
  static constexpr bool prefer_sell = false;
  /// A host matrix of sell_bytes_per_thread a thread or more takes SELL (the ESB slice kernel)
  /// where its rows hold at least this many entries on average and SELL fits sell_memory_limit;
  /// shorter rows stay CSR, whatever their columns (docs/selection.md).
  static constexpr double sell_min_mean = 12;
  /// Unused on a host (see the GPU's).
  static constexpr double csr_short_mean = 0;
  /// Unused on a host (see the GPU's).
  static constexpr double sell_memory_limit_irregular = 1.1;
  static constexpr double irregular_useful_share = 0.0;
  /// SELL rows longer than this leave the slices; -1: never by default on a host.
  static constexpr std::int64_t sell_long_row = -1;
  /// Long rows (when a caller sets sell_long_row) stay in the lane-shared CSR part.
  static constexpr bool sell_long_split = false;
  static constexpr int long_row_warps = 1;
  static constexpr double team_slot_advantage = 4.0;
  /// Entries a thread loads before it gathers x (detail::gather_dot): 1, which a host's CSR
  /// thread_per_row runs as detail::masked_dot or detail::simd_dot (masked_rows); above 1, that
  /// many partial sums (detail::lanes_dot).
  static constexpr int gather_unroll = 1;
  /// The shortest CSR row that detail::simd_dot sums in parallel partial sums; a shorter row is
  /// the plain loop. With gathers, two SIMD registers of Value (16 doubles, 32 floats under
  /// AVX-512); with the scalar partial sums, 8 entries of either type: on the 2-core EPYC the
  /// 4 partial sums took 0.47-0.68x the plain loop's time on float rows of 8-27 entries and
  /// 1.00-1.03x on double rows of 8-12 (docs/selection.md).
  template <class Value>
  KOKKOS_INLINE_FUNCTION static constexpr int simd_row_min() { return host_row_gathers ? 2 * simd_lanes<Value>() : 8; }
  /// How detail::simd_dot sums such a row (an OpenMP SIMD reduction with vector gathers of x,
  /// or 4 scalar partial sums) and the ESB slice loop its C rows (host_row_gathers).
  static constexpr bool row_gathers = host_row_gathers;
  /// Whether CSR thread_per_row plans sum every row in masked SIMD groups of 8 entries
  /// (detail::masked_dot), no loop per entry, rather than detail::simd_dot (host_masked_rows;
  /// docs/selection.md).
  static constexpr bool masked_rows = host_masked_rows;
  /// The same for the long-row kernel of a SELL plan.
  static constexpr int long_row_unroll = 1;
  /// Columns of X and Y per pass of a several-vector multiply (detail::launch_multi; 8 or 16),
  /// and the piece sums a workspace keeps per piece of a split long row.
  static constexpr int multi_columns = 16;
  /// A several-vector multiply keeps a thread per row with its K sums in SIMD registers (no
  /// thread per row and column: detail::MultiColumnLanes).
  static constexpr bool multi_column_lanes = false;
  /// Unused on a host (see the GPU's).
  static constexpr int multi_lane_row_threads_csr = 0;
  static constexpr int multi_lane_columns_sell = 1;
};

#if defined(KOKKOS_ENABLE_CUDA)
/// NVIDIA GPUs through Kokkos' CUDA backend (T4 sm_75, H100/H200 sm_90).
template <class ExecSpace>
struct ExecTraits<ExecSpace, std::enable_if_t<std::is_same<ExecSpace, Kokkos::Cuda>::value>> {
  static constexpr bool is_gpu = true;
  /// A warp: 32 lanes on every NVIDIA GPU.
  static constexpr int warp_size = 32;
  template <class Value>
  KOKKOS_INLINE_FUNCTION static constexpr int simd_lanes() { return warp_size; }
  static constexpr int model_lane_width = warp_size;
  /// Warps per team (block) for team-per-row: 4 warps = 128 threads.
  static constexpr int team_size = 4;
  /// Kept for reports (Kokkos' CUDA backend ignores Schedule<>).
  static constexpr int target_chunks = 2000;
  /// SELL slice height = a warp: lane r of a warp holds row r of a slice.
  template <class Value>
  KOKKOS_INLINE_FUNCTION static constexpr int sell_slice_height() { return warp_size; }
  static constexpr int sell_sigma_slices = 32;
  /// SELL thread-per-row is a lane per row (consecutive lanes read consecutive addresses).
  static constexpr bool sell_slice_columns = false;
  static constexpr double sell_memory_limit = 1.1;
  /// No 16-bit column offsets by default: on the H200 every SELL plan of the large set ran 0-18%
  /// slower with 16-bit offsets than with 32-bit columns, in f64 and f32 (docs/selection.md).
  /// A caller may still ask for them (AnalyzeOptions::compress). Stencil-like matrices are
  /// compressed for their diagonal slices (diagonal_min_bytes, below).
  static constexpr std::int64_t compress_min_bytes = std::numeric_limits<std::int64_t>::max();
  /// Unused while compress_min_bytes is never reached (kept for the rule's form).
  static constexpr double compress_min_share = 0.5;
  /// Compressed columns where diagonal slices pay (as on a host: a matrix beyond the H200's
  /// 60 MiB L2 whose diagonal share over blocks of a slice, 32 rows, is at least one half): on
  /// the H200, stencil27:120 ran 1.08x (f64) and 1.27x (f32) faster compressed, stencil7:256
  /// 1.08x and 1.12x (perf/results/h200.md, "Diagonal slices").
  static constexpr std::int64_t diagonal_min_bytes = std::int64_t{64} << 20;
  static constexpr double diagonal_min_share = 0.5;
  /// Irregular rows (thread-per-row CSR below irregular_useful_share useful lane-slots) may take
  /// SELL up to this factor of the CSR bytes.
  static constexpr double sell_memory_limit_irregular = 1.25;
  static constexpr double irregular_useful_share = 0.5;
  /// Small matrices (rows x 32 <= concurrency) whose longest row lies in [min, max]: CSR
  /// team-per-row, a full warp per row.
  static constexpr std::int64_t small_team_min_row = 32;
  static constexpr std::int64_t small_team_max_row = 256;
  /// Unused on a GPU: its hardware hands out blocks (and serial is a host schedule).
  static constexpr std::int64_t serial_max_bytes = 0;
  static constexpr std::int64_t stealing_bytes_per_thread = 0;
  /// Chunk-queue words side by side (a GPU's atomics resolve in L2).
  static constexpr std::int64_t chunk_queue_stride = 1;
  static constexpr std::int64_t max_chunk_queues = 64;
  /// Unused on a GPU (SELL is its default where it fits).
  static constexpr std::int64_t sell_bytes_per_thread = 0;
  static constexpr double sell_min_mean = 0;
  /// ...except where rows hold fewer than this many entries on average, none of them long
  /// (sell_long_row) and no diagonal slices by the rule: such a matrix keeps CSR, whose analysis
  /// costs a fifth of SELL's. On the H100, tiles of the shared matrices of 11-32M nonzeros with
  /// rows of 3.4-4.9 entries on average ran CSR 0.91-1.10x the time of SELL (geomean 0.976, f64
  /// and f32); on the H200 (an older tree) SELL gained nothing below 5 entries and 1.10-1.16x
  /// from 5.6 (docs/selection.md, "GPU: short rows stay CSR").
  static constexpr double csr_short_mean = 5;
  /// SELL is the GPU default where it fits.
  static constexpr bool prefer_sell = true;
  /// SELL rows longer than two warps' worth of entries leave the slices.
  static constexpr std::int64_t sell_long_row = 2 * warp_size;
  /// ...cut into pieces inside the slices (else a warp-per-row CSR part).
  static constexpr bool sell_long_split = true;
  /// CSR team-per-row only if it needs this many times fewer lane-slots than thread-per-row.
  static constexpr double team_slot_advantage = 4.0;
  /// Threads per block of the long-row kernel: 4 warps, one long row each.
  static constexpr int long_row_warps = 4;
  /// Entries a GPU thread loads before it gathers x: 4 keeps more bytes in flight per lane.
  static constexpr int gather_unroll = 4;
  /// The same for the warp-per-row long-row kernel.
  static constexpr int long_row_unroll = 4;
  /// A lane per row: no host-style vector gathers (the host's slice loop is not built here).
  static constexpr bool row_gathers = false;
  /// No host row forms on a GPU (a lane per row).
  static constexpr bool masked_rows = false;
  /// Columns per pass of a several-vector multiply: 8. On the H200 (f64, the lesson's even matrix
  /// and stencil27:120) k = 16 took the same time as one pass of 16 or two passes of 8, so the
  /// narrower pass is kept for its workspace: 8 piece sums per piece of a split long row, not 16.
  static constexpr int multi_columns = 8;
  /// Thread-per-row several-vector plans with LayoutRight X and Y run a thread per row and W
  /// adjacent columns (detail::MultiColumnLanes): the K / W threads of a row read X(c, .) as one
  /// coalesced load.
  static constexpr bool multi_column_lanes = true;
  /// How many adjacent columns of a block a thread of MultiColumnLanes takes where the block's
  /// columns allow it (detail::multi_lane_width, launch_multi_block), its X values at an entry
  /// one load: over SELL 4 (at most K: a thread per row at K <= 4, 2 threads a row at K = 8);
  /// over CSR as many as leave each row 4 threads (2 at K = 8, 1 below), whose loads of the
  /// row's entries then stay shared by 4 threads. On the H100 (k = 2, 4 and 8, f64 and f32, the
  /// lesson's pair at 16,777,216 rows and stencil27:120; docs/selection.md) SELL ran 1.05-3.02x
  /// faster so than with a column a thread, CSR at K = 8 1.01-1.30x; a thread per CSR row (2
  /// columns at K = 2) ran 0.37-0.54x as fast on the even matrix in f64 and on the stencil.
  static constexpr int multi_lane_row_threads_csr = 4;
  static constexpr int multi_lane_columns_sell = 4;
};
#endif

}  // namespace pspmv
