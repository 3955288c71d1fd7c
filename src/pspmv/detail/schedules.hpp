#pragma once
/// @file schedules.hpp
/// How a plan's kernel is launched under its Schedule: Kokkos' static policies for
/// static_chunks and nnz_balanced, and pspmv's own chunk queues for the two run-time
/// schedules, dynamic_chunks and work_stealing.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "pspmv/backends/exec_traits.hpp"
#include "pspmv/detail/csr_kernels.hpp"
#include "pspmv/options.hpp"
#include "pspmv/types.hpp"

namespace pspmv {
namespace detail {

/// The chunk queues of pspmv's two run-time schedules. Each queue is a range [lo, hi) of
/// chunk indices in one 64-bit word (lo in the low half, hi in the high half; a word is never
/// negative, since hi < 2^31).
/// - dynamic_chunks: one queue, the semantics of OpenMP's schedule(dynamic, chunk): every
///   worker takes the next chunk of all (atomic fetch-add on lo; it sees at most
///   nchunks + workers < 2^32 increments, so lo never carries into hi).
/// - work_stealing: one queue per worker, queue q holding the contiguous range a static
///   schedule would give worker q (at most ExecTraits::max_chunk_queues queues; beyond,
///   workers share them). A worker takes chunks from the front of its own queue in order;
///   when it runs dry it takes chunks one at a time from the back of the others' (w + 1,
///   w + 2, ...), both by compare-and-swap of the word, so the owner's stream stays
///   contiguous. lo only rises and hi only falls, so no chunk is taken twice.
/// Kokkos 3.4's Schedule<Dynamic> has the work-stealing shape (HostThreadTeamData::
/// get_work_stealing), but begins every launch with a pool rendezvous whose waits back off
/// to yield and sleep_for, and takes each chunk with a compare-and-swap that first fails as a
/// query; on the H200's 16-core host it ran the lesson's even matrix at 524,288 rows 1.63x
/// slower than `omp for schedule(dynamic, 263)`
/// (perf/results/h200/host-bench-lesson-524288.json). pspmv does not use it.
/// Words are `stride` entries apart (ExecTraits::chunk_queue_stride).
template <class Counter>
struct ChunkQueues {
  Counter word;  ///< queues x stride entries; word q * stride = (hi << 32) | lo of queue q
  std::int64_t nchunks = 0, queues = 1, stride = 1;
  bool stealing = false;

