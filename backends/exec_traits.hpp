#pragma once
/// @file exec_traits.hpp
/// Hardware knowledge, in one place: what pspmv assumes about each Kokkos execution
/// space. Every number is named and says where it comes from. launch_params() in
/// pspmv/detail/launch_params.hpp turns these and a matrix's row statistics into the
/// launch sizes of a plan.

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

namespace pspmv {

/// Defaults for a host (CPU) execution space: OpenMP, Serial, Threads.
template <class ExecSpace, class Enable = void>
struct ExecTraits {
  /// Whether threads of a team execute in lockstep SIMT groups (a GPU).
  static constexpr bool is_gpu = false;
  /// Lanes that execute one instruction together. On a CPU, the SIMD width in bytes
  /// over the value size: 64 bytes for AVX-512 (the H200 host's Xeon), so 8 doubles.
  static constexpr int simd_bytes = 64;
  template <class Value>
  static constexpr int simd_lanes() { return simd_bytes / static_cast<int>(sizeof(Value)); }
  /// Lane width used by the lane-slot model of `pspmv info` (a warp; the lesson's unit).
  static constexpr int model_lane_width = 32;
  /// Threads per team for team-per-row: a host team is one thread; its "vector lanes"
  /// are the SIMD lanes the compiler may use for the row's inner loop.
  static constexpr int team_size = 1;
  /// Number of chunks static/dynamic scheduling splits the rows into, as in Intel's
  /// SpMV prototype ("about 2000 chunks"); chunk = ceil(rows / target_chunks).
  static constexpr int target_chunks = 2000;
  /// Coefficient of variation of row length above which the default CPU schedule is
  /// nnz_balanced instead of static_chunks (the lesson's skewed matrix has cv 4.52,
  /// the even one 0; real FEM matrices sit well below 1).
  static constexpr double cv_balance_threshold = 1.0;
  /// nnz_balanced also when a static split into one row block per thread would give the
  /// fullest block more than this factor of the mean nnz (detail::static_imbalance), whatever
  /// the cv: the slowest thread's extra work is what a static schedule loses. bcsstk13 (cv
  /// 0.54; 1.24x at 2 threads, 1.36x at 16), where the model took static, was its one
  /// evaluation matrix missed in all three tune runs on the 2-core development machine
  /// (1.21-1.27x the best plan; perf/results/2026-11-30-cpu2-r4/), and its static plan ran
  /// 1.03-1.25x slower than nnz-balanced in runs 1-4 on the H200's host
  /// (perf/results/2026-11-30-h200-r4/). 1.1: the 10% the model is judged by.
  static constexpr double static_imbalance_threshold = 1.1;
  /// CSR bytes per host thread from which the default schedule is work_stealing (whatever
  /// the cv): each thread streams its own contiguous range, as under a static schedule, and
  /// threads that finish early take chunks from the back of the slower ones' ranges, which
  /// evens out both uneven rows and threads that run at different speeds (a VM's cores).
  /// Below, a launch takes microseconds and the schedule's atomics are no longer negligible.
  /// Measured on the H200's 16-core host (pspmv tune, perf/results/2026-11-30-h200-r4/, run 1,
  /// before the row-loop fix of 4612038):
  /// on the eight evaluation matrices of 13-34M nonzeros (160-400 MB) pspmv's work_stealing
  /// was within 1.12x of the exhaustive best on seven (hep-th tiled wants SELL), static 1.07-1.61x
  /// slower and nnz_balanced 1.02-1.38x; on the sixteen shared matrices (1 KB-1 MB, 4-16 us
  /// a call) it took 1.6-2.9x the fastest plan's time. 1 MiB per thread (16 MiB on 16
  /// threads, 1.4M f64 nonzeros) lies between the two groups; no evaluation matrix sits near it.
  static constexpr std::int64_t stealing_bytes_per_thread = std::int64_t{1} << 20;
  /// Entries (64-bit words) between two chunk-queue words of a run-time schedule
  /// (detail::ChunkQueues): a 64-byte cache line, the line size of every x86-64 core, so two
  /// threads' queues never share a line (no false sharing).
  static constexpr std::int64_t chunk_queue_stride = 64 / 8;
  /// Most chunk queues of a work_stealing launch: beyond, workers share queues (worker w takes
  /// queue w mod this), so that a worker that runs dry polls at most this many before it stops.
  /// 64 >= the threads of one socket of the hosts in view (16 on the H200's host).
  static constexpr std::int64_t max_chunk_queues = 64;
  /// Bytes of CSR per thread from which a host matrix whose columns are scattered takes SELL
  /// (scattered_sell_spread): x then lies far beyond the caches. The same megabyte as
  /// stealing_bytes_per_thread; no matrix measured sits near it.
  static constexpr std::int64_t scattered_sell_bytes_per_thread = std::int64_t{1} << 20;
  /// SELL slice height C on a CPU: the values of one SIMD register, as in Intel's ESB
  /// (8 doubles under AVX-512).
  template <class Value>
  static constexpr int sell_slice_height() { return simd_lanes<Value>(); }
  /// Default sorting window sigma = this many slices. 32 slices sort any row-length
  /// pattern that repeats within 32 rows (the lesson's skewed matrix) into padding 1.00
  /// while keeping rows near their neighbours, so x locality survives
  /// (Kreutzer et al. 2014 recommend sigma a small multiple of C).
  static constexpr int sell_sigma_slices = 32;
  /// The automatic format choice takes SELL only if its bytes stay within this factor of
  /// the CSR bytes (the project's memory target: a plan at most 1.1x its CSR).
  static constexpr double sell_memory_limit = 1.1;
  /// Whether the automatic format choice prefers SELL wherever it fits: not on the host,
  /// where CSR stays the default except for scattered columns (scattered_sell_spread).
  static constexpr bool prefer_sell = false;
  /// Column spread (RowStats::col_spread) from which a host matrix of at least
  /// stealing_bytes_per_thread CSR bytes per thread takes SELL (within sell_memory_limit):
  /// its x accesses land anywhere in an x far beyond the caches, and SELL-C's inner loop runs
  /// C rows in SIMD lanes, so it issues C independent gathers per column step, where CSR's
  /// row loop is one dependent sum (no FP reassociation). Measured on the H200's 16-core host
  /// (perf/results/2026-11-30-h200-r4/, run 2): on random:1000000, random:3000000:8:7 and
  /// random:2000000:12:11 (spread 0.33, SELL padding 1.03) SELL ran 1.14-1.29x faster than
  /// the CSR plan (1.41x on random:1000000 in the previous session's holdout); four fresh random
  /// matrices then had the model within 1.05x of the best (runs 3-4); banded, stencil and tiled
  /// matrices have spreads below 0.01; on most of the large ones SELL was slower than the best
  /// CSR plan (exceptions in some runs: stencil7, skewed, tiled hep-th). R-MAT graphs are
  /// scattered too, but their SELL forms exceed the memory limit (padding 2.9).
  static constexpr double scattered_sell_spread = 0.1;
  // Two choices that are not rules, because the two CPUs measured disagree
  // (perf/results/2026-11-30-h200-r5/README.md, section 2):
  // - SELL-8 for short irregular rows: tile:hep-th (mean 3.8, cv 1.14) ran its best SELL plan
  //   at 0.72-0.95x the best CSR plan's time on the H200's Xeon host in ten sweeps, and at
  //   1.27-1.65x on the 2-core EPYC development VM in eight;
  // - CSR team_per_row (a row's entries as vector lanes: independent partial sums) for R-MAT:
  //   thread_per_row ran at 1.108-1.204x the team plan in the Xeon's final timings, while the
  //   team plan measured 0.97-1.10x thread_per_row's time in the EPYC's sweeps.
  // A machine profile (pspmv calibrate; AnalyzeOptions::profile, src/pspmv/profile.hpp) makes
  // both choices per machine from measurements of synthetic probes
  // (perf/results/2026-11-30-h200-r6/README.md).
  // The host code is built without -march (baseline x86-64), so the "vector lanes" of a host
  // team are independent sums that the compiler may or may not vectorize.

