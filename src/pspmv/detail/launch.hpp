#pragma once
/// @file launch.hpp
/// One multiply of a plan: fills the chosen kernel's functor from the plan's storage and the
/// caller's vectors and launches it under the chosen schedule on the caller's instance.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <string>

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
template <class XView, class YView>
void check_call(std::int32_t nrows, std::int32_t ncols, const XView& x, const YView& y, bool workspace_fits) {
  if (static_cast<std::int64_t>(x.extent(0)) != ncols)
    throw DimensionError("multiply: length of x (= ncols of A)", ncols, static_cast<std::int64_t>(x.extent(0)));
  if (static_cast<std::int64_t>(y.extent(0)) != nrows)
    throw DimensionError("multiply: length of y (= nrows of A)", nrows, static_cast<std::int64_t>(y.extent(0)));
  if (!workspace_fits)
    throw InvalidArgument("multiply: the workspace is smaller than this plan needs (use plan.make_workspace())");
  const auto* xb = x.data();
  const auto* yb = y.data();
  if (xb != nullptr && yb != nullptr && xb < yb + y.extent(0) && yb < xb + x.extent(0))
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
  // A range launch's functor is made by each thread of a host launch (launch_range_made) from
  // the plan's storage, through a pointer (lines written once, at analyze time), and from the
  // call's vectors and scalars, which the maker holds by value.
  const Storage<ExecSpace, MValue, Offset>* const s = &st;
  const auto x = call.x;
  const auto y = call.y;
  const Value alpha = call.alpha, beta = call.beta;
  if (c.format == Format::csr) {
    const auto fill = [](auto& f, const auto* s, const auto& x, const auto& y, const Value alpha, const Value beta) {
      f.row_ptr = s->csr.row_ptr;
      f.col_idx = s->csr.col_idx;
      f.values = s->csr.values;
      f.x = x;
      f.y = y;
      f.partition = s->partition;
      f.alpha = alpha;
      f.beta = beta;
    };
    if (c.mapping == Mapping::thread_per_row) {
      using F = CsrThreadPerRow<ExecSpace, Value, Offset, Unroll, BetaZero, MValue>;
      launch_range_made(
          space, label, c.schedule, nrows, p.num_blocks, chunk,
          [s, x, y, alpha, beta, fill] {
            F f;
            fill(f, s, x, y, alpha, beta);
            return f;
          },
          cursors, p.threads);
    } else {
      CsrTeamPerRow<ExecSpace, Value, Offset, Unroll, BetaZero, MValue> f;
      fill(f, s, x, y, alpha, beta);
      f.nrows = nrows;
      f.rows_per_team = p.rows_per_team;
      f.vector_length = p.vector_length;
      launch_teams(space, label, c.schedule, p, f, cursors);
    }
    return;
  }
  const auto& S = st.sell;
  const Workspace<ExecSpace, Value>* const w = call.workspace;
  const bool permuted = c.keep_permuted;
  const auto fill = [](auto& f, const auto* s, const auto& x, const auto& y, const Value alpha, const Value beta,
                       const auto* w, const std::int32_t nrows, const bool permuted) {
    const auto& S = s->sell;
    f.slice_ptr = S.slice_ptr;
    f.row_len = S.row_len;
    f.perm = S.perm;
    f.col_idx = S.col_idx;
    f.values = S.values;
    f.x = x;
    f.y = y;
    f.partition = s->partition;
    f.alpha = alpha;
    f.beta = beta;
    f.partial = w->partial;
    f.nrows = nrows;
    f.npos = S.npos;
    f.nslices = static_cast<std::int32_t>(S.nslices());
    f.log2_c = s->log2_c;
    f.permuted_output = permuted;
    f.compressed = S.compressed;
    f.col_base = S.col_base;
    f.off_ptr = S.off_ptr;
    f.col_off = S.col_off;
  };
  if (c.mapping == Mapping::thread_per_row && p.slice_columns) {
    if constexpr (Traits::sell_slice_columns) {  // choose() sets slice_columns only where it compiles
      auto run = [&](auto kind) {
        using F = decltype(kind);
        launch_range_made(
            space, label, c.schedule, S.nslices(), p.num_blocks, chunk,
            [s, x, y, alpha, beta, w, nrows, permuted, fill] {
              F f;
              fill(f, s, x, y, alpha, beta, w, nrows, permuted);
              f.slice_width = s->sell.slice_width;
              return f;
            },
            cursors, p.threads);
      };
      if (S.compressed)
        run(SellSliceColumns<ExecSpace, Value, BetaZero, true, MValue>{});
      else
        run(SellSliceColumns<ExecSpace, Value, BetaZero, false, MValue>{});
    }
  } else if (c.mapping == Mapping::thread_per_row) {
    using F = SellRowPerThread<ExecSpace, Value, Unroll, BetaZero, MValue>;
    launch_range_made(
        space, label, c.schedule, S.npos, p.num_blocks, chunk,
        [s, x, y, alpha, beta, w, nrows, permuted, fill] {
          F f;
          fill(f, s, x, y, alpha, beta, w, nrows, permuted);
          return f;
        },
        cursors, p.threads);
  } else {
    SellSlicePerTeam<ExecSpace, Value, Unroll, BetaZero, MValue> f;
    fill(f, s, x, y, alpha, beta, w, nrows, permuted);
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