  KOKKOS_INLINE_FUNCTION static std::int64_t pack(const std::int64_t lo, const std::int64_t hi) {
    return static_cast<std::int64_t>((static_cast<std::uint64_t>(hi) << 32) | static_cast<std::uint64_t>(lo));
  }
  KOKKOS_INLINE_FUNCTION std::int64_t first(const std::int64_t q) const { return q * nchunks / queues; }
  /// The word of queue q at launch.
  KOKKOS_INLINE_FUNCTION std::int64_t initial(const std::int64_t q) const {
    return stealing ? pack(first(q), first(q + 1)) : 0;
  }
  /// Takes one chunk of queue q, from its front or its back; -1 when the queue is empty.
  /// `guess` is the caller's last knowledge of the word (-1: none): a right guess costs one
  /// compare-and-swap, a wrong one returns the word (-1 is never a word, so a swap expecting it
  /// is a pure read).
  KOKKOS_INLINE_FUNCTION std::int64_t take(const std::int64_t q, const bool front, std::int64_t& guess) const {
    std::int64_t* w = &word(q * stride);
    if (!stealing) {
      const std::int64_t c = Kokkos::atomic_fetch_add(w, std::int64_t(1)) & 0xffffffffLL;
      return c < nchunks ? c : -1;
    }
    std::int64_t old = guess >= 0 ? guess : Kokkos::atomic_compare_exchange(w, std::int64_t(-1), std::int64_t(-1));
    for (;;) {
      const std::int64_t lo = old & 0xffffffffLL, hi = static_cast<std::int64_t>(static_cast<std::uint64_t>(old) >> 32);
      if (lo >= hi) {
        // Empty by this word; a guess may be stale, so confirm with the word itself.
        const std::int64_t now = Kokkos::atomic_compare_exchange(w, std::int64_t(-1), std::int64_t(-1));
        if (now == old) return -1;
        old = now;
        continue;
      }
      const std::int64_t desired = front ? pack(lo + 1, hi) : pack(lo, hi - 1);
      const std::int64_t seen = Kokkos::atomic_compare_exchange(w, old, desired);
      if (seen == old) {
        guess = desired;
        return front ? lo : hi - 1;
      }
      old = seen;
    }
  }
  /// Calls body(c) for every chunk c that worker w takes (every chunk goes to exactly one call
  /// over all workers): its own queue from the front, then the others' from the back.
  /// OneTaker: one thread of the worker takes chunks for all of it (a host team, whose vector
  /// lanes are SIMD lanes of that thread); otherwise the team's leader takes each chunk and
  /// the team shares it (Kokkos::single with a broadcast).
  template <bool OneTaker, class Member, class Body>
  KOKKOS_INLINE_FUNCTION void drain(const std::int64_t w, const Member* team, const Body& body) const {
    for (std::int64_t v = 0; v < queues; ++v) {
      const std::int64_t q = (w + v) % queues;
      std::int64_t guess = v == 0 ? initial(q) : -1;
      for (;;) {
        std::int64_t c = -1;
        if constexpr (OneTaker) {
          c = take(q, v == 0, guess);
        } else {
          Kokkos::single(
              Kokkos::PerTeam(*team), [&](std::int64_t& taken) { taken = take(q, v == 0, guess); }, c);
        }
        if (c < 0) break;
        body(c);
      }
    }
  }
};

/// Sets each queue's word to its initial range (a GPU's words, from the device).
template <class Counter>
struct InitQueues {
  ChunkQueues<Counter> q;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const { q.word(i * q.stride) = q.initial(i); }
};

/// Rows [c * chunk, (c + 1) * chunk) of a range functor, chunk by chunk off the queues. The
/// row loop works on a copy of the functor held in registers, like the functor's own loops
/// (nnz_balanced's BlocksTag): through a reference, a store to y could alias its alpha and
/// beta, and the loop ran 1.2x slower on one thread than the static launch (the 2-core EPYC,
/// `pspmv bench --gen even:524288 --space host`, OMP_NUM_THREADS=1; 1.03x after the change).
template <class Functor, class Counter>
struct QueuedRows {
  /// The rows of one chunk, on the callee's own copy of the functor. On a host thread this is
  /// a call per chunk, not inlined: inlined into the queue's loop (GCC 12), the CSR rows of
  /// even:524288 under dynamic_chunks took 2.5x the static launch's time on one thread of the
  /// 2-core EPYC, and 1.0x as a call; work_stealing on two threads 2.4x, and 1.0-1.1x as a call
  /// (perf/results/cpu-2core.md, "Run-time schedules"). A GPU thread inlines it.
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  KOKKOS_INLINE_FUNCTION
#else
  KOKKOS_FUNCTION __attribute__((noinline))
#endif
  static void rows_of(const Functor fn, const std::int32_t begin, const std::int32_t end) {
    for (std::int32_t i = begin; i < end; ++i) fn(RowsTag(), i);
  }
  Functor f;
  ChunkQueues<Counter> queues;
  std::int64_t n = 0, chunk = 1;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t w) const {
    const Functor fn = f;
    queues.template drain<true, int>(w, nullptr, [&](const std::int64_t c) {
      const std::int32_t begin = static_cast<std::int32_t>(c * chunk);
      const std::int32_t end = static_cast<std::int32_t>((c + 1) * chunk < n ? (c + 1) * chunk : n);
      rows_of(fn, begin, end);
    });
  }
};

/// League indices [c * chunk, (c + 1) * chunk) of a team functor (its team_work(team, t)).
template <class ExecSpace, class Functor, class Counter>
struct QueuedTeams {
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  Functor f;
  ChunkQueues<Counter> queues;
  std::int64_t league = 0, chunk = 1;
  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const Functor fn = f;  // see QueuedRows
    // A host team of one thread takes its own chunks (Kokkos' broadcast costs a team
    // rendezvous); a GPU team always broadcasts, whatever its size, since its vector lanes
    // are threads of their own.
    const auto run = [&](const std::int64_t c) {
      const std::int64_t begin = c * chunk, end = begin + chunk < league ? begin + chunk : league;
      for (std::int64_t t = begin; t < end; ++t) fn.team_work(team, t);
    };
    if (!ExecTraits<ExecSpace>::is_gpu && team.team_size() == 1)
      queues.template drain<true>(team.league_rank(), &team, run);
    else
      queues.template drain<false>(team.league_rank(), &team, run);
  }
};

