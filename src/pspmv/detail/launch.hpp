#pragma once
/// @file launch.hpp
/// One multiply of a plan: fills the chosen kernel's functor from the plan's storage and the
/// caller's vectors and launches it under the chosen schedule on the caller's instance.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "pspmv/detail/csr_kernels.hpp"
#include "pspmv/detail/schedules.hpp"
#include "pspmv/detail/sell_kernels.hpp"
#include "pspmv/detail/storage.hpp"
#include "pspmv/errors.hpp"
#include "pspmv/choice.hpp"

namespace pspmv {
namespace detail {

/// Kokkos Tools names of a plan's kernels, fixed at analyze time (multiply() builds no string).
struct Labels {
  std::string kernel;  ///< e.g. "pspmv::csr_thread_per_row::static_chunks" ("::compressed" appended for
                       ///< a SELL plan with compressed columns)
  std::string long_rows;  ///< SELL long rows: "pspmv::sell_long_rows" or "pspmv::sell_combine_pieces"
  std::string lanes;      ///< several vectors, a thread per row and column: kernel + "::lanes" (else empty)
};

inline Labels labels_of(const PlanChoice& c) {
  const bool sell = c.format == Format::sell, thread = c.mapping == Mapping::thread_per_row;
  return {std::string("pspmv::") +
              (sell ? (thread ? (c.launch.slice_columns ? "sell_slice_columns" : "sell_row_per_thread")
                              : "sell_slice_per_team")
                    : (thread ? "csr_thread_per_row" : "csr_team_per_row")) +
              "::" + to_string(c.schedule) + (sell && c.launch.compressed ? "::compressed" : ""),
          c.launch.long_split ? "pspmv::sell_combine_pieces" : "pspmv::sell_long_rows", ""};
}

/// What one multiply needs besides the plan's storage.
template <class ExecSpace, class Value>
struct Call {
  using memory_space = typename ExecSpace::memory_space;
  KernelView<const Value*, memory_space> x;
  KernelView<Value*, memory_space> y;
  Value alpha, beta;
  const Workspace<ExecSpace, Value>* workspace;
};

/// The checks of a multiply's arguments: lengths, a workspace large enough, no overlap.
/// @throws DimensionError naming both sizes; InvalidArgument for a small workspace or
///         overlapping x and y.
template <class Value>
void check_call(std::int32_t nrows, std::int32_t ncols, const Value* x, std::size_t x_length, const Value* y,
                std::size_t y_length, bool workspace_fits) {
  if (static_cast<std::int64_t>(x_length) != ncols)
    throw DimensionError("multiply: length of x (= ncols of A)", ncols, static_cast<std::int64_t>(x_length));
  if (static_cast<std::int64_t>(y_length) != nrows)
    throw DimensionError("multiply: length of y (= nrows of A)", nrows, static_cast<std::int64_t>(y_length));
  if (!workspace_fits)
    throw InvalidArgument("multiply: the workspace is smaller than this plan needs (use plan.make_workspace())");
  if (x != nullptr && y != nullptr && x < y + y_length && y < x + x_length)
    throw InvalidArgument("multiply: x and y overlap in memory; pass distinct vectors");
}

/// Refuses, before anything is written, a plan with team launches (team_per_row, SELL slices per
/// team, long rows kept in lanes) called inside an active OpenMP parallel region on Kokkos 3:
/// its OpenMP team launch then splits the league over the whole thread pool while its nested
/// region has one thread, so most teams would not run. Range launches (thread_per_row, every
/// schedule) run every row there (detail::openmp_range). Kokkos 4 runs such a launch serially.
/// @throws InvalidArgument naming the mapping and the way out.
template <class ExecSpace>
void check_teams_outside_region(const PlanChoice& c) {
#if defined(_OPENMP) && KOKKOS_VERSION < 40000
  const bool teams = c.mapping == Mapping::team_per_row ||
                     (c.format == Format::sell && c.launch.long_rows > 0 && !c.launch.long_split);
  if constexpr (direct_openmp<ExecSpace>)
    if (teams && omp_in_parallel())
      throw InvalidArgument("multiply: this plan launches Kokkos teams (" +
                            std::string(c.mapping == Mapping::team_per_row ? "mapping team_per_row"
                                                                           : "SELL long rows kept in lanes") +
                            "), which Kokkos 3 cannot run inside an active OpenMP parallel region (most teams "
                            "would not run); call multiply() outside the region, or analyze with mapping "
                            "thread_per_row and without sell_long_row");
#else
  (void)c;
#endif
}

/// Whether a SELL functor walks whole slices (holds slice_width).
template <class F, class = void>
struct has_slice_width : std::false_type {};
template <class F>
struct has_slice_width<F, std::void_t<decltype(std::declval<F&>().slice_width)>> : std::true_type {};

/// What a kernel's functor is filled from: the plan's storage, through a pointer (arrays that
/// analyze() wrote once), and the call's vectors, scalars and workspace, the plan's row count and
/// keep_permuted, by value. A host range launch gives a copy to each of its threads
/// (launch_range_from), which fills its own functor from it.
template <class ExecSpace, class Value, class Offset, class MValue>
struct CallWords {
  const Storage<ExecSpace, MValue, Offset>* storage;
  Call<ExecSpace, Value> call;
  std::int32_t nrows;
  bool keep_permuted;