  /// See the GPU's; unused on a host, whose automatic format takes SELL only under
  /// scattered_sell_spread, within sell_memory_limit.
  static constexpr double sell_memory_limit_irregular = 1.1;
  /// See the GPU's; 0 turns the irregular-rows allowance off.
  static constexpr double irregular_useful_share = 0.0;
  /// SELL rows longer than this leave the slices (see SellMatrix); -1: never by default on
  /// the host, where no measurement has shown a gain yet.
  static constexpr std::int64_t sell_long_row = -1;
  /// Long rows (when a caller sets sell_long_row) stay in the lane-shared CSR part on a host.
  static constexpr bool sell_long_split = false;
  static constexpr int long_row_warps = 1;
  static constexpr double team_slot_advantage = 4.0;
  /// Entries a thread loads before it gathers x (detail::gather_dot): 1 on a CPU, whose
  /// out-of-order core and prefetchers keep many loads in flight by themselves and whose
  /// compilers vectorize the plain loop.
  static constexpr int gather_unroll = 1;
  /// The same for the long-row kernel of a SELL plan (lanes share a row).
  static constexpr int long_row_unroll = 1;
};

#if defined(KOKKOS_ENABLE_CUDA)
/// NVIDIA GPUs through Kokkos' CUDA backend (T4 sm_75, H100/H200 sm_90).
template <class ExecSpace>
struct ExecTraits<ExecSpace, std::enable_if_t<std::is_same<ExecSpace, Kokkos::Cuda>::value>> {
  static constexpr bool is_gpu = true;
  /// A warp: 32 lanes on every NVIDIA GPU (CUDA C++ Programming Guide, "SIMT Architecture").
  static constexpr int warp_size = 32;
  template <class Value>
  static constexpr int simd_lanes() { return warp_size; }
  static constexpr int model_lane_width = warp_size;
  /// Warps per team (block of team_size * vector_length threads) for team-per-row:
  /// 4 warps = 128 threads, a common occupancy-friendly CUDA block size.
  static constexpr int team_size = 4;
  /// Static/dynamic chunking has no meaning on a GPU (Kokkos' CUDA backend ignores
  /// Schedule<>); kept for reports.
  static constexpr int target_chunks = 2000;
  static constexpr double cv_balance_threshold = 1.0;
  static constexpr double static_imbalance_threshold = 1.1;
  /// SELL slice height = a warp: lane r of a warp holds row r of a slice (Kreutzer et al. 2014).
  template <class Value>
  static constexpr int sell_slice_height() { return warp_size; }
  static constexpr int sell_sigma_slices = 32;
  static constexpr double sell_memory_limit = 1.1;
  /// Irregular rows may take SELL up to this factor of the CSR bytes: when thread-per-row
  /// CSR would leave more than half its lane-slots idle (useful share below
  /// irregular_useful_share), the 1.1x memory target gives way to speed, unless the caller
  /// set AnalyzeOptions::sell_memory_limit. Measured on the H200 (pspmv tune,
  /// perf/results/2026-11-30-h200-r3/run1-544a18d-gpu-tune.json, f64): SELL with split long rows at
  /// 1.105-1.131x the CSR bytes ran 2.2x (tiled rajat01), 5.1x (rmat:20) and 5.8x (rajat01)
  /// faster than the CSR plan the 1.1x limit left.
  static constexpr double sell_memory_limit_irregular = 1.25;
  static constexpr double irregular_useful_share = 0.5;
  /// Small matrices: when a warp per row fits the device at once (rows x 32 <= concurrency)
  /// and the longest row is a chain of at least small_team_min_row dependent loads for one
  /// thread, but no longer than small_team_max_row (longer rows are cut into pieces inside
  /// SELL slices, which run in parallel), CSR team-per-row with a full warp per row. Such a
  /// launch is bound by its longest dependent chain, not by bandwidth. Measured on the H200
  /// (run1-544a18d-gpu-tune.json): team-per-row at vector length 32 was the fastest plan of bcsstk13 (max
  /// row 95, 1.78x faster than the SELL plan), lp_e226 (110, 1.59x), watt_2 (128, 1.57x),
  /// zenios (47, 1.36x), Erdos971 (41, 1.27x) and hep-th (50, 1.13x); with max rows of
  /// 1310 (adder_dcop_05) and 1442 (rajat01) split SELL won by 1.03-1.17x; below 32
  /// (karate 17, 494_bus 10) thread-per-row was within 6%.
  static constexpr std::int64_t small_team_min_row = 32;
  static constexpr std::int64_t small_team_max_row = 256;
  /// Unused on a GPU (see the host's): its hardware hands out blocks.
  static constexpr std::int64_t stealing_bytes_per_thread = 0;
  /// Chunk-queue words side by side: a GPU's atomics resolve in L2, and only an explicitly
  /// requested run-time schedule uses them.
  static constexpr std::int64_t chunk_queue_stride = 1;
  static constexpr std::int64_t max_chunk_queues = 64;
  static constexpr std::int64_t scattered_sell_bytes_per_thread = 0;
  /// Unused on a GPU (SELL is its default where it fits).
  static constexpr double scattered_sell_spread = 0;
  /// On the H200, cuSPARSE's SELL-32 ran the lesson's even matrix at 1.04x the floor against
  /// 1.5x for its CSR (issue 4's anchor table): SELL is the GPU default when it fits.
  static constexpr bool prefer_sell = true;
  /// SELL rows longer than two warps' worth of entries go to a warp-per-row CSR part: in a
  /// slice each lane walks its own long row, a chain of uncoalesced x gathers (the lesson's
  /// skewed matrix, 419-entry rows, ran 1.6x slower than the even one as plain sorted SELL-32
  /// on the H200, 16.8M rows, f64).
  static constexpr std::int64_t sell_long_row = 2 * warp_size;
  /// Long rows are cut into pieces of at most sell_long_row entries inside the slices: on the
  /// H200 the warp-per-row part ran the skewed matrix's long rows at 1.44x their share of the
  /// floor (0.95 ms of 1.19 ms, f64), the slices at 1.16x; split, the whole multiply took
  /// 1.059 ms against 1.196 (f64) and 0.732 against 0.870 (f32), and tiled real matrices
  /// moved by under 3% either way (perf/results/2026-11-30-h200-r2/gpu-split-*.json).
  static constexpr bool sell_long_split = true;
  /// CSR on a GPU: team-per-row is chosen only if it needs this many times fewer lane-slots
  /// than thread-per-row. Measured on the H200 (f64, perf/results/2026-11-30-h200): with
  /// slot ratios 1.3 (tiled hep-th) and 2.2 (tiled rajat01) thread-per-row still ran 2.1x
  /// faster; at ratio 10 (the lesson's skewed matrix, vector length 16) team-per-row ran
  /// 1.16x faster in f64 and 1.21x slower in f32: the break-even lies near there.
  static constexpr double team_slot_advantage = 4.0;
  /// Threads per block of the long-row kernel: 4 warps, one long row each.
  static constexpr int long_row_warps = 4;
  /// Entries a GPU thread loads before it gathers x (detail::gather_dot): an in-order SIMT
  /// lane stalls on its col_idx -> x chain, so independent loads per lane keep more bytes in
  /// flight (Little's law: the H200 needs ~4.8 TB/s x ~0.7 us ~ 3.4 MB, ~25 KB per SM).
  /// Measured on the H200 (perf/results/2026-11-30-h200-r2/gpu-unroll-16M.json, SELL-32 of
  /// the lesson's even matrix, 16.8M rows): U=1 0.942 ms f64 / 0.745 ms f32, U=4 0.854 /
  /// 0.589 (0.98x / 1.02x the floor); U=2 and U=8 within 3% of U=4, U=16 slower (registers).
  static constexpr int gather_unroll = 4;
  /// The same for the warp-per-row long-row kernel (sell_long_split = false): its time did
  /// not depend on the factor (0.947-0.974 ms for U = 1..16 on the skewed matrix, f64;
  /// kernel-split3-skewed-f64.txt), so it keeps the slices' factor.
  static constexpr int long_row_unroll = 4;
};
#endif

}  // namespace pspmv