/// Queues for `nchunks` chunks over `workers` workers under a run-time schedule, each set to
/// its initial range: plain stores on a host execution space (whose parallel_for returns only
/// when the previous launch has finished, and whose next launch begins with the backend's
/// fork), else a small kernel on ExecSpace, ordered before the launch that follows.
template <class ExecSpace, class Counter>
ChunkQueues<Counter> make_queues(const ExecSpace& space, Schedule schedule, const Counter& word, std::int64_t nchunks,
                                 std::int64_t workers) {
  using Traits = ExecTraits<ExecSpace>;
  const bool stealing = schedule == Schedule::work_stealing;
  ChunkQueues<Counter> q{word, nchunks, stealing ? std::min<std::int64_t>(workers, Traits::max_chunk_queues) : 1,
                         Traits::chunk_queue_stride, stealing};
  if constexpr (!Traits::is_gpu &&
                Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Counter::memory_space>::accessible) {
    for (std::int64_t i = 0; i < q.queues; ++i) InitQueues<Counter>{q}(i);
  } else {
    Kokkos::parallel_for("pspmv::init_chunk_queues", Kokkos::RangePolicy<ExecSpace>(space, 0, q.queues),
                         InitQueues<Counter>{q});
  }
  return q;
}

/// Schedule::serial: the calling thread runs work items [0, rows) in order, with no parallel
/// region, on a copy of the functor held in registers (see QueuedRows). Where a Kokkos Tools
/// library is loaded, a region under the kernel's label marks it. choose() allows serial on a host
/// only; on a GPU this is never reached. The host backends run a launch to its end before the
/// next begins, so the loop is ordered after earlier work on the instance as a launch would be.
template <class ExecSpace, class Functor>
void run_serial(const std::string& label, std::int64_t rows, const Functor& f) {
  if constexpr (!ExecTraits<ExecSpace>::is_gpu) {
    const bool tools = Kokkos::Tools::profileLibraryLoaded();
    if (tools) Kokkos::Profiling::pushRegion(label);
    const Functor fn = f;
    const std::int32_t n = static_cast<std::int32_t>(rows);
    for (std::int32_t i = 0; i < n; ++i) fn(RowsTag(), i);
    if (tools) Kokkos::Profiling::popRegion();
  } else {
    (void)label, (void)rows, (void)f;
    Kokkos::abort("pspmv: schedule serial on a GPU (choose() rejects it)");
  }
}

/// Whether range launches on ExecSpace open their OpenMP parallel region themselves (see
/// openmp_range) rather than through Kokkos::parallel_for.
template <class ExecSpace>
inline constexpr bool direct_openmp =
#if defined(KOKKOS_ENABLE_OPENMP) && defined(_OPENMP)
    std::is_same<ExecSpace, Kokkos::OpenMP>::value;
#else
    false;
#endif

/// A range launch on Kokkos::OpenMP as one `omp parallel` region of `team` threads (the
/// instance's concurrency), each running body(thread, nthreads) on a copy of the functor held in
/// registers (see QueuedRows). The functor is the one every backend runs; only the region is
/// opened here, so that a plan can run on fewer threads than the instance holds
/// (AnalyzeOptions::threads: the threads beyond the plan's count leave at once) and a
/// launch costs what a plain `omp parallel for` costs: Kokkos 3.4's ParallelFor adds a work
/// partition in per-thread pool data and its dispatch to each launch. The region always has the
/// instance's team: a region of another size between an application's regions of the full team
/// makes the OpenMP runtime rebuild its team (libgomp, with or without binding; docs/selection.md). Kokkos
/// Tools sees the region as a parallel_for under the kernel's label. Called inside a parallel
/// region (nested parallelism off), the region has one thread and runs every item, as Kokkos
/// would. An instance of one thread opens no region: the calling thread runs body(0, 1) itself
/// (libgomp allocates and frees a team for each region of one thread; on the 2-core Xeon, one
/// thread, an empty region took 1.6x the time of karate's whole launch without one:
/// perf/results/cpu-2core-xeon.md).
/// So `body` must not depend on what a region of one would change (omp_get_level(),
/// Kokkos::OpenMP::in_parallel()) nor throw (an exception now leaves without endParallelFor
/// where a region would terminate); pspmv's range functors do neither.
template <class Body>
void openmp_range(const std::string& label, int threads, const Body& body) {
#if defined(_OPENMP)
  std::uint64_t id = 0;
  const bool tools = Kokkos::Tools::profileLibraryLoaded();
  if (tools) Kokkos::Tools::beginParallelFor(label, 0, &id);
  if (threads <= 1) {
    body(0, 1);
  } else {
#pragma omp parallel num_threads(threads)
    body(omp_get_thread_num(), omp_get_num_threads());
  }
  if (tools) Kokkos::Tools::endParallelFor(id);
#else
  (void)label, (void)threads, (void)body;
#endif
}

