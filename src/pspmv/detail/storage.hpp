#pragma once
/// @file storage.hpp
/// What a plan holds in the execution space's memory (its copy of the matrix as CSR or
/// SELL-C-sigma, the nnz partition) and the per-call scratch of a multiply (Workspace).

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>

#include "pspmv/backends/exec_traits.hpp"
#include "pspmv/matrix/csr.hpp"
#include "pspmv/matrix/row_stats.hpp"
#include "pspmv/matrix/sell.hpp"
#include "pspmv/choice.hpp"

namespace pspmv {

/// The scratch one multiply() writes: the piece sums of split long rows (SELL) and the
/// chunk-queue words of a run-time schedule (dynamic_chunks, work_stealing). Two multiplies
/// of one plan may run at once (on two execution-space instances) only with two workspaces
/// (Plan::make_workspace()). Empty for plans that need no scratch.
template <class ExecSpace, class Value>
struct Workspace {
  using memory_space = typename ExecSpace::memory_space;
  Kokkos::View<Value*, memory_space> partial;         ///< one sum per piece of a split long row
  Kokkos::View<std::int64_t*, memory_space> cursors;  ///< chunk-queue words (detail::ChunkQueues)
  std::size_t bytes() const { return partial.extent(0) * sizeof(Value) + cursors.extent(0) * sizeof(std::int64_t); }
  /// Whether this workspace holds at least what `need` does, array by array.
  bool covers(const Workspace& need) const {
    return partial.extent(0) >= need.partial.extent(0) && cursors.extent(0) >= need.cursors.extent(0);
  }
};

namespace detail {

/// A plan's matrix in ExecSpace's memory: CSR or SELL (the other empty) and, for
/// nnz_balanced, the partition of rows (CSR) or slices (SELL) into blocks.
template <class ExecSpace, class Value, class Offset>
struct Storage {
  using memory_space = typename ExecSpace::memory_space;
  CsrMatrix<Value, Offset, std::int32_t, memory_space> csr;
  SellMatrix<Value, memory_space> sell;
  Kokkos::View<std::int32_t*, memory_space> partition;
  int log2_c = 0;  ///< SELL: log2 of the slice height
  std::size_t bytes() const { return csr.bytes() + sell.bytes() + partition.extent(0) * sizeof(std::int32_t); }
};

/// Builds the storage of `choice` for A on `space`: converts to SELL where chosen, computes the
/// nnz partition, copies into the space's memory; returns once the copies are done.
template <class ExecSpace, class Value, class Offset>
Storage<ExecSpace, Value, Offset> build_storage(const ExecSpace& space, const HostCsr<Value, Offset>& A,
                                                const PlanChoice& choice) {
  using memory_space = typename ExecSpace::memory_space;
  Storage<ExecSpace, Value, Offset> st;
  const LaunchParams& p = choice.launch;
  auto partition_of = [&](const auto* offsets, std::int32_t n) {
    Kokkos::View<std::int32_t*, Kokkos::HostSpace> h("pspmv::partition", static_cast<std::size_t>(p.num_blocks) + 1);
    nnz_partition(offsets, n, p.num_blocks, h.data());
    st.partition = Kokkos::View<std::int32_t*, memory_space>("pspmv::partition", h.extent(0));
    Kokkos::deep_copy(space, st.partition, h);
    space.fence();  // h is released on return
  };
  if (choice.format == Format::sell) {
    const auto h = csr_to_sell(A, p.slice_height, p.sigma, p.long_row_threshold, p.long_split);
    if (choice.schedule == Schedule::nnz_balanced)
      partition_of(h.slice_ptr.data(), static_cast<std::int32_t>(h.nslices()));
    st.sell = copy_to<memory_space>(space, h);
    while ((1 << st.log2_c) < p.slice_height) ++st.log2_c;
    space.fence();
  } else {
    if (choice.schedule == Schedule::nnz_balanced) partition_of(A.row_ptr.data(), A.nrows);
    st.csr = copy_to<memory_space>(space, A);
    space.fence();
  }
  return st;
}

/// An empty workspace sized for `choice` (see Workspace).
template <class ExecSpace, class Value>
Workspace<ExecSpace, Value> make_workspace(const PlanChoice& choice) {
  using Traits = ExecTraits<ExecSpace>;
  using memory_space = typename ExecSpace::memory_space;
  Workspace<ExecSpace, Value> w;
  const LaunchParams& p = choice.launch;
  if (choice.format == Format::sell && p.long_split && p.long_pieces > 0)
    w.partial = Kokkos::View<Value*, memory_space>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "pspmv::sell_partial"),
                                                   static_cast<std::size_t>(p.long_pieces));
  if (choice.schedule == Schedule::dynamic_chunks || choice.schedule == Schedule::work_stealing)
    // Room for the most queues any instance can use (its concurrency may differ from analyze's).
    w.cursors = Kokkos::View<std::int64_t*, memory_space>(
        "pspmv::chunk_cursors", static_cast<std::size_t>(Traits::max_chunk_queues * Traits::chunk_queue_stride));
  return w;
}

}  // namespace detail
}  // namespace pspmv
