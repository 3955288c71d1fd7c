#pragma once
/// @file storage.hpp
/// What a plan holds in the execution space's memory (its copy of the matrix as CSR or
/// SELL-C-sigma, the nnz partition) and the per-call scratch of a multiply (Workspace).

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "pspmv/backends/exec_traits.hpp"
#include "pspmv/matrix/csr.hpp"
#include "pspmv/matrix/row_stats.hpp"
#include "pspmv/matrix/sell.hpp"
#include "pspmv/matrix/sell_build.hpp"
#include "pspmv/matrix/sell_compress.hpp"
#include "pspmv/choice.hpp"
#include "pspmv/detail/staging.hpp"

namespace pspmv {

/// The scratch one multiply() writes: the piece sums of split long rows (SELL) and the
/// chunk-queue words of a run-time schedule (dynamic_chunks, work_stealing). Two multiplies
/// of one plan may run at once (on two execution-space instances) only with two workspaces
/// (Plan::make_workspace()). Empty for plans that need no scratch.
template <class ExecSpace, class Value>
struct Workspace {
  using memory_space = typename ExecSpace::memory_space;
  Kokkos::View<Value*, memory_space> partial;         ///< sums of the pieces of split long rows: piece x
                                                      ///< ExecTraits::multi_columns (several vectors)
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

/// Whether two choices store the same matrix: the same format and, for SELL, the same C,
/// sigma, long-row handling and column compression (mapping, schedule and launch sizes may
/// differ).
inline bool same_storage(const PlanChoice& a, const PlanChoice& b) {
  if (a.format != b.format) return false;
  if (a.format == Format::csr) return true;
  const LaunchParams &p = a.launch, &q = b.launch;
  return p.slice_height == q.slice_height && p.sigma == q.sigma && p.long_row_threshold == q.long_row_threshold &&
         p.long_split == q.long_split && p.compressed == q.compressed;
}

/// Whether a plan may hold `A`'s arrays instead of copying them: Kokkos counts their
/// references (managed Views), so they live as long as the plan does.
template <class Csr>
bool can_share(const Csr& A) {
  return A.row_ptr.use_count() > 0 && (A.nnz() == 0 || (A.col_idx.use_count() > 0 && A.values.use_count() > 0));
}

/// The blocks of a CSR plan's nnz_balanced schedule over rows [0, n) of `row_ptr`: nearly equal
/// masked groups (LaunchParams::block_groups: group_partition), else nearly equal entries +
/// block_row_weight x rows (nnz_partition).
template <class Offset>
void csr_blocks(const Offset* row_ptr, std::int32_t n, const LaunchParams& p, std::int32_t* partition) {
  if (p.block_groups)
    group_partition(row_ptr, n, p.num_blocks, partition, host_masked_group);
  else
    nnz_partition(row_ptr, n, p.num_blocks, partition, p.block_row_weight);
}

/// Builds the storage of `choice` for A on `space`: converts to SELL where chosen (from
/// `order` when it is the sorted order of the chosen sigma and long-row handling, as choose()
/// leaves it; else sorting here), computes the nnz partition, copies into the space's memory
/// (a host SELL plan keeps the SELL it built); returns once the copies are done. Each phase's
/// seconds go to `phases` when given.
/// A CSR plan holds A's own arrays where the space's memory is the host's, unless
/// `copy_matrix` or A's Views are unmanaged (can_share()). A host CSR goes to a device
/// through the staging buffers (detail::upload), which takes A's fingerprint on the way when
/// `fingerprint` is given (fingerprint->taken).
/// With `resident` (the matrix already in the space's memory; A then carries its sizes, and a
/// host copy of row_ptr only where a CSR plan's nnz-balanced partition needs it), nothing is
/// uploaded: SELL is built from it and a CSR plan holds it (or a copy made on the device with
/// `copy_matrix`).
/// With `shared` (the storage of a plan of the same matrix whose choice is `shared_choice`)
/// and same_storage(choice, *shared_choice), the stored matrix is shared (Views are reference
/// counted; plans only read them) and only the partition is computed.
template <class ExecSpace, class Value, class Offset>
Storage<ExecSpace, Value, Offset> build_storage(const ExecSpace& space, const HostCsr<Value, Offset>& A,
                                                const PlanChoice& choice, const SellOrder* order = nullptr,
                                                AnalysisPhases* phases = nullptr,
                                                const Storage<ExecSpace, Value, Offset>* shared = nullptr,
                                                const PlanChoice* shared_choice = nullptr, bool copy_matrix = true,
                                                const CsrMatrix<Value, Offset, std::int32_t, typename ExecSpace::memory_space>*
                                                    resident = nullptr,
                                                StagedFingerprint* fingerprint = nullptr,
                                                const SellOrderOn<typename ExecSpace::memory_space>* device_order = nullptr) {
  using memory_space = typename ExecSpace::memory_space;
  using clock = std::chrono::steady_clock;
  const auto seconds = [](clock::time_point t0) { return std::chrono::duration<double>(clock::now() - t0).count(); };
  AnalysisPhases ph;
  Storage<ExecSpace, Value, Offset> st;
  const LaunchParams& p = choice.launch;
  // A CSR plan asked for its own copy does not share `like`'s storage when that holds A's arrays.
  const bool shared_holds_input = shared && choice.format == Format::csr &&
                                  static_cast<const void*>(shared->csr.values.data()) ==
                                      static_cast<const void*>(A.values.data()) &&
                                  A.nnz() > 0;
  // Rows of a CSR plan by their masked groups or weighed by block_row_weight (csr_blocks); SELL's
  // slices by their entries.
  auto partition_of = [&](const auto* offsets, std::int32_t n) {
    const auto t0 = clock::now();
    Kokkos::View<std::int32_t*, Kokkos::HostSpace> h("pspmv::partition", static_cast<std::size_t>(p.num_blocks) + 1);
    if (choice.format == Format::csr)
      csr_blocks(offsets, n, p, h.data());
    else
      nnz_partition(offsets, n, p.num_blocks, h.data());
    st.partition = Kokkos::View<std::int32_t*, memory_space>("pspmv::partition", h.extent(0));
    Kokkos::deep_copy(space, st.partition, h);
    space.fence();  // h is released on return
    ph.partition = seconds(t0);
  };
  if (shared && shared_choice && same_storage(choice, *shared_choice) && !(copy_matrix && shared_holds_input)) {
    st.csr = shared->csr;
    st.sell = shared->sell;
    st.log2_c = shared->log2_c;
    if (choice.schedule == Schedule::nnz_balanced) {
      if (choice.format == Format::sell) {
        const auto offsets = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), st.sell.slice_ptr);
        partition_of(offsets.data(), static_cast<std::int32_t>(st.sell.nslices()));
      } else {
        partition_of(A.row_ptr.data(), A.nrows);
      }
    }
    if (phases) {
      phases->partition = ph.partition;
      phases->shares_storage = true;
      const void* input = resident ? static_cast<const void*>(resident->row_ptr.data()) : A.row_ptr.data();
      phases->shares_input = choice.format == Format::csr && st.csr.row_ptr.data() == input;
    }
    return st;
  }
  constexpr bool device = !Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory_space>::accessible;
  if (device && choice.format == Format::sell) {
    // A GPU: the CSR copied to the device once, SELL built there from that copy, in the order
    // computed there for the choice (`device_order`, a matrix already in device memory) or in
    // the order choose() computed on the host (copied instead of sorting again).
    const bool split = p.long_split && p.long_row_threshold > 0;
    auto t0 = clock::now();
    const auto dA = resident ? *resident : upload(space, A, fingerprint);
    ph.copy = seconds(t0);
    t0 = clock::now();
    const bool known = order && order->is(p.sigma, p.long_row_threshold, split);
    if (resident && device_order && device_order->is(p.sigma, p.long_row_threshold, split)) {
      check_sell_parameters(p.slice_height, p.sigma);
      st.sell = csr_to_sell_on(space, dA, p.slice_height, *device_order);
      ph.device_order = true;
    } else {
      st.sell = csr_to_sell_on(space, dA, p.slice_height, p.sigma, p.long_row_threshold, split,
                               known ? &order->perm : nullptr);
    }
    if (p.compressed) compress_columns(space, st.sell);
    while ((1 << st.log2_c) < p.slice_height) ++st.log2_c;
    ph.conversion = seconds(t0);
    if (choice.schedule == Schedule::nnz_balanced) {
      const auto offsets = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), st.sell.slice_ptr);
      partition_of(offsets.data(), static_cast<std::int32_t>(st.sell.nslices()));
    }
  } else if (choice.format == Format::sell) {
    auto t0 = clock::now();
    const bool split = p.long_split && p.long_row_threshold > 0;
    SellMatrix<Value, Kokkos::HostSpace> h;
    // Compressed: the columns written once, in their compressed form (csr_to_compressed_sell).
    if (order && order->is(p.sigma, p.long_row_threshold, split)) {
      check_sell_parameters(p.slice_height, p.sigma);
      h = p.compressed ? csr_to_compressed_sell(A, p.slice_height, *order) : csr_to_sell(A, p.slice_height, *order);
    } else {
      h = p.compressed ? csr_to_compressed_sell(A, p.slice_height, p.sigma, p.long_row_threshold, p.long_split)
                       : csr_to_sell(A, p.slice_height, p.sigma, p.long_row_threshold, p.long_split);
    }
    ph.conversion = seconds(t0);
    if (choice.schedule == Schedule::nnz_balanced)
      partition_of(h.slice_ptr.data(), static_cast<std::int32_t>(h.nslices()));
    t0 = clock::now();
    if constexpr (std::is_same<memory_space, Kokkos::HostSpace>::value) {
      st.sell = std::move(h);  // built in the plan's own memory: kept, not copied
    } else {
      st.sell = copy_to<memory_space>(space, h);
      space.fence();
    }
    while ((1 << st.log2_c) < p.slice_height) ++st.log2_c;
    ph.copy = seconds(t0);
  } else {
    if (choice.schedule == Schedule::nnz_balanced) partition_of(A.row_ptr.data(), A.nrows);
    const auto t0 = clock::now();
    if (resident && !copy_matrix && can_share(*resident)) {
      st.csr = *resident;
      ph.shares_input = true;
    } else if (resident) {
      st.csr = copy_to<memory_space>(space, *resident);
      space.fence();
    } else if constexpr (std::is_same<memory_space, Kokkos::HostSpace>::value) {
      if (!copy_matrix && can_share(A)) {
        st.csr = A;  // the caller's arrays: Views count references, the plan only reads them
        ph.shares_input = true;
      } else {
        st.csr = copy_to<memory_space>(space, A);
        space.fence();
      }
    } else {
      st.csr = upload(space, A, fingerprint);
    }
    ph.copy = seconds(t0);
  }
  if (phases) {
    phases->conversion = ph.conversion;
    phases->partition = ph.partition;
    phases->copy = ph.copy;
    phases->shares_input = ph.shares_input;
    phases->device_order = ph.device_order;
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
                                                   static_cast<std::size_t>(p.long_pieces) * Traits::multi_columns);
  if (choice.schedule == Schedule::dynamic_chunks || choice.schedule == Schedule::work_stealing)
    // Room for the most queues any instance can use (its concurrency may differ from analyze's).
    w.cursors = Kokkos::View<std::int64_t*, memory_space>(
        "pspmv::chunk_cursors", static_cast<std::size_t>(Traits::max_chunk_queues * Traits::chunk_queue_stride));
  return w;
}

}  // namespace detail
}  // namespace pspmv