/// Items [t * n / nt, (t + 1) * n / nt) of n: thread t's contiguous share.
inline void share_of(std::int64_t n, int t, int nt, std::int64_t& begin, std::int64_t& end) {
  begin = n * t / nt;
  end = n * (t + 1) / nt;
}

/// Launches a range functor, the one `make()` returns, under the schedule: RowsTag over `rows`
/// work items in chunks of `chunk` (static, or off the chunk queues of dynamic_chunks and
/// work_stealing with one worker per thread), or BlocksTag over the `blocks` of the nnz
/// partition. `label` is the Kokkos Tools name fixed at analyze time (no string is built per
/// call). `words` holds the plan's chunk-queue words (run-time schedules only: min(concurrency,
/// max_chunk_queues) x chunk_queue_stride entries). Rows fit in 32 bits (a plan's nrows), so
/// chunks do too. `threads` (a host plan's LaunchParams::threads; 0: the instance's concurrency)
/// bound the threads of an OpenMP launch, which is opened directly (direct_openmp):
/// static_chunks gives each thread one contiguous share of the rows (as `omp for
/// schedule(static)`), nnz_balanced one of the blocks.
///
/// Under those two schedules each thread of an OpenMP launch calls its own copy of `make`, which
/// the region's closure holds by value: the functor it runs is filled from what `make` holds (for
/// a plan's multiply, detail::CallWords: a pointer to the plan's arrays and the call's vectors and
/// scalars), so what the calling thread writes for the other threads on each call is that
/// closure (two cache lines) rather than the functor (3-6 lines: 24 bytes a view).
/// `perf/probes/launch_cost.cpp` compares the two.
template <class ExecSpace, class Make, class Counter>
void launch_range_from(const ExecSpace& space, const std::string& label, Schedule schedule, std::int64_t rows,
                       std::int64_t blocks, int chunk, const Make& make, const Counter& words, int threads = 0) {
  using Functor = decltype(make());
  if constexpr (direct_openmp<ExecSpace>) {
    const int team = static_cast<int>(std::max<std::int64_t>(1, space.concurrency()));
    const int nt = static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(threads > 0 ? threads : team, team)));
    // Each of at most `want` of the region's `n` threads (the region may hold fewer than asked)
    // runs its contiguous share of `count` items of Tag; the others leave at once.
    const auto shares = [&](const std::int64_t count, const auto tag) {
      const std::int64_t want = std::min<std::int64_t>(nt, std::max<std::int64_t>(count, 1));
      openmp_range(label, team, [make, count, want, tag](const int t, const int n) {
        const int a = static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(want, n)));
        if (t >= a) return;
        const Functor fn = make();
        std::int64_t begin = 0, end = 0;
        share_of(count, t, a, begin, end);
        for (std::int32_t i = static_cast<std::int32_t>(begin); i < static_cast<std::int32_t>(end); ++i) fn(tag, i);
      });
    };
    switch (schedule) {
      case Schedule::static_chunks:
        shares(rows, RowsTag());
        return;
      case Schedule::nnz_balanced:
        shares(blocks, BlocksTag());
        return;
      case Schedule::dynamic_chunks:
      case Schedule::work_stealing: {
        const std::int64_t c = chunk > 0 ? chunk : 1, nchunks = (rows + c - 1) / c;
        const std::int64_t workers = std::max<std::int64_t>(1, std::min<std::int64_t>(nchunks, nt));
        const QueuedRows<Functor, Counter> q{make(), make_queues(space, schedule, words, nchunks, workers), rows, c};
        // Every worker drains every queue (its own, then the others'), so a region granted
        // fewer threads than asked still runs every chunk.
        openmp_range(label, team, [&](const int t, const int) {
          if (t < workers) q(t);
        });
        return;
      }
      case Schedule::serial:
        run_serial<ExecSpace>(label, rows, make());
        return;
    }
  }
  switch (schedule) {
    case Schedule::static_chunks: {
      Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Static>, RowsTag> policy(space, 0, rows);
      policy.set_chunk_size(chunk);
      Kokkos::parallel_for(label, policy, make());
      break;
    }
    case Schedule::dynamic_chunks:
    case Schedule::work_stealing: {
      const std::int64_t c = chunk > 0 ? chunk : 1, nchunks = (rows + c - 1) / c;
      const std::int64_t workers = std::max<std::int64_t>(1, std::min<std::int64_t>(nchunks, space.concurrency()));
      Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Static>> policy(space, 0, workers);
      policy.set_chunk_size(1);
      Kokkos::parallel_for(label, policy,
                           QueuedRows<Functor, Counter>{make(), make_queues(space, schedule, words, nchunks, workers), rows, c});
      break;
    }
    case Schedule::nnz_balanced: {
      Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Static>, BlocksTag> policy(space, 0, blocks);
      policy.set_chunk_size(1);
      Kokkos::parallel_for(label, policy, make());
      break;
    }
    case Schedule::serial:
      run_serial<ExecSpace>(label, rows, make());
      break;
  }
}

