#pragma once
/// @file multi_launch.hpp
/// One multiply of several vectors (Y = alpha A X + beta Y, X and Y of k columns): the checks,
/// then per block of at most ExecTraits::multi_columns columns the plan's kernel (multi_kernels.hpp)
/// in the K bucket of the block, under the plan's schedule on the caller's instance.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "pspmv/detail/launch.hpp"
#include "pspmv/detail/multi_kernels.hpp"

namespace pspmv {
namespace detail {

/// Kokkos Tools names of a plan's several-vector kernels: its one-vector names + "::multi".
inline Labels multi_labels_of(const PlanChoice& c) {
  Labels l = labels_of(c);
  l.kernel += "::multi";
  l.long_rows += "::multi";
  l.lanes = l.kernel + "::lanes";  // built once with the plan, not at every multiply
  return l;
}

/// The checks of a several-vector multiply: rows of X and Y, equal column counts, a workspace
/// large enough, no overlap of X's and Y's spans.
/// @throws DimensionError naming both sizes; InvalidArgument for a small workspace or overlap.
template <class XView, class YView>
void check_multi_call(std::int32_t nrows, std::int32_t ncols, const XView& X, const YView& Y, bool workspace_fits) {
  if (static_cast<std::int64_t>(X.extent(0)) != ncols)
    throw DimensionError("multiply: rows of X (= ncols of A)", ncols, static_cast<std::int64_t>(X.extent(0)));
  if (static_cast<std::int64_t>(Y.extent(0)) != nrows)
    throw DimensionError("multiply: rows of Y (= nrows of A)", nrows, static_cast<std::int64_t>(Y.extent(0)));
  if (X.extent(1) != Y.extent(1))
    throw DimensionError("multiply: columns of Y (= columns of X)", static_cast<std::int64_t>(X.extent(1)),
                         static_cast<std::int64_t>(Y.extent(1)));
  if (!workspace_fits)
    throw InvalidArgument("multiply: the workspace is smaller than this plan needs (use plan.make_workspace())");
  const auto* xb = X.data();
  const auto* yb = Y.data();
  if (xb != nullptr && yb != nullptr && X.span() > 0 && Y.span() > 0 && xb < yb + Y.span() && yb < xb + X.span())
    throw InvalidArgument("multiply: X and Y overlap in memory; pass distinct multivectors");
}

/// Columns of a block of K a thread of MultiColumnLanes takes: over SELL
/// ExecTraits::multi_lane_columns_sell, at most K; over CSR as many as leave each row
/// ExecTraits::multi_lane_row_threads_csr threads, at least 1.
template <class ExecSpace, int K, bool Sell>
constexpr int multi_lane_width() {
  using T = ExecTraits<ExecSpace>;
  constexpr int w = Sell ? T::multi_lane_columns_sell
                         : (T::multi_lane_row_threads_csr > 0 ? K / T::multi_lane_row_threads_csr : 1);
  return w < 1 ? 1 : (w > K ? K : w);
}

/// One block of columns [col0, col0 + nk) in bucket K (nk <= K).
template <int K, class ExecSpace, class Value, class Offset, class MValue>
void launch_multi_block(const ExecSpace& space, const Storage<ExecSpace, MValue, Offset>& st, const PlanChoice& c,
                        const Labels& labels, std::int32_t nrows, const MultiXView<Value, typename ExecSpace::memory_space>& X,
                        const MultiYView<Value, typename ExecSpace::memory_space>& Y, Value alpha, Value beta,
                        const Workspace<ExecSpace, Value>& ws, int col0, int nk) {
  const LaunchParams& p = c.launch;
  const int chunk = static_cast<int>(p.chunk_size);
  const KernelView<std::int64_t*, typename ExecSpace::memory_space> cursors = ws.cursors;
  auto base = [&](auto& f) {
    f.X = X;
    f.Y = Y;
    f.alpha = alpha;
    f.beta = beta;
    f.beta_zero = beta == Value(0);
    f.x_unit = X.stride(1) == 1;
    f.col0 = col0;
    f.nk = nk;
    f.x_full = f.x_unit && nk == K;
    f.y_full = Y.stride(1) == 1 && nk == K;
  };
  // A thread per row and W columns (MultiColumnLanes) where the space asks for it, X's and Y's
  // columns are adjacent, the schedule hands consecutive items to consecutive threads (a chunk
  // queue gives a chunk's items to one thread, which would run a row's K columns one after the
  // other) and the work items, at most K per row, position or block (K / W), fit the kernels'
  // index; else the K-sum kernel.
  const bool column_lanes = ExecTraits<ExecSpace>::multi_column_lanes && c.mapping == Mapping::thread_per_row &&
                     !p.slice_columns && X.stride(1) == 1 && Y.stride(1) == 1 &&
                     (c.schedule == Schedule::static_chunks || c.schedule == Schedule::nnz_balanced) &&
                     std::max<std::int64_t>({std::int64_t{nrows}, c.format == Format::csr ? 0 : st.sell.npos,
                                             static_cast<std::int64_t>(p.num_blocks)}) * K <=
                         std::numeric_limits<std::int32_t>::max();
  // Whether a thread of MultiColumnLanes may take w adjacent columns, one load of X per entry:
  // the block is full and every thread's run of X is aligned to w values (X's rows a multiple
  // of w apart, the block's first column aligned); else it takes one.
  const auto runs_of = [&](const int w) {
    return w > 1 && nk == K && X.stride(0) % w == 0 &&
           reinterpret_cast<std::uintptr_t>(X.data() + col0) % (sizeof(Value) * static_cast<unsigned>(w)) == 0;
  };
  // Inner's fields for its w columns (x and y at constant offsets); MultiColumnLanes adds the group.
  auto run_lanes = [&](auto& f, const std::int64_t items) {
    constexpr int w = std::decay_t<decltype(f)>::width;
    constexpr int groups = K / w;
    f.nk = w;
    f.x_full = true;
    f.y_full = true;
    f.lane_pack = true;
    f.lanes = nk / w;
    const int lane_chunk = static_cast<int>(
        std::min<std::int64_t>(static_cast<std::int64_t>(chunk) * groups, std::numeric_limits<int>::max()));
    launch_range(space, labels.lanes, c.schedule, items * groups, p.num_blocks * groups, lane_chunk, f, cursors,
                 p.threads);
  };
  if (c.format == Format::csr) {
    auto fill = [&](auto& f) {
      base(f);
      f.row_ptr = st.csr.row_ptr;
      f.col_idx = st.csr.col_idx;
      f.values = st.csr.values;
      f.partition = st.partition;
    };
    if constexpr (ExecTraits<ExecSpace>::multi_column_lanes) {
      constexpr int W = multi_lane_width<ExecSpace, K, false>();
      if (column_lanes && runs_of(W)) {
        MultiColumnLanes<MultiCsrThreadPerRow<ExecSpace, Value, Offset, W, MValue>, K> f;
        fill(f);
        run_lanes(f, nrows);
        return;
      }
      if (column_lanes) {
        MultiColumnLanes<MultiCsrThreadPerRow<ExecSpace, Value, Offset, 1, MValue>, K> f;
        fill(f);
        run_lanes(f, nrows);
        return;
      }
    }
    if (c.mapping == Mapping::thread_per_row) {
      MultiCsrThreadPerRow<ExecSpace, Value, Offset, K, MValue> f;
      fill(f);
      launch_range(space, labels.kernel, c.schedule, nrows, p.num_blocks, chunk, f, cursors, p.threads);
    } else {
      MultiCsrTeamPerRow<ExecSpace, Value, Offset, K, MValue> f;
      fill(f);
      f.nrows = nrows;
      f.rows_per_team = p.rows_per_team;
      f.vector_length = p.vector_length;
      launch_teams(space, labels.kernel, c.schedule, p, f, cursors);
    }
    return;
  }
  const auto& S = st.sell;
  auto fill = [&](auto& f) {
    base(f);
    f.slice_ptr = S.slice_ptr;
    f.row_len = S.row_len;
    f.perm = S.perm;
    f.col_idx = S.col_idx;
    f.values = S.values;
    f.partition = st.partition;
    f.partial = ws.partial;
    f.nrows = nrows;
    f.npos = S.npos;
    f.nslices = static_cast<std::int32_t>(S.nslices());
    f.log2_c = st.log2_c;
    f.permuted_output = c.keep_permuted;
    f.compressed = S.compressed;
    f.col_base = S.col_base;
    f.off_ptr = S.off_ptr;
    f.col_off = S.col_off;
  };
  if (c.mapping == Mapping::thread_per_row && p.slice_columns) {
    if constexpr (ExecTraits<ExecSpace>::sell_slice_columns) {  // choose() sets slice_columns only there
      MultiSellSlices<ExecSpace, Value, K, MValue> f;  // work items are slices, as the plan's
      fill(f);
      f.slice_width = S.slice_width;
      launch_range(space, labels.kernel, c.schedule, S.nslices(), p.num_blocks, chunk, f, cursors, p.threads);
    }
  } else if (c.mapping == Mapping::thread_per_row) {
    bool done = false;
    if constexpr (ExecTraits<ExecSpace>::multi_column_lanes) {
      constexpr int W = multi_lane_width<ExecSpace, K, true>();
      if (column_lanes && runs_of(W)) {
        MultiColumnLanes<MultiSellRowPerThread<ExecSpace, Value, W, MValue>, K> f;
        fill(f);
        run_lanes(f, S.npos);
        done = true;
      } else if (column_lanes) {
        MultiColumnLanes<MultiSellRowPerThread<ExecSpace, Value, 1, MValue>, K> f;
        fill(f);
        run_lanes(f, S.npos);
        done = true;
      }
    }
    if (!done) {
      MultiSellRowPerThread<ExecSpace, Value, K, MValue> f;
      fill(f);
      launch_range(space, labels.kernel, c.schedule, S.npos, p.num_blocks, chunk, f, cursors, p.threads);
    }
  } else {
    MultiSellSlicePerTeam<ExecSpace, Value, K, MValue> f;
    fill(f);
    f.slices_per_team = p.slices_per_team;
    launch_teams(space, labels.kernel, c.schedule, p, f, cursors);
  }
  if (p.long_rows == 0) return;
  if (p.long_split) {
    MultiSellCombinePieces<ExecSpace, Value, K> g;
    base(g);
    g.long_rows = S.long_rows;
    g.piece_ptr = S.piece_ptr;
    g.partial = ws.partial;
    Kokkos::parallel_for(labels.long_rows, Kokkos::RangePolicy<ExecSpace>(space, 0, p.long_rows), g);
    return;
  }
  MultiSellLongRows<ExecSpace, Value, K, MValue> g;
  base(g);
  g.long_rows = S.long_rows;
  g.long_pos = S.long_pos;
  g.long_row_ptr = S.long_row_ptr;
  g.col_idx = S.long_col_idx;
  g.values = S.long_values;
  g.nlong = static_cast<std::int32_t>(p.long_rows);
  g.rows_per_team = p.long_team_size;
  g.vector_length = p.long_vector_length;
  g.permuted_output = c.keep_permuted;
  const std::int64_t league = (p.long_rows + p.long_team_size - 1) / p.long_team_size;
  Kokkos::parallel_for(labels.long_rows,
                       Kokkos::TeamPolicy<ExecSpace>(space, league, p.long_team_size, p.long_vector_length), g);
}

/// Y = alpha A X + beta Y with the plan's kernel, block by block of ExecTraits::multi_columns
/// columns (`empty`: alpha == 0 or no entries, Y = beta Y). Blocks run in order on `space`,
/// so they share the workspace's piece sums.
template <class ExecSpace, class Value, class Offset, class MValue>
void launch_multi(const ExecSpace& space, const Storage<ExecSpace, MValue, Offset>& st, const PlanChoice& c,
                  const Labels& labels, std::int32_t nrows, bool empty,
                  const MultiXView<Value, typename ExecSpace::memory_space>& X,
                  const MultiYView<Value, typename ExecSpace::memory_space>& Y, Value alpha, Value beta,
                  const Workspace<ExecSpace, Value>& ws) {
  if (!empty) check_teams_outside_region<ExecSpace>(c);
  if (empty) {
    Kokkos::parallel_for("pspmv::scale_y::multi", Kokkos::RangePolicy<ExecSpace>(space, 0, nrows),
                         MultiScaleY<ExecSpace, Value>{Y, beta, beta == Value(0)});
    return;
  }
  constexpr int widest = ExecTraits<ExecSpace>::multi_columns;
  static_assert(widest == 8 || widest == 16, "ExecTraits::multi_columns: 8 or 16");
  const int k = static_cast<int>(X.extent(1));
  for (int col0 = 0; col0 < k; col0 += widest) {
    const int nk = std::min(widest, k - col0);
    if (nk <= 2)
      launch_multi_block<2>(space, st, c, labels, nrows, X, Y, alpha, beta, ws, col0, nk);
    else if (nk <= 4)
      launch_multi_block<4>(space, st, c, labels, nrows, X, Y, alpha, beta, ws, col0, nk);
    else if constexpr (widest == 8)
      launch_multi_block<8>(space, st, c, labels, nrows, X, Y, alpha, beta, ws, col0, nk);
    else if (nk <= 8)
      launch_multi_block<8>(space, st, c, labels, nrows, X, Y, alpha, beta, ws, col0, nk);
    else
      launch_multi_block<16>(space, st, c, labels, nrows, X, Y, alpha, beta, ws, col0, nk);
  }
}

}  // namespace detail
}  // namespace pspmv