  /// A CSR kernel's arrays, vectors and scalars.
  template <class F>
  void fill_csr(F& f) const {
    f.row_ptr = storage->csr.row_ptr;
    f.col_idx = storage->csr.col_idx;
    f.values = storage->csr.values;
    f.x = call.x;
    f.y = call.y;
    f.partition = storage->partition;
    f.alpha = call.alpha;
    f.beta = call.beta;
  }
  /// A SELL kernel's arrays, vectors, scalars and shape (SellSliceColumns' slice widths too).
  template <class F>
  void fill_sell(F& f) const {
    const auto& S = storage->sell;
    f.slice_ptr = S.slice_ptr;
    f.row_len = S.row_len;
    f.perm = S.perm;
    f.col_idx = S.col_idx;
    f.values = S.values;
    f.x = call.x;
    f.y = call.y;
    f.partition = storage->partition;
    f.alpha = call.alpha;
    f.beta = call.beta;
    f.partial = call.workspace->partial;
    f.nrows = nrows;
    f.npos = S.npos;
    f.nslices = static_cast<std::int32_t>(S.nslices());
    f.log2_c = storage->log2_c;
    f.permuted_output = keep_permuted;
    f.compressed = S.compressed;
    f.col_base = S.col_base;
    f.off_ptr = S.off_ptr;
    f.col_off = S.col_off;
    if constexpr (has_slice_width<F>::value) f.slice_width = S.slice_width;
  }
};

/// A range functor of type F filled from its CallWords (a SELL kernel's with Sell).
template <class F, class Words, bool Sell>
struct Maker {
  Words words;
  F operator()() const {
    F f;
    if constexpr (Sell)
      words.fill_sell(f);
    else
      words.fill_csr(f);
    return f;
  }
};

/// y = alpha A x + beta y with the plan's kernel (`empty`: alpha == 0 or no entries, y = beta y), Unroll / LongUnroll gathers in flight per
/// thread (ExecTraits::gather_unroll, long_row_unroll), BetaZero decided by the caller.
/// A non-default unroll factor is named in the kernel's label ("::U=<factor>").
/// Value: the vectors' type; MValue: the stored matrix's (the same, or float in a mixed-precision plan).
template <int Unroll, int LongUnroll, bool BetaZero, class ExecSpace, class Value, class Offset, class MValue>
void launch_multiply(const ExecSpace& space, const Storage<ExecSpace, MValue, Offset>& st, const PlanChoice& c,
                     const Labels& labels, std::int32_t nrows, bool empty, const Call<ExecSpace, Value>& call) {
  using Traits = ExecTraits<ExecSpace>;
  if (!empty) check_teams_outside_region<ExecSpace>(c);
  if (empty) {
    Kokkos::parallel_for("pspmv::scale_y", Kokkos::RangePolicy<ExecSpace>(space, 0, nrows),
                         ScaleY<ExecSpace, Value, BetaZero>{call.y, call.beta});
    return;
  }
  const LaunchParams& p = c.launch;
  std::string unrolled;  // built only by the experiments' non-default factors
  if constexpr (Unroll != Traits::gather_unroll) unrolled = labels.kernel + "::U=" + std::to_string(Unroll);
  const std::string& label = Unroll == Traits::gather_unroll ? labels.kernel : unrolled;
  const int chunk = static_cast<int>(p.chunk_size);
  const KernelView<std::int64_t*, typename ExecSpace::memory_space> cursors = call.workspace->cursors;
  const CallWords<ExecSpace, Value, Offset, MValue> words{&st, call, nrows, c.keep_permuted};
  if (c.format == Format::csr) {
    if (c.mapping == Mapping::thread_per_row) {
      // Rows in masked SIMD groups in a build that has them (ExecTraits::masked_rows: every such
      // plan's LaunchParams::masked_rows); the one form compiled for a build and unroll factor.
      constexpr bool masked = Traits::masked_rows && Unroll <= 1;
      using F = CsrThreadPerRow<ExecSpace, Value, Offset, Unroll, BetaZero, MValue, masked>;
      launch_range_from(space, label, c.schedule, nrows, p.num_blocks, chunk, Maker<F, decltype(words), false>{words},
                        cursors, p.threads);
    } else {
      CsrTeamPerRow<ExecSpace, Value, Offset, Unroll, BetaZero, MValue> f;
      words.fill_csr(f);
      f.nrows = nrows;
      f.rows_per_team = p.rows_per_team;
      f.vector_length = p.vector_length;
      launch_teams(space, label, c.schedule, p, f, cursors);
    }
    return;
  }
  const auto& S = st.sell;
  if (c.mapping == Mapping::thread_per_row && p.slice_columns) {
    if constexpr (Traits::sell_slice_columns) {  // choose() sets slice_columns only where it compiles
      using Compressed = SellSliceColumns<ExecSpace, Value, BetaZero, true, MValue>;
      using Plain = SellSliceColumns<ExecSpace, Value, BetaZero, false, MValue>;
      if (S.compressed)
        launch_range_from(space, label, c.schedule, S.nslices(), p.num_blocks, chunk,
                          Maker<Compressed, decltype(words), true>{words}, cursors, p.threads);
      else
        launch_range_from(space, label, c.schedule, S.nslices(), p.num_blocks, chunk,
                          Maker<Plain, decltype(words), true>{words}, cursors, p.threads);
    }
  } else if (c.mapping == Mapping::thread_per_row) {
    using F = SellRowPerThread<ExecSpace, Value, Unroll, BetaZero, MValue>;
    launch_range_from(space, label, c.schedule, S.npos, p.num_blocks, chunk, Maker<F, decltype(words), true>{words},
                      cursors, p.threads);
  } else {
    SellSlicePerTeam<ExecSpace, Value, Unroll, BetaZero, MValue> f;
    words.fill_sell(f);
    f.slices_per_team = p.slices_per_team;
    launch_teams(space, label, c.schedule, p, f, cursors);
  }
  if (p.long_rows == 0) return;
  if (p.long_split) {
    SellCombinePieces<ExecSpace, Value, BetaZero> g{S.long_rows, S.piece_ptr, call.workspace->partial,
                                                    call.y,      call.alpha,  call.beta};
    Kokkos::parallel_for(labels.long_rows, Kokkos::RangePolicy<ExecSpace>(space, 0, p.long_rows), g);
    return;
  }
  SellLongRows<ExecSpace, Value, LongUnroll, BetaZero, MValue> g;
  g.long_rows = S.long_rows;
  g.long_pos = S.long_pos;
  g.long_row_ptr = S.long_row_ptr;
  g.col_idx = S.long_col_idx;
  g.values = S.long_values;
  g.x = call.x;
  g.y = call.y;
  g.alpha = call.alpha;
  g.beta = call.beta;
  g.nlong = static_cast<std::int32_t>(p.long_rows);
  g.rows_per_team = p.long_team_size;
  g.vector_length = p.long_vector_length;
  g.permuted_output = c.keep_permuted;
  const std::int64_t league = (p.long_rows + p.long_team_size - 1) / p.long_team_size;
  std::string long_unrolled;
  if constexpr (LongUnroll != Traits::long_row_unroll)
    long_unrolled = labels.long_rows + "::U=" + std::to_string(LongUnroll);
  Kokkos::parallel_for(LongUnroll == Traits::long_row_unroll ? labels.long_rows : long_unrolled,
                       Kokkos::TeamPolicy<ExecSpace>(space, league, p.long_team_size, p.long_vector_length), g);
}

}  // namespace detail
}  // namespace pspmv