/// launch_range_from() of a functor the caller has filled (each thread copies it).
template <class ExecSpace, class Functor, class Counter>
void launch_range(const ExecSpace& space, const std::string& label, Schedule schedule, std::int64_t rows,
                  std::int64_t blocks, int chunk, const Functor& f, const Counter& words, int threads = 0) {
  launch_range_from(space, label, schedule, rows, blocks, chunk, [&f] { return f; }, words, threads);
}

/// Launches a team functor (RowsTag, or BlocksTag for nnz_balanced) over `league` teams; the
/// run-time schedules run one worker team per team the space holds at once (a GPU:
/// concurrency / (team_size x vector_length) threads; a host: concurrency / team_size, its
/// vector lanes being SIMD lanes of one thread) over the chunk queues.
template <class ExecSpace, class Functor, class Counter>
void launch_teams(const ExecSpace& space, const std::string& label, Schedule schedule, const LaunchParams& p,
                  const Functor& f, const Counter& words) {
  const int chunk = static_cast<int>(p.chunk_size);
  switch (schedule) {
    case Schedule::static_chunks: {
      Kokkos::TeamPolicy<ExecSpace, Kokkos::Schedule<Kokkos::Static>, RowsTag> policy(space, p.league_size,
                                                                                       p.team_size, p.vector_length);
      policy.set_chunk_size(chunk);
      Kokkos::parallel_for(label, policy, f);
      break;
    }
    case Schedule::dynamic_chunks:
    case Schedule::work_stealing: {
      const std::int64_t c = chunk > 0 ? chunk : 1, nchunks = (p.league_size + c - 1) / c;
      const std::int64_t threads_per_team = std::max<std::int64_t>(
          1, ExecTraits<ExecSpace>::is_gpu ? static_cast<std::int64_t>(p.team_size) * p.vector_length : p.team_size);
      const std::int64_t resident = std::max<std::int64_t>(1, space.concurrency() / threads_per_team);
      const std::int64_t workers = std::max<std::int64_t>(1, std::min(nchunks, resident));
      Kokkos::TeamPolicy<ExecSpace, Kokkos::Schedule<Kokkos::Static>> policy(space, workers, p.team_size,
                                                                              p.vector_length);
      policy.set_chunk_size(1);
      Kokkos::parallel_for(label, policy,
                           QueuedTeams<ExecSpace, Functor, Counter>{
                               f, make_queues(space, schedule, words, nchunks, workers), p.league_size, c});
      break;
    }
    case Schedule::nnz_balanced: {
      Kokkos::TeamPolicy<ExecSpace, Kokkos::Schedule<Kokkos::Static>, BlocksTag> policy(space, p.league_size,
                                                                                        p.team_size, p.vector_length);
      policy.set_chunk_size(1);
      Kokkos::parallel_for(label, policy, f);
      break;
    }
    case Schedule::serial:  // choose() allows serial with thread_per_row only
      Kokkos::abort("pspmv: schedule serial with a team mapping (choose() rejects it)");
      break;
  }
}

}  // namespace detail
}  // namespace pspmv
